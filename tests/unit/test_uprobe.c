/*
 * test_uprobe.c -- the consumer half of user-space probes
 * (consumer/kc_uprobe.c, kc_proc.c): the USDT argument-spec parser; the
 * table built for pid and USDT descriptions against real processes --
 * the workload of the live scenario (tests/vm/progs/upid-test.c) built
 * by the Makefile twice beside this program, static (upid-static) and
 * PIE with shared libc (upid-pie), started with "wait" so that it sits
 * in fgets() while the table is built; -c's start-at-the-entry-point;
 * and $target and macros in probe descriptions (the compiler).
 *
 * The resolved file offsets are checked without trusting the resolver's
 * arithmetic: the bytes at ku_offset in ku_path must equal the bytes at
 * ku_addr in the process (/proc/N/mem), and a USDT site is a nop (0x90).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kt_check.h"
#include "common/dof_load.h"
#include "compiler/dc.h"
#include "consumer/kc_proc.h"
#include "consumer/kc_uprobe.h"

static char t_why[256];

/* ---- argument specs ---- */

static struct kio_uparg
t_arg(const char *spec)
{
	struct kio_uparg a;

	ck_assert_msg(kc_uparg_parse(spec, &a, NULL, NULL, t_why,
	    sizeof (t_why)) == 0, "%s: %s", spec, t_why);
	return a;
}

static void
t_bad(const char *spec, const char *why)
{
	struct kio_uparg a;

	ck_assert_msg(kc_uparg_parse(spec, &a, NULL, NULL, t_why,
	    sizeof (t_why)) != 0, "%s accepted", spec);
	ck_assert_msg(strstr(t_why, why) != NULL, "%s: \"%s\" lacks \"%s\"",
	    spec, t_why, why);
}

START_TEST(test_arg_registers_every_width)
{
	struct kio_uparg a;

	a = t_arg("-4@%edi");
	ck_assert_int_eq(a.ua_kind, KIO_UA_REG);
	ck_assert_int_eq(a.ua_reg, KIO_REG_RDI);
	ck_assert_int_eq(a.ua_size, -4);
	a = t_arg("8@%rax");
	ck_assert_int_eq(a.ua_reg, KIO_REG_RAX);
	ck_assert_int_eq(a.ua_size, 8);
	ck_assert_int_eq(t_arg("1@%sil").ua_reg, KIO_REG_RSI);
	ck_assert_int_eq(t_arg("2@%bp").ua_reg, KIO_REG_RBP);
	ck_assert_int_eq(t_arg("-1@%al").ua_reg, KIO_REG_RAX);
	ck_assert_int_eq(t_arg("8@%r8").ua_reg, KIO_REG_R8);
	ck_assert_int_eq(t_arg("-4@%r12d").ua_reg, KIO_REG_R12);
	ck_assert_int_eq(t_arg("2@%r15w").ua_reg, KIO_REG_R15);
	ck_assert_int_eq(t_arg("1@%r9b").ua_reg, KIO_REG_R9);
	ck_assert_int_eq(t_arg("8@%rsp").ua_reg, KIO_REG_RSP);
	/* no size: 8 bytes, as the oldest notes have it */
	a = t_arg("%rdx");
	ck_assert_int_eq(a.ua_reg, KIO_REG_RDX);
	ck_assert_int_eq(a.ua_size, 8);
}
END_TEST

START_TEST(test_arg_memory_and_constants)
{
	struct kio_uparg a;

	a = t_arg("8@-16(%rbp)");
	ck_assert_int_eq(a.ua_kind, KIO_UA_MEM);
	ck_assert_int_eq(a.ua_reg, KIO_REG_RBP);
	ck_assert_int_eq(a.ua_off, -16);
	a = t_arg("-4@0x18(%r13)");
	ck_assert_int_eq(a.ua_reg, KIO_REG_R13);
	ck_assert_int_eq(a.ua_off, 0x18);
	a = t_arg("4@(%rsp)");
	ck_assert_int_eq(a.ua_kind, KIO_UA_MEM);
	ck_assert_int_eq(a.ua_reg, KIO_REG_RSP);
	ck_assert_int_eq(a.ua_off, 0);
	a = t_arg("4@$5");
	ck_assert_int_eq(a.ua_kind, KIO_UA_CONST);
	ck_assert_int_eq(a.ua_off, 5);
	ck_assert_int_eq(a.ua_size, 4);
	ck_assert_int_eq(t_arg("-8@$-3").ua_off, -3);
	ck_assert_int_eq(t_arg("8@$0x100").ua_off, 0x100);
}
END_TEST

