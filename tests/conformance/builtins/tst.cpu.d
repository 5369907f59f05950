/*
 * cpu is the CPU the probe fired on (the test runner pins kdt to CPU 0).
 * kdt-args: -q
 */
BEGIN
{
	printf("%d\n", cpu);
	exit(0);
}
