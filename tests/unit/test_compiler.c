/*
 * test_compiler.c -- unit tests of the D compiler (compiler/dc.h).
 *
 * Three groups:
 *   - diagnostics: rejected programs fail with the expected tag at the
 *     expected line:col (test names carry the tag, STYLE.md point 10);
 *   - code generation: each expression is compiled as "BEGIN { trace(e) }",
 *     the DOF is loaded by the real loader (common/dof_load.c) and the
 *     action's DIF object is run by the real emulator (common/dif_vm.c);
 *     the result must be what C would compute;
 *   - DOF round trips of boot.d-like programs through dof_load(): probe
 *     descriptions, action kinds, formats, record layouts, options;
 *   plus a robustness loop over garbage and mutated programs.
 * Kernel-type tests use $KDT_BTF, else build/kernel/vmlinux (make kernel).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "kt_check.h"
#include "compiler/dc.h"
#include "consumer/kc_env.h"
#include "dof_load.h"
#include "dif.h"
#include "dif_vm.h"

static const char *
tc_btf(void)
{
	const char *p = getenv("KDT_BTF");

	return p != NULL && *p != '\0' ? p : "build/kernel/vmlinux";
}

/* Compile with BTF from tc_btf(); returns dc_compile's result. */
static int
tc_compile(const char *src, struct dc_out *o)
{
	struct dc_opts opts;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = tc_btf();
	return dc_compile(src, strlen(src), "t.d", &opts, o);
}

/* Expect a failure with "tag" at line:col. */
static void
tc_reject(const char *src, const char *tag, int line, int col)
{
	struct dc_out o;
	int rc = tc_compile(src, &o);

	ck_assert_msg(rc == -1, "compiled but should fail with %s: %s", tag,
	    src);
	ck_assert_str_eq(o.dco_tag, tag);
	ck_assert_msg(o.dco_line == line && o.dco_col == col,
	    "%s: expected %d:%d, got %s", src, line, col, o.dco_diag);
	ck_assert_ptr_null(o.dco_dof);
	ck_assert_msg(strncmp(o.dco_diag, "t.d:", 4) == 0, "%s", o.dco_diag);
}

START_TEST(err_D_SYNTAX_missing_brace)
{
	tc_reject("BEGIN\n{\n\ttrace(1);\n", "D_SYNTAX", 4, 1);
}
END_TEST

START_TEST(err_D_SYNTAX_bad_token)
{
	tc_reject("BEGIN { trace(1 @ 2); }", "D_SYNTAX", 1, 17);
}
END_TEST

START_TEST(err_D_SYNTAX_missing_semicolon)
{
	tc_reject("BEGIN {\n  trace(1)\n  trace(2);\n}", "D_SYNTAX", 3, 3);
}
END_TEST

START_TEST(err_D_STR_NL_unterminated_string)
{
	tc_reject("BEGIN { printf(\"abc\n\"); }", "D_STR_NL", 1, 16);
}
END_TEST

START_TEST(err_D_SYNTAX_string_at_eof)
{
	tc_reject("BEGIN { printf(\"abc", "D_SYNTAX", 1, 16);
}
END_TEST

START_TEST(err_D_SYNTAX_unterminated_comment)
{
	tc_reject("BEGIN { }\n  /* never closed", "D_SYNTAX", 2, 3);
}
END_TEST

START_TEST(err_D_IDENT_UNDEF_unknown_builtin)
{
	tc_reject("BEGIN\n{\n\ttrace(pidd);\n}", "D_IDENT_UNDEF", 3, 8);
}
END_TEST

START_TEST(err_D_FUNC_UNDEF_unknown_function)
{
	tc_reject("BEGIN { frob(1); }", "D_FUNC_UNDEF", 1, 9);
}
END_TEST

START_TEST(err_D_PRINTF_ARG_TYPE_string_for_d)
{
	tc_reject("BEGIN { printf(\"%d\\n\", execname); }",
	    "D_PRINTF_ARG_TYPE", 1, 24);
}
END_TEST

START_TEST(err_D_PRINTF_ARG_TYPE_int_for_s)
{
	tc_reject("BEGIN { printf(\"%-10s\", pid); }", "D_PRINTF_ARG_TYPE",
	    1, 25);
}
END_TEST

START_TEST(err_D_SYNTAX_bad_conversion)
{
	tc_reject("BEGIN { printf(\"%q\", 1); }", "D_SYNTAX", 1, 16);
}
END_TEST

START_TEST(err_D_PRINTF_ARG_PROTO_missing_arg)
{
	tc_reject("BEGIN { printf(\"%d %d\", 1); }", "D_PRINTF_ARG_PROTO",
	    1, 16);
}
END_TEST

