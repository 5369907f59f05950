/*
 * With the ring policy the records are read when tracing stops.
 * kdt-args: -q -x bufpolicy=ring
 */
BEGIN
{
	printf("ring\n");
}

tick-10ms
{
	printf("tick\n");
	exit(0);
}
