/*
 * Division by zero at run time faults with DTRACEFLT_DIVZERO (4).
 * kdt-args: -q
 */
BEGIN
{
	zero = 0;
	x = 10 / zero;
}

ERROR
{
	printf("fault %d\n", arg4);
	exit(0);
}
