/*
 * One clause with two probe descriptions runs for both probes.
 * kdt-args: -q
 */
BEGIN,
END
{
	printf("%s\n", probename);
}

BEGIN
{
	exit(0);
}
