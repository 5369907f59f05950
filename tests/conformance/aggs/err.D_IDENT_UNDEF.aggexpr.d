/*
 * An aggregation that was never defined, used in an expression, is an
 * unknown identifier.
 */
BEGIN
{
	trace(@nosuch + 1);
	exit(0);
}
