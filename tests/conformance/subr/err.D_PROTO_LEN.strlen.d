/*
 * strlen() takes exactly one argument.
 */
BEGIN
{
	x = strlen("a", "b");
	exit(0);
}
