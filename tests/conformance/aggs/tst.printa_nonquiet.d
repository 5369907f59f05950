/*
 * Unquiet printa(): the probe columns, then the aggregation's own
 * newline and lines, then the newline that ends the firing.
 */
BEGIN
{
	@a = sum(3);
	printa(@a);
	exit(0);
}
