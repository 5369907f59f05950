/*
 * A prototype may not have an associative array parameter.
 */
int foo(int a[int]);

BEGIN
{
	exit(0);
}
