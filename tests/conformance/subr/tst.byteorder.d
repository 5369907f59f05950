/*
 * htons/htonl/htonll swap bytes on little-endian x86-64; ntoh* undo it.
 * kdt-args: -q
 */
BEGIN
{
	printf("%x %x %llx\n", htons(0x1234), htonl(0x12345678),
	    htonll(0x0102030405060708ULL));
	printf("%x %x %llx\n", ntohs(htons(0xabcd)), ntohl(htonl(7)),
	    ntohll(htonll(9)));
	exit(0);
}
