/*
 * llquantize() nsteps must be a multiple of the factor.
 */
BEGIN
{
	@a = llquantize(1, 10, 0, 2, 15);
	exit(0);
}