static int
t_sym(void *arg, const char *name, uint64_t *addr)
{
	if (strcmp(name, "counter") != 0)
		return -1;
	*addr = 0x601000;
	return 0;
}

START_TEST(test_arg_rip_relative_symbol)
{
	struct kio_uparg a;

	ck_assert_int_eq(kc_uparg_parse("4@counter(%rip)", &a, t_sym, NULL,
	    t_why, sizeof (t_why)), 0);
	ck_assert_int_eq(a.ua_kind, KIO_UA_MEM);
	ck_assert_int_eq(a.ua_reg, KIO_REG_NONE);
	ck_assert_int_eq(a.ua_off, 0x601000);
	ck_assert_int_eq(kc_uparg_parse("-8@counter+8(%rip)", &a, t_sym,
	    NULL, t_why, sizeof (t_why)), 0);
	ck_assert_int_eq(a.ua_off, 0x601008);
	t_bad("4@counter(%rip)", "symbol counter");
	ck_assert_int_ne(kc_uparg_parse("4@other(%rip)", &a, t_sym, NULL,
	    t_why, sizeof (t_why)), 0);
}
END_TEST

START_TEST(test_arg_refused_with_reason)
{
	t_bad("3@%rax", "bad size");
	t_bad("16@%rax", "bad size");
	t_bad("8@%ah", "high-byte");
	t_bad("8@%xyz", "unknown register");
	t_bad("8@%r16", "unknown register");
	t_bad("8@(%rax,%rbx,8)", "index registers");
	t_bad("8@4(%rsp,%rax,4)", "index registers");
	t_bad("4@$", "bad constant");
	t_bad("4@", "empty operand");
	t_bad("8@-8(%rbp", "bad memory operand");
}
END_TEST

