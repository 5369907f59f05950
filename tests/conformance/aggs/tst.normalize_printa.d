/*
 * %@d of a normalized aggregation prints the divided value.
 * kdt-args: -q
 */
BEGIN
{
	@a = sum(5000);
	normalize(@a, 1000);
	printa("value %@d\n", @a);
	exit(0);
}
