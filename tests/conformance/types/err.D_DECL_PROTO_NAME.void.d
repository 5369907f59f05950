/*
 * A void parameter may not have a name.
 */
int foo(void v);

BEGIN
{
	exit(0);
}
