/*
 * A key computed at run time matches an equal literal key.
 * kdt-args: -q
 */
BEGIN
{
	k = strjoin("a", "b");
	a[k] = 9;
	printf("%d\n", a["ab"]);
	exit(0);
}
