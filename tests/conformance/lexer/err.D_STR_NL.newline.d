/*
 * A newline inside a string literal is an error.
 */
BEGIN
{
	printf("broken
string");
	exit(0);
}
