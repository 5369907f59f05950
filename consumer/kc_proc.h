/*
 * kc_proc.h -- the processes of -c and -p: created stopped, or grabbed,
 * watched until they exit (dtrace(1)'s -c and -p).
 *
 * -c 'cmd args' (the words split on blanks, as dtrace splits them, and
 * found through PATH): kdt forks; the child asks to be traced
 * (PTRACE_TRACEME) and execs; kdt then runs it to its entry point
 * (AT_ENTRY from /proc/N/auxv, a one-byte breakpoint put back at once)
 * so that the dynamic loader has mapped every library the program
 * needs -- DT_NEEDED, RPATH, LD_LIBRARY_PATH and all, without kdt
 * repeating the loader's search -- and keeps it stopped there.  The
 * program is compiled with $target = that pid, probes are resolved and
 * enabled, and only then kc_proc_release() lets it run (detached:
 * kdt does not trace it any further).  Libraries opened later with
 * dlopen() are not seen.  If kdt exits while the command still runs,
 * the command is killed, as dtrace kills the processes it created.
 *
 * -p PID: the process must exist; it is not stopped (kdt.ko's uprobes
 * need no cooperation from it) and is left alone when kdt exits.
 *
 * kdt stops tracing once every -c and -p process has exited, saying
 * "kdt: pid N has exited" for each unless quiet.
 */
#ifndef KDT_KC_PROC_H
#define KDT_KC_PROC_H

#include <stdio.h>
#include <stdint.h>

#define KC_PROCS_MAX	16

struct kc_proc {
	uint32_t	pr_pid;
	uint8_t		pr_created;	/* -c: our child */
	uint8_t		pr_held;	/* stopped at its entry point */
	uint8_t		pr_gone;	/* exited (and reaped if ours) */
	uint8_t		pr_pad;
};

struct kc_procs {
	struct kc_proc	ps_procs[KC_PROCS_MAX];
	uint32_t	ps_n;
};

/* -c: start "cmd" stopped at its entry point.  0, or -1 after saying why. */
int kc_proc_create(struct kc_procs *ps, const char *cmd, FILE *err);
/* -p: check that "pid" exists.  0, or -1 after saying why. */
int kc_proc_grab(struct kc_procs *ps, const char *pid, FILE *err);
/* The pids, in the order given ($target is the first). */
uint32_t kc_proc_pids(const struct kc_procs *ps, uint32_t *pids);
/* Let the held -c processes run. */
void kc_proc_release(struct kc_procs *ps);
/* Notice exits (reaping ours); the number of processes still alive. */
uint32_t kc_proc_poll(struct kc_procs *ps, int quiet, FILE *err);
/* Kill and reap the -c processes still alive; forget the rest. */
void kc_proc_fini(struct kc_procs *ps);

#endif /* KDT_KC_PROC_H */
