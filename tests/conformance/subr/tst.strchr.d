/*
 * strchr(), strrchr() and strstr() return the rest of the string from
 * the match.
 * kdt-args: -q
 */
BEGIN
{
	printf("[%s] [%s] [%s]\n", strchr("hello", 'l'),
	    strrchr("hello", 'l'), strstr("hello world", "o w"));
	exit(0);
}
