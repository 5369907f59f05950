/*
 * test_dif_vm.c -- unit tests of the DIF validator and emulator
 * (common/dif_valid.c, common/dif_vm.c) in their userspace build.
 *
 * Each test assembles a small program with the dif.h encoding macros,
 * wraps it in a struct dif_object whose INTTAB and STRTAB are test arrays,
 * validates it (every program here must pass dif_validate() unless the
 * test is about rejection) and runs it with dif_emulate().  "Traced
 * memory" is test data registered with kc_env_add_readable(); anything
 * unregistered must fault, never be read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "dif.h"
#include "dif_vm.h"
#include "consumer/kc_env.h"

#define R3(op, a, b, d)	DIF_INSTR_FMT(DIF_OP_##op, a, b, d)
#define SETX(i, d)	DIF_INSTR_SETX(i, d)
#define SETS(o, d)	DIF_INSTR_SETS(o, d)
#define RET(d)		DIF_INSTR_RET(d)
#define BR(op, l)	DIF_INSTR_BRANCH(DIF_OP_##op, l)
#define LDGS(v, d)	DIF_INSTR_LDV(DIF_OP_LDGS, v, d)
#define PUSHTV(rs)	DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF_T, 0, rs)
#define PUSHTR(rs)	DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING_T, 0, rs)
#define CALL(s, d)	DIF_INSTR_CALL(s, d)
#define FLUSHTS		((uint32_t)DIF_OP_FLUSHTS << 24)
#define POPTS		((uint32_t)DIF_OP_POPTS << 24)
#define N(a)		((uint32_t)(sizeof (a) / sizeof ((a)[0])))

static uint64_t t_int[8];
static char t_str[] = "abc\0abd\0abcdef\0abcxyz\0";
static char t_scratch[512];
static char t_kmem[64] __attribute__((aligned(8)));
static struct dif_object t_difo;
static struct dif_mstate t_ms;
static struct dif_probe_ctx t_ctx;

static void
t_setup(void)
{
	memset(t_int, 0, sizeof (t_int));
	memset(&t_ms, 0, sizeof (t_ms));
	t_ms.dm_scratch = t_scratch;
	t_ms.dm_scratch_size = sizeof (t_scratch);
	t_ms.dm_strsize = 256;
	memset(&t_ctx, 0, sizeof (t_ctx));
	t_ctx.pc_id = 77;
	t_ctx.pc_epid = 5;
	t_ctx.pc_prov = "fbt";
	t_ctx.pc_mod = "kernel";
	t_ctx.pc_func = "do_init_module";
	t_ctx.pc_name = "entry";
	t_ctx.pc_timestamp = 123456789;
	t_ctx.pc_cpu = 3;
	for (int i = 0; i < DIF_NARGS; i++)
		t_ctx.pc_args[i] = 1000 + i;
	kc_env_clear_readable();
}

static void
t_teardown(void)
{
	kc_env_clear_readable();
}

static void
t_object(const uint32_t *text, uint32_t n)
{
	memset(&t_difo, 0, sizeof (t_difo));
	t_difo.do_text = text;
	t_difo.do_textlen = n;
	t_difo.do_inttab = t_int;
	t_difo.do_intlen = N(t_int);
	t_difo.do_strtab = t_str;
	t_difo.do_strlen = sizeof (t_str);
	t_difo.do_rtype.dtdt_kind = DIF_TYPE_CTF;
	t_difo.do_rtype.dtdt_size = 8;
}

/* Validate (must pass) and run; the scratch starts empty. */
static uint64_t
t_run(const uint32_t *text, uint32_t n)
{
	struct kdt_err err;
	int rc;

	t_object(text, n);
	memset(&err, 0, sizeof (err));
	rc = dif_validate(&t_difo, &err);
	ck_assert_msg(rc == 0, "validate: %s", err.ke_msg);
	t_ms.dm_scratch_used = 0;
	return dif_emulate(&t_difo, &t_ms, &t_ctx);
}

static void
t_nofault(void)
{
	ck_assert_msg(!t_ms.dm_faulted, "unexpected fault %u at pc %u",
	    t_ms.dm_fault, t_ms.dm_fault_pc);
}

static void
t_fault(uint32_t code, uint32_t pc)
{
	ck_assert_uint_eq(t_ms.dm_faulted, 1);
	ck_assert_uint_eq(t_ms.dm_fault, code);
	ck_assert_uint_eq(t_ms.dm_fault_pc, pc);
}

/* A binary operation on INTTAB[0], INTTAB[1]. */
static uint64_t
t_binop(uint32_t op, uint64_t a, uint64_t b)
{
	uint32_t text[] = { SETX(0, 1), SETX(1, 2),
	    DIF_INSTR_FMT(op, 1, 2, 3), RET(3) };

	t_int[0] = a;
	t_int[1] = b;
	return t_run(text, N(text));
}

