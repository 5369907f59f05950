/*
 * %@d of avg() and stddev() prints the computed value.
 * kdt-args: -q
 */
BEGIN
{
	@a = avg(10);
	@a = avg(20);
	@s = stddev(1);
	@s = stddev(3);
	printa("avg %@d\n", @a);
	printa("stddev %@d\n", @s);
	exit(0);
}
