/*
 * A translator may take a struct by value; a cast of a struct to its own
 * type is the struct itself.
 * kdt-args: -q
 */
struct in { int i; char c; };
struct out { int oi; char oc; };

translator struct out < struct in v >
{
	oi = ((struct in)v).i * 2;
	oc = v.c;
};

struct in g;

BEGIN
{
	g.i = 21;
	g.c = 'x';
	printf("%d %c\n", xlate <struct out> (g).oi, xlate <struct out> (g).oc);
	exit(0);
}
