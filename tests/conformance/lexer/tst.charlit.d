/*
 * Character literals and their escapes have the value of the character.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d %d %d %d %d\n", 'a', '\n', '\0', '\x41', '\101',
	    '\\', '\'');
	printf("%c%c\n", 'o', 'k');
	exit(0);
}
