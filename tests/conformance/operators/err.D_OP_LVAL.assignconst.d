/*
 * The left side of an assignment must be an lvalue.
 */
BEGIN
{
	1 = 2;
	exit(0);
}
