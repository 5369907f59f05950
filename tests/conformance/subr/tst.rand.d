/*
 * rand() returns varying numbers.
 * kdt-args: -q
 */
BEGIN
{
	a = rand();
	b = rand();
	c = rand();
	printf("%d\n", a != b || b != c);
	exit(0);
}
