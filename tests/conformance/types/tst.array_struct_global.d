/*
 * Global D arrays of D structs and unions: element members are written
 * and read through the array and through a pointer to an element, and
 * element addresses are element-size apart.
 * kdt-args: -q
 */
struct rec {
	char ch;
	int in;
} recs[4];

union u {
	char c;
	int i;
	long l;
} us[3];

BEGIN
{
	recs[1].ch = 'a';
	recs[1].in = 100;
	recs[3].in = -7;
	p = &recs[3];
	p->ch = 'z';
	us[2].l = 0x1122334455667788;
	printf("%c %d %d %c\n", recs[1].ch, recs[1].in, recs[3].in, recs[3].ch);
	printf("%d %d\n", recs[0].in, recs[2].ch);
	printf("%x %x\n", us[2].i, us[2].c);
	printf("%d %d %d\n", (long)&recs[2] - (long)&recs[0],
	    (long)&us[2] - (long)&us[1], sizeof (recs));
	exit(0);
}
