/*
 * strjoin() takes strings, not integers.
 */
BEGIN
{
	x = strjoin(1, "b");
	exit(0);
}
