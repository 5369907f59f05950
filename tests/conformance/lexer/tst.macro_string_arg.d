/*
 * A macro argument with a space in it is one argument; $$1 is it as a
 * string.
 * kdt-args: -q -- "with space"
 */
BEGIN
{
	printf("[%s] %d\n", $$1, strlen($$1));
	exit(0);
}
