/*
 * $euid, $egid, $pgid and $sid are the consumer's ids; a macro argument
 * that is neither a number nor an identifier is a string ($0 is the
 * script's name), without its enclosing quotes.
 * $sid may be 0: getsid() returns 0 when the session's leader lives in
 * an ancestor pid namespace, as in a CI container (seen there); the
 * process group always has a nonzero id in the consumer's namespace.
 * kdt-args: -q -- "two words" '"quoted"'
 */
BEGIN
{
	printf("%d %d\n", $euid == $uid, $egid == $gid);
	printf("%d %d\n", $pgid > 0, $sid >= 0);
	printf("%s|%s|%s\n", $0, $1, $2);
	exit(0);
}
