/*
 * The dtrace provider's probe ids: BEGIN 1, END 2, ERROR 3; epid is a
 * positive enabled-probe id that differs between clauses.
 * kdt-args: -q
 */
BEGIN
{
	first = epid;
	printf("%d\n", id);
}

BEGIN
{
	printf("%d\n", epid != first && epid > 0 && first > 0);
}

BEGIN
{
	x = *(int *)0;
}

ERROR
{
	printf("%d\n", id);
	exit(0);
}

END
{
	printf("%d\n", id);
}