struct t_arith {
	uint32_t	ta_op;
	uint64_t	ta_a, ta_b, ta_want;
};

static const struct t_arith t_ariths[] = {
	{ DIF_OP_OR, 0xf0, 0x0f, 0xff },
	{ DIF_OP_XOR, 0xff, 0x0f, 0xf0 },
	{ DIF_OP_AND, 0xf3, 0x3f, 0x33 },
	{ DIF_OP_SLL, 1, 63, 0x8000000000000000ull },
	{ DIF_OP_SLL, 3, 4, 48 },
	{ DIF_OP_SRL, 0x8000000000000000ull, 63, 1 },
	{ DIF_OP_SRA, 0x8000000000000000ull, 63, UINT64_MAX },
	{ DIF_OP_SRA, 64, 3, 8 },
	{ DIF_OP_SUB, 5, 7, (uint64_t)-2 },
	{ DIF_OP_ADD, UINT64_MAX, 2, 1 },
	{ DIF_OP_MUL, (uint64_t)-3, 7, (uint64_t)-21 },
	{ DIF_OP_SDIV, (uint64_t)-21, 4, (uint64_t)-5 },
	{ DIF_OP_SDIV, 0x8000000000000000ull, UINT64_MAX,
	    0x8000000000000000ull },
	{ DIF_OP_UDIV, (uint64_t)-21, 4, 0x3ffffffffffffffaull },
	{ DIF_OP_SREM, (uint64_t)-21, 4, (uint64_t)-1 },
	{ DIF_OP_SREM, 0x8000000000000000ull, UINT64_MAX, 0 },
	{ DIF_OP_UREM, 23, 4, 3 },
};

START_TEST(test_arith_each_op)
{
	const struct t_arith *t = &t_ariths[_i];
	uint64_t v = t_binop(t->ta_op, t->ta_a, t->ta_b);

	t_nofault();
	ck_assert_msg(v == t->ta_want, "op %u: 0x%llx op 0x%llx = 0x%llx, want 0x%llx",
	    t->ta_op, (unsigned long long)t->ta_a,
	    (unsigned long long)t->ta_b, (unsigned long long)v,
	    (unsigned long long)t->ta_want);
}
END_TEST

START_TEST(test_divzero_faults)
{
	static const uint32_t ops[] = { DIF_OP_SDIV, DIF_OP_UDIV, DIF_OP_SREM,
	    DIF_OP_UREM };

	ck_assert_uint_eq(t_binop(ops[_i], 42, 0), 0);
	t_fault(DTRACEFLT_DIVZERO, 2);
}
END_TEST

START_TEST(test_not_mov_nop_setx_ret)
{
	uint32_t text[] = { SETX(3, 1), DIF_INSTR_NOP,
	    R3(NOT, 1, 0, 2), R3(MOV, 2, 0, 4), RET(4) };

	t_int[3] = 0x00ff00ff00ff00ffull;
	ck_assert_uint_eq(t_run(text, N(text)), 0xff00ff00ff00ff00ull);
	t_nofault();
}
END_TEST

START_TEST(test_ret_r0_is_zero)
{
	uint32_t text[] = { RET(0) };

	ck_assert_uint_eq(t_run(text, N(text)), 0);
	t_nofault();
}
END_TEST

START_TEST(test_sets_is_strtab_address)
{
	uint32_t text[] = { SETS(4, 1), RET(1) };

	ck_assert_uint_eq(t_run(text, N(text)), (uintptr_t)&t_str[4]);
	t_nofault();
}
END_TEST

/*
 * Branch table: cmp INTTAB[0], INTTAB[1], then branch over "ret 0" to
 * "ret 1".  The expected outcome is computed from C comparisons.
 */
struct t_pair {
	uint64_t	tp_a, tp_b;
};

static const struct t_pair t_pairs[] = {
	{ 1, 2 }, { 2, 1 }, { 2, 2 }, { (uint64_t)-1, 1 }, { 1, (uint64_t)-1 },
	{ (uint64_t)-5, (uint64_t)-3 }, { 0, 0 },
};

static int
t_expect(uint32_t op, uint64_t a, uint64_t b)
{
	int64_t sa = (int64_t)a, sb = (int64_t)b;

	switch (op) {
	case DIF_OP_BA: return 1;
	case DIF_OP_BE: return a == b;
	case DIF_OP_BNE: return a != b;
	case DIF_OP_BG: return sa > sb;
	case DIF_OP_BGU: return a > b;
	case DIF_OP_BGE: return sa >= sb;
	case DIF_OP_BGEU: return a >= b;
	case DIF_OP_BL: return sa < sb;
	case DIF_OP_BLU: return a < b;
	case DIF_OP_BLE: return sa <= sb;
	default: return a <= b;
	}
}

