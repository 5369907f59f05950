/*
 * print() of structs, unions' members and arrays defined in D prints
 * dtrace's nested form: "type name = value" per member, 4 spaces per
 * level, arrays in [ ], char arrays holding a string as "...", other char
 * arrays as characters, bitfields with their width, pointers without a
 * space before the member name, function pointers as "int (*)()", and a
 * struct's closing brace without a newline.
 * kdt-args: -q
 */
typedef struct fwd fwd_t;

typedef struct inner {
	long x;
	unsigned char y;
} inner_t;

typedef struct outer {
	int a[3];
	char s[8];
	char raw[3];
	inner_t in[2];
	struct inner one;
	fwd_t *f;
	void (*g)();
	int bf:4;
	int bg:3;
	uint64_t big;
} outer_t;

BEGIN
{
	this->o = (outer_t *)alloca(sizeof (outer_t));
	this->o->a[0] = 1;
	this->o->a[2] = -1;
	this->o->s[0] = 'h';
	this->o->s[1] = 'i';
	this->o->raw[0] = 7;
	this->o->raw[1] = 'r';
	this->o->in[1].x = 0x20;
	this->o->in[1].y = 200;
	this->o->one.x = 5;
	this->o->f = (fwd_t *)0x10;
	this->o->bf = 3;
	this->o->bg = 2;
	this->o->big = 0xfedcba9876543210;
	print(this->o->a);
	print(this->o->s);
	print(this->o->in);
	print(*this->o);
	printf("|\n");
	exit(0);
}
