/*
 * printa() without a format prints a newline and the entries; a printed
 * aggregation is not printed again at exit, others are.
 * kdt-args: -q
 */
BEGIN
{
	@a["k"] = sum(7);
	@b = count();
	printa(@a);
	exit(0);
}
