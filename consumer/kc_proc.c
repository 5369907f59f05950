/*
 * kc_proc.c -- the -c and -p processes (kc_proc.h has the picture):
 * create one stopped at its entry point, check that a pid exists, let
 * them run, notice their exits.  Called by kdt_main.c (create, grab,
 * fini) and the kernel engine kc_kernel.c (release, poll).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "consumer/kc_proc.h"

#define KP_MAXARGS	256

static struct kc_proc *
kp_new(struct kc_procs *ps, FILE *err)
{
	if (ps->ps_n == KC_PROCS_MAX) {
		fprintf(err, "kdt: more than %d -c and -p processes\n",
		    KC_PROCS_MAX);
		return NULL;
	}
	memset(&ps->ps_procs[ps->ps_n], 0, sizeof (ps->ps_procs[0]));
	return &ps->ps_procs[ps->ps_n];
}

/* The child: be traced, exec; on failure tell the parent errno. */
static void __attribute__((noreturn))
kp_child(char **argv, int fd)
{
	int e;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		execvp(argv[0], argv);
	e = errno;
	(void) write(fd, &e, sizeof (e));
	_exit(127);
}

/* AT_ENTRY of process "pid", or 0. */
static uint64_t
kp_entry(pid_t pid)
{
	char file[64];
	Elf64_auxv_t av;
	uint64_t entry = 0;
	int fd;

	snprintf(file, sizeof (file), "/proc/%d/auxv", (int)pid);
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (read(fd, &av, sizeof (av)) == (ssize_t)sizeof (av) &&
	    av.a_type != AT_NULL)
		if (av.a_type == AT_ENTRY)
			entry = av.a_un.a_val;
	close(fd);
	return entry;
}

/*
 * Run the stopped, just exec'd child "pid" to its entry point: an int3
 * there, continue to it, put the byte back and rewind rip.  0, or -1
 * with the reason in "why".
 */
static int
kp_to_entry(pid_t pid, char *why, size_t whysz)
{
	struct user_regs_struct regs;
	uint64_t entry = kp_entry(pid);
	long word;
	int st;

	errno = 0;
	if (entry == 0 || ((word = ptrace(PTRACE_PEEKTEXT, pid,
	    (void *)entry, NULL)) == -1 && errno != 0)) {
		snprintf(why, whysz, "cannot find or read its entry point 0x%llx",
		    (unsigned long long)entry);
		return -1;
	}
	(void) ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry,
	    (void *)((word & ~0xffL) | 0xcc)) != 0 ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) != 0) {
		snprintf(why, whysz, "ptrace: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
			snprintf(why, whysz, "it exited before reaching its entry point");
			return -1;
		}
		if (WSTOPSIG(st) == SIGTRAP)
			break;
		/* a signal on the way: deliver it and go on */
		(void) ptrace(PTRACE_CONT, pid, NULL,
		    (void *)(long)WSTOPSIG(st));
	}
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0 ||
	    regs.rip != entry + 1) {
		snprintf(why, whysz, "it stopped at 0x%llx, not at its entry point 0x%llx",
		    (unsigned long long)regs.rip, (unsigned long long)entry);
		return -1;
	}
	regs.rip = entry;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)word) != 0 ||
	    ptrace(PTRACE_SETREGS, pid, NULL, &regs) != 0) {
		snprintf(why, whysz, "ptrace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Split "cmd" on blanks into argv (in "buf", a copy). */
static int
kp_split(char *buf, char **argv)
{
	char *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(buf, " \t\n", &save); w != NULL && n < KP_MAXARGS;
	    w = strtok_r(NULL, " \t\n", &save))
		argv[n++] = w;
	argv[n] = NULL;
	return n;
}

int
kc_proc_create(struct kc_procs *ps, const char *cmd, FILE *err)
{
	struct kc_proc *pr = kp_new(ps, err);
	char *buf = strdup(cmd), *argv[KP_MAXARGS + 1], why[160];
	int fds[2], e = 0, st;
	pid_t pid;

	if (pr == NULL || buf == NULL || kp_split(buf, argv) == 0) {
		if (pr != NULL && buf != NULL)
			fprintf(err, "kdt: -c: no command given\n");
		free(buf);
		return -1;
	}
	if (pipe2(fds, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
		fprintf(err, "kdt: failed to execute %s: %s\n", argv[0],
		    strerror(errno));
		free(buf);
		return -1;
	}
	if (pid == 0)
		kp_child(argv, fds[1]);
	close(fds[1]);
	if (read(fds[0], &e, sizeof (e)) == (ssize_t)sizeof (e)) {
		close(fds[0]);
		(void) waitpid(pid, &st, 0);
		fprintf(err, "kdt: failed to execute %s: %s\n", argv[0],
		    strerror(e));
		free(buf);
		return -1;
	}
	close(fds[0]);
	/* the exec stop (SIGTRAP), then on to the entry point */
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    kp_to_entry(pid, why, sizeof (why)) != 0) {
		if (!WIFSTOPPED(st))
			snprintf(why, sizeof (why), "it did not stop after exec");
		fprintf(err, "kdt: failed to execute %s: %s\n", argv[0], why);
		(void) kill(pid, SIGKILL);
		(void) waitpid(pid, &st, 0);
		free(buf);
		return -1;
	}
	free(buf);
	pr->pr_pid = (uint32_t)pid;
	pr->pr_created = 1;
	pr->pr_held = 1;
	ps->ps_n++;
	return 0;
}

int
kc_proc_grab(struct kc_procs *ps, const char *arg, FILE *err)
{
	struct kc_proc *pr = kp_new(ps, err);
	char *end;
	unsigned long pid;

	if (pr == NULL)
		return -1;
	errno = 0;
	pid = strtoul(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || errno != 0 || pid == 0 ||
	    pid > INT32_MAX) {
		fprintf(err, "kdt: failed to grab pid %s: not a process id\n",
		    arg);
		return -1;
	}
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
		fprintf(err, "kdt: failed to grab pid %lu: No such process\n",
		    pid);
		return -1;
	}
	pr->pr_pid = (uint32_t)pid;
	ps->ps_n++;
	return 0;
}

