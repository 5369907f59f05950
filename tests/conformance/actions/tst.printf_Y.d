/*
 * %Y prints nanoseconds since the epoch as "YYYY Mon dd hh:mm:ss" with a
 * space-padded day (the runner sets TZ=UTC).
 * kdt-args: -q
 */
BEGIN
{
	printf("%Y\n", 0);
	printf("%Y\n", 1700000000LL * 1000000000LL);
	exit(0);
}
