/*
 * A declaration of a type that is no struct, union or enum and declares
 * nothing is useless.
 */
extern int;

BEGIN
{
	exit(0);
}