START_TEST(err_D_PRINTF_ARG_EXTRA_extra_arg)
{
	tc_reject("BEGIN { printf(\"%d\", 1, 2); }", "D_PRINTF_ARG_EXTRA",
	    1, 25);
}
END_TEST

START_TEST(err_D_PROTO_LEN_trace_two_args)
{
	tc_reject("BEGIN { trace(1, 2); }", "D_PROTO_LEN", 1, 9);
}
END_TEST

START_TEST(err_D_PROTO_LEN_exit_no_arg)
{
	tc_reject("BEGIN\n{\n  exit();\n}", "D_PROTO_LEN", 3, 3);
}
END_TEST

START_TEST(err_D_PRAGMA_OPTSET_unknown_option)
{
	tc_reject("#pragma D option frobnicate=1\nBEGIN { }",
	    "D_PRAGMA_OPTSET", 1, 1);
}
END_TEST

START_TEST(err_D_OP_ARITH_string_plus_int)
{
	tc_reject("BEGIN { trace(execname + 1); }", "D_OP_ARITH", 1, 24);
}
END_TEST

START_TEST(err_D_PDESC_INVAL_five_fields)
{
	tc_reject("a:b:c:d:e { }", "D_PDESC_INVAL", 1, 1);
}
END_TEST

START_TEST(err_D_TYPE_MEMBER_unknown_member)
{
	tc_reject("BEGIN { trace(((struct module *)arg0)->nmae); }",
	    "D_TYPE_MEMBER", 1, 38);
}
END_TEST

START_TEST(err_D_OP_SOU_arrow_on_integer_pointer)
{
	tc_reject("BEGIN { trace(((int *)arg0)->x); }", "D_OP_SOU", 1, 28);
}
END_TEST

START_TEST(err_D_NOREG_deep_expression)
{
	tc_reject("BEGIN { trace(1+(2+(3+(4+(5+(6+(7+(8+9)))))))); }",
	    "D_NOREG", 1, 36);
}
END_TEST

START_TEST(err_D_BTF_LOAD_missing_file)
{
	struct dc_opts opts;
	struct dc_out o;
	const char *src = "BEGIN { trace(((struct module *)arg0)->state); }";

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "/nonexistent/vmlinux";
	ck_assert_int_eq(dc_compile(src, strlen(src), "t.d", &opts, &o), -1);
	ck_assert_str_eq(o.dco_tag, "D_BTF_LOAD");
	ck_assert_ptr_nonnull(strstr(o.dco_msg, "/nonexistent/vmlinux"));
	ck_assert_int_eq(o.dco_col, 17);
}
END_TEST

/* ---- code generation, checked by the real loader and emulator ---- */

struct tc_run {
	struct dof_enabling *tr_den;
	struct dif_mstate tr_ms;
	struct dif_probe_ctx tr_ctx;
	char		tr_scratch[4096];
};

/* Probe-context strings live in traced memory: register them. */
static const char tc_begin[] = "BEGIN";

static void
tc_load(const char *src, struct tc_run *r, uint64_t arg0)
{
	struct dc_out o;
	struct kdt_err err;
	int rc;

	memset(r, 0, sizeof (*r));
	rc = tc_compile(src, &o);
	ck_assert_msg(rc == 0, "%s: %s", src, o.dco_diag);
	memset(&err, 0, sizeof (err));
	rc = dof_load(o.dco_dof, o.dco_dofsz, &r->tr_den, &err);
	ck_assert_msg(rc == 0, "%s: dof_load: [%s] %s", src,
	    err.ke_tag ? err.ke_tag : "", err.ke_msg);
	dc_out_free(&o);
	r->tr_ms.dm_scratch = r->tr_scratch;
	r->tr_ms.dm_scratch_size = sizeof (r->tr_scratch);
	r->tr_ms.dm_strsize = r->tr_den->den_strsize;
	r->tr_ctx.pc_id = 1;
	r->tr_ctx.pc_epid = 1;
	r->tr_ctx.pc_prov = "dtrace";
	r->tr_ctx.pc_mod = "";
	r->tr_ctx.pc_func = "";
	r->tr_ctx.pc_name = tc_begin;
	ck_assert_int_eq(kc_env_add_readable(tc_begin, sizeof (tc_begin)), 0);
	r->tr_ctx.pc_args[0] = arg0;
	r->tr_ctx.pc_cpu = 3;
}

/* Run action "act" of ECB 0; faults fail the test. */
static uint64_t
tc_exec(struct tc_run *r, uint32_t act)
{
	const struct dof_lecb *le = &r->tr_den->den_ecbs[0];
	uint64_t v;

	ck_assert_uint_gt(le->le_nacts, act);
	r->tr_ms.dm_scratch_used = 0;
	v = dif_emulate(le->le_acts[act].la_difo, &r->tr_ms, &r->tr_ctx);
	ck_assert_msg(!r->tr_ms.dm_faulted, "fault %u at pc %u",
	    r->tr_ms.dm_fault, r->tr_ms.dm_fault_pc);
	return v;
}

