/*
 * Comparisons follow the usual arithmetic conversions: a negative int
 * compared with an unsigned value is converted to unsigned.
 * kdt-args: -q
 */
BEGIN
{
	i = -1;
	printf("%d %d %d\n", i < 1, (unsigned int)i > 1, i == -1);
	printf("%d %d\n", (uint32_t)-1 == 4294967295, 3 >= 3);
	exit(0);
}
