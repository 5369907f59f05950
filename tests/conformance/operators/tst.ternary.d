/*
 * The conditional operator, nested (it associates to the right), with
 * string and integer results.
 * kdt-args: -q
 */
BEGIN
{
	x = 5;
	printf("%s\n", x > 3 ? "big" : "small");
	printf("%s\n", x == 1 ? "one" : x == 5 ? "five" : "other");
	printf("%d\n", x < 3 ? 10 : 20);
	exit(0);
}
