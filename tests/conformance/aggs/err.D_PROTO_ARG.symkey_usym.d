/*
 * sym() keys have D's type _symaddr, usym() keys _usymaddr: one
 * aggregation cannot take both.
 */
BEGIN
{
	@a[sym(0)] = count();
	@a[usym(0)] = count();
	exit(0);
}
