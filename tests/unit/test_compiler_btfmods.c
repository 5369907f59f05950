/*
 * test_compiler_btfmods.c -- unit tests of several kernel modules' BTF in
 * one compilation (compiler/dc_btf.c, "Modules' BTF in the compiler").
 *
 * The BTF here is made by the test with libbpf's writers, so the ids are
 * known to clash: a small "vmlinux" (int, long, char, struct task_struct,
 * which args[] typing requires) written as raw BTF, and two modules' split
 * BTF on it, moda and modb, in a directory named by $KDT_BTF_MODDIR.  Both
 * modules define a different "struct foo" at the same split id, a
 * tracepoint (btf_trace_moda_ev / btf_trace_modb_ev, each taking its own
 * struct foo *) and a module-only struct; moda has a function moda_fn for
 * fbt.  A mix-up of the two modules' ids shows as a member one foo lacks
 * (D_TYPE_MEMBER) or as a value read at the other foo's offset: programs
 * run in the real DIF emulator over a buffer laid out as each foo.
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

static char tm_dir[64];		/* base.btf and mods/ */
static char tm_base[128];
static char tm_mods[128];

static void
tm_write(struct btf *btf, const char *path)
{
	uint32_t sz;
	const void *raw = btf__raw_data(btf, &sz);
	FILE *f;

	ck_assert_ptr_nonnull(raw);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(raw, 1, sz, f), sz);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * A module on "base": struct foo with the members "m" (long each, at 0,
 * 8, ...), "<mod>_only" { int x; }, btf_trace_<mod>_ev: void (*)(void *,
 * struct foo *, int), and when "fn" a FUNC fn(struct foo *) returning
 * long.
 */
static void
tm_module(struct btf *base, const char *mod, const char *const *m, int nm,
    const char *fn)
{
	struct btf *b = btf__new_empty_split(base);
	char name[64], path[256];
	int foo, foop, only, proto, fproto, voidp, i;

	ck_assert_ptr_nonnull(b);
	foo = btf__add_struct(b, "foo", (uint32_t)nm * 8);
	ck_assert_int_gt(foo, 0);
	for (i = 0; i < nm; i++)
		ck_assert_int_eq(btf__add_field(b, m[i], 2, (uint32_t)i * 64,
		    0), 0);
	foop = btf__add_ptr(b, foo);
	snprintf(name, sizeof (name), "%s_only", mod);
	only = btf__add_struct(b, name, 4);
	ck_assert_int_gt(only, 0);
	ck_assert_int_eq(btf__add_field(b, "x", 1, 0, 0), 0);
	voidp = btf__add_ptr(b, 0);
	/* a prototype's parameters must follow it directly */
	proto = btf__add_func_proto(b, 0);
	ck_assert_int_gt(proto, 0);
	ck_assert_int_eq(btf__add_func_param(b, "__data", voidp), 0);
	ck_assert_int_eq(btf__add_func_param(b, "p", foop), 0);
	ck_assert_int_eq(btf__add_func_param(b, "n", 1), 0);
	snprintf(name, sizeof (name), "btf_trace_%s_ev", mod);
	ck_assert_int_gt(btf__add_typedef(b, name, btf__add_ptr(b, proto)),
	    0);
	if (fn != NULL) {
		fproto = btf__add_func_proto(b, 2);
		ck_assert_int_eq(btf__add_func_param(b, "f", foop), 0);
		ck_assert_int_gt(btf__add_func(b, fn, BTF_FUNC_GLOBAL,
		    fproto), 0);
	}
	snprintf(path, sizeof (path), "%s/%s", tm_mods, mod);
	tm_write(b, path);
	btf__free(b);
}

