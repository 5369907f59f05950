/*
 * lltostr() in base 10.
 * kdt-args: -q
 */
BEGIN
{
	printf("[%s] [%s] [%s]\n", lltostr(-123), lltostr(0),
	    lltostr(9223372036854775807LL));
	exit(0);
}
