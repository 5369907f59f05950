/*
 * A whole struct or union is copied into a D variable (global, self->,
 * this->) by assignment; the copy keeps its value when the original
 * changes.  A struct or union may also be a key of an associative array,
 * compared by its bytes.
 * kdt-args: -q
 */
struct s { int a; char c; long l; } g, k1, k2;
union u { int i; char b[4]; } un;

BEGIN
{
	g.a = 1; g.c = 'x'; g.l = 77;
	h = g;
	self->t = g;
	this->u = g;
	g.a = 2;
	printf("%d %c %d / %d %d %d\n", h.a, h.c, h.l, self->t.a, this->u.l, g.a);
	un.i = 0x41424344;
	v = un;
	printf("%c\n", v.b[0]);

	k1.a = 1; k1.c = 'x';
	k2.a = 2; k2.c = 'y';
	arr[k1] = 10;
	arr[k2] = 20;
	arr[k1] += 1;
	k2.a = 1; k2.c = 'x';
	printf("%d %d\n", arr[k1], arr[k2]);
	exit(0);
}