struct tc_case {
	const char	*tc_expr;
	int64_t		tc_val;
	uint32_t	tc_size;	/* recorded bytes */
};

static const struct tc_case tc_cases[] = {
	{ "1 + 2 * 3", 7, 4 }, { "(1 + 2) * 3", 9, 4 }, { "10 / 3", 3, 4 },
	{ "-7 / 2", -3, 4 }, { "-7 % 3", -1, 4 }, { "7u / 2", 3, 4 },
	{ "1 << 4", 16, 4 }, { "-16 >> 2", -4, 4 }, { "0xf0 & 0x3c", 0x30, 4 },
	{ "5 ^ 3", 6, 4 }, { "5 | 2", 7, 4 }, { "~0", -1, 4 },
	{ "3 < 2", 0, 4 }, { "2 <= 2", 1, 4 }, { "3 > 2", 1, 4 },
	{ "2 >= 3", 0, 4 }, { "2 == 2", 1, 4 }, { "2 != 2", 0, 4 },
	{ "-1 < 1", 1, 4 }, { "-1 < 1u", 0, 4 }, { "!0", 1, 4 },
	{ "!5", 0, 4 }, { "1 && 0", 0, 4 }, { "2 && 3", 1, 4 },
	{ "0 || 3", 1, 4 }, { "0 || 0", 0, 4 }, { "1 ^^ 1", 0, 4 },
	{ "1 ? 10 : 20", 10, 4 }, { "0 ? 10 : 20", 20, 4 },
	{ "(char)0x1ff", -1, 1 }, { "(unsigned char)0x1ff", 255, 1 },
	{ "(short)0x18000", -32768, 2 }, { "(uint32_t)-1", 0xffffffff, 4 },
	{ "'a'", 97, 4 }, { "010", 8, 4 }, { "0x10", 16, 4 },
	{ "1ul << 40", 1ll << 40, 8 }, { "4294967296", 4294967296ll, 8 },
	{ "\"abc\" == \"abc\"", 1, 4 }, { "\"abc\" < \"abd\"", 1, 4 },
	{ "\"b\" != \"b\"", 0, 4 }, { "cpu", 3, 4 }, { "cpu * 2 + 1", 7, 4 },
	{ "arg0", 0x1234, 8 }, { "arg0 + 1", 0x1235, 8 },
	{ "-arg0", -0x1234, 8 }, { "+5", 5, 4 }, { "arg0 > 0 ? 1 : 2", 1, 4 },
	{ "epid", 1, 4 }, { "id", 1, 4 },
};

START_TEST(tst_codegen_expression_values)
{
	const struct tc_case *c = &tc_cases[_i];
	const struct dof_laction *la;
	struct tc_run r;
	char src[256];
	uint64_t v;

	snprintf(src, sizeof (src), "BEGIN { trace(%s); }", c->tc_expr);
	tc_load(src, &r, 0x1234);
	la = &r.tr_den->den_ecbs[0].le_acts[0];
	ck_assert_msg(la->la_rec_size == c->tc_size, "%s: record size %u, want %u", c->tc_expr, la->la_rec_size, c->tc_size);
	v = tc_exec(&r, 0);
	if (c->tc_size < 8)
		v &= (1ull << (8 * c->tc_size)) - 1;
	ck_assert_msg(v == ((uint64_t)c->tc_val & (c->tc_size < 8 ? (1ull << (8 * c->tc_size)) - 1 : ~0ull)), "%s = 0x%llx, want 0x%llx", c->tc_expr, (unsigned long long)v, (unsigned long long)c->tc_val);
	dof_free(r.tr_den);
}
END_TEST

START_TEST(tst_codegen_string_results)
{
	struct tc_run r;
	const struct dof_laction *la;
	char buf[256];
	uint64_t v;

	tc_load("BEGIN { trace(\"hi\\tthere\"); trace(probename);"
	    " trace(1 ? \"yes\" : \"no\"); }", &r, 0);
	la = r.tr_den->den_ecbs[0].le_acts;
	ck_assert_uint_eq(la[0].la_rec_isstr, 1);
	ck_assert_uint_eq(la[0].la_rec_size, 256);
	v = tc_exec(&r, 0);
	ck_assert_int_eq(dif_copy_result(la[0].la_difo, &r.tr_ms, v, buf,
	    sizeof (buf), 1), 0);
	ck_assert_str_eq(buf, "hi\tthere");
	v = tc_exec(&r, 1);
	ck_assert_int_eq(dif_copy_result(la[1].la_difo, &r.tr_ms, v, buf,
	    sizeof (buf), 1), 0);
	ck_assert_str_eq(buf, "BEGIN");
	v = tc_exec(&r, 2);
	ck_assert_int_eq(dif_copy_result(la[2].la_difo, &r.tr_ms, v, buf,
	    sizeof (buf), 1), 0);
	ck_assert_str_eq(buf, "yes");
	dof_free(r.tr_den);
}
END_TEST

