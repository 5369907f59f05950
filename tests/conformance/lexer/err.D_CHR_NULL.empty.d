/*
 * An empty character constant is an error.
 */
BEGIN
{
	x = '';
	exit(0);
}
