/*
 * Clauses of one probe run in program order; a false predicate skips
 * its clause.
 * kdt-args: -q
 */
BEGIN
{
	printf("first\n");
}

BEGIN
/0/
{
	printf("never\n");
}

BEGIN
/1/
{
	printf("second\n");
}

BEGIN
{
	printf("third\n");
	exit(0);
}
