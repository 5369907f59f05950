/*
 * sleep-loop.c -- a workload for tst.live-sched: sleep N times (default
 * 50) for 20 ms with nanosleep(2), then exit 0.  Each sleep takes the
 * task off its run queue (a blocking dequeue) and the timer's wakeup puts
 * it back (a wakeup enqueue).  Built static by the scenario; the D
 * predicate picks it by its comm, "sleep-loop".
 */
#include <stdlib.h>
#include <time.h>

int
main(int argc, char **argv)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	long i, n = argc > 1 ? atol(argv[1]) : 50;

	for (i = 0; i < n; i++)
		(void) nanosleep(&ts, NULL);
	return 0;
}
