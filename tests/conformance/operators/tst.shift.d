/*
 * Shifts: >> is arithmetic for signed and logical for unsigned operands.
 * kdt-args: -q
 */
BEGIN
{
	s = -16;
	u = 0xf0U;
	printf("%d %d %x\n", 1 << 10, s >> 2, u >> 4);
	printf("%lld\n", 1LL << 40);
	printf("%llx\n", 0x8000000000000000ULL >> 60);
	exit(0);
}
