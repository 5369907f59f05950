/*
 * Assigning 0 to an associative element frees it; it then reads as 0 and
 * can be assigned again.
 * kdt-args: -q
 */
BEGIN
{
	a[1] = 5;
	a[1] = 0;
	printf("%d ", a[1]);
	a[1] = 6;
	printf("%d\n", a[1]);
	exit(0);
}
