/*
 * A global scalar array declared with a size.
 * kdt-args: -q
 */
int a[5];

BEGIN
{
	a[0] = 1;
	a[4] = 5;
	printf("%d %d %d\n", a[0], a[4], a[0] + a[4]);
	exit(0);
}
