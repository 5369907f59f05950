/*
 * sizeof cannot be applied to a bitfield.
 */
struct s {
	int	a : 4;
} v;

BEGIN
{
	trace(sizeof (v.a));
	exit(0);
}
