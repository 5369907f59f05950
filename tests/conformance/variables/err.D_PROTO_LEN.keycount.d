/*
 * An associative array keeps the number of keys of its first use.
 */
BEGIN
{
	a[1] = 1;
	a[1, 2] = 2;
	exit(0);
}