static void
tm_setup(void)
{
	static const char *const fa[] = { "a", "b" };
	static const char *const fb[] = { "pad", "c", "x" };
	struct btf *base = btf__new_empty();
	int ts, arr;

	snprintf(tm_dir, sizeof (tm_dir), "/tmp/kdt-btfmods.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tm_dir));
	snprintf(tm_base, sizeof (tm_base), "%s/base.btf", tm_dir);
	snprintf(tm_mods, sizeof (tm_mods), "%s/mods", tm_dir);
	ck_assert_int_eq(mkdir(tm_mods, 0755), 0);
	ck_assert_ptr_nonnull(base);
	ck_assert_int_eq(btf__add_int(base, "int", 4, BTF_INT_SIGNED), 1);
	ck_assert_int_eq(btf__add_int(base, "long", 8, BTF_INT_SIGNED), 2);
	ck_assert_int_eq(btf__add_int(base, "char", 1, BTF_INT_SIGNED), 3);
	arr = btf__add_array(base, 1, 3, 16);
	ts = btf__add_struct(base, "task_struct", 24);
	ck_assert_int_gt(ts, 0);
	ck_assert_int_eq(btf__add_field(base, "pid", 1, 0, 0), 0);
	ck_assert_int_eq(btf__add_field(base, "comm", arr, 64, 0), 0);
	tm_write(base, tm_base);
	/* the same split ids in both: struct foo is id 6 in each */
	tm_module(base, "moda", fa, 2, "moda_fn");
	tm_module(base, "modb", fb, 3, NULL);
	btf__free(base);
	setenv("KDT_BTF_MODDIR", tm_mods, 1);
}

static void
tm_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof (cmd), "rm -rf '%s'", tm_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tm_dir);
	unsetenv("KDT_BTF_MODDIR");
	kc_env_clear_readable();
}

static int
tm_compile(const char *src, struct dc_out *o)
{
	return kt_dc_compile(tm_base, src, o);
}

static void
tm_ok(const char *src)
{
	kt_dc_ok(tm_base, src);
}

static void
tm_fails(const char *src, const char *tag, const char *msg)
{
	kt_dc_fails(tm_base, src, tag, msg);
}

/*
 * Run ECB "ecb" of "src" once with arg0 = args[0] = "p" in the DIF
 * emulator; the value of its last action.
 */