START_TEST(test_arg_string_whole)
{
	struct kio_uparg a[KIO_UP_NARGS];
	uint32_t n;

	ck_assert_int_eq(kc_uparg_parse_all("-4@%edi 8@%rax 8@-16(%rbp) 4@$5",
	    a, &n, NULL, NULL, t_why, sizeof (t_why)), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(a[0].ua_reg, KIO_REG_RDI);
	ck_assert_int_eq(a[0].ua_size, -4);
	ck_assert_int_eq(a[1].ua_reg, KIO_REG_RAX);
	ck_assert_int_eq(a[2].ua_kind, KIO_UA_MEM);
	ck_assert_int_eq(a[3].ua_kind, KIO_UA_CONST);
	/* one bad argument reads 0; the others stay */
	ck_assert_int_eq(kc_uparg_parse_all("8@%rax 8@(%rax,%rbx,1) 4@%esi", a,
	    &n, NULL, NULL, t_why, sizeof (t_why)), 1);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(a[1].ua_kind, KIO_UA_NONE);
	ck_assert_int_eq(a[2].ua_reg, KIO_REG_RSI);
	ck_assert_msg(strstr(t_why, "arg1") != NULL, "%s", t_why);
	/* at most KIO_UP_NARGS */
	ck_assert_int_eq(kc_uparg_parse_all("1@$1 1@$2 1@$3 1@$4 1@$5 1@$6 1@$7",
	    a, &n, NULL, NULL, t_why, sizeof (t_why)), 0);
	ck_assert_uint_eq(n, KIO_UP_NARGS);
}
END_TEST

/* ---- tables against a real process ---- */

struct t_proc {
	pid_t	tp_pid;
	int	tp_in;		/* its stdin: a line lets it run */
	char	tp_path[PATH_MAX];
};

/* Start build/test/NAME 3 wait; it blocks reading stdin. */
static void
t_start(struct t_proc *tp, const char *name)
{
	char self[PATH_MAX - 64];
	int fds[2];
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof (self) - 1);
	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(tp->tp_path, sizeof (tp->tp_path), "%s/%s", self, name);
	ck_assert_msg(access(tp->tp_path, X_OK) == 0, "%s: %s", tp->tp_path,
	    strerror(errno));
	ck_assert_int_eq(pipe(fds), 0);
	tp->tp_pid = fork();
	ck_assert_int_ge(tp->tp_pid, 0);
	if (tp->tp_pid == 0) {
		dup2(fds[0], 0);
		close(fds[1]);
		execl(tp->tp_path, tp->tp_path, "3", "wait", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	tp->tp_in = fds[1];
	/* until it has exec'd and mapped everything: its exe is the file */
	for (n = 0; n < 500; n++) {
		char exe[PATH_MAX], f[64];
		ssize_t m;

		snprintf(f, sizeof (f), "/proc/%d/exe", (int)tp->tp_pid);
		m = readlink(f, exe, sizeof (exe) - 1);
		if (m > 0 && (exe[m] = '\0', strcmp(exe, tp->tp_path) == 0))
			break;
		usleep(10000);
	}
	usleep(100000);		/* the dynamic loader maps libc */
}

static int
t_finish(struct t_proc *tp)
{
	int st;

	ck_assert_int_eq(write(tp->tp_in, "go\n", 3), 3);
	close(tp->tp_in);
	ck_assert_int_eq(waitpid(tp->tp_pid, &st, 0), tp->tp_pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* An enabling with one ECB per description "descs[i]". */
static struct dof_enabling *
t_den(const char *const *descs, int n)
{
	struct dof_enabling *den = calloc(1, sizeof (*den));
	char buf[512], *f[4], *s;
	int i, j;

	den->den_ecbs = calloc((size_t)n, sizeof (den->den_ecbs[0]));
	den->den_necbs = (uint32_t)n;
	for (i = 0; i < n; i++) {
		struct dof_pdesc *pd = &den->den_ecbs[i].le_pdesc;

		snprintf(buf, sizeof (buf), "%s", descs[i]);
		for (j = 0, s = buf; j < 4; j++) {
			f[j] = s;
			s = strchr(s, ':');
			if (s != NULL)
				*s++ = '\0';
			else if (j < 3)
				ck_abort_msg("%s: want 4 parts", descs[i]);
		}
		snprintf(pd->lp_prov, sizeof (pd->lp_prov), "%s", f[0]);
		snprintf(pd->lp_mod, sizeof (pd->lp_mod), "%s", f[1]);
		snprintf(pd->lp_func, sizeof (pd->lp_func), "%s", f[2]);
		snprintf(pd->lp_name, sizeof (pd->lp_name), "%s", f[3]);
	}
	return den;
}

static void
t_den_free(struct dof_enabling *den)
{
	free(den->den_ecbs);
	free(den);
}

/* Build the table for descs in process tp (also its target). */
static void
t_build(struct kc_uptab *ut, const struct t_proc *tp,
    const char *const *descs, int n, int want_rc, FILE *err)
{
	struct dof_enabling *den = t_den(descs, n);
	uint32_t pid = (uint32_t)tp->tp_pid;

	ck_assert_int_eq(kc_uprobe_build(ut, den, &pid, 1, "kdt", err),
	    want_rc);
	t_den_free(den);
}

/* Bytes at file offset "off" of "path" equal those at "addr" in pid. */
static void
t_same_bytes(const struct kio_uprobe *e)
{
	unsigned char f[8], m[8];
	char mem[64];
	int fd;

	fd = open(e->ku_path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, f, sizeof (f), (off_t)e->ku_offset), 8);
	close(fd);
	snprintf(mem, sizeof (mem), "/proc/%u/mem", e->ku_pid);
	fd = open(mem, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, m, sizeof (m), (off_t)e->ku_addr), 8);
	close(fd);
	ck_assert_msg(memcmp(f, m, 8) == 0, "%s:%s:%s:%s: %s offset 0x%llx and address 0x%llx differ",
	    e->ku_prov, e->ku_mod, e->ku_func, e->ku_name, e->ku_path,
	    (unsigned long long)e->ku_offset,
	    (unsigned long long)e->ku_addr);
}

static const struct kio_uprobe *
t_find(const struct kc_uptab *ut, const char *mod, const char *func,
    const char *name)
{
	uint32_t i;

	for (i = 0; i < ut->ut_n; i++)
		if (strcmp(ut->ut_ents[i].ku_mod, mod) == 0 &&
		    strcmp(ut->ut_ents[i].ku_func, func) == 0 &&
		    strcmp(ut->ut_ents[i].ku_name, name) == 0)
			return &ut->ut_ents[i];
	return NULL;
}

static void
t_pid_work(const char *fixture)
{
	struct t_proc tp;
	struct kc_uptab ut;
	const struct kio_uprobe *en, *ret;
	char d[3][80], prov[32];
	const char *descs[3] = { d[0], d[1], d[2] };

	t_start(&tp, fixture);
	snprintf(prov, sizeof (prov), "pid%d", (int)tp.tp_pid);
	snprintf(d[0], sizeof (d[0]), "%s:a.out:work:entry", prov);
	snprintf(d[1], sizeof (d[1]), "%s::work:return", prov);
	snprintf(d[2], sizeof (d[2]), "%s:a.out:work:entry", prov);
	t_build(&ut, &tp, descs, 3, 0, stderr);
	/* the duplicate description adds nothing */
	ck_assert_uint_eq(ut.ut_n, 2);
	en = t_find(&ut, "a.out", "work", "entry");
	ret = t_find(&ut, "a.out", "work", "return");
	ck_assert_ptr_nonnull(en);
	ck_assert_ptr_nonnull(ret);
	ck_assert_str_eq(en->ku_prov, prov);
	ck_assert_str_eq(en->ku_path, tp.tp_path);
	ck_assert_uint_eq(en->ku_pid, (uint32_t)tp.tp_pid);
	ck_assert_uint_eq(en->ku_flags, 0);
	ck_assert_uint_eq(ret->ku_flags, KIO_UP_RETURN);
	ck_assert_uint_eq(ret->ku_offset, en->ku_offset);
	ck_assert_uint_eq(en->ku_nargs, 0);
	ck_assert_uint_ne(en->ku_addr, 0);
	t_same_bytes(en);
	kc_uprobe_fini(&ut);
	ck_assert_int_eq(t_finish(&tp), 0);
}

START_TEST(test_pid_static)
{
	t_pid_work("upid-static");
}
END_TEST

START_TEST(test_pid_pie)
{
	t_pid_work("upid-pie");
}
END_TEST

START_TEST(test_pid_shared_library_and_globs)
{
	struct t_proc tp;
	struct kc_uptab ut;
	const struct kio_uprobe *e;
	char d[2][80];
	const char *descs[2] = { d[0], d[1] };
	uint32_t i, nw = 0;

	t_start(&tp, "upid-pie");
	snprintf(d[0], sizeof (d[0]), "pid%d:libc.so.6:getpid:entry",
	    (int)tp.tp_pid);
	snprintf(d[1], sizeof (d[1]), "pid*:a.out:wor?:");
	t_build(&ut, &tp, descs, 2, 0, stderr);
	e = t_find(&ut, "libc.so.6", "getpid", "entry");
	ck_assert_ptr_nonnull(e);
	ck_assert_msg(strstr(e->ku_path, "libc.so.6") != NULL, "%s",
	    e->ku_path);
	t_same_bytes(e);
	for (i = 0; i < ut.ut_n; i++)
		nw += strcmp(ut.ut_ents[i].ku_func, "work") == 0;
	ck_assert_uint_eq(nw, 2);	/* a glob name: entry and return */
	kc_uprobe_fini(&ut);
	ck_assert_int_eq(t_finish(&tp), 0);
}
END_TEST

START_TEST(test_pid_offsets_within_the_symbol)
{
	struct t_proc tp;
	struct kc_uptab ut;
	const struct kio_uprobe *en, *o;
	char d[3][80];
	const char *descs[3] = { d[0], d[1], d[2] };

	t_start(&tp, "upid-static");
	snprintf(d[0], sizeof (d[0]), "pid%d:a.out:work:entry", (int)tp.tp_pid);
	snprintf(d[1], sizeof (d[1]), "pid%d:a.out:work:1", (int)tp.tp_pid);
	snprintf(d[2], sizeof (d[2]), "pid%d:a.out:work:fffff", (int)tp.tp_pid);
	t_build(&ut, &tp, descs, 3, 0, stderr);
	ck_assert_uint_eq(ut.ut_n, 2);	/* fffff is past the end of work */
	en = t_find(&ut, "a.out", "work", "entry");
	o = t_find(&ut, "a.out", "work", "1");
	ck_assert_ptr_nonnull(en);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->ku_offset, en->ku_offset + 1);
	ck_assert_uint_eq(o->ku_addr, en->ku_addr + 1);
	kc_uprobe_fini(&ut);
	ck_assert_int_eq(t_finish(&tp), 0);
}
END_TEST

static void
t_usdt(const char *fixture)
{
	struct t_proc tp;
	struct kc_uptab ut;
	const struct kio_uprobe *e;
	unsigned short sem;
	unsigned char b;
	char d[80], prov[32], mem[64];
	const char *descs[1] = { d };
	int fd;

	t_start(&tp, fixture);
	snprintf(prov, sizeof (prov), "kdttest%d", (int)tp.tp_pid);
	snprintf(d, sizeof (d), "%s:::tick", prov);
	t_build(&ut, &tp, descs, 1, 0, stderr);
	ck_assert_uint_eq(ut.ut_n, 1);
	e = &ut.ut_ents[0];
	ck_assert_str_eq(e->ku_prov, prov);
	ck_assert_str_eq(e->ku_mod, "a.out");
	ck_assert_str_eq(e->ku_func, "main");
	ck_assert_str_eq(e->ku_name, "tick");
	ck_assert_uint_eq(e->ku_flags, 0);
	/* its semaphore: in .probes, apart from the code, zero in the file */
	ck_assert_uint_ne(e->ku_refctr, 0);
	ck_assert_uint_ne(e->ku_refctr, e->ku_offset);
	fd = open(e->ku_path, O_RDONLY);
	ck_assert_int_eq(pread(fd, &sem, 2, (off_t)e->ku_refctr), 2);
	close(fd);
	ck_assert_uint_eq(sem, 0);
	ck_assert_uint_eq(e->ku_nargs, 2);
	ck_assert_int_eq(e->ku_args[0].ua_kind, KIO_UA_REG);
	ck_assert_int_eq(e->ku_args[0].ua_size, -8);	/* long i */
	ck_assert_int_eq(e->ku_args[1].ua_size, 8);	/* "str" */
	t_same_bytes(e);
	snprintf(mem, sizeof (mem), "/proc/%d/mem", (int)tp.tp_pid);
	fd = open(mem, O_RDONLY);
	ck_assert_int_eq(pread(fd, &b, 1, (off_t)e->ku_addr), 1);
	close(fd);
	ck_assert_int_eq(b, 0x90);	/* sys/sdt.h's nop */
	kc_uprobe_fini(&ut);
	/* a glob provider over the targets finds it too */
	snprintf(d, sizeof (d), "kdt*:a.out::tick");
	t_build(&ut, &tp, descs, 1, 0, stderr);
	ck_assert_uint_eq(ut.ut_n, 1);
	kc_uprobe_fini(&ut);
	ck_assert_int_eq(t_finish(&tp), 0);
}

START_TEST(test_usdt_static)
{
	t_usdt("upid-static");
}
END_TEST

START_TEST(test_usdt_pie)
{
	t_usdt("upid-pie");
}
END_TEST

START_TEST(test_no_such_process)
{
	struct t_proc tp = { .tp_pid = 0x7ffffff0 };
	struct kc_uptab ut;
	const char *descs[2] = { "syscall::getpid:entry",
	    "pid2147483632::work:entry" };
	char *buf = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);

	t_build(&ut, &tp, descs, 2, -1, err);
	fclose(err);
	ck_assert_msg(strstr(buf, "kdt: probe description pid2147483632::work:entry: failed to grab pid 2147483632: no such process") != NULL,
	    "%s", buf);
	free(buf);
	/* kernel providers are none of kc_uprobe's business */
	descs[1] = "fbt::vfs_read:entry";
	t_build(&ut, &tp, descs, 2, 0, stderr);
	ck_assert_uint_eq(ut.ut_n, 0);
	kc_uprobe_fini(&ut);
}
END_TEST

