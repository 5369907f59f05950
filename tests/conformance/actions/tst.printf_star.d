/*
 * printf with * for width and precision taken from arguments.
 * kdt-args: -q
 */
BEGIN
{
	printf("[%*d] [%-*d] [%.*s]\n", 6, 42, 4, 7, 2, "hello");
	exit(0);
}
