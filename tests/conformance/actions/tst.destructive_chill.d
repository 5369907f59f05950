/*
 * With -w destructive actions run; chill() spins for the given
 * nanoseconds.
 * kdt-args: -q -w
 */
BEGIN
{
	chill(1000);
	printf("chilled\n");
	exit(0);
}
