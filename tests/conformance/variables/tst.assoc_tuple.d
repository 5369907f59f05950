/*
 * Associative arrays keyed by tuples of mixed integer and string type.
 * kdt-args: -q
 */
BEGIN
{
	b[1, "one"] = 100;
	b[2, "two"] = 200;
	printf("%d %d %d\n", b[1, "one"], b[2, "two"], b[1, "two"]);
	exit(0);
}
