/*
 * A bitfield may not be wider than its type.
 */
struct s {
	short	a : 17;
};

BEGIN
{
	exit(0);
}
