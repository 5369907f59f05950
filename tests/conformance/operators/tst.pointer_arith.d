/*
 * Pointer arithmetic is scaled by the size of the pointed-to type;
 * subscripts and * agree; the difference of two pointers counts elements.
 * kdt-args: -q
 */
BEGIN
{
	p = (int *)alloca(4 * sizeof (int));
	p[0] = 10;
	p[1] = 20;
	*(p + 2) = 30;
	q = p + 3;
	*q = 40;
	printf("%d %d %d %d\n", p[0], *(p + 1), p[2], q[0]);
	printf("%d %d\n", q - p, (char *)q - (char *)p);
	exit(0);
}
