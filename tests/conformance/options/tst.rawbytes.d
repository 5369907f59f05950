/*
 * rawbytes prints a traced string as a hex dump of its strsize bytes.
 * kdt-args: -q -x rawbytes -x strsize=16
 */
BEGIN
{
	trace("ab");
	exit(0);
}
