/*
 * printa() with a format: keys by the ordinary conversions, the value by
 * %@d; no leading newline.
 * kdt-args: -q
 */
BEGIN
{
	@a["x"] = count();
	@a["x"] = count();
	@a["y"] = count();
	printa("%s %@d\n", @a);
	exit(0);
}
