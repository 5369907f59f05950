/*
 * %S and %C print strings and characters with C escapes.
 * kdt-args: -q
 */
BEGIN
{
	printf("%S|%C\n", "a\tb\n", '\n');
	exit(0);
}
