/*
 * A translator between two D-defined structs; xlate<> of a member and
 * through a translated pointer.
 * kdt-args: -q
 */
struct in_t {
	int	a;
	int	b;
};

struct out_t {
	int	sum;
	int	diff;
};

translator struct out_t < struct in_t *p > {
	sum = p->a + p->b;
	diff = p->a - p->b;
};

BEGIN
{
	this->p = (struct in_t *)alloca(sizeof (struct in_t));
	this->p->a = 7;
	this->p->b = 3;
	printf("%d %d\n", xlate <struct out_t> (this->p).sum,
	    xlate <struct out_t *> (this->p)->diff);
	exit(0);
}
