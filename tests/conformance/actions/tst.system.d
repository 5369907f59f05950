/*
 * system() runs a shell command with -w; its output goes to kdt's
 * stdout in order with the records.
 * kdt-args: -q -w
 */
BEGIN
{
	printf("before\n");
	system("echo %s %d", "from-system", 7);
}

BEGIN
{
	printf("after\n");
	exit(0);
}
