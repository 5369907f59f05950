/*
 * avg() truncates toward zero like C division.
 * kdt-args: -q
 */
BEGIN
{
	@a = avg(-3);
	@a = avg(-4);
	exit(0);
}
