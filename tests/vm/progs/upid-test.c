/*
 * upid-test.c -- the workload of the live pid/USDT scenario
 * (tst.live-upid): call work(i) exactly N times (default 500) for
 * i = 1..N, so pid$target:a.out:work:entry counts N and sums arg0 to
 * N(N+1)/2, and work:return sees arg1 = 2i; fire the USDT probe
 * kdttest:::tick N times with (i, "str"); its semaphore counts the
 * consumers that enabled it, and the program says how often it saw it
 * set (nothing when never).  Then exit 0.  With a second
 * argument "wait", it first waits for a line on stdin -- for -p, so kdt
 * can attach before the calls.  Built static (gcc -static) by lib.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* tick has a semaphore (in .probes), set by kdt.ko while it is armed */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

__extension__ unsigned short kdttest_tick_semaphore
    __attribute__((unused, section(".probes")));

/* noinline, noclone, and used for its result: one real call per i */
__attribute__((noinline, noclone)) long
work(long i)
{
	__asm__ __volatile__("" : : "r" (i) : "memory");
	return 2 * i;
}

int
main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 500, sum = 0, armed = 0;
	char line[16];

	if (argc > 2 && strcmp(argv[2], "wait") == 0 &&
	    fgets(line, sizeof (line), stdin) == NULL)
		return 1;
	for (i = 1; i <= n; i++) {
		sum += work(i);
		if (*(volatile unsigned short *)&kdttest_tick_semaphore != 0)
			armed++;
		DTRACE_PROBE2(kdttest, tick, i, "str");
	}
	if (armed != 0)
		printf("tick semaphore set for %ld of %ld\n", armed, n);
	return sum == n * (n + 1) ? 0 : 1;
}
