/*
 * A constant starting with '.' is a floating-point constant too.
 */
BEGIN
{
	trace(.75);
	exit(0);
}
