/*
 * Comments may appear anywhere white space may, including inside an
 * expression and between a probe description and its body.
 * kdt-args: -q
 */
BEGIN /* here */
/* and here */
{
	printf("%d\n", 1 + /* inside */ 2);
	/*
	 * A multi-line comment with a * and a / in it.
	 */
	exit(0);
}
