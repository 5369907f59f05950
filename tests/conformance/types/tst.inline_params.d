/*
 * Inlines with parameters ("inline int f[int a, int b] = ...;"): each use
 * substitutes the arguments, converted to the parameter types, into the
 * expression; parameters may be strings and used more than once, and the
 * result takes the inline's declared integer type.
 * kdt-args: -q
 */
inline int sum[int a, int b] = a + b;
inline char low[int v] = v;
inline string both[string s, string t] = strjoin(s, strjoin("/", t));
inline int twice[int x] = x * 2 + sum[x, 1];
inline int a = 1000;

BEGIN
{
	printf("%d %d\n", sum[10, 20], sum[a, -1]);
	printf("%d %d\n", low[0x141], sizeof (low[1]));
	printf("%s\n", both["usr", "lib"]);
	printf("%d\n", twice[5]);
	exit(0);
}
