/*
 * Integer keys compare as unsigned numbers, so -1 sorts after 2.
 * kdt-args: -q
 */
BEGIN
{
	@a[-1] = sum(1);
	@a[2] = sum(1);
	@a[1] = sum(1);
	exit(0);
}
