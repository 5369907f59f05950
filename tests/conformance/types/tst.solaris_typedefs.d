/*
 * The integer typedefs D has built in besides <stdint.h>'s: uchar_t,
 * ushort_t, uint_t, ulong_t, longlong_t, u_longlong_t, ptrdiff_t and
 * hrtime_t, with their sizes and signedness.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d %d\n", sizeof (uchar_t), sizeof (ushort_t),
	    sizeof (uint_t), sizeof (ulong_t));
	printf("%d %d %d %d\n", sizeof (longlong_t), sizeof (u_longlong_t),
	    sizeof (ptrdiff_t), sizeof (hrtime_t));
	printf("%u %u %d\n", (uchar_t)-1, (uint_t)-1, (hrtime_t)-1 < 0);
	printf("%d %d\n", (ulong_t)-1 > 0, (longlong_t)-1 < 0);
	exit(0);
}
