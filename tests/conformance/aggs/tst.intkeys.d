/*
 * A 4-byte integer key prints in 8 columns.
 * kdt-args: -q
 */
BEGIN
{
	@a[1] = sum(10);
	@a[2] = sum(5);
	exit(0);
}
