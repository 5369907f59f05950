/*
 * Without -xerrtags the message names the script and the line, without
 * the tag.
 */
BEGIN
{
	printf("%d\n", nosuchvariable);
}
