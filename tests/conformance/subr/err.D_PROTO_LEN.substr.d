/*
 * substr() needs at least a string and a start index.
 */
BEGIN
{
	x = substr("abc");
	exit(0);
}
