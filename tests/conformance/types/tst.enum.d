/*
 * Enumerators count up from 0 or from an explicit value.
 * kdt-args: -q
 */
enum color {
	RED,
	GREEN = 5,
	BLUE
};

BEGIN
{
	c = BLUE;
	printf("%d %d %d %d\n", RED, GREEN, BLUE, c == BLUE);
	exit(0);
}
