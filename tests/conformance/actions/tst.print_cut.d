/*
 * print() records at most 4096 bytes of an object (common/dof_ptype.h,
 * "Limits"): members past the limit are left out, a struct straddling it
 * is described up to it, and the output says how many members were not
 * recorded and how large the type is.
 * kdt-args: -q
 */
struct tail {
	int t1;
	char gap[40];
	int t2;
};

struct big {
	int head;
	char pad[4060];
	struct tail tl;
	int after[8];
	long last;
};

BEGIN
{
	this->b = (struct big *)alloca(sizeof (struct big));
	this->b->head = 7;
	this->b->tl.t1 = 9;
	this->b->last = 1;
	print(*this->b);
	printf("\n%d\n", sizeof (struct big));
	exit(0);
}
