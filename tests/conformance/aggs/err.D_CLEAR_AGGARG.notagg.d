/*
 * clear() takes an aggregation.
 */
BEGIN
{
	clear(1);
	exit(0);
}
