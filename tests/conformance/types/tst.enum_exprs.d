/*
 * Enumerators take integer constant expressions, which may use the
 * enumerators before them; "struct D`name" names a D type with its module.
 * kdt-args: -q
 */
enum colors {
	RED,
	ORANGE = 5 + 5,
	YELLOW = 2,
	GREEN,
	BLUE = GREEN + ORANGE,
	PINK = 5 / 4,
	GREY = (1 << 4) | 3,
	INDIGO = -2,
	VIOLET
};

struct pt { int x; int y; };

BEGIN
{
	printf("%d %d %d %d %d %d %d %d %d\n", RED, ORANGE, YELLOW, GREEN,
	    BLUE, PINK, GREY, INDIGO, VIOLET);
	printf("%d %d\n", offsetof(struct D`pt, y), sizeof (struct D`pt));
	exit(0);
}
