/*
 * print() of a void expression is refused.
 */
BEGIN
{
	print((void)0);
	exit(0);
}
