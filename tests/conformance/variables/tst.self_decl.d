/*
 * Explicitly declared thread-local and clause-local variables.
 * kdt-args: -q
 */
self int y;
this int z;

BEGIN
{
	self->y = 4;
	this->z = self->y + 1;
	printf("%d %d\n", self->y, this->z);
	exit(0);
}
