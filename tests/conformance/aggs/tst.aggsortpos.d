/*
 * aggsortpos=1 sorts a joint printa() by the second aggregation.
 * kdt-args: -q -x aggsortpos=1
 */
BEGIN
{
	@a["x"] = count();
	@b["x"] = sum(30);
	@a["y"] = count();
	@a["y"] = count();
	@b["y"] = sum(10);
	@a["z"] = count();
	@a["z"] = count();
	@a["z"] = count();
	@b["z"] = sum(20);
	printa(@a, @b);
	exit(0);
}
