/*
 * aggsortrev reverses the order: largest value first.
 * kdt-args: -q
 */
#pragma D option aggsortrev

BEGIN
{
	@a["b"] = sum(1);
	@a["a"] = sum(5);
	@a["c"] = sum(3);
	exit(0);
}
