/*
 * Macro arguments: $1 is an integer, $$2 a string, both given after the
 * script on the command line.
 * kdt-args: -q -- 42 hello
 */
BEGIN
{
	printf("%d %s %d\n", $1, $$2, $1 + 1);
	exit(0);
}
