/*
 * root-mount.d -- how long until the root filesystem is mounted, and
 * what was mounted on the way?
 *
 * Every mount(2) with its source, target, type and result, the
 * chroot(2)/pivot_root(2) that switch_root and systemd use to enter the
 * real root, and the first exec of an init program afterwards.  Times
 * are ms since boot (the monotonic clock).
 *
 * Run it:
 *	kdt -A -s toolkit/root-mount.d		(then reboot)
 *	kdt -ae  or  kdt-extract DUMP
 *
 * Output, one line per event:
 *	<ms> mount <source> on <target> type <fstype> by <program> ret <value>
 *	<ms> chroot <path> by <program>		(also pivot_root)
 *	<ms> exec-after-root <path>
 * A failed mount has a negative ret (-2 ENOENT: no such device or
 * directory, -16 EBUSY, -19 ENODEV: filesystem type not available).
 * "Time to root" is the ms of the mount on "/" (or the chroot/pivot_root
 * into the new root); the aggregation counts mounts by type and result.
 */
#pragma D option quiet
#pragma D option bufsize=1m

syscall::mount:entry
{
	self->rm_src = arg0 != 0 ? copyinstr(arg0) : "none";
	self->rm_dst = copyinstr(arg1);
	self->rm_type = arg2 != 0 ? copyinstr(arg2) : "-";
	self->rm_in = 1;
}

syscall::mount:return
/self->rm_in/
{
	printf("%d.%03d mount %s on %s type %s by %s ret %d\n",
	    timestamp / 1000000, (timestamp / 1000) % 1000, self->rm_src,
	    self->rm_dst, self->rm_type, execname, (int)arg1);
	@mounts[self->rm_type, (int)arg1] = count();
	self->rm_in = 0;
}

syscall::chroot:entry,
syscall::pivot_root:entry
{
	printf("%d.%03d %s %s by %s\n", timestamp / 1000000,
	    (timestamp / 1000) % 1000, probefunc, copyinstr(arg0), execname);
	rm_rooted = 1;
}

proc:::exec-success
/rm_rooted/
{
	printf("%d.%03d exec-after-root %s\n", timestamp / 1000000,
	    (timestamp / 1000) % 1000, stringof((char *)arg0));
	rm_rooted = 0;
}
