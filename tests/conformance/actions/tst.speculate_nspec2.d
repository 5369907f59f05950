/*
 * With nspec=2 two speculations can be active at once.
 * kdt-args: -q -x nspec=2
 */
BEGIN
{
	a = speculation();
	b = speculation();
	printf("%d %d\n", a, b);
	exit(0);
}
