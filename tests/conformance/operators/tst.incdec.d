/*
 * Prefix and postfix ++ and -- return the new and the old value.
 * kdt-args: -q
 */
BEGIN
{
	x = 5;
	y = x++;
	z = ++x;
	w = x--;
	v = --x;
	printf("%d %d %d %d %d\n", y, z, w, v, x);
	exit(0);
}
