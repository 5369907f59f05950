/*
 * early-userspace.d -- what does early userspace (the initramfs, udev,
 * init) run, fork and open while the machine boots?
 *
 * proc:::exec-success is a program that started, proc:::create a fork,
 * syscall::openat:entry a file open (its path as the caller gave it),
 * proc:::exit a process that ended.  Times are the kernel's monotonic
 * clock: ms since boot.
 *
 * Run it:
 *	kdt -A -s toolkit/early-userspace.d	(then reboot)
 *	kdt -ae  or  kdt-extract DUMP
 *
 * Output, one line per event:
 *	<ms> exec <path> (pid <pid>)
 *	<ms> exit <program> (pid <pid>) status <wait(2) status>
 * then the aggregations: execs by path, forks by parent program, opens
 * by program and path (the 30 most frequent are the interesting part:
 * trunc() is not used, so all are kept), and the run time in
 * microseconds of each program that exited.
 */
#pragma D option quiet
#pragma D option bufsize=1m

proc:::exec-success
{
	self->eu_start = timestamp;
	printf("%d.%03d exec %s (pid %d)\n", timestamp / 1000000,
	    (timestamp / 1000) % 1000, stringof((char *)arg0), pid);
	@exec_paths[stringof((char *)arg0)] = count();
}

proc:::create
{
	@forks_by_program[execname] = count();
}

syscall::openat:entry
{
	@opens_by_program[execname, copyinstr(arg1)] = count();
}

proc:::exit
/self->eu_start/
{
	printf("%d.%03d exit %s (pid %d) status %d\n", timestamp / 1000000,
	    (timestamp / 1000) % 1000, execname, pid, arg1);
	@runtime_us[execname] = sum((timestamp - self->eu_start) / 1000);
}
