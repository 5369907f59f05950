/*
 * bench.c -- the guest workload of bench/run-probe-cost: N getppid()
 * system calls, timed.
 *
 * Usage: bench N LABEL [REPS]
 *
 * It makes 2,000 warm-up calls (caches, TLB, the first firing of a probe
 * that is lazily set up), then times REPS (default 1) runs of N calls of
 * syscall(SYS_getppid) with clock_gettime() and prints one line for the
 * fastest run:
 *
 *	RESULT LABEL <wall ns per call> <own CPU ns per call>
 *
 * REPS > 1 is for plain TCG on a loaded host, where another job taking
 * the host core slows the guest by 2-10x for stretches of a few to a few
 * hundred milliseconds: contention only ever adds time, so the fastest of
 * several short runs is the least disturbed.
 *
 * wall is CLOCK_MONOTONIC: everything that ran on the guest while the
 * calls ran, so with one guest CPU it includes a tracer's consumer
 * draining its buffers.  cpu is CLOCK_PROCESS_CPUTIME_ID: this process's
 * own time, where the probes fire (they run in the context of the
 * system call), without the consumer's.  Under QEMU's -icount
 * shift=0,sleep=off both clocks count guest instructions.
 *
 * getppid() is used because it does almost nothing (a read of the parent
 * pointer under RCU), so a probe's cost is a large, measurable part of
 * each call, and because nothing else in the guest calls it.  The static
 * build (gcc -static) needs nothing in the initramfs.  syscall() rather
 * than getppid(): the libc wrapper could cache the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define PC_WARMUP	2000

static long long
pc_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	long long w0, w1, c0, c1, bw = -1, bc = 0;
	char *end;
	long n, reps = 1, i, r;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: bench N LABEL [REPS]\n");
		return 2;
	}
	n = strtol(argv[1], &end, 10);
	if (*end != '\0' || n < 1 || n > 1000000000L) {
		fprintf(stderr, "bench: N '%s': want a count from 1 to "
		    "1000000000\n", argv[1]);
		return 2;
	}
	if (argc == 4) {
		reps = strtol(argv[3], &end, 10);
		if (*end != '\0' || reps < 1 || reps > 10000) {
			fprintf(stderr, "bench: REPS '%s': want a count from 1 "
			    "to 10000\n", argv[3]);
			return 2;
		}
	}
	for (i = 0; i < PC_WARMUP; i++)
		syscall(SYS_getppid);
	for (r = 0; r < reps; r++) {
		c0 = pc_ns(CLOCK_PROCESS_CPUTIME_ID);
		w0 = pc_ns(CLOCK_MONOTONIC);
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		w1 = pc_ns(CLOCK_MONOTONIC);
		c1 = pc_ns(CLOCK_PROCESS_CPUTIME_ID);
		if (bw < 0 || w1 - w0 < bw) {
			bw = w1 - w0;
			bc = c1 - c0;
		}
	}
	printf("RESULT %s %.2f %.2f\n", argv[2], (double)bw / n,
	    (double)bc / n);
	return 0;
}
