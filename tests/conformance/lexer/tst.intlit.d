/*
 * Integer literals: decimal, octal, hexadecimal, and the U/L suffixes.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d %d\n", 10, 010, 0x10, 0X1f);
	printf("%u %d\n", 4294967295U, 100L);
	printf("%x\n", 0xffffffffffffffffULL);
	exit(0);
}
