/*
 * sizeof of types and of expressions, with D's LP64 sizes.
 * kdt-args: -q
 */
BEGIN
{
	x = 1;
	printf("%d %d %d %d %d\n", sizeof (char), sizeof (short),
	    sizeof (int), sizeof (long), sizeof (long long));
	printf("%d %d %d %d\n", sizeof (uint8_t), sizeof (int64_t),
	    sizeof (char *), sizeof (x));
	exit(0);
}
