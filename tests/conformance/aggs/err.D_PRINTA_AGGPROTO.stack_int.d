/*
 * printa() joins aggregations by key: a stack key and an integer key
 * have different types.
 */
BEGIN
{
	@a[stack()] = count();
	@b[1L] = count();
	printa(@a, @b);
	exit(0);
}
