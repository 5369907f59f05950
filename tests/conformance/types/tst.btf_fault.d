/*
 * A member read through a bad pointer to a kernel type is an ERROR-probe
 * fault at the member's address (prev is at offset 8), not a crash.
 * kdt-args: -q
 */
BEGIN
{
	this->p = ((struct list_head *)0x1000)->prev;
}

ERROR
{
	printf("fault %d addr 0x%x\n", arg4, arg5);
	exit(0);
}
