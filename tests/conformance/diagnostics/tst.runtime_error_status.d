/*
 * Run-time faults do not change the exit status: exit(0) still gives 0.
 * kdt-args: -q
 */
BEGIN
{
	x = *(long *)16;
}

BEGIN
{
	printf("done\n");
	exit(0);
}
