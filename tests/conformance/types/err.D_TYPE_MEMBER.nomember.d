/*
 * Naming a member that the struct does not have is an error.
 */
struct point {
	int	x;
};

BEGIN
{
	this->p = (struct point *)alloca(sizeof (struct point));
	this->p->z = 1;
	exit(0);
}