/* Byte offset of member "m" of struct "s" in the test BTF, or -1. */
static long
tc_member_off(const char *s, const char *m)
{
	struct btf *btf = btf__parse(tc_btf(), NULL);
	const struct btf_type *t;
	const struct btf_member *mb;
	long off = -1;
	int id, i;

	ck_assert_msg(btf != NULL, "cannot read BTF %s", tc_btf());
	id = btf__find_by_name_kind(btf, s, BTF_KIND_STRUCT);
	ck_assert_int_gt(id, 0);
	t = btf__type_by_id(btf, (uint32_t)id);
	mb = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, mb++)
		if (strcmp(btf__name_by_offset(btf, mb->name_off), m) == 0)
			off = (long)(btf_member_bit_offset(t, (uint32_t)i) / 8);
	btf__free(btf);
	return off;
}

START_TEST(tst_codegen_kernel_struct_members)
{
	static uint8_t fake[1024] __attribute__((aligned(8)));
	long noff = tc_member_off("module", "name");
	long soff = tc_member_off("module", "state");
	const struct dof_laction *la;
	struct tc_run r;
	char buf[256];
	uint64_t v;
	int32_t state = 2;

	ck_assert_int_ge(noff, 0);
	ck_assert_int_ge(soff, 0);
	memset(fake, 0xa5, sizeof (fake));
	strcpy((char *)fake + noff, "fakemod");
	memcpy(fake + soff, &state, sizeof (state));
	ck_assert_int_eq(kc_env_add_readable(fake, sizeof (fake)), 0);
	tc_load("fbt::do_init_module:entry { printf(\"%s %d\\n\","
	    " stringof(((struct module *)arg0)->name),"
	    " ((struct module *)arg0)->state); }", &r, (uintptr_t)fake);
	la = r.tr_den->den_ecbs[0].le_acts;
	ck_assert_uint_eq(la[0].la_kind, DTRACEACT_PRINTF);
	ck_assert_str_eq(la[0].la_fmt, "%s %d\n");
	ck_assert_uint_eq(la[0].la_rec_isstr, 1);
	ck_assert_uint_eq(la[1].la_rec_size, 4);
	v = tc_exec(&r, 0);
	ck_assert_int_eq(dif_copy_result(la[0].la_difo, &r.tr_ms, v, buf,
	    sizeof (buf), 1), 0);
	ck_assert_str_eq(buf, "fakemod");
	ck_assert_uint_eq(tc_exec(&r, 1) & 0xffffffff, 2);
	r.tr_ctx.pc_args[0] = 8;	/* unreadable: must fault, not crash */
	r.tr_ms.dm_faulted = 0;
	dif_emulate(la[1].la_difo, &r.tr_ms, &r.tr_ctx);
	ck_assert_uint_eq(r.tr_ms.dm_fault, DTRACEFLT_BADADDR);
	kc_env_clear_readable();
	dof_free(r.tr_den);
}
END_TEST

START_TEST(tst_char_array_member_is_a_string)
{
	static char fake[1024] __attribute__((aligned(8)));
	long noff = tc_member_off("module", "name");
	const struct dof_laction *la;
	struct tc_run r;
	char buf[256];
	uint64_t v;

	ck_assert_int_ge(noff, 0);
	strcpy(fake + noff, "e1000");
	ck_assert_int_eq(kc_env_add_readable(fake, sizeof (fake)), 0);
	tc_load("BEGIN { printf(\"%s\", ((struct module *)arg0)->name); }",
	    &r, (uintptr_t)fake);
	la = r.tr_den->den_ecbs[0].le_acts;
	ck_assert_uint_eq(la[0].la_rec_isstr, 1);
	v = tc_exec(&r, 0);
	ck_assert_int_eq(dif_copy_result(la[0].la_difo, &r.tr_ms, v, buf,
	    sizeof (buf), 1), 0);
	ck_assert_str_eq(buf, "e1000");
	kc_env_clear_readable();
	dof_free(r.tr_den);
}
END_TEST

/*
 * The predicate fast path (dif_vm.h): "/VAR op K/" is recognised and
 * gives exactly what the interpreter gives, for every comparison and
 * values around K, negative and unsigned-large ones included; any other
 * shape is left to the interpreter.
 */
