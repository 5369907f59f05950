/*
 * Tuple keys of mixed type print one column per key.
 * kdt-args: -q
 */
BEGIN
{
	@a["x", 1] = count();
	@a["y", 2] = count();
	@a["y", 2] = count();
	exit(0);
}