static uint64_t
tm_run(const char *src, uint32_t ecb, const void *p)
{
	static const char name[] = "probe";
	static char scratch[8192];
	static uint64_t locals[64];
	struct dof_enabling *den = NULL;
	struct dif_probe_ctx ctx;
	struct dif_mstate ms;
	struct dif_vstate vs;
	struct kdt_err err;
	const struct dof_lecb *le;
	struct dc_out o;
	uint64_t v = 0, sz;
	void *area;
	uint32_t i;

	ck_assert_msg(tm_compile(src, &o) == 0, "%s: %s", src, o.dco_diag);
	memset(&err, 0, sizeof (err));
	ck_assert_msg(dof_load(o.dco_dof, o.dco_dofsz, &den, &err) == 0,
	    "%s: dof_load: %s", src, err.ke_msg);
	dc_out_free(&o);
	ck_assert_uint_lt(ecb, den->den_necbs);
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
	ctx.pc_args[0] = (uint64_t)(uintptr_t)p;
	le = &den->den_ecbs[ecb];
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

/* A buffer read as either foo: moda's b is [1], modb's x is [2]. */
static uint64_t tm_foo[3] = { 100, 201, 302 };

static void
tm_readable(void)
{
	ck_assert_int_eq(kc_env_add_readable(tm_foo, sizeof (tm_foo)), 0);
}

/* Two modules' tracepoints typed in one program, each by its own foo. */
START_TEST(tst_two_modules_one_program)
{
	static const char src[] =
	    "sdt:moda::moda_ev { trace(args[0]->b); }\n"
	    "sdt:modb::modb_ev { trace(args[0]->x); }\n";

	tm_readable();
	ck_assert_uint_eq(tm_run(src, 0, tm_foo), 201);
	ck_assert_uint_eq(tm_run(src, 1, tm_foo), 302);
	/* the other order: modb merged first */
	ck_assert_uint_eq(tm_run("sdt:modb::modb_ev { trace(args[0]->c); }\n"
	    "sdt:moda::moda_ev { trace(args[0]->a + args[1]); }\n", 1,
	    tm_foo), 100);
	/* each foo has only its own members */
	tm_fails("sdt:moda::moda_ev { trace(1); } "
	    "sdt:modb::modb_ev { trace(args[0]->b); }", "D_TYPE_MEMBER",
	    "has no member named b");
	tm_fails("sdt:modb::modb_ev { trace(1); } "
	    "sdt:moda::moda_ev { trace(args[0]->x); }", "D_TYPE_MEMBER",
	    "has no member named x");
	/* args[2] is past both prototypes */
	tm_fails("sdt:moda::moda_ev { trace(args[0]->a); } "
	    "sdt:modb::modb_ev { trace(args[2]); }", "D_ARGS_IDX",
	    "sdt:modb::modb_ev args[ ] (the probe has 2 typed arguments)");
}
END_TEST

/* fbt of a module's function with a tracepoint of the other module. */
START_TEST(tst_fbt_and_sdt_modules)
{
	static const char src[] =
	    "sdt:modb::modb_ev { trace(args[0]->x); }\n"
	    "fbt:moda:moda_fn:entry { trace(args[0]->b); }\n";

	tm_readable();
	ck_assert_uint_eq(tm_run(src, 0, tm_foo), 302);
	ck_assert_uint_eq(tm_run(src, 1, tm_foo), 201);
	tm_ok("fbt:moda:moda_fn:return { trace(args[1] + 1); }");
}
END_TEST

/*
 * struct foo is defined by both modules: the backquote picks one, with
 * its own size and offsets, also both in one clause.
 */
START_TEST(tst_clash_by_scope)
{
	tm_readable();
	ck_assert_uint_eq(tm_run("BEGIN { trace(sizeof (struct moda`foo)); }",
	    0, NULL), 16);
	ck_assert_uint_eq(tm_run("BEGIN { trace(sizeof (struct modb`foo)); }",
	    0, NULL), 24);
	ck_assert_uint_eq(tm_run("BEGIN { trace(offsetof(struct modb`foo, x) "
	    "* 1000 + offsetof(struct moda`foo, b)); }", 0, NULL), 16008);
	ck_assert_uint_eq(tm_run("sdt:x::y { trace(((struct modb`foo *)arg0)->x"
	    " - ((struct moda`foo *)arg0)->b); }", 0, tm_foo), 101);
	/* a scoped type beside the probe module's own */
	ck_assert_uint_eq(tm_run("sdt:modb::modb_ev { trace(args[0]->x); "
	    "trace(((struct moda`foo *)arg0)->a); }", 0, tm_foo), 100);
	/* a module-only struct is found without a scope */
	tm_ok("BEGIN { trace(sizeof (struct modb_only)); }");
	tm_ok("BEGIN { trace(sizeof (struct moda_only) + "
	    "sizeof (struct modb_only)); }");
	/* vmlinux` and kernel` are the core kernel's types */
	tm_ok("BEGIN { trace(sizeof (struct vmlinux`task_struct)); }");
}
END_TEST

START_TEST(err_scope_D_TYPE_ERR)
{
	tm_fails("BEGIN { trace(sizeof (struct nomod`foo)); }", "D_TYPE_ERR",
	    "module nomod has no BTF in");
	tm_fails("BEGIN { trace(sizeof (struct moda`modb_only)); }",
	    "D_TYPE_ERR", "struct moda`modb_only is not defined in module moda's BTF");
	tm_fails("BEGIN { trace(sizeof (struct nomod_type)); }", "D_TYPE_ERR",
	    "or its modules' in");
}
END_TEST

/* Without a module directory the modules' tracepoints stay untyped. */
START_TEST(tst_no_moddir_untyped)
{
	unsetenv("KDT_BTF_MODDIR");
	tm_ok("sdt:moda::moda_ev { trace(args[7]); }");
	tm_fails("sdt:moda::moda_ev { trace(args[0]->a); }", "D_OP_PTR",
	    "must be applied to a pointer");
}
END_TEST

/* kdt -l -v reads the same directory. */
START_TEST(tst_argtypes_modules)
{
	char err[256], t[10][DC_ARGTYPE_LEN];
	struct dc_argtypes *a = dc_argtypes_open(tm_base, err, sizeof (err));

	ck_assert_msg(a != NULL, "%s", err);
	ck_assert_int_eq(dc_argtypes_get(a, "sdt", "", "modb_ev", t, 10), 2);
	ck_assert_str_eq(t[0], "struct foo *");
	ck_assert_str_eq(t[1], "int");
	ck_assert_int_eq(dc_argtypes_get(a, "fbt", "moda_fn", "return", t,
	    10), 2);
	ck_assert_str_eq(t[1], "long");
	dc_argtypes_close(a);
}
END_TEST

static Suite *
compiler_btfmods_suite(void)
{
	Suite *s = suite_create("compiler_btfmods");
	TCase *c = tcase_create("modules");

	tcase_add_checked_fixture(c, tm_setup, tm_teardown);
	tcase_add_test(c, tst_two_modules_one_program);
	tcase_add_test(c, tst_fbt_and_sdt_modules);
	tcase_add_test(c, tst_clash_by_scope);
	tcase_add_test(c, err_scope_D_TYPE_ERR);
	tcase_add_test(c, tst_no_moddir_untyped);
	tcase_add_test(c, tst_argtypes_modules);
	suite_add_tcase(s, c);
	return s;
}

KT_MAIN(compiler_btfmods_suite)
