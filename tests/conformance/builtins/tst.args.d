/*
 * arg1 to arg4 of BEGIN are 0.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d\n", arg1 + arg2 + arg3 + arg4);
	exit(0);
}
