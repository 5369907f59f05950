/*
 * A global scalar keeps its value from one clause and probe to the next.
 * kdt-args: -q
 */
BEGIN
{
	x = 41;
}

BEGIN
{
	x++;
	exit(0);
}

END
{
	printf("%d\n", x);
}
