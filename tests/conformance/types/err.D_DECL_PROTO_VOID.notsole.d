/*
 * void must be the sole parameter of a prototype.
 */
int foo(int, void);

BEGIN
{
	exit(0);
}
