/*
 * denormalize() undoes normalize().
 * kdt-args: -q
 */
BEGIN
{
	@a["x"] = sum(1000);
	normalize(@a, 1000);
}

BEGIN
{
	denormalize(@a);
	exit(0);
}
