/*
 * quantize() with a key: the key line, then the histogram.
 * kdt-args: -q
 */
BEGIN
{
	@q["k"] = quantize(1);
	exit(0);
}