START_TEST(tst_fastpred_same_as_interpreter)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	static const char *const vars[] = { "arg0", "arg3", "cpu", "pid",
	    "id", "errno" };
	static const int64_t ks[] = { 0, 5, 100000, 0x7fffffff };
	static const uint64_t vals[] = { 0, 1, 4, 5, 6, (uint64_t)-1,
	    (uint64_t)-3, (uint64_t)-4, 99999, 100000, 100001,
	    0x8000000000000000ULL, 0x7fffffffffffffffULL };
	struct dif_fastpred fp;
	struct tc_run r;
	char src[160];
	size_t o, v, k, x;
	uint64_t want, got;

	for (v = 0; v < sizeof (vars) / sizeof (vars[0]); v++)
	for (o = 0; o < sizeof (ops) / sizeof (ops[0]); o++)
	for (k = 0; k < sizeof (ks) / sizeof (ks[0]); k++) {
		snprintf(src, sizeof (src), "BEGIN /%s %s %lld/ { trace(1); }",
		    vars[v], ops[o], (long long)ks[k]);
		tc_load(src, &r, 0);
		dif_fastpred_make(r.tr_den->den_ecbs[0].le_pred, &fp);
		ck_assert_msg(fp.fp_ok, "%s: not recognised", src);
		for (x = 0; x < sizeof (vals) / sizeof (vals[0]); x++) {
			r.tr_ctx.pc_args[0] = r.tr_ctx.pc_args[3] = vals[x];
			r.tr_ctx.pc_cpu = (uint32_t)vals[x];
			r.tr_ctx.pc_id = (uint32_t)vals[x];
			r.tr_ctx.pc_errno = (int32_t)vals[x];
			want = dif_emulate(r.tr_den->den_ecbs[0].le_pred,
			    &r.tr_ms, &r.tr_ctx);
			got = dif_fastpred_eval(&fp, &r.tr_ctx);
			ck_assert_msg(want == got, "%s with %#llx: interpreter %llu, fast path %llu",
			    src, (unsigned long long)vals[x],
			    (unsigned long long)want, (unsigned long long)got);
		}
		kc_env_clear_readable();
		dof_free(r.tr_den);
	}
	/* other shapes stay with the interpreter (a negative constant is
	   computed as 0 - K) */
	tc_load("BEGIN /arg0 == -3/ { trace(1); }", &r, 0);
	dif_fastpred_make(r.tr_den->den_ecbs[0].le_pred, &fp);
	ck_assert(!fp.fp_ok);
	kc_env_clear_readable();
	dof_free(r.tr_den);
	tc_load("BEGIN /arg0 == 5 && cpu == 3/ { trace(1); }", &r, 0);
	dif_fastpred_make(r.tr_den->den_ecbs[0].le_pred, &fp);
	ck_assert(!fp.fp_ok);
	kc_env_clear_readable();
	dof_free(r.tr_den);
	tc_load("BEGIN /execname == \"x\"/ { trace(1); }", &r, 0);
	dif_fastpred_make(r.tr_den->den_ecbs[0].le_pred, &fp);
	ck_assert(!fp.fp_ok);
	kc_env_clear_readable();
	dof_free(r.tr_den);
	tc_load("BEGIN /timestamp > 5/ { trace(1); }", &r, 0);
	dif_fastpred_make(r.tr_den->den_ecbs[0].le_pred, &fp);
	ck_assert(!fp.fp_ok);
	kc_env_clear_readable();
	dof_free(r.tr_den);
}
END_TEST

/* dif_fast_eval: one load and a ret, the interpreter's result. */
START_TEST(tst_fast_eval_same_as_interpreter)
{
	static const char *const srcs[] = { "trace(arg0)", "trace(arg9)",
	    "trace(5)", "trace(pid)", "trace(cpu)", "trace(0x7fffffffffffffff)",
	    "trace(errno)", "trace(id)" };
	const struct dif_object *d;
	struct tc_run r;
	char src[128];
	uint64_t want, got;
	size_t i;

	for (i = 0; i < sizeof (srcs) / sizeof (srcs[0]); i++) {
		snprintf(src, sizeof (src), "BEGIN { %s; }", srcs[i]);
		tc_load(src, &r, 0xfedcba9876543210ULL);
		r.tr_ctx.pc_args[9] = 77;
		r.tr_ctx.pc_errno = -2;
		d = r.tr_den->den_ecbs[0].le_acts[0].la_difo;
		ck_assert_msg(dif_fast_eval(d, &r.tr_ctx, &got), "%s: not taken",
		    src);
		want = dif_emulate(d, &r.tr_ms, &r.tr_ctx);
		ck_assert_msg(want == got, "%s: interpreter %#llx, fast %#llx",
		    src, (unsigned long long)want, (unsigned long long)got);
		kc_env_clear_readable();
		dof_free(r.tr_den);
	}
	/* anything longer is the interpreter's */
	tc_load("BEGIN { trace(arg0 + 1); }", &r, 0);
	ck_assert(!dif_fast_eval(r.tr_den->den_ecbs[0].le_acts[0].la_difo,
	    &r.tr_ctx, &got));
	kc_env_clear_readable();
	dof_free(r.tr_den);
	tc_load("BEGIN { trace(execname); }", &r, 0);
	ck_assert(!dif_fast_eval(r.tr_den->den_ecbs[0].le_acts[0].la_difo,
	    &r.tr_ctx, &got));
	kc_env_clear_readable();
	dof_free(r.tr_den);
}
END_TEST

