/*
 * strlen() of empty, short and computed strings.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d\n", strlen(""), strlen("hello"),
	    strlen(strjoin("ab", "cde")));
	exit(0);
}
