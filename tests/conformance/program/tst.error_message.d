/*
 * A fault is reported on stderr as dtrace does; the run still succeeds.
 * The DIF offset part of the message depends on code generation, so only
 * stdout and the exit status are compared here.
 * kdt-args: -q
 */
BEGIN
{
	x = *(int *)0;
}

BEGIN
{
	exit(0);
}
