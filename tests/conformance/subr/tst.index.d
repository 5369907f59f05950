/*
 * index() and rindex(), with and without a start position.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d\n", index("hello", "l"), rindex("hello", "l"),
	    index("hello", "z"));
	printf("%d %d %d\n", index("hello", "l", 3), rindex("hello", "l", 2),
	    index("abcabc", "bc", 2));
	exit(0);
}
