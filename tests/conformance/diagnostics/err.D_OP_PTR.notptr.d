/*
 * -> needs a pointer.
 */
BEGIN
{
	x = 1;
	y = x->a;
}
