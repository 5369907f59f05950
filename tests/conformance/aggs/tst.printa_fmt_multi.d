/*
 * A formatted printa() of two aggregations: one %@ per aggregation.
 * kdt-args: -q
 */
BEGIN
{
	@a["x"] = count();
	@b["x"] = sum(30);
	@a["y"] = count();
	@a["y"] = count();
	@b["y"] = sum(10);
	printa("%-4s %@4d %@4d\n", @a, @b);
	exit(0);
}
