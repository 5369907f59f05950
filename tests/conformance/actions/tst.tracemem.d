/*
 * tracemem() prints a hex dump of the bytes, with offsets and the bytes
 * as characters (non-printable ones as ".").  alloca() memory is not
 * zeroed, so every byte is stored first (x86-64 is little-endian).
 * kdt-args: -q
 */
BEGIN
{
	this->b = (uint64_t *)alloca(24);
	this->b[0] = 0x16261;
	this->b[1] = 0;
	this->b[2] = 0x7a00;
	tracemem(this->b, 20);
	exit(0);
}
