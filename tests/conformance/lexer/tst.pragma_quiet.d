/*
 * "#pragma D option quiet" suppresses the CPU/ID/FUNCTION:NAME framing
 * exactly as -q does.
 */
#pragma D option quiet

BEGIN
{
	printf("quiet\n");
	exit(0);
}
