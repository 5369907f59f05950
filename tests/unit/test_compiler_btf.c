/*
 * test_compiler_btf.c -- unit tests of probe argument types from BTF
 * (compiler/dc_btf.c): args[] of sdt, syscall and fbt probes in the
 * compiler, and the same types as C text for `kdt -l -v`
 * (dc_argtypes_get()).
 *
 * The kernel is the pinned 6.1's BTF: $KDT_BTF, else build/kernel/vmlinux
 * (make kernel).  Typing is checked where it shows: a member access only
 * compiles on a pointer to a kernel struct, and a program is run by the
 * real DIF emulator over a fake task_struct (a buffer registered readable
 * with kc_env_add_readable(), the member offsets taken from the same BTF
 * with libbpf) so a wrong offset or width gives a wrong value.  tracefs is
 * replaced by a directory made here, named by $KDT_TRACEFS, holding
 * format files in the kernel's layout; every test sets $KDT_TRACEFS so
 * the host's own tracefs never decides a result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "kt_check.h"
#include "kt_dcbtf.h"
#include "compiler/dc.h"
#include "consumer/kc_env.h"
#include "dof_load.h"
#include "dif.h"
#include "dif_vm.h"

static const char *
tb_btf(void)
{
	const char *p = getenv("KDT_BTF");

	return p != NULL && *p != '\0' ? p : "build/kernel/vmlinux";
}

/* sys_enter_openat's format as the pinned 6.1 kernel writes it. */
static const char tb_openat_fmt[] =
    "name: sys_enter_openat\n"
    "ID: 659\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"dfd: 0x%08lx, filename: 0x%08lx, flags: 0x%08lx, "
    "mode: 0x%08lx\", ((unsigned long)(REC->dfd)), "
    "((unsigned long)(REC->filename)), ((unsigned long)(REC->flags)), "
    "((unsigned long)(REC->mode))\n";

/* A made-up call exercising the C spellings the resolver handles. */
static const char tb_mix_fmt[] =
    "name: sys_enter_kdtmix\n"
    "format:\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:struct stat * statbuf;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long len;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:const char *const * argv;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\tfield:void * buf;\toffset:40;\tsize:8;\tsigned:0;\n"
    "\tfield:short s;\toffset:48;\tsize:8;\tsigned:0;\n"
    "\tfield:struct no_such_kdt_type * q;\toffset:56;\tsize:8;\tsigned:0;\n";

static char tb_dir[64];

static void
tb_put(const char *call, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof (path), "%s/events", tb_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof (path), "%s/events/syscalls", tb_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof (path), "%s/events/syscalls/sys_enter_%s",
	    tb_dir, call);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof (path),
	    "%s/events/syscalls/sys_enter_%s/format", tb_dir, call);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* A fake tracefs with sys_enter_openat and sys_enter_kdtmix. */
static void
tb_setup(void)
{
	snprintf(tb_dir, sizeof (tb_dir), "/tmp/kdt-tracefs.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tb_dir));
	tb_put("openat", tb_openat_fmt);
	tb_put("kdtmix", tb_mix_fmt);
	setenv("KDT_TRACEFS", tb_dir, 1);
}

static void
tb_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof (cmd), "rm -rf '%s'", tb_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tb_dir);
	unsetenv("KDT_TRACEFS");
}

static int
tb_compile(const char *src, struct dc_out *o)
{
	return kt_dc_compile(tb_btf(), src, o);
}

static void
tb_ok(const char *src)
{
	kt_dc_ok(tb_btf(), src);
}

/* "src" fails with "tag" and a message containing "msg". */
static void
tb_fails(const char *src, const char *tag, const char *msg)
{
	kt_dc_fails(tb_btf(), src, tag, msg);
}

/*
 * Run the first ECB of "src" once with args[] = "args" in the DIF
 * emulator; the value of the last action.
 */
