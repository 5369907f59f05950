/*
 * A global first assigned an integer cannot later be given a string.
 */
BEGIN
{
	x = 1;
	x = "string";
	exit(0);
}
