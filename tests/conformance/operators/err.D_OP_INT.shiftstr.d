/*
 * The operands of << must be integers.
 */
BEGIN
{
	x = "abc" << 2;
	exit(0);
}
