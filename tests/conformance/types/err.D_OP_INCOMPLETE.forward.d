/*
 * A member of a struct known only as a forward tag (here a translator's
 * input type) cannot be read: no definition is available.
 */
struct out {
	int v;
};

translator struct out < struct opaque *p > {
	v = p->field;
};

BEGIN
{
	exit(0);
}
