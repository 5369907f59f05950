/*
 * An associative array keeps the key signature of its first use.
 */
BEGIN
{
	a[1] = 1;
	a["one"] = 2;
	exit(0);
}
