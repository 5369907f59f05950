/*
 * offsetof and sizeof follow C layout rules for D-defined structs.
 * kdt-args: -q
 */
struct s {
	char	a;
	int	b;
	long	c;
	short	d;
};

BEGIN
{
	printf("%d %d %d %d\n", offsetof(struct s, b), offsetof(struct s, c),
	    offsetof(struct s, d), sizeof (struct s));
	exit(0);
}
