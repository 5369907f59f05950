/*
 * An unknown option is an error.
 */
#pragma D option nosuchoption

BEGIN
{
	exit(0);
}
