/*
 * print() of a D enum, alone and as a struct member, shows the
 * enumerator's name, or the value in decimal when no enumerator has it;
 * the type is named "enum tag".  Enumerators keep their integer value
 * everywhere else.
 * kdt-args: -q
 */
enum color { RED, GREEN = 5, BLUE, NEG = -2 };

struct pixel {
	enum color c;
	int x;
};

struct pixel px;

BEGIN
{
	e = BLUE;
	print(e);
	printf("\n");
	px.c = NEG;
	px.x = 3;
	print(px);
	printf("\n");
	print((enum color)7);
	printf("\n%d %d %d\n", e, BLUE + 1, sizeof (enum color));
	exit(0);
}
