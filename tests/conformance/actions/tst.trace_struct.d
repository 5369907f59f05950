/*
 * trace() of a struct records its bytes and prints them by the byte
 * rule, whatever the struct's size: a hex dump here.
 * kdt-args: -q
 */
struct pair {
	int a;
	int b;
};

struct pair p;

BEGIN
{
	p.a = 1;
	p.b = 0x02000000;
	trace(p);
	exit(0);
}
