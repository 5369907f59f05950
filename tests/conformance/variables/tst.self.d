/*
 * Thread-local variables: self->x, including an associative self->a[k].
 * kdt-args: -q
 */
BEGIN
{
	self->x = 10;
	self->x *= 3;
	self->a["k"] = 3;
	printf("%d %d %d\n", self->x, self->a["k"], self->a["none"]);
	exit(0);
}
