/*
 * After exit() no more tick probes run: the output has exactly one line.
 * kdt-args: -q
 */
tick-10ms
{
	printf("tick\n");
	exit(0);
}
