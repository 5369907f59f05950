/*
 * A struct defined in D, used through a pointer to scratch memory with
 * -> and with (*p).member.
 * kdt-args: -q
 */
struct point {
	int	x;
	int	y;
};

BEGIN
{
	this->p = (struct point *)alloca(sizeof (struct point));
	this->p->x = 5;
	this->p->y = 6;
	printf("%d %d %d\n", this->p->x, (*this->p).y, sizeof (struct point));
	exit(0);
}
