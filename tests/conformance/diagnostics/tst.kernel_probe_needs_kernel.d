/*
 * The userspace engine refuses a program that names a kernel probe and
 * says which probe needs the kernel engine.
 * kdt-args: -q
 */
fbt::do_sys_open:entry
{
	printf("kernel\n");
}

BEGIN
{
	exit(0);
}
