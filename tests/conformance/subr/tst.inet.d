/*
 * inet_ntoa() and inet_ntop(AF_INET) of an address in network order.
 * kdt-args: -q
 */
BEGIN
{
	this->a = (uint32_t *)alloca(sizeof (uint32_t));
	*this->a = htonl(0xc0a80001);
	printf("%s %s\n", inet_ntoa(this->a), inet_ntop(2, this->a));
	exit(0);
}
