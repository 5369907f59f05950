/*
 * clear() zeroes the values but keeps the keys; later updates count
 * from zero.
 * kdt-args: -q
 */
BEGIN
{
	@a["x"] = count();
	@a["x"] = count();
	@a["y"] = count();
}

BEGIN
{
	clear(@a);
}

tick-10ms
{
	@a["y"] = count();
	exit(0);
}
