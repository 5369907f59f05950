/*
 * trace() of a void expression is an error.
 */
BEGIN
{
	this->p = alloca(2);
	trace(bcopy(this->p, this->p, 1));
	exit(0);
}
