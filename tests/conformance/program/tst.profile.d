/*
 * profile-N probes fire in the userspace engine too.
 * kdt-args: -q
 */
int done;

profile-97
/!done/
{
	done = 1;
	printf("%s\n", probename);
	exit(0);
}