static uint64_t
tb_run(const char *src, const uint64_t *args, int nargs)
{
	static const char name[] = "probe";
	struct dof_enabling *den = NULL;
	struct dif_probe_ctx ctx;
	struct dif_mstate ms;
	struct dif_vstate vs;
	struct kdt_err err;
	const struct dof_lecb *le;
	static char scratch[8192];
	static uint64_t locals[64];
	struct dc_out o;
	uint64_t v = 0, sz;
	void *area;
	uint32_t i;

	ck_assert_msg(tb_compile(src, &o) == 0, "%s: %s", src, o.dco_diag);
	memset(&err, 0, sizeof (err));
	ck_assert_msg(dof_load(o.dco_dof, o.dco_dofsz, &den, &err) == 0,
	    "%s: dof_load: %s", src, err.ke_msg);
	dc_out_free(&o);
	sz = dif_vstate_size(den, 1u << 16);
	sz = sz == 0 ? 64 : (sz + 7) & ~(uint64_t)7;
	area = aligned_alloc(8, sz);
	ck_assert_ptr_nonnull(area);
	ck_assert_int_eq(dif_vstate_init(&vs, area, sz, den, &err), 0);
	memset(&ms, 0, sizeof (ms));
	ms.dm_scratch = scratch;
	ms.dm_scratch_size = sizeof (scratch);
	ms.dm_strsize = den->den_strsize;
	ms.dm_vstate = &vs;
	ms.dm_locals = locals;
	ms.dm_nlocals = 64;
	memset(&ctx, 0, sizeof (ctx));
	ctx.pc_id = 1;
	ctx.pc_epid = 1;
	ctx.pc_prov = "sdt";
	ctx.pc_mod = "";
	ctx.pc_func = "";
	ctx.pc_name = name;
	ck_assert_int_eq(kc_env_add_readable(name, sizeof (name)), 0);
	memcpy(ctx.pc_args, args, (size_t)nargs * sizeof (*args));
	le = &den->den_ecbs[0];
	for (i = 0; i < le->le_nacts; i++) {
		if (le->le_acts[i].la_difo == NULL)
			continue;
		v = dif_emulate(le->le_acts[i].la_difo, &ms, &ctx);
		ck_assert_msg(!ms.dm_faulted, "%s: action %u: fault %u", src,
		    i, ms.dm_fault);
	}
	dof_free(den);
	free(area);
	return v;
}

/* Byte offset of member "m" of struct "s" in the test's BTF. */
static uint32_t
tb_off(const char *s, const char *m, uint32_t *size)
{
	struct btf *btf = btf__parse(tb_btf(), NULL);
	const struct btf_type *t;
	const struct btf_member *mb;
	uint32_t i, off = UINT32_MAX;
	int id;

	ck_assert_ptr_nonnull(btf);
	id = btf__find_by_name_kind(btf, s, BTF_KIND_STRUCT);
	ck_assert_int_gt(id, 0);
	t = btf__type_by_id(btf, (uint32_t)id);
	*size = t->size;
	mb = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (strcmp(btf__name_by_offset(btf, mb[i].name_off), m) == 0)
			off = btf_member_bit_offset(t, i) / 8;
	btf__free(btf);
	ck_assert_uint_ne(off, UINT32_MAX);
	return off;
}

/*
 * sdt:sched::sched_process_exec is probe(__data, struct task_struct *p,
 * pid_t old_pid, struct linux_binprm *bprm): args[0]->comm is the task's
 * name at the kernel's offset, args[1] a 32-bit signed pid.
 */
START_TEST(tst_sdt_args_typed)
{
	uint32_t tsz, comm = tb_off("task_struct", "comm", &tsz);
	uint32_t pidoff = tb_off("task_struct", "pid", &tsz);
	char *task = calloc(1, tsz);
	uint64_t args[3];

	ck_assert_ptr_nonnull(task);
	memcpy(task + comm, "kdt-exec", 9);
	memcpy(task + pidoff, &(int32_t){ 4242 }, 4);
	ck_assert_int_eq(kc_env_add_readable(task, tsz), 0);
	args[0] = (uint64_t)(uintptr_t)task;
	args[1] = 0xffffffffull;	/* -1 with junk-free upper half */
	args[2] = 0;
	/* the string value is where the emulator put it: compare text */
	ck_assert_str_eq((const char *)(uintptr_t)tb_run(
	    "sdt:sched::sched_process_exec "
	    "{ trace(stringof(args[0]->comm)); }", args, 3), "kdt-exec");
	ck_assert_uint_eq(tb_run("sdt:sched::sched_process_exec "
	    "{ trace(args[0]->pid); }", args, 3), 4242);
	/* pid_t: int, so 0xffffffff is -1 */
	ck_assert_int_eq((int64_t)tb_run("sdt:sched::sched_process_exec "
	    "{ trace(args[1]); }", args, 3), -1);
	/* any system (the module part) names the same tracepoint */
	tb_ok("sdt:*::sched_process_exec { trace(args[2]->filename); }");
	tb_ok("sdt:::sched_switch { trace(args[1]->pid + args[2]->pid); }");
	kc_env_clear_readable();
	free(task);
}
END_TEST

