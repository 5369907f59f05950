/*
 * normalize() divides the printed values.
 * kdt-args: -q
 */
BEGIN
{
	@a["x"] = sum(1000);
	@a["y"] = sum(3000);
	normalize(@a, 1000);
	exit(0);
}
