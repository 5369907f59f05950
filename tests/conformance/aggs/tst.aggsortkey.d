/*
 * aggsortkey sorts by key instead of by value.
 * kdt-args: -q -x aggsortkey
 */
BEGIN
{
	@a["b"] = sum(1);
	@a["a"] = sum(5);
	@a["c"] = sum(3);
	exit(0);
}
