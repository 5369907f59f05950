/*
 * Values sort as signed numbers.
 * kdt-args: -q
 */
BEGIN
{
	@a["pos"] = sum(5);
	@a["neg"] = sum(-5);
	@a["zero"] = sum(0);
	exit(0);
}
