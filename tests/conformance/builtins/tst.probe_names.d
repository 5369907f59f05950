/*
 * probeprov, probemod, probefunc and probename of the dtrace provider.
 * kdt-args: -q
 */
BEGIN,
END
{
	printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename);
}

BEGIN
{
	exit(0);
}
