/*
 * The address of a D variable cannot be taken.
 */
BEGIN
{
	x = 1;
	p = &x;
}
