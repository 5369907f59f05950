/*
 * seqcall.c -- the workload of tst.live-accounting: one child per online
 * CPU, each pinned to its CPU, makes exactly N getppid() system calls
 * through the raw syscall(2) and passes a sequence number as the (ignored)
 * first argument, so that syscall::getppid:entry sees arg0 = base + i for
 * i = 1..N, with base = (cpu + 1) * 10,000,000.  The scenario can then
 * tell every firing apart: which CPU made it, in what order, and whether
 * a record is missing, duplicated or out of order.  The parent waits for
 * every child and exits 0 only if each child was pinned and finished.
 *
 *   seqcall N
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define SEQ_BASE	10000000L

static int
child(int cpu, long n)
{
	cpu_set_t set;
	long i, base = (cpu + 1) * SEQ_BASE;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof (set), &set) != 0) {
		perror("seqcall: sched_setaffinity");
		return 1;
	}
	for (i = 1; i <= n; i++)
		(void) syscall(SYS_getppid, base + i);
	return 0;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, ncpu;
	int cpu, st, rc = 0;

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (n <= 0 || n >= SEQ_BASE || ncpu < 1) {
		fprintf(stderr, "seqcall: N must be in 1..%ld\n", SEQ_BASE - 1);
		return 2;
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		switch (fork()) {
		case -1:
			perror("seqcall: fork");
			return 1;
		case 0:
			_exit(child(cpu, n));
		}
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			rc = 1;
	return rc;
}
