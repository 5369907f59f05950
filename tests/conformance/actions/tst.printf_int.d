/*
 * printf integer conversions with flags, width and precision.
 * kdt-args: -q
 */
BEGIN
{
	printf("[%d] [%5d] [%-5d] [%05d] [%+d] [% d]\n", 42, 42, 42, 42, 42,
	    42);
	printf("[%x] [%X] [%#x] [%o] [%#o] [%u]\n", 255, 255, 255, 8, 8, -1);
	printf("[%lld] [%ld] [%lu] [%i] [%.3d]\n", 1LL << 40, -1L, 10UL, -7,
	    5);
	exit(0);
}
