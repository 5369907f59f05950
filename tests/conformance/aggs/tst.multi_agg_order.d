/*
 * At exit, aggregations print in the order of their first appearance in
 * the program, with nothing between them.
 * kdt-args: -q
 */
BEGIN
{
	@second = sum(2);
	@first = sum(1);
	@third["k"] = sum(3);
	exit(0);
}