START_TEST(test_cmp_branch_table)
{
	uint32_t op = DIF_OP_BA + (uint32_t)_i, p;
	uint32_t text[] = { SETX(0, 1), SETX(1, 2), R3(CMP, 1, 2, 0),
	    DIF_INSTR_BRANCH(op, 6), RET(0), DIF_INSTR_NOP, SETX(2, 3),
	    RET(3) };

	for (p = 0; p < N(t_pairs); p++) {
		t_int[0] = t_pairs[p].tp_a;
		t_int[1] = t_pairs[p].tp_b;
		t_int[2] = 1;
		ck_assert_msg(t_run(text, N(text)) ==
		    (uint64_t)t_expect(op, t_pairs[p].tp_a, t_pairs[p].tp_b),
		    "branch op %u with %lld, %lld", op,
		    (long long)t_pairs[p].tp_a, (long long)t_pairs[p].tp_b);
		t_nofault();
	}
}
END_TEST

START_TEST(test_tst_sets_z_only)
{
	uint32_t text[] = { SETX(0, 1), DIF_INSTR_FMT(DIF_OP_TST, 1, 0, 0),
	    BR(BE, 5), SETX(1, 2), RET(2), SETX(2, 2), RET(2) };

	t_int[1] = 10;
	t_int[2] = 20;
	t_int[0] = 0;
	ck_assert_uint_eq(t_run(text, N(text)), 20);
	t_int[0] = (uint64_t)-7;	/* tst clears n: "bl" would not fire */
	ck_assert_uint_eq(t_run(text, N(text)), 10);
	t_nofault();
}
END_TEST

/* Loads of every width and sign, from traced (registered) memory. */
START_TEST(test_loads_each_width)
{
	static const uint32_t ops[] = { DIF_OP_LDSB, DIF_OP_LDSH, DIF_OP_LDSW,
	    DIF_OP_LDUB, DIF_OP_LDUH, DIF_OP_LDUW, DIF_OP_LDX };
	static const uint64_t want[] = { UINT64_MAX, 0xffffffffffffeeffull,
	    0xffffffffccddeeffull, 0xff, 0xeeff, 0xccddeeff,
	    0x8899aabbccddeeffull };
	uint64_t v = 0x8899aabbccddeeffull;
	uint32_t k = (uint32_t)_i % 7, op = ops[k];
	uint32_t text[] = { SETX(0, 1), R3(LDSB, 1, 0, 2), RET(2) };

	if (_i >= 7)
		op += DIF_OP_RLDSB - DIF_OP_LDSB;
	text[1] = DIF_INSTR_FMT(op, 1, 0, 2);
	memcpy(t_kmem, &v, sizeof (v));
	ck_assert_int_eq(kc_env_add_readable(t_kmem, sizeof (t_kmem)), 0);
	t_int[0] = (uintptr_t)t_kmem;
	ck_assert_uint_eq(t_run(text, N(text)), want[k]);
	t_nofault();
}
END_TEST

START_TEST(test_load_from_strtab_is_direct)
{
	uint32_t text[] = { SETS(1, 1), R3(LDUB, 1, 0, 2), RET(2) };

	ck_assert_uint_eq(t_run(text, N(text)), 'b');
	t_nofault();
}
END_TEST

START_TEST(test_load_unregistered_faults_badaddr)
{
	uint32_t text[] = { SETX(0, 1), R3(LDX, 1, 0, 2), RET(2) };

	t_int[0] = (uintptr_t)t_kmem;	/* not registered */
	ck_assert_uint_eq(t_run(text, N(text)), 0);
	t_fault(DTRACEFLT_BADADDR, 1);
	ck_assert_uint_eq(t_ms.dm_fault_addr, (uintptr_t)t_kmem);
}
END_TEST

START_TEST(test_load_misaligned_faults_badalign)
{
	uint32_t text[] = { SETX(0, 1), R3(LDUW, 1, 0, 2), RET(2) };

	kc_env_add_readable(t_kmem, sizeof (t_kmem));
	t_int[0] = (uintptr_t)t_kmem + 2;
	ck_assert_uint_eq(t_run(text, N(text)), 0);
	t_fault(DTRACEFLT_BADALIGN, 1);
	ck_assert_uint_eq(t_ms.dm_fault_addr, (uintptr_t)t_kmem + 2);
}
END_TEST

/* scmp of two strings; returns 0 for "<", 1 for "==", 2 for ">". */
static uint64_t
t_scmp(uint64_t a, uint64_t b)
{
	uint32_t text[] = { SETX(0, 1), SETX(1, 2), R3(SCMP, 1, 2, 0),
	    BR(BL, 7), BR(BE, 9), SETX(4, 3), RET(3), SETX(5, 3), RET(3),
	    SETX(6, 3), RET(3) };

	t_int[0] = a;
	t_int[1] = b;
	t_int[4] = 2;
	t_int[5] = 0;
	t_int[6] = 1;
	return t_run(text, N(text));
}

