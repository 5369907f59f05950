/*
 * tst.kernel-612.d -- the anonymous (boot-time) enabling of tst.kernel-612,
 * compiled with kdt -A against the 6.12 kernel's BTF: BEGIN as kdt.ko
 * loads, a count of the workload's getppid() calls, END and the count
 * when "kdt -a" is interrupted.
 */
#pragma D option quiet

BEGIN
{
	printf("anon begin\n");
}

syscall::getppid:entry
/execname == "getppid-loop"/
{
	@n = count();
}

END
{
	printf("anon end\n");
	printa("anon getppid %@d\n", @n);
}
