/*
 * xlate <T *> (e) alone, without a member or a *, cannot be evaluated.
 */
struct in { int a; };
struct out { int x; };

translator struct out < struct in *p > { x = p->a; };

BEGIN
{
	this->p = (struct in *)alloca(sizeof (struct in));
	xlate <struct out *> (this->p);
}
