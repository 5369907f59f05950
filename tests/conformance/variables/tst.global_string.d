/*
 * Strings are assigned by value: changing one variable does not change a
 * copy made earlier.
 * kdt-args: -q
 */
BEGIN
{
	s = "hello";
	t = s;
	s = "bye";
	printf("%s %s\n", t, s);
	exit(0);
}
