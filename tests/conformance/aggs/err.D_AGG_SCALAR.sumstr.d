/*
 * sum() of a string is an error.
 */
BEGIN
{
	@a = sum("x");
	exit(0);
}
