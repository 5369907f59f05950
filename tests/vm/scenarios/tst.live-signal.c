/*
 * tst.live-signal.c -- the workload of tst.live-signal (see it), built
 * static by the scenario and run in the guest as /bin/sigtest:
 *
 *   sigtest raise N   count SIGUSR1 (a handler), call getppid() N times,
 *                     print "SIGUSR1 <count> of N"; exit 0
 *   sigtest stop      call getppid() every 50 ms for at most 30 s (the
 *                     scenario stops it with stop() and checks
 *                     /proc/PID/stat); exit 0
 *   sigtest syms      call report(&marker, &marker + 4) once, so a pid
 *                     probe on report() can name both addresses with
 *                     usym()/uaddr()/umod(); then stay alive 3 s so the
 *                     consumer can still read /proc/PID/maps when it
 *                     prints the records; exit 0
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t nusr1;

static void
on_usr1(int sig)
{
	(void)sig;
	nusr1++;
}

/* Larger than 4 bytes of code: &marker + 4 is inside it. */
__attribute__((noinline, noclone)) long
marker(long x)
{
	__asm__ __volatile__("" : "+r" (x) : : "memory");
	return x * 3 + 1;
}

__attribute__((noinline, noclone)) long
report(long a, long b)
{
	__asm__ __volatile__("" : : "r" (a), "r" (b) : "memory");
	return a ^ b;
}

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	(void) nanosleep(&ts, NULL);
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	long i, n;

	if (argc > 2 && strcmp(argv[1], "raise") == 0) {
		memset(&sa, 0, sizeof (sa));
		sa.sa_handler = on_usr1;
		(void) sigaction(SIGUSR1, &sa, NULL);
		n = atol(argv[2]);
		for (i = 0; i < n; i++)
			(void) getppid();
		printf("SIGUSR1 %ld of %ld\n", (long)nusr1, n);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "stop") == 0) {
		for (i = 0; i < 600; i++) {
			(void) getppid();
			nap(50);
		}
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "syms") == 0) {
		(void) report((long)&marker, (long)&marker + 4);
		nap(3000);
		return marker(1) == 4 ? 0 : 1;
	}
	fprintf(stderr, "usage: sigtest raise N | stop | syms\n");
	return 2;
}
