/*
 * quantize() of a string is an error.
 */
BEGIN
{
	@a = quantize("x");
	exit(0);
}
