/*
 * The scoping operator ` may not be used in a declared name.
 */
int `xyz;

BEGIN
{
	exit(0);
}
