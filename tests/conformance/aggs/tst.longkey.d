/*
 * A string key longer than its 50-column field is printed whole.
 * kdt-args: -q
 */
BEGIN
{
	@a["this-key-is-longer-than-fifty-characters-and-is-not-cut"] = count();
	exit(0);
}
