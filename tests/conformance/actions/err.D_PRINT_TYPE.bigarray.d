/*
 * print() records at most 4096 bytes; an array larger than that cannot be
 * cut member by member like a struct, so it is refused.
 */
int g[2000];

BEGIN
{
	print(g);
	exit(0);
}
