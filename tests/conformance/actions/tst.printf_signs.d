/*
 * As dtrace: %d prints an unsigned value unsigned, %i takes the value as
 * signed of its size, %u as unsigned of its size.
 * kdt-args: -q
 */
uint16_t x;
int16_t y;

BEGIN
{
	x = 0xffffffff;
	y = 0xffffffff;
	printf("%d %i %u\n", x, x, x);
	printf("%d %i %u\n", y, y, y);
	printf("%d %d\n", (unsigned int)0x1234567890abcdef, (uchar_t)-1);
	printf("%d\n", sizeof ("hi"));
	exit(0);
}
