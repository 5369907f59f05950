/*
 * A newline inside a character constant.
 */
BEGIN
{
	trace('a
');
}
