/*
 * A translator may only define members of its output type.
 */
struct in { int i; };
struct out { int o; };
translator struct out < struct in *p > { x = p->i; };

BEGIN
{
	exit(0);
}
