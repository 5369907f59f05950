/*
 * Reading a member through a bad pointer faults at the member's address.
 * kdt-args: -q
 */
struct point {
	int	x;
	int	y;
};

BEGIN
{
	this->v = ((struct point *)8)->y;
}

ERROR
{
	printf("fault %d addr %d\n", arg4, arg5);
	exit(0);
}
