/*
 * "#pragma D attributes" naming an identifier the program never defines
 * is an unused pragma.
 */
#pragma D attributes Stable/Stable/Common nosuchname

BEGIN
{
	exit(0);
}