START_TEST(test_scmp_strtab_and_traced)
{
	uint64_t abc = (uintptr_t)&t_str[0], abd = (uintptr_t)&t_str[4];

	ck_assert_uint_eq(t_scmp(abc, abd), 0);
	ck_assert_uint_eq(t_scmp(abd, abc), 2);
	ck_assert_uint_eq(t_scmp(abc, abc), 1);
	strcpy(t_kmem, "abc");
	kc_env_add_readable(t_kmem, 4);
	ck_assert_uint_eq(t_scmp(abc, (uintptr_t)t_kmem), 1);
	ck_assert_uint_eq(t_scmp((uintptr_t)t_kmem, abd), 0);
	/* "abc" vs "abcdef": the shorter string sorts first */
	ck_assert_uint_eq(t_scmp(abc, (uintptr_t)&t_str[8]), 0);
	t_nofault();
}
END_TEST

START_TEST(test_scmp_bounded_by_strsize)
{
	t_ms.dm_strsize = 3;
	ck_assert_uint_eq(t_scmp((uintptr_t)&t_str[8],
	    (uintptr_t)&t_str[15]), 1);
	t_ms.dm_strsize = 4;
	ck_assert_uint_eq(t_scmp((uintptr_t)&t_str[8],
	    (uintptr_t)&t_str[15]), 0);
}
END_TEST

START_TEST(test_scmp_null_is_empty_and_bad_faults)
{
	uint64_t empty = (uintptr_t)&t_str[3];

	ck_assert_uint_eq(t_scmp(0, empty), 1);
	ck_assert_uint_eq(t_scmp(0, (uintptr_t)&t_str[0]), 0);
	t_nofault();
	ck_assert_uint_eq(t_scmp((uintptr_t)&t_str[0], (uintptr_t)t_kmem), 0);
	t_fault(DTRACEFLT_BADADDR, 2);
	ck_assert_uint_eq(t_ms.dm_fault_addr, (uintptr_t)t_kmem);
}
END_TEST

START_TEST(test_ldgs_builtins)
{
	uint32_t text[] = { LDGS(DIF_VAR_TIMESTAMP, 1), RET(1) };
	struct { uint32_t var; uint64_t want; } t[] = {
		{ DIF_VAR_TIMESTAMP, 123456789 }, { DIF_VAR_EPID, 5 },
		{ DIF_VAR_ID, 77 }, { DIF_VAR_ARG0, 1000 },
		{ DIF_VAR_ARG9, 1009 }, { DIF_VAR_CPU, 3 },
		{ DIF_VAR_PROBEPROV, (uintptr_t)t_ctx.pc_prov },
		{ DIF_VAR_PROBEMOD, (uintptr_t)t_ctx.pc_mod },
		{ DIF_VAR_PROBEFUNC, (uintptr_t)t_ctx.pc_func },
		{ DIF_VAR_PROBENAME, (uintptr_t)t_ctx.pc_name },
		{ DIF_VAR_PID, (uint64_t)getpid() },
		{ DIF_VAR_TID, (uint64_t)gettid() },
		{ DIF_VAR_PPID, (uint64_t)getppid() },
		{ DIF_VAR_UID, (uint64_t)getuid() },
		{ DIF_VAR_GID, (uint64_t)getgid() },
		{ DIF_VAR_CURTHREAD, (uint64_t)pthread_self() },
		{ DIF_VAR_IPL, 0 },
		{ DIF_VAR_ERRNO, (uint64_t)-2 },
		{ DIF_VAR_CALLER, 0xffffffff81000010ull },
		{ DIF_VAR_STACKDEPTH, 7 },
		{ DIF_VAR_UCALLER, 0x401000 },
		{ DIF_VAR_USTACKDEPTH, 3 },
	};

	t_ctx.pc_errno = -2;		/* what a provider would fill in */
	t_ctx.pc_caller = 0xffffffff81000010ull;
	t_ctx.pc_stackdepth = 7;
	t_ctx.pc_ucaller = 0x401000;
	t_ctx.pc_ustackdepth = 3;

	for (uint32_t i = 0; i < N(t); i++) {
		text[0] = LDGS(t[i].var, 1);
		ck_assert_msg(t_run(text, N(text)) == t[i].want,
		    "builtin 0x%x", t[i].var);
		t_nofault();
	}
}
END_TEST

