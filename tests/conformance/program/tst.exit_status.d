/*
 * The value given to exit() is kdt's exit status; END still runs.
 * kdt-args: -q
 */
BEGIN
{
	exit(3);
}

END
{
	printf("end\n");
}
