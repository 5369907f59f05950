/*
 * Stores into bitfields (=, op=) change only the field's bits of its
 * storage unit; values are truncated to the width and signed fields read
 * back sign-extended, as in C.
 * kdt-args: -q
 */
struct flags {
	int a:4;
	int b:7;
	unsigned int c:3;
	int d:2;
};

struct flags g;

BEGIN
{
	this->p = (struct flags *)alloca(sizeof (struct flags));
	*(int *)this->p = -1;
	this->p->a = 1;
	this->p->b = 5;
	this->p->b += 3;
	this->p->c = 9;
	this->p->d = 2;
	printf("%d %d %d %d 0x%x\n", this->p->a, this->p->b, this->p->c,
	    this->p->d, *(uint32_t *)this->p);
	g.b = 63;
	g.b |= 64;
	printf("%d %d\n", g.a, g.b);
	exit(0);
}
