/*
 * Option encoding=utf8 draws the bars of a histogram whose counts are all
 * non-negative in Unicode block eighths (a full block per 1/40 of the
 * total, then one partial block), as dtrace does; a histogram with a
 * negative count keeps its '@' bars.
 * kdt-args: -q
 */
#pragma D option encoding=utf8

BEGIN
{
	@a = lquantize(0, 0, 10, 1, 1);
	@a = lquantize(1, 0, 10, 1, 3);
	@a = lquantize(2, 0, 10, 1, 7);
	@a = lquantize(3, 0, 10, 1, 30);
	@n = lquantize(1, 0, 10, 1, 3);
	@n = lquantize(2, 0, 10, 1, -1);
	exit(0);
}
