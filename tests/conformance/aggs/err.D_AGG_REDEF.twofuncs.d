/*
 * One aggregation cannot use two functions.
 */
BEGIN
{
	@a = count();
	@a = sum(1);
	exit(0);
}
