/*
 * Two statements without a separating semicolon are a syntax error.
 */
BEGIN
{
	x = 1
	y = 2;
}
