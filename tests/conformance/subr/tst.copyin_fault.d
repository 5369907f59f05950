/*
 * copyin() from an unmapped user address faults with an invalid address.
 * kdt-args: -q
 */
BEGIN
{
	this->p = copyin(0, 4);
}

ERROR
{
	printf("fault %d\n", arg4);
	exit(0);
}
