/*
 * The probe names of profile-provider probes carry their rate.
 * kdt-args: -q
 */
tick-10ms
{
	printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename);
	exit(0);
}
