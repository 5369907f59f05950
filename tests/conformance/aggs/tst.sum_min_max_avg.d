/*
 * sum(), min(), max() and avg() of the values 3, -1 and 10; avg() is
 * the integer quotient.
 * kdt-args: -q
 */
BEGIN
{
	@s = sum(3);
	@s = sum(-1);
	@s = sum(10);
	@mn = min(3);
	@mn = min(-1);
	@mn = min(10);
	@mx = max(3);
	@mx = max(-1);
	@mx = max(10);
	@av = avg(3);
	@av = avg(-1);
	@av = avg(10);
	exit(0);
}
