/*
 * Option noerror: a fault in a clause is not reported on stderr (the .err
 * file is empty); the faulting clause stops at the fault, the program's
 * ERROR clause runs, the next clauses run and kdt exits 0.
 * kdt-args: -q
 */
#pragma D option noerror

BEGIN
{
	*(char *)NULL;
	printf("not reached\n");
}

ERROR
{
	printf("ERROR fired for fault %d\n", arg4);
}

BEGIN
{
	printf("BEGIN fired\n");
	exit(0);
}
