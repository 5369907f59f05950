/*
 * D refuses the storage classes static, register and auto for variables.
 */
register x;

BEGIN
{
	exit(0);
}
