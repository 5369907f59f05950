/*
 * Clause-local variables, shared by the clauses of one probe firing.
 * kdt-args: -q
 */
BEGIN
{
	this->a = 5;
	this->b = this->a * 2;
	printf("%d %d\n", this->a, this->b);
}

BEGIN
{
	printf("%d\n", this->b);
	exit(0);
}
