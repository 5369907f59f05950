/*
 * No aggregation after speculate().
 */
BEGIN
{
	speculate(1);
	@a = count();
}