START_TEST(tst_predicate_selects)
{
	struct tc_run r;
	const struct dif_object *pred;

	tc_load("BEGIN /arg0 == 5 && cpu == 3/ { trace(1); }", &r, 5);
	pred = r.tr_den->den_ecbs[0].le_pred;
	ck_assert_ptr_nonnull(pred);
	ck_assert_uint_eq(dif_emulate(pred, &r.tr_ms, &r.tr_ctx), 1);
	r.tr_ctx.pc_args[0] = 6;
	ck_assert_uint_eq(dif_emulate(pred, &r.tr_ms, &r.tr_ctx), 0);
	dof_free(r.tr_den);
}
END_TEST

/* ---- DOF round trips ---- */

static const char tc_bootd[] =
	"#pragma D option quiet\n"
	"#pragma D option strsize=128\n"
	"/* boot-like */\n"
	"BEGIN\n{\n\tprintf(\"tracing\\n\");\n}\n"
	"fbt::do_init_module:entry, do_*:return\n"
	"/arg0 != 0/\n"
	"{\n\tprintf(\"%s %d\\n\", probefunc, pid); trace(timestamp);\n"
	"\texit(0);\n}\n";

START_TEST(tst_dof_roundtrip_bootlike)
{
	struct dc_out o;
	struct dof_enabling *den;
	struct kdt_err err;
	const struct dof_lecb *e;

	ck_assert_int_eq(tc_compile(tc_bootd, &o), 0);
	ck_assert_int_eq(dof_load(o.dco_dof, o.dco_dofsz, &den, &err), 0);
	ck_assert_uint_eq(den->den_necbs, 3);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_QUIET], 1);
	ck_assert_uint_eq(den->den_strsize, 128);
	e = &den->den_ecbs[0];
	ck_assert_str_eq(e->le_pdesc.lp_name, "BEGIN");
	ck_assert_str_eq(e->le_pdesc.lp_prov, "");
	ck_assert_ptr_null(e->le_pred);
	ck_assert_uint_eq(e->le_nacts, 1);
	ck_assert_uint_eq(e->le_acts[0].la_kind, DTRACEACT_PRINTF);
	ck_assert_str_eq(e->le_acts[0].la_fmt, "tracing\n");
	ck_assert_uint_eq(e->le_acts[0].la_rec_size, 8);
	ck_assert_uint_eq(e->le_size, 8);
	e = &den->den_ecbs[1];
	ck_assert_str_eq(e->le_pdesc.lp_prov, "fbt");
	ck_assert_str_eq(e->le_pdesc.lp_mod, "");
	ck_assert_str_eq(e->le_pdesc.lp_func, "do_init_module");
	ck_assert_str_eq(e->le_pdesc.lp_name, "entry");
	ck_assert_ptr_nonnull(e->le_pred);
	ck_assert_uint_eq(e->le_nacts, 4);
	ck_assert_str_eq(e->le_acts[0].la_fmt, "%s %d\n");
	ck_assert_str_eq(e->le_acts[1].la_fmt, "%s %d\n");
	ck_assert_uint_eq(e->le_acts[0].la_rec_size, 128);
	ck_assert_uint_eq(e->le_acts[1].la_rec_size, 4);
	ck_assert_uint_eq(e->le_acts[2].la_kind, DTRACEACT_DIFEXPR);
	ck_assert_uint_eq(e->le_acts[2].la_rec_size, 8);
	ck_assert_uint_eq(e->le_acts[3].la_kind, DTRACEACT_EXIT);
	ck_assert_uint_eq(e->le_acts[3].la_rec_size, 4);
	e = &den->den_ecbs[2];
	ck_assert_str_eq(e->le_pdesc.lp_prov, "");
	ck_assert_str_eq(e->le_pdesc.lp_func, "do_*");
	ck_assert_str_eq(e->le_pdesc.lp_name, "return");
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

