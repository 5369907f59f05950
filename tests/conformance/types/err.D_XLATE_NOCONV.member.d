/*
 * xlate <T *> (e)->m for a member of T that the translator does not
 * define is D_XLATE_NOCONV.
 */
struct in { int a; };
struct out { int x; int y; };

translator struct out < struct in *p > { x = p->a; };

BEGIN
{
	this->p = (struct in *)alloca(sizeof (struct in));
	trace(xlate <struct out *> (this->p)->y);
}