/* Clocks: walltimestamp is the epoch clock, vtimestamp this thread's. */
START_TEST(test_ldgs_clocks)
{
	uint32_t wall[] = { LDGS(DIF_VAR_WALLTIMESTAMP, 1), RET(1) };
	uint32_t vt[] = { LDGS(DIF_VAR_VTIMESTAMP, 1), RET(1) };
	struct timespec a, b;
	uint64_t v, lo, hi;

	clock_gettime(CLOCK_REALTIME, &a);
	v = t_run(wall, 2);
	clock_gettime(CLOCK_REALTIME, &b);
	lo = (uint64_t)a.tv_sec * 1000000000ull + (uint64_t)a.tv_nsec;
	hi = (uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec;
	ck_assert_uint_ge(v, lo);
	ck_assert_uint_le(v, hi);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	v = t_run(vt, 2);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	lo = (uint64_t)a.tv_sec * 1000000000ull + (uint64_t)a.tv_nsec;
	hi = (uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec;
	ck_assert_uint_ge(v, lo);
	ck_assert_uint_le(v, hi);
	t_nofault();
}
END_TEST

START_TEST(test_ldgs_execname_in_scratch)
{
	uint32_t text[] = { LDGS(DIF_VAR_EXECNAME, 1), RET(1) };
	uint64_t v = t_run(text, N(text));
	char want[32];

	t_nofault();
	ck_assert_uint_eq(v, (uintptr_t)t_scratch);
	snprintf(want, sizeof (want), "%s", program_invocation_short_name);
	ck_assert_str_eq((const char *)(uintptr_t)v, want);
}
END_TEST

START_TEST(test_ldgs_unknown_and_user_vars_illop)
{
	uint32_t t1[] = { LDGS(DIF_VAR_ZONENAME, 1), RET(1) };	/* no zones */
	uint32_t t2[] = { DIF_INSTR_LDV(DIF_OP_LDTS, 0x500, 1), RET(1) };
	struct dif_var var = { 0, 0x500, DIFV_KIND_SCALAR, DIFV_SCOPE_THREAD,
	    0, { DIF_TYPE_CTF, DIF_CTF_INTEGER, 0, 0, 8 } };

	ck_assert_uint_eq(t_run(t1, N(t1)), 0);
	t_fault(DTRACEFLT_ILLOP, 0);
	t_object(t2, N(t2));
	t_difo.do_vartab = &var;
	t_difo.do_varlen = 1;
	ck_assert_int_eq(dif_validate(&t_difo, NULL), 0);
	ck_assert_uint_eq(dif_emulate(&t_difo, &t_ms, &t_ctx), 0);
	t_fault(DTRACEFLT_ILLOP, 0);
}
END_TEST

START_TEST(test_ldga_args)
{
	uint32_t text[] = { SETX(0, 1), DIF_INSTR_LDGA(DIF_VAR_ARGS, 1, 2),
	    RET(2) };

	t_int[0] = 4;
	ck_assert_uint_eq(t_run(text, N(text)), 1004);
	t_nofault();
	t_int[0] = 10;
	ck_assert_uint_eq(t_run(text, N(text)), 0);
	t_fault(DTRACEFLT_ILLOP, 1);
}
END_TEST

START_TEST(test_call_strlen)
{
	uint32_t text[] = { SETX(0, 1), FLUSHTS, PUSHTR(1),
	    CALL(DIF_SUBR_STRLEN, 2), RET(2) };

	t_int[0] = (uintptr_t)&t_str[8];
	ck_assert_uint_eq(t_run(text, N(text)), 6);
	strcpy(t_kmem, "hello, kernel");
	kc_env_add_readable(t_kmem, sizeof (t_kmem));
	t_int[0] = (uintptr_t)t_kmem;
	ck_assert_uint_eq(t_run(text, N(text)), 13);
	t_nofault();
}
END_TEST

START_TEST(test_call_kstring_copies_to_scratch)
{
	uint32_t text[] = { SETX(0, 1), FLUSHTS, PUSHTV(1),
	    CALL(DIF_SUBR_KDT_KSTRING, 2), RET(2) };
	uint64_t v;

	strcpy(t_kmem, "ext4");
	kc_env_add_readable(t_kmem, 5);
	t_int[0] = (uintptr_t)t_kmem;
	v = t_run(text, N(text));
	t_nofault();
	ck_assert_uint_eq(v, (uintptr_t)t_scratch);
	ck_assert_str_eq(t_scratch, "ext4");
	ck_assert_uint_eq(t_ms.dm_scratch_used, 256);
}
END_TEST

START_TEST(test_call_kstring_truncates_at_strsize)
{
	uint32_t text[] = { SETX(0, 1), FLUSHTS, PUSHTV(1),
	    CALL(DIF_SUBR_KDT_KSTRING, 2), RET(2) };

	strcpy(t_kmem, "abcdefghij");
	kc_env_add_readable(t_kmem, sizeof (t_kmem));
	t_int[0] = (uintptr_t)t_kmem;
	t_ms.dm_strsize = 5;
	t_run(text, N(text));
	t_nofault();
	ck_assert_str_eq(t_scratch, "abcd");
}
END_TEST

START_TEST(test_call_kstring_bad_address_faults)
{
	uint32_t text[] = { SETX(0, 1), FLUSHTS, PUSHTV(1),
	    CALL(DIF_SUBR_KDT_KSTRING, 2), RET(2) };

	t_int[0] = 0xffff888000001000ull;
	ck_assert_uint_eq(t_run(text, N(text)), 0);
	t_fault(DTRACEFLT_BADADDR, 3);
	ck_assert_uint_eq(t_ms.dm_fault_addr, 0xffff888000001000ull);
}
END_TEST

START_TEST(test_call_without_args_illop)
{
	uint32_t t1[] = { SETX(0, 1), PUSHTV(1), FLUSHTS,
	    CALL(DIF_SUBR_STRLEN, 2), RET(2) };
	uint32_t t2[] = { SETX(0, 1), PUSHTV(1), POPTS,
	    CALL(DIF_SUBR_STRLEN, 2), RET(2) };
	uint32_t t3[] = { SETX(0, 1), PUSHTR(1), PUSHTV(1), POPTS,
	    CALL(DIF_SUBR_STRLEN, 2), RET(2) };

	t_int[0] = (uintptr_t)&t_str[0];
	ck_assert_uint_eq(t_run(t1, N(t1)), 0);
	t_fault(DTRACEFLT_ILLOP, 3);
	ck_assert_uint_eq(t_run(t2, N(t2)), 0);
	t_fault(DTRACEFLT_ILLOP, 3);
	ck_assert_uint_eq(t_run(t3, N(t3)), 3);
	t_nofault();
}
END_TEST

START_TEST(test_tuple_overflow_faults)
{
	uint32_t text[DIF_TUPLE_MAX + 3];
	uint32_t i;

	text[0] = FLUSHTS;
	for (i = 1; i <= DIF_TUPLE_MAX + 1; i++)
		text[i] = PUSHTV(0);
	text[i] = RET(0);
	ck_assert_uint_eq(t_run(text, i + 1), 0);
	t_fault(DTRACEFLT_TUPOFLOW, DIF_TUPLE_MAX + 1);
}
END_TEST

START_TEST(test_scratch_exhaustion_faults)
{
	uint32_t t1[] = { SETX(0, 1), R3(ALLOCS, 1, 0, 2), RET(2) };
	uint32_t t2[] = { SETX(0, 1), FLUSHTS, PUSHTV(1),
	    CALL(DIF_SUBR_KDT_KSTRING, 2), CALL(DIF_SUBR_KDT_KSTRING, 3),
	    RET(3) };

	t_int[0] = sizeof (t_scratch) + 1;
	ck_assert_uint_eq(t_run(t1, N(t1)), 0);
	t_fault(DTRACEFLT_NOSCRATCH, 1);
	t_int[0] = sizeof (t_scratch);
	ck_assert_uint_eq(t_run(t1, N(t1)), (uintptr_t)t_scratch);
	t_nofault();
	/* strsize 256: two kernel strings need 512 bytes; 300 are there */
	strcpy(t_kmem, "x");
	kc_env_add_readable(t_kmem, 2);
	t_int[0] = (uintptr_t)t_kmem;
	t_ms.dm_scratch_size = 300;
	ck_assert_uint_eq(t_run(t2, N(t2)), 0);
	t_fault(DTRACEFLT_NOSCRATCH, 4);
}
END_TEST

START_TEST(test_allocs_store_load_copys)
{
	uint32_t text[] = { SETX(0, 1), R3(ALLOCS, 1, 0, 2),
	    SETX(1, 3), R3(STX, 3, 0, 2),		/* *(u64 *)r2 = int[1] */
	    R3(LDX, 2, 0, 4),
	    SETS(8, 5), SETX(2, 6), R3(ALLOCS, 6, 0, 7),
	    R3(COPYS, 5, 6, 7),			/* copy "abcdef" + NUL */
	    R3(LDUB, 7, 0, 6), R3(ADD, 4, 6, 4), RET(4) };

	t_int[0] = 16;
	t_int[1] = 1000;
	t_int[2] = 7;
	ck_assert_uint_eq(t_run(text, N(text)), 1000 + 'a');
	t_nofault();
	ck_assert_str_eq(t_scratch + 16, "abcdef");
}
END_TEST

START_TEST(test_store_outside_scratch_faults)
{
	uint32_t text[] = { SETX(0, 1), R3(STB, 1, 0, 1), RET(0) };

	t_int[0] = (uintptr_t)t_kmem;
	kc_env_add_readable(t_kmem, sizeof (t_kmem));	/* readable only */
	ck_assert_uint_eq(t_run(text, N(text)), 0);
	t_fault(DTRACEFLT_BADADDR, 1);
}
END_TEST

START_TEST(test_copy_result_strings)
{
	char rec[16];

	t_object(NULL, 0);
	memset(rec, 'Z', sizeof (rec));
	ck_assert_int_eq(dif_copy_result(&t_difo, &t_ms,
	    (uintptr_t)&t_str[8], rec, sizeof (rec), 1), 0);
	ck_assert_str_eq(rec, "abcdef");
	ck_assert_int_eq(rec[15], 0);
	/* bounded by strsize 4: 4 characters (as dtrace) and NUL padding */
	t_ms.dm_strsize = 4;
	ck_assert_int_eq(dif_copy_result(&t_difo, &t_ms,
	    (uintptr_t)&t_str[8], rec, sizeof (rec), 1), 0);
	ck_assert_str_eq(rec, "abcd");
	ck_assert_int_eq(rec[8], 0);
	t_ms.dm_strsize = 256;
	strcpy(t_kmem, "traced");
	ck_assert_int_eq(dif_copy_result(&t_difo, &t_ms, (uintptr_t)t_kmem,
	    rec, sizeof (rec), 1), -EFAULT);
	kc_env_add_readable(t_kmem, 7);
	ck_assert_int_eq(dif_copy_result(&t_difo, &t_ms, (uintptr_t)t_kmem,
	    rec, sizeof (rec), 1), 0);
	ck_assert_str_eq(rec, "traced");
}
END_TEST

START_TEST(test_copy_result_byref)
{
	uint64_t v = 0x1122334455667788ull, out = 0;

	t_object(NULL, 0);
	memcpy(t_kmem, &v, 8);
	ck_assert_int_eq(dif_copy_result(&t_difo, &t_ms, (uintptr_t)t_kmem,
	    &out, 8, 0), -EFAULT);
	kc_env_add_readable(t_kmem, 8);
	ck_assert_int_eq(dif_copy_result(&t_difo, &t_ms, (uintptr_t)t_kmem,
	    &out, 8, 0), 0);
	ck_assert_uint_eq(out, v);
	ck_assert_int_eq(dif_copy_result(&t_difo, &t_ms,
	    (uintptr_t)t_kmem + 4, &out, 8, 0), -EFAULT);
}
END_TEST

START_TEST(test_fault_strings)
{
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_BADADDR), "invalid address");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_BADALIGN),
	    "invalid alignment");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_ILLOP), "illegal operation");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_DIVZERO), "divide-by-zero");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_NOSCRATCH),
	    "out of scratch space");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_KPRIV),
	    "invalid kernel access");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_UPRIV), "invalid user access");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_TUPOFLOW),
	    "tuple stack overflow");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_BADSTACK), "bad stack");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_LIBRARY),
	    "library-level fault");
	ck_assert_str_eq(dif_fault_str(DTRACEFLT_UNKNOWN), "unknown fault");
	ck_assert_str_eq(dif_fault_str(77), "unknown fault");
}
END_TEST

