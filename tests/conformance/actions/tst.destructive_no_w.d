/*
 * A destructive action without -w is refused: nothing runs and kdt
 * exits with status 1.
 * kdt-args: -q
 */
BEGIN
{
	printf("must not run\n");
	chill(1);
	exit(0);
}
