/*
 * pid, ppid, uid and gid of the userspace engine are those of the kdt
 * process; tid is positive.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d %d %d\n", pid == $pid, ppid == $ppid, uid == $uid,
	    gid == $gid, tid > 0);
	exit(0);
}
