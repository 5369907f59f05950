/*
 * $1 with no argument given (and no defaultargs) is an error.
 */
BEGIN
{
	printf("%d\n", $1);
	exit(0);
}
