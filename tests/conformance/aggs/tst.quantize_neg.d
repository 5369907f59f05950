/*
 * quantize() of negative values: bucket -2^k holds (-2^(k+1), -2^k].
 * kdt-args: -q
 */
BEGIN
{
	@q = quantize(-2);
	@q = quantize(-3);
	@q = quantize(-1);
	@q = quantize(0);
	@q = quantize(1);
	exit(0);
}
