/*
 * An expression with an unbalanced parenthesis is a syntax error.
 */
BEGIN
{
	x = (1 + 2;
	exit(0);
}
