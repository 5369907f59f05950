/*
 * %@d of a quantize() aggregation prints the whole histogram.
 * kdt-args: -q
 */
BEGIN
{
	@q = quantize(2);
	printa("q:%@d\n", @q);
	exit(0);
}
