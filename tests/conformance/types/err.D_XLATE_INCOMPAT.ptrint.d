/*
 * A translator member expression must fit its member: an int is no
 * pointer.
 */
struct in { int i; };
struct out { char *o; };
translator struct out < struct in *p > { o = p->i; };

BEGIN
{
	exit(0);
}
