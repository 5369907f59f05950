/*
 * "#pragma D option" needs an option name.
 */
#pragma D option

BEGIN
{
	exit(0);
}
