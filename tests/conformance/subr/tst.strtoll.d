/*
 * strtoll() with the default base 10 and explicit bases; parsing stops
 * at the first character that is not a digit.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d\n", strtoll("123"), strtoll("-42"), strtoll("12abc"));
	printf("%d %d\n", strtoll("ff", 16), strtoll("777", 8));
	exit(0);
}