/* ---- -c: stopped at the entry point, libraries mapped ---- */

START_TEST(test_create_stops_at_entry)
{
	struct kc_procs ps;
	struct kc_uptab ut;
	struct t_proc tp;
	char cmd[PATH_MAX + 16], d[80];
	const char *descs[1] = { d };
	int st;

	memset(&ps, 0, sizeof (ps));
	t_start(&tp, "upid-pie");		/* only for its path */
	ck_assert_int_eq(t_finish(&tp), 0);
	snprintf(cmd, sizeof (cmd), "%s 7", tp.tp_path);
	ck_assert_int_eq(kc_proc_create(&ps, cmd, stderr), 0);
	ck_assert_uint_eq(ps.ps_n, 1);
	tp.tp_pid = (pid_t)ps.ps_procs[0].pr_pid;
	/* held at the entry point, libc is already there */
	snprintf(d, sizeof (d), "pid%d:libc.so.6:getpid:entry", (int)tp.tp_pid);
	t_build(&ut, &tp, descs, 1, 0, stderr);
	ck_assert_uint_eq(ut.ut_n, 1);
	t_same_bytes(&ut.ut_ents[0]);
	kc_uprobe_fini(&ut);
	ck_assert_uint_eq(kc_proc_poll(&ps, 1, stderr), 1);
	kc_proc_release(&ps);
	while (kc_proc_poll(&ps, 1, stderr) != 0)
		usleep(10000);
	kc_proc_fini(&ps);
	ck_assert_int_eq(waitpid(tp.tp_pid, &st, WNOHANG), -1);
}
END_TEST

