/*
 * offsetof( ) of a struct that is not defined (an incomplete type).
 */
BEGIN
{
	trace(offsetof(struct no_such_struct_kdt, x));
}
