/*
 * A translator's output type must be a struct or union.
 */
struct in { int i; };
translator int < struct in *p > { };

BEGIN
{
	exit(0);
}
