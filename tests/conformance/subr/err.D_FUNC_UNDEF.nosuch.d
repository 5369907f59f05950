/*
 * Calling a function that does not exist is an error.
 */
BEGIN
{
	x = nosuchfunction(1);
	exit(0);
}
