/*
 * A second type name after a floating-point type.
 */
BEGIN
{
	trace((double double)0);
}
