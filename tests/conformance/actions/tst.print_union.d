/*
 * print() of unions, nested structs, enum and bitfield members, pointers
 * and char arrays defined in D: a union prints every member over the same
 * bytes, nested structs indent by 4 per level, enums print by name,
 * bitfields with their width, pointers and integers in hex, a char array
 * holding a string as a string and one that does not as characters.
 * kdt-args: -q
 */
enum state { IDLE, RUNNING = 3, DONE };

union word {
	uint32_t w;
	uint16_t h[2];
	unsigned char b[4];
};

struct node {
	struct node *next;
	enum state st;
	unsigned int flags:3;
	unsigned int prio:5;
	union word u;
	struct {
		char name[6];
		short s;
	} tag;
};

BEGIN
{
	this->n = (struct node *)alloca(sizeof (struct node));
	this->n->next = (struct node *)0xffff8880deadbeef;
	this->n->st = RUNNING;
	this->n->flags = 5;
	this->n->prio = 17;
	this->n->u.w = 0x41424344;
	this->n->tag.name[0] = 'k';
	this->n->tag.name[1] = 'd';
	this->n->tag.name[2] = 't';
	this->n->tag.s = -2;
	print(*this->n);
	printf("\n");
	print(this->n->u);
	printf("\n");
	print(this->n->tag.name);
	exit(0);
}
