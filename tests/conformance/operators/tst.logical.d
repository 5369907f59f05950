/*
 * &&, || and ^^ give 0 or 1; && and || short-circuit, so the division
 * by zero on their right is never evaluated.
 * kdt-args: -q
 */
BEGIN
{
	zero = 0;
	printf("%d %d %d %d\n", 1 && 0, 1 || 0, 1 ^^ 1, 0 ^^ 7);
	printf("%d %d\n", !5, !!5);
	printf("%d %d\n", zero && 1 / zero, 1 || 1 / zero);
	exit(0);
}
