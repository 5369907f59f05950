/*
 * llquantize(x, 10, 0, 2, 10): ten steps per power of ten; rows from one
 * below the first to one above the last non-empty bucket.
 * kdt-args: -q
 */
BEGIN
{
	@l = llquantize(15, 10, 0, 2, 10);
	@l = llquantize(15, 10, 0, 2, 10);
	@l = llquantize(250, 10, 0, 2, 10);
	exit(0);
}
