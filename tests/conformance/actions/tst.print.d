/*
 * print() of integers: the type name, then the value in hex, one per
 * line.
 * kdt-args: -q
 */
BEGIN
{
	print(42);
	print((short)-2);
	print((uint8_t)7);
	exit(0);
}
