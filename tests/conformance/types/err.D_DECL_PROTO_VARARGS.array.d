/*
 * An array prototype may not use a variable-length argument list.
 */
int a[...];

BEGIN
{
	exit(0);
}
