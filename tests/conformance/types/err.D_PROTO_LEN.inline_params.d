/*
 * An inline with parameters must get one argument per parameter.
 */
inline int sum[int a, int b] = a + b;

BEGIN
{
	trace(sum[1]);
	exit(0);
}
