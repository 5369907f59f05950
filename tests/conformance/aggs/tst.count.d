/*
 * count() without keys; aggregations print after the final newline in
 * the order of their first appearance, each value in 16 columns.
 * kdt-args: -q
 */
BEGIN
{
	@ = count();
	@ = count();
	@c = count();
	exit(0);
}