START_TEST(tst_dof_header_and_options)
{
	struct dc_opts opts;
	struct dc_out o;
	struct dof_enabling *den;
	struct kdt_err err;
	const struct dof_hdr *h;
	static const uint8_t ident[16] = { 0x7f, 'D', 'O', 'F', 2, 1, 1, 2,
	    8, 8 };
	const char *src = "BEGIN { trace(1); }";

	memset(&opts, 0, sizeof (opts));
	opts.dco_xopts[0] = "bufpolicy=ring";
	opts.dco_xopts[1] = "bufsize=2m";
	opts.dco_xopts[2] = "regionsize=32m";
	opts.dco_nxopts = 3;
	ck_assert_int_eq(dc_compile(src, strlen(src), "x", &opts, &o), 0);
	h = (const struct dof_hdr *)o.dco_dof;
	ck_assert_mem_eq(h->dh_ident, ident, sizeof (ident));
	ck_assert_uint_eq(h->dh_filesz, o.dco_dofsz);
	ck_assert_uint_le(h->dh_loadsz, h->dh_filesz);
	ck_assert_uint_eq(o.dco_dofsz % 8, 0);
	ck_assert_uint_eq(o.dco_regsize, 32u << 20);
	ck_assert_uint_eq(o.dco_regaddr, 0x10000000);
	ck_assert_int_eq(dof_load(o.dco_dof, o.dco_dofsz, &den, &err), 0);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_BUFPOLICY],
	    DTRACEOPT_BUFPOLICY_RING);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_BUFSIZE], 2u << 20);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_QUIET], DTRACEOPT_UNSET);
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

/* setopt() at run time reads option values as -x does (dc_opt_parse). */
START_TEST(tst_runtime_option_values)
{
	uint32_t opt;
	uint64_t v;

	ck_assert_int_eq(dc_opt_parse("switchrate", "5sec", &opt, &v), 0);
	ck_assert_uint_eq(opt, DTRACEOPT_SWITCHRATE);
	ck_assert_uint_eq(v, 5000000000ull);
	ck_assert_int_eq(dc_opt_parse("aggrate", "100hz", &opt, &v), 0);
	ck_assert_uint_eq(opt, DTRACEOPT_AGGRATE);
	ck_assert_uint_eq(v, 10000000ull);
	ck_assert_int_eq(dc_opt_parse("statusrate", "10ms", &opt, &v), 0);
	ck_assert_uint_eq(v, 10000000ull);
	ck_assert_int_eq(dc_opt_parse("quiet", NULL, &opt, &v), 0);
	ck_assert_uint_eq(opt, DTRACEOPT_QUIET);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(dc_opt_parse("switchrate", "soon", &opt, &v), -1);
	ck_assert_int_eq(dc_opt_parse("switchrate", NULL, &opt, &v), -1);
	ck_assert_int_eq(dc_opt_parse("nosuchoption", "1", &opt, &v), -1);
}
END_TEST

START_TEST(tst_disassembler_lines)
{
	struct dc_opts opts;
	struct dc_out o;
	char *text = NULL;
	size_t len = 0;
	const char *src = "BEGIN /arg0 > 1/ { trace(arg0); printf(\"%s\", \"x\"); }";

	memset(&opts, 0, sizeof (opts));
	opts.dco_dis = open_memstream(&text, &len);
	ck_assert_int_eq(dc_compile(src, strlen(src), "x", &opts, &o), 0);
	fclose(opts.dco_dis);
	ck_assert_ptr_nonnull(strstr(text, "clause 1: :::BEGIN\n"));
	ck_assert_ptr_nonnull(strstr(text, "  predicate:\n"));
	ck_assert_ptr_nonnull(strstr(text, "00: 29010601    ldgs    DT_VAR(262), %r1\t! arg0\n"));
	ck_assert_ptr_nonnull(strstr(text, "cmp     %r1, %r2\n"));
	ck_assert_ptr_nonnull(strstr(text, "bg      "));
	ck_assert_ptr_nonnull(strstr(text, "sets    DT_STRING[0], %r1\t! \"x\"\n"));
	ck_assert_ptr_nonnull(strstr(text, "action 2: PRINTF format \"%s\"\n"));
	ck_assert_ptr_nonnull(strstr(text, "return type: integer, 8 bytes\n"));
	ck_assert_ptr_nonnull(strstr(text, "return type: string"));
	free(text);
	dc_out_free(&o);
}
END_TEST

