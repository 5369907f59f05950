/*
 * strjoin() concatenates.
 * kdt-args: -q
 */
BEGIN
{
	printf("[%s] [%s] [%s]\n", strjoin("foo", "bar"), strjoin("", "x"),
	    strjoin(strjoin("a", "b"), "c"));
	exit(0);
}
