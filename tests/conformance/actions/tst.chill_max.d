/*
 * A chill() longer than 500 ms (dtrace's chill_max) is an illegal
 * operation: the clause is abandoned and the ERROR probe fires, nothing
 * spins.
 * kdt-args: -q -w
 */
BEGIN
{
	chill(600000000);
	printf("not reached\n");
}

ERROR
{
	printf("fault %d\n", arg4);
	exit(0);
}
