/*
 * A string does not compare with a pointer to anything but void or char.
 */
BEGIN
{
	trace("abc" == (int *)0);
}
