/*
 * A translator's input type may be a pointer to a struct that is only a
 * forward tag; the translator still applies to pointers of that type.
 * kdt-args: -q
 */
struct out {
	long addr;
};

translator struct out < struct opaque *p > {
	addr = (long)p;
};

BEGIN
{
	printf("%d\n", xlate <struct out> ((struct opaque *)0x1234).addr);
	exit(0);
}
