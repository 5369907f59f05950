/*
 * A second translator between the same two types.
 */
struct in { int i; };
struct out { int o; };
translator struct out < struct in *p > { o = p->i; };
translator struct out < struct in *p > { o = p->i + 1; };

BEGIN
{
	exit(0);
}
