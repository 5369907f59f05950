/*
 * -Z allows a probe description that matches no probe.
 * kdt-args: -q -Z
 */
dtrace:::NOSUCHPROBE
{
	printf("never\n");
}

BEGIN
{
	printf("ok\n");
	exit(0);
}
