/*
 * A stack key and an integer key do not mix in one aggregation: only
 * stacks of different kinds and depths share a key type.
 */
BEGIN
{
	@a[stack()] = count();
	@a[1L] = count();
	exit(0);
}
