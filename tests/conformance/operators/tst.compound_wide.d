/*
 * Compound assignment and ++/-- on a D variable keep the whole 64-bit
 * result, as dtrace does: the variable's type is narrowed only where a
 * value is recorded (trace, printf) or stored to memory.  So an int that
 * holds a 64-bit result keeps it for later arithmetic and as a quantize
 * weight, while trace() of it shows its low 4 bytes.  An integer constant
 * assigned to a variable of another size is cast at compile time, as
 * dtrace does: to its low bytes for a smaller type, sign-extended from
 * its own type (int for (1 << 63) - 4) for a bigger one.
 * kdt-args: -q
 */
uint16_t g16;
uint32_t g32;
long long g64;

BEGIN
{
	g16 = 0xbeefcafe;
	g32 = g16;
	g64 = (1 << 63) - 4;
	printf("%x %d\n", g32, g64);
	this->v = (1 << 63) - 4;	/* an int expression */
	this->v >>= 1;
	printf("%d %d\n", this->v, (long long)this->v);
	x = 0x7fffffff;
	x++;
	printf("%d %d\n", x, x > 0);
	this->w = 1;
	this->w <<= 40;
	printf("%d\n", (long long)(this->w >> 36));
	@q = quantize(1, this->v);
	@q = quantize(2, this->v >> 1);
	exit(0);
}
