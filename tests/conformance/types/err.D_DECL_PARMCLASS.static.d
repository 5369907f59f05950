/*
 * A function parameter may have no storage class but register.
 */
int foo(static int);

BEGIN
{
	exit(0);
}
