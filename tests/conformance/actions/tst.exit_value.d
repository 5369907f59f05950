/*
 * exit() with an expression: the status is its value.
 * kdt-args: -q
 */
BEGIN
{
	x = 40;
	exit(x + 2);
}