START_TEST(err_sdt_D_ARGS_IDX)
{
	tb_fails("sdt:sched::sched_process_exec { trace(args[3]); }",
	    "D_ARGS_IDX", "sdt:sched::sched_process_exec args[ ] (the probe has 3 typed arguments)");
}
END_TEST

/* No typedef (unknown event, glob, several probes): args[] is int64. */
START_TEST(tst_sdt_untyped_stays_int)
{
	tb_ok("sdt:kdt::no_such_kdt_event { trace(args[7]); }");
	tb_ok("sdt:sched::sched_process_e* { trace(args[7]); }");
	tb_fails("sdt:sched::sched_process_e* { trace(args[0]->comm); }",
	    "D_OP_PTR", "must be applied to a pointer, not long");
	tb_fails("sdt:sched::sched_process_exec, sdt:sched::sched_switch "
	    "{ trace(args[0]->comm); }", "D_OP_PTR", "must be applied to a pointer, not long");
}
END_TEST

/* syscall entry from tracefs: openat(int, const char *, int, umode_t). */
START_TEST(tst_syscall_entry_tracefs)
{
	uint64_t args[4] = { 0xffffff9cull, 0, 0x80241ull, 0x101a4ull };

	tb_ok("syscall::openat:entry { trace(copyinstr((uintptr_t)args[1])); }");
	tb_ok("syscall::openat:entry /args[0] == -100/ { trace(args[2]); }");
	/* dfd is an int: AT_FDCWD as the 32-bit value the call sees */
	ck_assert_int_eq((int64_t)tb_run("syscall::openat:entry "
	    "{ trace(args[0]); }", args, 4), -100);
	/* umode_t is unsigned short */
	ck_assert_uint_eq(tb_run("syscall::openat:entry { trace(args[3]); }",
	    args, 4), 0x1a4);
	tb_fails("syscall::openat:entry { trace(args[4]); }", "D_ARGS_IDX",
	    "syscall::openat:entry args[ ] (the probe has 4 typed arguments)");
	/* struct pointers, void *, pointer to pointer, unknown struct */
	tb_ok("syscall::kdtmix:entry { trace(args[0]->st_size); "
	    "trace(*args[2]); trace(args[3]); trace(args[4]); "
	    "trace(args[5]); }");
	tb_fails("syscall::kdtmix:entry { trace(args[5]->x); }", "D_OP_PTR",
	    "must be applied to a pointer, not long");
}
END_TEST

/*
 * syscall entry from BTF's __do_sys_: newstat(const char *, struct stat *)
 * is in the 6.1 BTF (and not in the fake tracefs); getppid's __do_sys_
 * is its wrapper's alias and takes no arguments.
 */
START_TEST(tst_syscall_entry_btf)
{
	tb_ok("syscall::newstat:entry { trace(copyinstr((uintptr_t)args[0])); "
	    "trace(args[1]->st_size); }");
	tb_fails("syscall::getppid:entry { trace(args[0]); }", "D_ARGS_IDX",
	    "(the probe has 0 typed arguments)");
	/* neither source knows it: untyped */
	tb_ok("syscall::kdt_nosuch:entry { trace(args[5]); }");
}
END_TEST

/* syscall return: args[0] and args[1] are the return value, long. */
START_TEST(tst_syscall_return_long)
{
	uint64_t args[2] = { (uint64_t)-2, (uint64_t)-2 };

	ck_assert_int_eq((int64_t)tb_run("syscall::openat:return "
	    "/args[0] == -2/ { trace(args[1]); }", args, 2), -2);
	tb_fails("syscall::openat:return { trace(args[2]); }", "D_ARGS_IDX",
	    "(the probe has 2 typed arguments)");
}
END_TEST

