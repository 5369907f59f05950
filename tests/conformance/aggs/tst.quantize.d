/*
 * quantize(): power-of-two buckets from one below the first non-empty
 * bucket to one above the last; bars of @ proportional to the count.
 * kdt-args: -q
 */
BEGIN
{
	@q = quantize(0);
	@q = quantize(1);
	@q = quantize(2);
	@q = quantize(3);
	@q = quantize(4);
	@q = quantize(5);
	@q = quantize(8);
	exit(0);
}
