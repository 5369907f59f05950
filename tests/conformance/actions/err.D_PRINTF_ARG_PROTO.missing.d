/*
 * Fewer printf arguments than conversions is an error.
 */
BEGIN
{
	printf("%d %d\n", 1);
	exit(0);
}
