/*
 * Unary minus, plus, complement and logical negation.
 * kdt-args: -q
 */
BEGIN
{
	x = -5;
	printf("%d %d %d %d %d\n", -x, +x, ~x, !x, -(-(x)));
	exit(0);
}