/* Validator rejections: each program and the tag it must produce. */
struct t_bad {
	uint32_t	tb_text[4];
	uint32_t	tb_n;
	const char	*tb_tag;
	uint64_t	tb_off;
};

static const struct t_bad t_bads[] = {
	{ { R3(ADD, 1, 2, 0), RET(0) }, 2, "DIF_R0", 0 },
	{ { R3(ADD, 1, 8, 3), RET(3) }, 2, "DIF_REG", 0 },
	{ { R3(MOV, 1, 2, 3), RET(3) }, 2, "DIF_RESERVED", 0 },
	{ { DIF_INSTR_NOP | 1, RET(0) }, 2, "DIF_RESERVED", 0 },
	{ { DIF_INSTR_NOP, BR(BA, 1), RET(0) }, 3, "DIF_BRANCH", 4 },
	{ { BR(BA, 3), RET(0) }, 2, "DIF_BRANCH", 0 },
	{ { SETX(8, 1), RET(1) }, 2, "DIF_INTTAB", 0 },
	{ { SETS(sizeof (t_str), 1), RET(1) }, 2, "DIF_STRTAB", 0 },
	{ { DIF_INSTR_FMT(DIF_OP_ULDX, 1, 0, 2), RET(2) }, 2, "DIF_OPCODE", 0 },
	{ { DIF_INSTR_FMT(DIF_OP_XLATE, 0, 0, 2), RET(2) }, 2, "DIF_OPCODE",
	    0 },
	{ { DIF_INSTR_FMT(99, 0, 0, 2), RET(2) }, 2, "DIF_OPCODE", 0 },
	{ { CALL(1, 1), RET(1) }, 2, "DIF_SUBR", 0 },	/* mutex_owned */
	{ { CALL(200, 1), RET(1) }, 2, "DIF_SUBR", 0 },
	{ { DIF_INSTR_STV(DIF_OP_STGS, DIF_VAR_PID, 1), RET(0) }, 2,
	    "DIF_VAR", 0 },
	{ { DIF_INSTR_LDV(DIF_OP_LDGS, 0x600, 1), RET(1) }, 2, "DIF_VAR", 0 },
	{ { DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_STRING_T, 0, 1),
	    RET(0) }, 2, "DIF_TUPLE", 0 },
	{ { DIF_INSTR_NOP, DIF_INSTR_NOP }, 2, "DIF_RET", 4 },
	{ { 0 }, 0, "DIF_RET", 0 },
	{ { R3(STB, 1, 0, 0), RET(0) }, 2, "DIF_R0", 0 },
};

