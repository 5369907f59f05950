/*
 * A global associative array is no scalar: it must be indexed.
 */
BEGIN
{
	a[1] = 2;
	trace(a);
}
