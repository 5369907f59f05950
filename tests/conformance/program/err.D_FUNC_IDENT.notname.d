/*
 * Only a function name can be called.
 */
BEGIN
{
	trace(1());
}
