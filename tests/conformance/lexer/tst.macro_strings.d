/*
 * $euid, $egid, $pgid and $sid are the consumer's ids; a macro argument
 * that is neither a number nor an identifier is a string ($0 is the
 * script's name), without its enclosing quotes.
 * kdt-args: -q -- "two words" '"quoted"'
 */
BEGIN
{
	printf("%d %d\n", $euid == $uid, $egid == $gid);
	printf("%d %d\n", $pgid > 0, $sid > 0);
	printf("%s|%s|%s\n", $0, $1, $2);
	exit(0);
}
