/*
 * typedef names for scalar and struct types.
 * kdt-args: -q
 */
typedef int myint_t;
typedef struct point {
	int	x;
	int	y;
} point_t;

myint_t v;

BEGIN
{
	v = 7;
	printf("%d %d %d\n", v, sizeof (point_t), sizeof (myint_t));
	exit(0);
}
