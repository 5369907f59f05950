/*
 * |, &, ^ and ~.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d %d\n", 0xf0 | 0x0f, 0xff & 0x3c, 0xff ^ 0x0f, ~5);
	exit(0);
}
