/*
 * Bitfields of a struct defined in D: GCC's layout (a field starts the
 * next storage unit only when it would straddle one), read through a
 * union, signed fields sign-extended, unsigned ones not.
 * kdt-args: -q
 */
struct flags {
	int		lo : 3;
	unsigned int	mid : 5;
	int		hi : 12;
	char		tail;
};

union view {
	struct flags	f;
	int		raw;
} v;

BEGIN
{
	v.raw = 0x0a0f5ac7;
	printf("size %d\n", sizeof (struct flags));
	printf("lo %d mid %d hi %d tail %d\n", v.f.lo, v.f.mid, v.f.hi,
	    v.f.tail);
	exit(0);
}
