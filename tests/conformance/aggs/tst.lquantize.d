/*
 * lquantize(x, 0, 10, 2): underflow, five levels of width 2, overflow.
 * kdt-args: -q
 */
BEGIN
{
	@l = lquantize(-1, 0, 10, 2);
	@l = lquantize(0, 0, 10, 2);
	@l = lquantize(3, 0, 10, 2);
	@l = lquantize(3, 0, 10, 2);
	@l = lquantize(9, 0, 10, 2);
	@l = lquantize(10, 0, 10, 2);
	@l = lquantize(25, 0, 10, 2);
	exit(0);
}
