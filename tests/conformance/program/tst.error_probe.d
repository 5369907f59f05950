/*
 * A bad load faults; the ERROR probe fires with arg2 the action number
 * (1: the first action of the clause), arg4 the fault (1, invalid
 * address) and arg5 the address.
 * kdt-args: -q
 */
BEGIN
{
	x = *(int *)0;
	printf("not reached\n");
}

ERROR
{
	printf("action %d fault %d addr %d\n", arg2, arg4, arg5);
	exit(0);
}
