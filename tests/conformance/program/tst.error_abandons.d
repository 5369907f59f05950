/*
 * A fault abandons the rest of its clause but not the other clauses.
 * kdt-args: -q
 */
BEGIN
{
	printf("before\n");
	x = *(int *)8;
	printf("after\n");
}

BEGIN
{
	printf("next clause\n");
	exit(0);
}
