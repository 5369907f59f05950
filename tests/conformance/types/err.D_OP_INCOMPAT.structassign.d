/*
 * A struct variable may only be assigned a struct of its own type.
 */
struct s { int a; } x;
struct t { int a; } y;

BEGIN
{
	x = y;
}
