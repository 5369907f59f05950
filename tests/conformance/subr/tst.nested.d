/*
 * String subroutines nest.
 * kdt-args: -q
 */
BEGIN
{
	printf("%s\n", toupper(substr(strjoin("abc", "def"), 2, 3)));
	exit(0);
}