START_TEST(test_validate_rejects)
{
	const struct t_bad *t = &t_bads[_i];
	struct kdt_err err;

	memset(&err, 0, sizeof (err));
	t_object(t->tb_text, t->tb_n);
	ck_assert_int_eq(dif_validate(&t_difo, &err), -EINVAL);
	ck_assert_msg(strcmp(err.ke_tag, t->tb_tag) == 0,
	    "case %d: tag %s (%s), want %s", _i, err.ke_tag, err.ke_msg,
	    t->tb_tag);
	ck_assert_uint_eq(err.ke_off, t->tb_off);
	ck_assert(err.ke_msg[0] != '\0');
}
END_TEST

START_TEST(test_validate_rejects_bad_rtype)
{
	uint32_t text[] = { RET(0) };
	struct kdt_err err;

	t_object(text, 1);
	t_difo.do_rtype.dtdt_size = 3;
	ck_assert_int_eq(dif_validate(&t_difo, &err), -EINVAL);
	ck_assert_str_eq(err.ke_tag, "DIF_RTYPE");
	t_difo.do_rtype.dtdt_flags = DIF_TF_BYREF;
	ck_assert_int_eq(dif_validate(&t_difo, &err), 0);
}
END_TEST

START_TEST(test_validate_message_names_instruction)
{
	uint32_t text[] = { DIF_INSTR_NOP, DIF_INSTR_NOP, R3(ADD, 1, 2, 0),
	    RET(0) };
	struct kdt_err err;

	t_object(text, N(text));
	ck_assert_int_eq(dif_validate(&t_difo, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.ke_msg, "instruction 2 (add"));
	ck_assert_ptr_nonnull(strstr(err.ke_msg, "%r0"));
}
END_TEST