START_TEST(test_create_and_grab_failures)
{
	struct kc_procs ps;
	char *buf = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);

	memset(&ps, 0, sizeof (ps));
	ck_assert_int_eq(kc_proc_create(&ps, "/no/such/cmd x", err), -1);
	ck_assert_int_eq(kc_proc_grab(&ps, "2147483632", err), -1);
	ck_assert_int_eq(kc_proc_grab(&ps, "12x", err), -1);
	fclose(err);
	ck_assert_msg(strstr(buf, "kdt: failed to execute /no/such/cmd: No such file or directory\n") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "kdt: failed to grab pid 2147483632: No such process\n") != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "kdt: failed to grab pid 12x: not a process id\n") != NULL, "%s", buf);
	ck_assert_uint_eq(ps.ps_n, 0);
	free(buf);
}
END_TEST

/* ---- $target and macros in probe descriptions ---- */

START_TEST(test_target_in_descriptions)
{
	const char *argv[] = { "x.d", "getppid", NULL };
	const char *src = "pid$target:a.out:work:entry, syscall::$1:entry,"
	    " kdttest$target:::tick { trace($target); }";
	struct dc_opts o;
	struct dc_out out;
	struct dof_enabling *den;
	struct kdt_err ke;

	memset(&o, 0, sizeof (o));
	o.dco_target = 4321;
	o.dco_argv = argv;
	o.dco_argc = 2;
	ck_assert_msg(dc_compile(src, strlen(src), "x.d", &o, &out) == 0,
	    "%s", out.dco_diag);
	ck_assert_int_eq(dof_load(out.dco_dof, out.dco_dofsz, &den, &ke), 0);
	ck_assert_uint_eq(den->den_necbs, 3);
	ck_assert_str_eq(den->den_ecbs[0].le_pdesc.lp_prov, "pid4321");
	ck_assert_str_eq(den->den_ecbs[1].le_pdesc.lp_func, "getppid");
	ck_assert_str_eq(den->den_ecbs[2].le_pdesc.lp_prov, "kdttest4321");
	dof_free(den);
	dc_out_free(&out);
	/* an undefined macro in a description is the usual error */
	src = "syscall::$3:entry {}";
	ck_assert_int_ne(dc_compile(src, strlen(src), "x.d", &o, &out), 0);
	ck_assert_str_eq(out.dco_tag, "D_MACRO_UNDEF");
	dc_out_free(&out);
}
END_TEST

static Suite *
uprobe_suite(void)
{
	Suite *s = suite_create("uprobe");
	TCase *tc = tcase_create("uprobe");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_arg_registers_every_width);
	tcase_add_test(tc, test_arg_memory_and_constants);
	tcase_add_test(tc, test_arg_rip_relative_symbol);
	tcase_add_test(tc, test_arg_refused_with_reason);
	tcase_add_test(tc, test_arg_string_whole);
	tcase_add_test(tc, test_pid_static);
	tcase_add_test(tc, test_pid_pie);
	tcase_add_test(tc, test_pid_shared_library_and_globs);
	tcase_add_test(tc, test_pid_offsets_within_the_symbol);
	tcase_add_test(tc, test_usdt_static);
	tcase_add_test(tc, test_usdt_pie);
	tcase_add_test(tc, test_no_such_process);
	tcase_add_test(tc, test_create_stops_at_entry);
	tcase_add_test(tc, test_create_and_grab_failures);
	tcase_add_test(tc, test_target_in_descriptions);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(uprobe_suite)
