/*
 * A character constant holds up to eight bytes, the first the most
 * significant; its value is unsigned ('\377' is 255) and an int when it
 * fits one.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d\n", 'ab', '\377', sizeof ('a'));
	printf("%x %d\n", 'abcdefgh', '\q' == 0x5c71);
	exit(0);
}
