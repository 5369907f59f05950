/*
 * With -x defaultargs, missing macro arguments are 0 and "".
 * kdt-args: -q -x defaultargs
 */
BEGIN
{
	printf("%d [%s]\n", $1, $$1);
	exit(0);
}
