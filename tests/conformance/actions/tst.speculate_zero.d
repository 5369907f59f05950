/*
 * speculate(0) silently throws the clause's data away.
 * kdt-args: -q
 */
BEGIN
{
	speculate(0);
	printf("dropped\n");
}

BEGIN
{
	printf("shown\n");
	exit(0);
}
