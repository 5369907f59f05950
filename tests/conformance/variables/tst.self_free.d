/*
 * Assigning 0 to a thread-local variable frees it; it reads as 0 after.
 * kdt-args: -q
 */
BEGIN
{
	self->x = 5;
	self->x = 0;
	printf("%d\n", self->x);
	exit(0);
}
