/*
 * The translator takes a pointer; translating a struct by value finds
 * none (before the operator is checked).
 */
struct in { int i; };
struct out { int o; };
translator struct out < struct in *p > { o = p->i; };
struct in g;

BEGIN
{
	trace(xlate <struct out> (g)->o);
}
