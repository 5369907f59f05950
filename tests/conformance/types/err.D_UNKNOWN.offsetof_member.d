/*
 * offsetof( ) of a member the struct does not have.
 */
struct s { int a; };

BEGIN
{
	trace(offsetof(struct s, b));
}