/* fbt return: args[0] the offset, args[1] the function's return type. */
START_TEST(tst_fbt_return_typed)
{
	uint64_t args[2] = { 0x1c, 0xfffffffffffffff2ull };

	ck_assert_int_eq((int64_t)tb_run("fbt::vfs_read:return "
	    "{ trace(args[1]); }", args, 2), -14);
	tb_ok("fbt::get_task_mm:return { trace(args[1]->mmap_base); }");
	tb_fails("fbt::vfs_read:return { trace(args[2]); }", "D_ARGS_IDX",
	    "(the probe has 2 typed arguments)");
}
END_TEST

/* The same types as C text for kdt -l -v. */
START_TEST(tst_argtypes_text)
{
	char err[256], t[10][DC_ARGTYPE_LEN];
	struct dc_argtypes *a = dc_argtypes_open(tb_btf(), err, sizeof (err));

	ck_assert_msg(a != NULL, "%s", err);
	ck_assert_int_eq(dc_argtypes_get(a, "sdt", "", "sched_process_exec",
	    t, 10), 3);
	ck_assert_str_eq(t[0], "struct task_struct *");
	ck_assert_str_eq(t[1], "pid_t");
	ck_assert_str_eq(t[2], "struct linux_binprm *");
	ck_assert_int_eq(dc_argtypes_get(a, "fbt", "vfs_read", "entry", t,
	    10), 4);
	ck_assert_str_eq(t[0], "struct file *");
	ck_assert_str_eq(t[1], "char *");
	ck_assert_str_eq(t[2], "size_t");
	ck_assert_str_eq(t[3], "loff_t *");
	ck_assert_int_eq(dc_argtypes_get(a, "fbt", "vfs_read", "return", t,
	    10), 2);
	ck_assert_str_eq(t[0], "int");
	ck_assert_str_eq(t[1], "ssize_t");
	/* void function: no return value */
	ck_assert_int_eq(dc_argtypes_get(a, "fbt", "schedule_tail",
	    "return", t, 10), 1);
	ck_assert_int_eq(dc_argtypes_get(a, "syscall", "openat", "entry", t,
	    10), 4);
	ck_assert_str_eq(t[0], "int");
	ck_assert_str_eq(t[1], "const char *");
	ck_assert_str_eq(t[3], "umode_t");
	ck_assert_int_eq(dc_argtypes_get(a, "syscall", "newstat", "entry", t,
	    10), 2);
	ck_assert_str_eq(t[0], "const char *");
	ck_assert_str_eq(t[1], "struct stat *");
	ck_assert_int_eq(dc_argtypes_get(a, "syscall", "getppid", "entry", t,
	    10), 0);
	ck_assert_int_eq(dc_argtypes_get(a, "syscall", "read", "return", t,
	    10), 2);
	ck_assert_str_eq(t[1], "long");
	/* "max" bounds what is written */
	ck_assert_int_eq(dc_argtypes_get(a, "fbt", "vfs_read", "entry", t,
	    1), 1);
	/* unknown: no types */
	ck_assert_int_eq(dc_argtypes_get(a, "profile", "", "profile-97",
	    t, 10), -1);
	ck_assert_int_eq(dc_argtypes_get(a, "fbt", "kdt_no_such_fn", "entry",
	    t, 10), -1);
	ck_assert_int_eq(dc_argtypes_get(a, "sdt", "", "kdt_no_such_event",
	    t, 10), -1);
	dc_argtypes_close(a);
}
END_TEST

START_TEST(err_argtypes_open_names_file)
{
	char err[256];

	ck_assert_ptr_null(dc_argtypes_open("/nonexistent/vmlinux", err,
	    sizeof (err)));
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/vmlinux"));
}
END_TEST

static Suite *
compiler_btf_suite(void)
{
	Suite *s = suite_create("compiler_btf");
	TCase *c = tcase_create("args");

	tcase_add_checked_fixture(c, tb_setup, tb_teardown);
	tcase_set_timeout(c, 60);
	tcase_add_test(c, tst_sdt_args_typed);
	tcase_add_test(c, err_sdt_D_ARGS_IDX);
	tcase_add_test(c, tst_sdt_untyped_stays_int);
	tcase_add_test(c, tst_syscall_entry_tracefs);
	tcase_add_test(c, tst_syscall_entry_btf);
	tcase_add_test(c, tst_syscall_return_long);
	tcase_add_test(c, tst_fbt_return_typed);
	tcase_add_test(c, tst_argtypes_text);
	tcase_add_test(c, err_argtypes_open_names_file);
	suite_add_tcase(s, c);
	return s;
}

KT_MAIN(compiler_btf_suite)