static Suite *
dif_vm_suite(void)
{
	Suite *s = suite_create("dif_vm");
	TCase *tc = tcase_create("emulate");
	TCase *tv = tcase_create("validate");

	tcase_add_checked_fixture(tc, t_setup, t_teardown);
	tcase_add_loop_test(tc, test_arith_each_op, 0, N(t_ariths));
	tcase_add_loop_test(tc, test_divzero_faults, 0, 4);
	tcase_add_test(tc, test_not_mov_nop_setx_ret);
	tcase_add_test(tc, test_ret_r0_is_zero);
	tcase_add_test(tc, test_sets_is_strtab_address);
	tcase_add_loop_test(tc, test_cmp_branch_table, 0,
	    DIF_OP_BLEU - DIF_OP_BA + 1);
	tcase_add_test(tc, test_tst_sets_z_only);
	tcase_add_loop_test(tc, test_loads_each_width, 0, 14);
	tcase_add_test(tc, test_load_from_strtab_is_direct);
	tcase_add_test(tc, test_load_unregistered_faults_badaddr);
	tcase_add_test(tc, test_load_misaligned_faults_badalign);
	tcase_add_test(tc, test_scmp_strtab_and_traced);
	tcase_add_test(tc, test_scmp_bounded_by_strsize);
	tcase_add_test(tc, test_scmp_null_is_empty_and_bad_faults);
	tcase_add_test(tc, test_ldgs_builtins);
	tcase_add_test(tc, test_ldgs_clocks);
	tcase_add_test(tc, test_ldgs_execname_in_scratch);
	tcase_add_test(tc, test_ldgs_unknown_and_user_vars_illop);
	tcase_add_test(tc, test_ldga_args);
	tcase_add_test(tc, test_call_strlen);
	tcase_add_test(tc, test_call_kstring_copies_to_scratch);
	tcase_add_test(tc, test_call_kstring_truncates_at_strsize);
	tcase_add_test(tc, test_call_kstring_bad_address_faults);
	tcase_add_test(tc, test_call_without_args_illop);
	tcase_add_test(tc, test_tuple_overflow_faults);
	tcase_add_test(tc, test_scratch_exhaustion_faults);
	tcase_add_test(tc, test_allocs_store_load_copys);
	tcase_add_test(tc, test_store_outside_scratch_faults);
	tcase_add_test(tc, test_copy_result_strings);
	tcase_add_test(tc, test_copy_result_byref);
	tcase_add_test(tc, test_fault_strings);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tv, t_setup, t_teardown);
	tcase_add_loop_test(tv, test_validate_rejects, 0, N(t_bads));
	tcase_add_test(tv, test_validate_rejects_bad_rtype);
	tcase_add_test(tv, test_validate_message_names_instruction);
	suite_add_tcase(s, tv);
	return s;
}

KT_MAIN(dif_vm_suite)
