/*
 * The option encoding takes ascii or utf8 only.
 */
#pragma D option encoding=latin1

BEGIN
{
	exit(0);
}
