/*
 * trunc(@) removes every entry: nothing is printed for it.
 * kdt-args: -q
 */
BEGIN
{
	@a["a"] = sum(1);
	@b["b"] = sum(2);
	trunc(@a);
	exit(0);
}
