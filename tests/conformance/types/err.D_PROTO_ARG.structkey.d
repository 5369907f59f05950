/*
 * The keys of an associative array keep their first types: a struct of
 * another type is no key of it.
 */
struct s { int a; } x;
struct t { int a; } y;

BEGIN
{
	arr[x] = 1;
	arr[y] = 2;
}
