/*
 * & of an element of a D array gives a pointer into the array that
 * pointer arithmetic and * follow, also in a later clause.
 * kdt-args: -q
 */
int a[4];

BEGIN
{
	a[0] = 10;
	a[1] = 20;
	a[3] = 40;
	p = &a[0];
	q = &a[3];
	printf("%d %d %d %d\n", *p, *(p + 1), p[3], q - p);
}

BEGIN
{
	*(p + 2) = 30;
	printf("%d\n", a[2]);
	exit(0);
}
