/*
 * With nspec=1 a second speculation() while the first is active returns
 * 0 (and the failed speculation is reported on stderr).
 * kdt-args: -q
 */
BEGIN
{
	a = speculation();
	b = speculation();
	printf("%d %d\n", a, b);
	exit(0);
}
