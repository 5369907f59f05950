/*
 * trunc() takes an aggregation.
 */
BEGIN
{
	trunc(1);
	exit(0);
}
