/*
 * A character constant of more than eight bytes overflows.
 */
BEGIN
{
	trace('abcdefghi');
}
