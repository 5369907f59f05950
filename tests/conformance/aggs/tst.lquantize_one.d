/*
 * lquantize(1, 1, 10): the underflow row, the level holding 1, and the
 * next level.
 * kdt-args: -q
 */
BEGIN
{
	@l = lquantize(1, 1, 10);
	exit(0);
}
