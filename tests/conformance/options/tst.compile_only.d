/*
 * -e compiles the program and exits without running it: no output.
 * kdt-args: -q -e
 */
BEGIN
{
	printf("must not run\n");
	exit(1);
}
