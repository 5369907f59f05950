/*
 * Division by a constant zero is rejected at compile time.
 */
BEGIN
{
	x = 1 / 0;
	exit(0);
}
