/*
 * %s needs a string argument.
 */
BEGIN
{
	printf("%s\n", 1);
	exit(0);
}
