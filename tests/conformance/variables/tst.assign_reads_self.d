/*
 * The right side of an assignment may read the this-> or self-> variable
 * it assigns for the first time: the variable is created from the left
 * side first and the read gives 0, typed as a 64-bit integer.  A later
 * clause sees the thread-local's value.
 * kdt-args: -q
 */
BEGIN
{
	self->n = self->n + 1;
	this->x = this->x + 2;
	printf("%d %d %d\n", self->n, this->x, sizeof (self->n));
}

BEGIN
{
	self->n = self->n + 1;
	printf("%d\n", self->n);
	exit(0);
}
