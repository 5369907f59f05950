/*
 * $pid, $ppid and $uid are the ids of the kdt process compiling the
 * program; the userspace engine runs in that same process.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d\n", $pid == pid, $ppid == ppid, $uid == uid);
	exit(0);
}
