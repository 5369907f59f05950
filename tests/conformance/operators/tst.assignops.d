/*
 * Every compound assignment operator.
 * kdt-args: -q
 */
BEGIN
{
	x = 10;
	x += 5;
	printf("%d ", x);
	x -= 3;
	printf("%d ", x);
	x *= 2;
	printf("%d ", x);
	x /= 5;
	printf("%d ", x);
	x %= 3;
	printf("%d ", x);
	x <<= 4;
	printf("%d ", x);
	x >>= 1;
	printf("%d ", x);
	x |= 3;
	printf("%d ", x);
	x &= 6;
	printf("%d ", x);
	x ^= 7;
	printf("%d\n", x);
	exit(0);
}