/* Any input: a DOF or exactly one well-formed diagnostic, never a crash. */
static void
tc_any(const char *src, size_t len)
{
	struct dc_out o;

	if (dc_compile(src, len, "g.d", NULL, &o) == 0) {
		ck_assert_ptr_nonnull(o.dco_dof);
		dc_out_free(&o);
		return;
	}
	ck_assert_ptr_nonnull(o.dco_tag);
	ck_assert_msg(strncmp(o.dco_tag, "D_", 2) == 0, "%s", o.dco_diag);
	ck_assert_msg(strncmp(o.dco_diag, "g.d:", 4) == 0, "%s", o.dco_diag);
}

START_TEST(tst_garbage_never_crashes)
{
	static const char alphabet[] = "BEGIN{}()/;,:*-+!~<>=&|^?\"'\\%#0x1a"
	    "trace printf exit stringof arg0 pid struct \n\t";
	char buf[512];
	unsigned seed = 12345;
	size_t i, n, k;

	for (k = 0; k < 3000; k++) {
		n = (size_t)(rand_r(&seed) % sizeof (buf));
		for (i = 0; i < n; i++)
			buf[i] = (k & 1) ? (char)(rand_r(&seed) & 0xff) :
			    alphabet[rand_r(&seed) % (sizeof (alphabet) - 1)];
		tc_any(buf, n);
	}
	for (k = 0; k < 3000; k++) {
		n = strlen(tc_bootd);
		memcpy(buf, tc_bootd, n);
		for (i = 0; i < 3; i++)
			buf[rand_r(&seed) % n] = alphabet[rand_r(&seed) %
			    (sizeof (alphabet) - 1)];
		tc_any(buf, n);
		tc_any(buf, rand_r(&seed) % n);
	}
}
END_TEST

static Suite *
compiler_suite(void)
{
	Suite *s = suite_create("compiler");
	TCase *e = tcase_create("diagnostics");
	TCase *c = tcase_create("codegen");
	TCase *d = tcase_create("dof");

	tcase_add_test(e, err_D_SYNTAX_missing_brace);
	tcase_add_test(e, err_D_SYNTAX_bad_token);
	tcase_add_test(e, err_D_SYNTAX_missing_semicolon);
	tcase_add_test(e, err_D_STR_NL_unterminated_string);
	tcase_add_test(e, err_D_SYNTAX_string_at_eof);
	tcase_add_test(e, err_D_SYNTAX_unterminated_comment);
	tcase_add_test(e, err_D_IDENT_UNDEF_unknown_builtin);
	tcase_add_test(e, err_D_FUNC_UNDEF_unknown_function);
	tcase_add_test(e, err_D_PRINTF_ARG_TYPE_string_for_d);
	tcase_add_test(e, err_D_PRINTF_ARG_TYPE_int_for_s);
	tcase_add_test(e, err_D_SYNTAX_bad_conversion);
	tcase_add_test(e, err_D_PRINTF_ARG_PROTO_missing_arg);
	tcase_add_test(e, err_D_PRINTF_ARG_EXTRA_extra_arg);
	tcase_add_test(e, err_D_PROTO_LEN_trace_two_args);
	tcase_add_test(e, err_D_PROTO_LEN_exit_no_arg);
	tcase_add_test(e, err_D_PRAGMA_OPTSET_unknown_option);
	tcase_add_test(e, err_D_OP_ARITH_string_plus_int);
	tcase_add_test(e, err_D_PDESC_INVAL_five_fields);
	tcase_add_test(e, err_D_TYPE_MEMBER_unknown_member);
	tcase_add_test(e, err_D_OP_SOU_arrow_on_integer_pointer);
	tcase_add_test(e, err_D_NOREG_deep_expression);
	tcase_add_test(e, err_D_BTF_LOAD_missing_file);
	tcase_add_test(e, tst_garbage_never_crashes);
	tcase_set_timeout(e, 120);
	tcase_add_loop_test(c, tst_codegen_expression_values, 0,
	    (int)(sizeof (tc_cases) / sizeof (tc_cases[0])));
	tcase_add_test(c, tst_codegen_string_results);
	tcase_add_test(c, tst_codegen_kernel_struct_members);
	tcase_add_test(c, tst_char_array_member_is_a_string);
	tcase_add_test(c, tst_predicate_selects);
	tcase_add_test(c, tst_fastpred_same_as_interpreter);
	tcase_add_test(c, tst_fast_eval_same_as_interpreter);
	tcase_add_test(c, tst_disassembler_lines);
	tcase_add_test(c, tst_runtime_option_values);
	tcase_set_timeout(c, 120);
	tcase_add_test(d, tst_dof_roundtrip_bootlike);
	tcase_add_test(d, tst_dof_header_and_options);
	suite_add_tcase(s, e);
	suite_add_tcase(s, c);
	suite_add_tcase(s, d);
	return s;
}

KT_MAIN(compiler_suite)
