/*
 * C precedence and associativity of the binary operators.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d\n", 2 + 3 * 4, (2 + 3) * 4, 1 << 2 + 1);
	printf("%d %d\n", 10 - 4 - 3, 100 / 10 / 5);
	printf("%d %d %d\n", 1 | 2 ^ 3 & 4, 1 < 2 == 1, !0 + 1);
	printf("%d %d\n", -2 * -3, ~0 & 0xf);
	printf("%d\n", 1 + 2 == 3 && 4 > 3 || 0);
	exit(0);
}
