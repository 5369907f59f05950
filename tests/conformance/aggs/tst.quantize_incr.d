/*
 * quantize() with an increment adds it to the bucket.
 * kdt-args: -q
 */
BEGIN
{
	@q = quantize(3, 5);
	@q = quantize(1000, 2);
	exit(0);
}
