/*
 * lquantize() needs limit > base.
 */
BEGIN
{
	@a = lquantize(1, 10, 5);
	exit(0);
}
