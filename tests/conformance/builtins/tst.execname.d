/*
 * In the userspace engine the probes fire in the kdt process itself.
 * kdt-args: -q
 */
BEGIN
{
	printf("%s\n", execname);
	exit(0);
}
