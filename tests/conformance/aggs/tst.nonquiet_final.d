/*
 * Unquiet run with an aggregation: the probe line, the final newline,
 * then the aggregation.
 */
BEGIN
{
	@a["k"] = count();
	exit(0);
}
