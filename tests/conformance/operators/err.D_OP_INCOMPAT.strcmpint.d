/*
 * A string cannot be compared with an integer.
 */
BEGIN
{
	x = "abc" == 1;
	exit(0);
}
