/*
 * The arithmetic operators, with C's truncating division and remainder.
 * kdt-args: -q
 */
BEGIN
{
	a = 17;
	b = 5;
	m = -17;
	printf("%d %d %d %d %d\n", a + b, b - a, a * b, a / b, a % b);
	printf("%d %d\n", m / b, m % b);
	exit(0);
}
