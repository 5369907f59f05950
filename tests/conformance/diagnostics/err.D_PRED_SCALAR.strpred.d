/*
 * A predicate must be of scalar type.
 */
struct s {
	int	a;
};
struct s v;

BEGIN
/v/
{
	exit(0);
}
