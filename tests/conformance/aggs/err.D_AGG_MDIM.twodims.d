/*
 * An aggregation has one key tuple, not several dimensions.
 */
BEGIN
{
	@a[1][2] = count();
	exit(0);
}
