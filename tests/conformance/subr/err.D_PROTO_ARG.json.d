/*
 * The selector of json() is a string, not an index.
 */
BEGIN
{
	x = json("[1, 2]", 0);
	exit(0);
}
