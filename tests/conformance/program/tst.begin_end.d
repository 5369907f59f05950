/*
 * BEGIN runs first, exit() ends tracing and END runs last.
 * kdt-args: -q
 */
BEGIN
{
	printf("begin\n");
	exit(0);
}

END
{
	printf("end\n");
}
