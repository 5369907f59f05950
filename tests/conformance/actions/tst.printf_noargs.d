/*
 * printf with a format only, unquiet: the text follows the probe columns.
 */
BEGIN
{
	printf("just text");
	exit(0);
}
