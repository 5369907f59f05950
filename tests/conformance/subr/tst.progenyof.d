/*
 * progenyof(): the kdt process descends from itself and from init, and
 * from no process with an impossible pid.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d\n", progenyof($pid), progenyof(1),
	    progenyof(999999999));
	exit(0);
}