uint32_t
kc_proc_pids(const struct kc_procs *ps, uint32_t *pids)
{
	uint32_t i;

	for (i = 0; ps != NULL && i < ps->ps_n; i++)
		pids[i] = ps->ps_procs[i].pr_pid;
	return ps != NULL ? ps->ps_n : 0;
}

void
kc_proc_release(struct kc_procs *ps)
{
	uint32_t i;

	for (i = 0; ps != NULL && i < ps->ps_n; i++) {
		if (!ps->ps_procs[i].pr_held)
			continue;
		(void) ptrace(PTRACE_DETACH, (pid_t)ps->ps_procs[i].pr_pid,
		    NULL, NULL);
		ps->ps_procs[i].pr_held = 0;
	}
}

/* Has the -p process "pid" gone (no such process, or a zombie)? */
static int
kp_gone(uint32_t pid)
{
	char file[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return 1;
	snprintf(file, sizeof (file), "/proc/%u/stat", pid);
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	n = read(fd, buf, sizeof (buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return p != NULL && (p[2] == 'Z' || p[2] == 'X');
}

uint32_t
kc_proc_poll(struct kc_procs *ps, int quiet, FILE *err)
{
	struct kc_proc *pr;
	uint32_t i, alive = 0;
	int st;

	for (i = 0; ps != NULL && i < ps->ps_n; i++) {
		pr = &ps->ps_procs[i];
		if (pr->pr_gone)
			continue;
		if (pr->pr_created ? waitpid((pid_t)pr->pr_pid, &st,
		    WNOHANG) == (pid_t)pr->pr_pid : kp_gone(pr->pr_pid)) {
			pr->pr_gone = 1;
			if (!quiet)
				fprintf(err, "kdt: pid %u has exited\n",
				    pr->pr_pid);
			continue;
		}
		alive++;
	}
	return alive;
}

void
kc_proc_fini(struct kc_procs *ps)
{
	struct kc_proc *pr;
	uint32_t i;
	int st;

	for (i = 0; ps != NULL && i < ps->ps_n; i++) {
		pr = &ps->ps_procs[i];
		if (!pr->pr_created || pr->pr_gone)
			continue;
		(void) kill((pid_t)pr->pr_pid, SIGKILL);
		(void) waitpid((pid_t)pr->pr_pid, &st, 0);
		pr->pr_gone = 1;
	}
	if (ps != NULL)
		ps->ps_n = 0;
}
