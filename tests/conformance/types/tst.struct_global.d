/*
 * A global variable of struct type; members are assigned with ".".
 * kdt-args: -q
 */
struct point {
	int	x;
	int	y;
};

struct point pt;

BEGIN
{
	pt.x = 3;
	pt.y = 4;
}

BEGIN
{
	printf("%d\n", pt.x * pt.y);
}

BEGIN
{
	exit(0);
}
