/*
 * ++ and -- on bitfields, prefix and postfix, as values and as
 * statements: the field wraps at its width (signed and unsigned), the
 * prefix value is the new field value, the postfix one the old value,
 * and the neighbouring fields of the unit keep their bits.
 * kdt-args: -q
 */
struct flags {
	int s : 3;
	unsigned u : 4;
	unsigned rest : 9;
} f;

BEGIN
{
	f.rest = 0x1ff;
	f.s = 2;
	f.u = 14;
	f.s++;
	++f.u;
	printf("%d %u %x\n", f.s, f.u, f.rest);
	a = f.s++;
	b = f.u++;
	printf("%d %d -> %d %u %x\n", a, b, f.s, f.u, f.rest);
	c = --f.s;
	d = f.u--;
	e = --f.u;
	printf("%d %d %d -> %d %u %x\n", c, d, e, f.s, f.u, f.rest);
	f.s--;
	f.s--;
	--f.s;
	printf("%d %x\n", f.s, f.rest);
	exit(0);
}
