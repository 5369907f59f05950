/*
 * llquantize() underflow (< factor^low) and overflow
 * (>= factor^(high+1)) rows.
 * kdt-args: -q
 */
BEGIN
{
	@l = llquantize(0, 10, 1, 2, 10);
	@l = llquantize(5000, 10, 1, 2, 10);
	exit(0);
}
