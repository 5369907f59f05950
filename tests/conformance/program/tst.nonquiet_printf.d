/*
 * Unquiet output: the heading, then per firing CPU, probe id and
 * FUNCTION:NAME, then what the actions print, then a newline.
 */
BEGIN
{
	printf("hello");
	exit(0);
}

END
{
	printf("bye");
}
