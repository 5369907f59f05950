/*
 * String keys print left-justified in 50 columns after two spaces;
 * entries sort by value, ascending.
 * kdt-args: -q
 */
BEGIN
{
	@a["foo"] = count();
	@a["foo"] = count();
	@a["bar"] = count();
	exit(0);
}
