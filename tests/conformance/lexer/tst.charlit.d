/*
 * Character literals and their escapes have the value of the character,
 * as an int.  As in dtrace, an escape it does not know ('\'' here) keeps
 * its backslash: two bytes, the first the most significant (0x5c27).
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d %d %d %d %d\n", 'a', '\n', '\0', '\x41', '\101',
	    '\\', '\'');
	printf("%c%c\n", 'o', 'k');
	exit(0);
}
