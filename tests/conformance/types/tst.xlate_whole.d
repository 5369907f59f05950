/*
 * A whole translation: *xlate <T *> (e) and xlate <T> (e) are a struct T
 * with every member the translator defines (scalars, a string into a
 * char array, a D string, a nested struct) and zeroes elsewhere; it can
 * be printed, assigned to a struct variable and its members read.
 * kdt-args: -q
 */
typedef struct span {
	long lo;
	long hi;
} span_t;

struct in {
	int v;
	span_t s;
};

typedef struct out {
	int twice;
	int unset;
	char name[8];
	string greeting;
	span_t range;
} out_t;

translator out_t < struct in *p > {
	twice = p->v * 2;
	name = "seven";
	greeting = strjoin("hello, ", "world");
	range = p->s;
};

out_t saved;

BEGIN
{
	this->i = (struct in *)alloca(sizeof (struct in));
	this->i->v = 21;
	this->i->s.lo = 3;
	this->i->s.hi = 4;
	print(*xlate <out_t *> (this->i));
	printf("\n");
	saved = xlate <out_t> (this->i);
	printf("%d %d %s %s %d\n", saved.twice, saved.unset, saved.greeting,
	    stringof(saved.name), saved.range.hi);
	exit(0);
}
