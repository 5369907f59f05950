/*
 * Translator member expressions are checked when the translator is
 * declared: the input has no such member.
 */
struct in { int i; };
struct out { int o; };
translator struct out < struct in *p > { o = p->nosuch; };

BEGIN
{
	exit(0);
}
