/*
 * -x quiet is the same as -q.
 * kdt-args: -x quiet
 */
BEGIN
{
	trace(1);
	exit(0);
}
