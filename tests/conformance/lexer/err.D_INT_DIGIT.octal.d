/*
 * 9 is not an octal digit.
 */
BEGIN
{
	x = 0129;
	exit(0);
}
