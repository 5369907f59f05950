/*
 * %T prints nanoseconds since the epoch in RFC 822 style.
 * kdt-args: -q
 */
BEGIN
{
	printf("%T\n", 1700000000LL * 1000000000LL);
	exit(0);
}
