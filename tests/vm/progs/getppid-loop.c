/*
 * getppid-loop.c -- a workload for the live VM scenarios: call getppid()
 * exactly N times (default 1234) through the raw system call, so that no
 * libc caching can change the count, then exit 0.  Built static by the
 * scenario (gcc -static) and copied into the guest with --add; the
 * scenario's D predicate picks it by its execname, "getppid-loop".
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int
main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1234;

	for (i = 0; i < n; i++)
		(void) syscall(SYS_getppid);
	return 0;
}
