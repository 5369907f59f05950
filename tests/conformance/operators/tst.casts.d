/*
 * Casts truncate and sign- or zero-extend as in C.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d\n", (char)300, (unsigned char)-1, (short)70000);
	printf("%d %d %d\n", (int)0x100000001LL, (uint16_t)-2, (int8_t)200);
	printf("%lld\n", (long long)(int)0xffffffff);
	exit(0);
}
