/*
 * A clause's predicate is typed after its actions, so it may read a
 * variable that only its own actions create; when the actions read one
 * only the predicate creates, the predicate is typed first (as dtrace).
 * kdt-args: -q
 */
BEGIN
/x == 0/
{
	printf("x was %d\n", x++);
}

BEGIN
/i++ == 0/
{
	printf("i is %d\n", i);
}

BEGIN
/self->y == 0 && this->z == 0/
{
	self->y = 1;
	this->z = 2;
	printf("y %d z %d\n", self->y, this->z);
	exit(0);
}
