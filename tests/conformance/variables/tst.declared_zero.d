/*
 * Declared but never assigned globals read as 0 and "".
 * kdt-args: -q
 */
int n;
string s;

BEGIN
{
	printf("%d [%s]\n", n, s);
	exit(0);
}
