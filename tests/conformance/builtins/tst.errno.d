/*
 * errno is 0 in a dtrace provider probe.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d\n", errno);
	exit(0);
}
