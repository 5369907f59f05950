/*
 * -> needs a pointer to a struct or union, not to an int.
 */
BEGIN
{
	this->p = (int *)alloca(sizeof (int));
	y = this->p->a;
}
