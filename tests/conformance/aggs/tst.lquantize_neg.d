/*
 * lquantize() over a negative range with a step.
 * kdt-args: -q
 */
BEGIN
{
	@l = lquantize(-15, -20, 20, 10);
	@l = lquantize(-5, -20, 20, 10);
	@l = lquantize(-5, -20, 20, 10);
	exit(0);
}
