/*
 * Integer promotion: char operands are promoted to int before
 * arithmetic; an int result is printed as an int.
 * kdt-args: -q
 */
BEGIN
{
	c = (char)100;
	u = (uint8_t)255;
	printf("%d %d\n", c + c, u + 1);
	exit(0);
}
