/*
 * printf %s with width and precision, %c and %%.
 * kdt-args: -q
 */
BEGIN
{
	printf("[%s] [%10s] [%-10s] [%.3s] [%c] [%%]\n", "abc", "abc", "abc",
	    "abcdef", 65);
	printf("[%5c]\n", 'x');
	exit(0);
}
