/*
 * getmajor() and getminor() decode a Linux kernel dev_t (major in the
 * bits above 20, minor in the low 20 bits).
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d\n", getmajor((8 << 20) | 3), getminor((8 << 20) | 3));
	exit(0);
}
