/*
 * aggsortkeypos=1 with aggsortkey sorts by the second key first.
 * kdt-args: -q -x aggsortkey -x aggsortkeypos=1
 */
BEGIN
{
	@a[1, "b"] = count();
	@a[2, "a"] = count();
	@a[3, "c"] = count();
	exit(0);
}
