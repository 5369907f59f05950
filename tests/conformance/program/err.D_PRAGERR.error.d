/*
 * #pragma D error stops the compilation with its message.
 */
#pragma D error "stop here"

BEGIN
{
	exit(0);
}
