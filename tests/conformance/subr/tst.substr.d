/*
 * substr() with a start index (negative counts from the end) and an
 * optional length.
 * kdt-args: -q
 */
BEGIN
{
	printf("[%s] [%s] [%s]\n", substr("hello world", 6),
	    substr("hello", 1, 3), substr("hello", -3));
	printf("[%s] [%s] [%s]\n", substr("hello", 0, 0), substr("hello", 10),
	    substr("hello", 2, 100));
	/* an index far before the start: nothing, and no overflow */
	printf("[%s] [%s]\n", substr("hello", -9223372036854775807 - 1),
	    substr("hello", -9223372036854775807 - 1, 3));
	exit(0);
}
