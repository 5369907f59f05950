/*
 * printa() of two aggregations with the same keys prints one line per
 * key with both values, sorted by the first one's values.
 * kdt-args: -q
 */
BEGIN
{
	@a["x"] = count();
	@b["x"] = sum(30);
	@a["y"] = count();
	@a["y"] = count();
	@b["y"] = sum(10);
	@a["z"] = count();
	@a["z"] = count();
	@a["z"] = count();
	@b["z"] = sum(20);
	printa(@a, @b);
	exit(0);
}
