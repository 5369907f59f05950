/*
 * A size option with a value that is not a size is an error.
 */
#pragma D option bufsize=banana

BEGIN
{
	exit(0);
}
