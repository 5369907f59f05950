/*
 * Entries with equal values sort by key.
 * kdt-args: -q
 */
BEGIN
{
	@a["c"] = count();
	@a["a"] = count();
	@a["b"] = count();
	exit(0);
}
