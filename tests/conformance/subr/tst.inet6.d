/*
 * inet_ntop(AF_INET6) (10 on Linux) compresses zeros and prints
 * IPv4-mapped addresses with a dotted tail.  alloca() memory is not
 * zeroed, so all 16 bytes are stored (x86-64 is little-endian).
 * kdt-args: -q
 */
BEGIN
{
	this->a = (uint64_t *)alloca(16);
	this->a[0] = 0;
	this->a[1] = 0x0100000000000000;
	printf("%s\n", inet_ntop(10, this->a));
	this->a[1] = 0x0100a8c0ffff0000;
	printf("%s\n", inet_ntop(10, this->a));
	exit(0);
}
