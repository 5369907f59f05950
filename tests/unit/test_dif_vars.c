/*
 * test_dif_vars.c -- unit tests of DIF variables: the variable state
 * (dif_vstate_size/init), global scalars and strings, clause-locals,
 * thread-locals and associative arrays in the dynamic-variable store
 * (common/dif_dvar.c), run through the validator and emulator.
 *
 * Every test builds one enabling whose ECB predicate is the object under
 * test (so dif_vstate_init sees its VARTAB), lays out the variable state
 * in a test buffer and runs programs against it; several runs of one
 * program stand for several probe firings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "dif.h"
#include "dif_vm.h"
#include "dif_dvar.h"
#include "consumer/kc_env.h"

#define N(a)		((uint32_t)(sizeof (a) / sizeof ((a)[0])))
#define SETX(i, d)	DIF_INSTR_SETX(i, d)
#define SETS(o, d)	DIF_INSTR_SETS(o, d)
#define RET(d)		DIF_INSTR_RET(d)
#define LD(op, v, d)	DIF_INSTR_LDV(DIF_OP_##op, v, d)
#define ST(op, v, s)	DIF_INSTR_STV(DIF_OP_##op, v, s)
#define PUSHTV(rs)	DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF_T, 0, rs)
#define PUSHTR(rs) \
	DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING_T, 0, rs)
#define FLUSHTS		((uint32_t)DIF_OP_FLUSHTS << 24)
#define R3(op, a, b, d)	DIF_INSTR_FMT(DIF_OP_##op, a, b, d)

static uint64_t t_int[8];
static char t_str[] = "abc\0xyz\0";
static char t_scratch[2048];
static uint64_t t_locals[16];
static char t_kmem[16];
static struct dif_object t_difo;
static struct dif_mstate t_ms;
static struct dif_probe_ctx t_ctx;
static struct dif_vstate t_vs;
static struct dof_lecb t_ecb;
static struct dof_enabling t_den;
static uint64_t *t_area;

/* VARTAB: every variable any test uses. */
#define V_INT(id, scope, kind) \
	{ 0, id, kind, scope, 0, { DIF_TYPE_CTF, DIF_CTF_INTEGER, 0, 0, 8 } }
#define V_STR(id, scope, kind) \
	{ 0, id, kind, scope, 0, { DIF_TYPE_STRING, 0, DIF_TF_BYREF, 0, 32 } }

static struct dif_var t_vars[] = {
	V_INT(0x500, DIFV_SCOPE_GLOBAL, DIFV_KIND_SCALAR),	/* x */
	V_STR(0x501, DIFV_SCOPE_GLOBAL, DIFV_KIND_SCALAR),	/* s */
	V_INT(0x502, DIFV_SCOPE_GLOBAL, DIFV_KIND_ARRAY),	/* a[] */
	V_STR(0x503, DIFV_SCOPE_GLOBAL, DIFV_KIND_ARRAY),	/* sa[] */
	{ 0, 0x504, DIFV_KIND_SCALAR, DIFV_SCOPE_GLOBAL, 0,	/* struct g */
	    { DIF_TYPE_CTF, DIF_CTF_STRUCT, DIF_TF_BYREF, 0, 16 } },
	V_INT(0x500, DIFV_SCOPE_THREAD, DIFV_KIND_SCALAR),	/* self->t */
	V_STR(0x501, DIFV_SCOPE_THREAD, DIFV_KIND_SCALAR),	/* self->ts */
	V_INT(0x502, DIFV_SCOPE_THREAD, DIFV_KIND_ARRAY),	/* self->ta[] */
	V_INT(0x500, DIFV_SCOPE_LOCAL, DIFV_KIND_SCALAR),	/* this->l */
	V_STR(0x501, DIFV_SCOPE_LOCAL, DIFV_KIND_SCALAR),	/* this->ls */
};

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
	t_difo.do_vartab = t_vars;
	t_difo.do_varlen = N(t_vars);
	t_difo.do_rtype.dtdt_kind = DIF_TYPE_CTF;
	t_difo.do_rtype.dtdt_size = 8;
}

/* Lay out the variable state for "text" with a dynamic store of "dyn". */
static void
t_vstate(const uint32_t *text, uint32_t n, uint64_t dyn)
{
	struct kdt_err err;
	uint64_t size;

	t_object(text, n);
	memset(&t_ecb, 0, sizeof (t_ecb));
	t_ecb.le_pred = &t_difo;
	memset(&t_den, 0, sizeof (t_den));
	t_den.den_ecbs = &t_ecb;
	t_den.den_necbs = 1;
	t_den.den_strsize = 32;
	size = dif_vstate_size(&t_den, dyn);
	ck_assert_uint_gt(size, dyn);
	free(t_area);
	t_area = calloc(1, size);
	ck_assert_int_eq(dif_vstate_init(&t_vs, t_area, size, &t_den, &err),
	    0);
	t_ms.dm_vstate = &t_vs;
}

static void
t_setup(void)
{
	memset(&t_ms, 0, sizeof (t_ms));
	memset(t_int, 0, sizeof (t_int));
	t_ms.dm_scratch = t_scratch;
	t_ms.dm_scratch_size = sizeof (t_scratch);
	t_ms.dm_strsize = 32;
	memset(t_locals, 0, sizeof (t_locals));
	t_ms.dm_locals = t_locals;
	t_ms.dm_nlocals = N(t_locals);
	memset(&t_ctx, 0, sizeof (t_ctx));
	kc_env_clear_readable();
}

static void
t_teardown(void)
{
	free(t_area);
	t_area = NULL;
	kc_env_clear_readable();
}

/* Run "text" (validated) against the current variable state. */
static uint64_t
t_run(const uint32_t *text, uint32_t n)
{
	struct kdt_err err;

	t_object(text, n);
	ck_assert_msg(dif_validate(&t_difo, &err) == 0, "%s", err.ke_msg);
	t_ms.dm_scratch_used = 0;
	return dif_emulate(&t_difo, &t_ms, &t_ctx);
}

static void
t_nofault(void)
{
	ck_assert_msg(!t_ms.dm_faulted, "unexpected fault %u at pc %u",
	    t_ms.dm_fault, t_ms.dm_fault_pc);
}

START_TEST(test_global_scalar_persists)
{
	uint32_t st[] = { SETX(0, 1), ST(STGS, 0x500, 1), RET(0) };
	uint32_t ld[] = { LD(LDGS, 0x500, 1), RET(1) };

	t_vstate(st, N(st), 0);
	ck_assert_uint_eq(t_run(ld, N(ld)), 0);	/* starts as 0 */
	t_int[0] = 42;
	t_run(st, N(st));
	ck_assert_uint_eq(t_run(ld, N(ld)), 42);
	t_nofault();
}
END_TEST

START_TEST(test_global_string_is_copied)
{
	uint32_t st[] = { SETX(0, 1), ST(STGS, 0x501, 1), RET(0) };
	uint32_t ld[] = { LD(LDGS, 0x501, 1), RET(1) };
	uint64_t v;

	t_vstate(st, N(st), 0);
	strcpy(t_kmem, "kernel");
	kc_env_add_readable(t_kmem, 7);
	t_int[0] = (uintptr_t)t_kmem;
	t_run(st, N(st));
	t_nofault();
	strcpy(t_kmem, "KERNEL");	/* the variable holds a copy */
	v = t_run(ld, N(ld));
	ck_assert_str_eq((const char *)(uintptr_t)v, "kernel");
	ck_assert_ptr_ne((void *)(uintptr_t)v, t_kmem);
	/* truncated at strsize: 32 characters, no NUL in the block */
	t_int[0] = (uintptr_t)"0123456789012345678901234567890123456789";
	kc_env_add_readable((void *)(uintptr_t)t_int[0], 41);
	t_run(st, N(st));
	v = t_run(ld, N(ld));
	ck_assert_int_eq(memcmp((const char *)(uintptr_t)v,
	    "01234567890123456789012345678901", 32), 0);
	/* a bad source faults */
	t_int[0] = 64;
	t_run(st, N(st));
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_BADADDR);
}
END_TEST

/* s == "abc" after s = "abc": scmp reads variable storage directly. */
START_TEST(test_global_string_compares)
{
	uint32_t text[] = { SETS(0, 1), ST(STGS, 0x501, 1),
	    LD(LDGS, 0x501, 2), SETS(0, 3), R3(SCMP, 2, 3, 0),
	    DIF_INSTR_BRANCH(DIF_OP_BE, 7), RET(0), SETX(0, 4), RET(4) };

	t_vstate(text, N(text), 0);
	t_int[0] = 1;
	ck_assert_uint_eq(t_run(text, N(text)), 1);
	t_nofault();
}
END_TEST

START_TEST(test_clause_local_slots)
{
	uint32_t st[] = { SETX(0, 1), ST(STLS, 0x500, 1), SETS(4, 2),
	    ST(STLS, 0x501, 2), RET(0) };
	uint32_t ld[] = { LD(LDLS, 0x500, 1), RET(1) };
	uint32_t lds[] = { LD(LDLS, 0x501, 1), RET(1) };

	t_vstate(st, N(st), 0);
	ck_assert_uint_eq(dif_vstate_nlocals(&t_vs), 1 + 32 / 8);
	t_int[0] = 9;
	t_run(st, N(st));
	t_nofault();
	ck_assert_uint_eq(t_run(ld, N(ld)), 9);
	ck_assert_str_eq((const char *)(uintptr_t)t_run(lds, N(lds)), "xyz");
	ck_assert_uint_eq(t_locals[0], 9);
	/* too few slots, or none: illegal operation */
	t_ms.dm_nlocals = 3;
	t_run(lds, N(lds));
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_ILLOP);
	t_ms.dm_locals = NULL;
	t_run(ld, N(ld));
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_ILLOP);
}
END_TEST

START_TEST(test_no_vstate_is_illop)
{
	uint32_t ld[] = { LD(LDGS, 0x500, 1), RET(1) };

	t_vstate(ld, N(ld), 0);
	t_ms.dm_vstate = NULL;
	t_run(ld, N(ld));
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_ILLOP);
	ck_assert_uint_eq(t_ms.dm_fault_addr, 0x500);
}
END_TEST

START_TEST(test_thread_local_store_load_free)
{
	uint32_t st[] = { SETX(0, 1), ST(STTS, 0x500, 1), RET(0) };
	uint32_t ld[] = { LD(LDTS, 0x500, 1), RET(1) };

	t_vstate(st, N(st), 4096);
	ck_assert_uint_eq(t_run(ld, N(ld)), 0);
	t_int[0] = 77;
	t_run(st, N(st));
	t_nofault();
	ck_assert_uint_eq(t_run(ld, N(ld)), 77);
	ck_assert_uint_eq(dif_dstore_count(&t_vs.vst_dyn), 1);
	t_int[0] = 0;			/* self->t = 0 frees it */
	t_run(st, N(st));
	ck_assert_uint_eq(dif_dstore_count(&t_vs.vst_dyn), 0);
	ck_assert_uint_eq(t_run(ld, N(ld)), 0);
	t_nofault();
}
END_TEST

/* Another thread has its own self->t. */
static void *
t_other_thread(void *arg)
{
	uint32_t ld[] = { LD(LDTS, 0x500, 1), RET(1) };
	struct dif_mstate ms = t_ms;

	(void)arg;
	t_object(ld, N(ld));
	return (void *)(uintptr_t)dif_emulate(&t_difo, &ms, &t_ctx);
}

START_TEST(test_thread_local_is_per_thread)
{
	uint32_t st[] = { SETX(0, 1), ST(STTS, 0x500, 1), RET(0) };
	pthread_t th;
	void *res;

	t_vstate(st, N(st), 4096);
	t_int[0] = 5;
	t_run(st, N(st));
	ck_assert_int_eq(pthread_create(&th, NULL, t_other_thread, NULL), 0);
	ck_assert_int_eq(pthread_join(th, &res), 0);
	ck_assert_uint_eq((uintptr_t)res, 0);
}
END_TEST

START_TEST(test_thread_local_string)
{
	uint32_t st[] = { SETS(4, 1), ST(STTS, 0x501, 1), RET(0) };
	uint32_t ld[] = { LD(LDTS, 0x501, 1), RET(1) };

	t_vstate(st, N(st), 4096);
	ck_assert_uint_eq(t_run(ld, N(ld)), 0);
	t_run(st, N(st));
	ck_assert_str_eq((const char *)(uintptr_t)t_run(ld, N(ld)), "xyz");
	t_nofault();
}
END_TEST

/* a[k1, k2] = v; with integer keys from INTTAB[1], INTTAB[2]. */
START_TEST(test_assoc_integer_keys)
{
	uint32_t st[] = { FLUSHTS, SETX(1, 1), PUSHTV(1), SETX(2, 2),
	    PUSHTV(2), SETX(0, 3), ST(STGAA, 0x502, 3), RET(0) };
	uint32_t ld[] = { FLUSHTS, SETX(1, 1), PUSHTV(1), SETX(2, 2),
	    PUSHTV(2), LD(LDGAA, 0x502, 3), RET(3) };

	t_vstate(st, N(st), 8192);
	t_int[0] = 100; t_int[1] = 1; t_int[2] = 2;
	t_run(st, N(st));
	t_int[0] = 200; t_int[1] = 2; t_int[2] = 1;
	t_run(st, N(st));
	t_nofault();
	t_int[1] = 1; t_int[2] = 2;
	ck_assert_uint_eq(t_run(ld, N(ld)), 100);
	t_int[1] = 2; t_int[2] = 1;
	ck_assert_uint_eq(t_run(ld, N(ld)), 200);
	t_int[1] = 3;
	ck_assert_uint_eq(t_run(ld, N(ld)), 0);
	ck_assert_uint_eq(dif_dstore_count(&t_vs.vst_dyn), 2);
	t_int[0] = 0; t_int[1] = 1; t_int[2] = 2;	/* a[1, 2] = 0 */
	t_run(st, N(st));
	ck_assert_uint_eq(dif_dstore_count(&t_vs.vst_dyn), 1);
	ck_assert_uint_eq(t_run(ld, N(ld)), 0);
	t_nofault();
}
END_TEST

/* a["abc"]: the key is the content, wherever the string lives. */
START_TEST(test_assoc_string_keys_by_content)
{
	uint32_t st[] = { FLUSHTS, SETX(1, 1), PUSHTR(1), SETX(0, 3),
	    ST(STGAA, 0x502, 3), RET(0) };
	uint32_t ld[] = { FLUSHTS, SETX(1, 1), PUSHTR(1),
	    LD(LDGAA, 0x502, 3), RET(3) };

	t_vstate(st, N(st), 8192);
	t_int[0] = 7;
	t_int[1] = (uintptr_t)&t_str[0];		/* "abc" in STRTAB */
	t_run(st, N(st));
	t_nofault();
	strcpy(t_kmem, "abc");
	kc_env_add_readable(t_kmem, 4);
	t_int[1] = (uintptr_t)t_kmem;			/* "abc" elsewhere */
	ck_assert_uint_eq(t_run(ld, N(ld)), 7);
	t_int[1] = (uintptr_t)&t_str[4];		/* "xyz" */
	ck_assert_uint_eq(t_run(ld, N(ld)), 0);
	t_int[1] = (uintptr_t)&t_str[3];		/* "" is a key too */
	ck_assert_uint_eq(t_run(ld, N(ld)), 0);
	t_nofault();
	t_int[1] = 32;					/* bad address */
	t_run(ld, N(ld));
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_BADADDR);
}
END_TEST

/* Integer 0 and "" are different keys; so are a[] and self->ta[]. */
START_TEST(test_assoc_key_kinds_and_scopes_differ)
{
	uint32_t st[] = { FLUSHTS, SETX(1, 1), PUSHTV(1), SETX(0, 3),
	    ST(STGAA, 0x502, 3), RET(0) };
	uint32_t lds[] = { FLUSHTS, SETS(3, 1), PUSHTR(1),
	    LD(LDGAA, 0x502, 3), RET(3) };
	uint32_t ldt[] = { FLUSHTS, SETX(1, 1), PUSHTV(1),
	    LD(LDTAA, 0x502, 3), RET(3) };
	uint32_t stt[] = { FLUSHTS, SETX(1, 1), PUSHTV(1), SETX(2, 3),
	    ST(STTAA, 0x502, 3), RET(0) };

	t_vstate(stt, N(stt), 8192);	/* the layout sees the longest key */
	t_int[0] = 11;
	t_int[1] = 0;
	t_int[2] = 22;
	t_run(st, N(st));
	ck_assert_uint_eq(t_run(lds, N(lds)), 0);
	ck_assert_uint_eq(t_run(ldt, N(ldt)), 0);
	t_run(stt, N(stt));
	ck_assert_uint_eq(t_run(ldt, N(ldt)), 22);
	ck_assert_uint_eq(dif_dstore_count(&t_vs.vst_dyn), 2);
	t_nofault();
}
END_TEST

/* String values in an associative array. */
START_TEST(test_assoc_string_values)
{
	uint32_t st[] = { FLUSHTS, SETX(1, 1), PUSHTV(1), SETS(4, 3),
	    ST(STGAA, 0x503, 3), RET(0) };
	uint32_t ld[] = { FLUSHTS, SETX(1, 1), PUSHTV(1),
	    LD(LDGAA, 0x503, 3), RET(3) };

	t_vstate(st, N(st), 8192);
	t_int[1] = 4;
	t_run(st, N(st));
	ck_assert_str_eq((const char *)(uintptr_t)t_run(ld, N(ld)), "xyz");
	t_nofault();
}
END_TEST

/* counts[k]++ until the store is full: drops are counted, not faults. */
START_TEST(test_dynvar_exhaustion_drops)
{
	uint32_t inc[] = { FLUSHTS, SETX(1, 1), PUSHTV(1),
	    LD(LDGAA, 0x502, 2), SETX(0, 3), R3(ADD, 2, 3, 2),
	    FLUSHTS, PUSHTV(1), ST(STGAA, 0x502, 2), RET(2) };
	uint32_t k, n;

	t_vstate(inc, N(inc), 512);	/* room for a few chunks only */
	n = t_vs.vst_dyn.ds_nchunks;
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_lt(n, 20);
	t_int[0] = 1;
	for (k = 0; k < n + 5; k++) {
		t_int[1] = k;
		ck_assert_uint_eq(t_run(inc, N(inc)), 1);
		t_nofault();
	}
	ck_assert_uint_eq(dif_dstore_count(&t_vs.vst_dyn), n);
	ck_assert_uint_eq(t_ms.dm_dyndrops + dif_vstate_drops(&t_vs), 5);
	t_int[1] = n + 1;		/* dropped: reads 0 */
	ck_assert_uint_eq(t_run(inc, N(inc)), 1);
	t_int[1] = 0;			/* kept: counts on */
	ck_assert_uint_eq(t_run(inc, N(inc)), 2);
}
END_TEST

/*
 * A by-reference key whose size the layout could not see (computed, not
 * a setx constant) and that exceeds every chunk: the store drops it and
 * the machine state counts it; a load of it reads 0.
 */
START_TEST(test_oversized_key_drops)
{
	uint32_t st[] = { FLUSHTS, SETX(1, 1), SETX(2, 2), R3(ADD, 2, 2, 2),
	    DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_CTF_T, 2, 1), SETX(0, 3),
	    ST(STGAA, 0x502, 3), LD(LDGAA, 0x502, 4), RET(4) };
	static char big[128];

	t_vstate(st, N(st), 8192);
	kc_env_add_readable(big, sizeof (big));
	t_int[0] = 5;
	t_int[1] = (uintptr_t)big;
	t_int[2] = 50;			/* 100 bytes of key */
	ck_assert_uint_eq(t_run(st, N(st)), 0);
	t_nofault();
	ck_assert_uint_eq(t_ms.dm_dyndrops, 1);
	t_int[2] = 4;			/* 8 bytes: fits */
	ck_assert_uint_eq(t_run(st, N(st)), 5);
	t_nofault();
}
END_TEST

/*
 * g.b = 42 through the address ldgs gives (what member stores compile
 * to) writes the variable; a store into the tables that locate
 * variables, or into a chunk's header, is an invalid address.
 */
START_TEST(test_stores_into_variable_data)
{
	uint32_t st[] = { LD(LDGS, 0x504, 1), SETX(0, 2), R3(ADD, 1, 2, 1),
	    SETX(1, 3), R3(STX, 3, 0, 1), RET(0) };
	uint32_t ld[] = { LD(LDGS, 0x504, 1), SETX(0, 2), R3(ADD, 1, 2, 1),
	    R3(LDX, 1, 0, 3), RET(3) };
	uint32_t bad[] = { SETX(2, 1), SETX(1, 3), R3(STX, 3, 0, 1), RET(0) };
	uint32_t tstr[] = { SETS(4, 1), ST(STTS, 0x501, 1),
	    LD(LDTS, 0x501, 2), SETX(1, 3), R3(STB, 3, 0, 2), RET(2) };

	t_vstate(st, N(st), 4096);
	t_int[0] = 8;
	t_int[1] = 42;
	t_run(st, N(st));
	t_nofault();
	ck_assert_uint_eq(t_run(ld, N(ld)), 42);
	t_int[0] = 16;			/* past the 16-byte struct */
	t_run(st, N(st));
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_BADADDR);
	t_int[2] = (uintptr_t)t_area;	/* the variable tables */
	t_run(bad, N(bad));
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_BADADDR);
	t_int[1] = 'X';			/* self->ts[0] = 'X' */
	ck_assert_str_eq((const char *)(uintptr_t)t_run(tstr, N(tstr)),
	    "Xyz");
	t_nofault();
	t_int[2] = (uintptr_t)t_vs.vst_dyn.ds_chunks;	/* a chunk header */
	t_run(bad, N(bad));
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_BADADDR);
}
END_TEST

START_TEST(test_vstate_errors)
{
	uint32_t text[] = { RET(0) };
	struct dif_var bad[2] = { V_INT(0x500, DIFV_SCOPE_GLOBAL,
	    DIFV_KIND_SCALAR), V_STR(0x500, DIFV_SCOPE_GLOBAL,
	    DIFV_KIND_SCALAR) };
	struct dif_object o2;
	struct dof_laction act;
	struct kdt_err err;
	uint64_t size;

	t_vstate(text, N(text), 0);
	o2 = t_difo;
	o2.do_vartab = bad;
	o2.do_varlen = 2;
	memset(&act, 0, sizeof (act));
	act.la_difo = &o2;
	t_ecb.le_acts = &act;
	t_ecb.le_nacts = 1;
	size = dif_vstate_size(&t_den, 0);
	free(t_area);
	t_area = calloc(1, size);
	ck_assert_int_eq(dif_vstate_init(&t_vs, t_area, size, &t_den, &err),
	    -EINVAL);
	ck_assert_str_eq(err.ke_tag, "DIF_VARTAB");
	ck_assert_ptr_nonnull(strstr(err.ke_msg, "0x500"));
	t_ecb.le_nacts = 0;
	ck_assert_int_eq(dif_vstate_init(&t_vs, t_area, 8, &t_den, &err),
	    -ENOSPC);
	ck_assert_str_eq(err.ke_tag, "DIF_VSTATE");
}
END_TEST

START_TEST(test_validator_variable_rules)
{
	uint32_t t1[] = { LD(LDTS, 0x503, 1), RET(1) };	/* not declared */
	uint32_t t2[] = { ST(STLS, 0x4ff, 1), RET(0) };	/* built-in id */
	uint32_t t3[] = { LD(LDGAA, 0x502, 1), RET(1) };
	struct kdt_err err;

	t_object(t1, N(t1));
	ck_assert_int_eq(dif_validate(&t_difo, &err), -EINVAL);
	ck_assert_str_eq(err.ke_tag, "DIF_VAR");
	t_object(t2, N(t2));
	ck_assert_int_eq(dif_validate(&t_difo, &err), -EINVAL);
	ck_assert_str_eq(err.ke_tag, "DIF_VAR");
	t_object(t3, N(t3));
	ck_assert_int_eq(dif_validate(&t_difo, &err), 0);
}
END_TEST

/* Two threads insert and free disjoint keys in one store at once. */
static struct dif_dstore t_ds;

static void *
t_hammer(void *arg)
{
	struct dif_dkey k;
	uint64_t base = (uintptr_t)arg, i, v = 1;

	memset(&k, 0, sizeof (k));
	k.dk_id = 0x500;
	k.dk_n = 1;
	for (i = 0; i < 20000; i++) {
		k.dk_ent[0].dke_val = base + (i / 2) % 64;
		if (i % 2 == 0)
			dif_dstore_store(&t_ds, &k, &v, 8);
		else
			dif_dstore_delete(&t_ds, &k);
	}
	return NULL;
}

START_TEST(test_dstore_concurrent_cpus)
{
	static uint64_t area[4096];
	pthread_t a, b;

	dif_dstore_init(&t_ds, area, sizeof (area), 16, 8);
	ck_assert_int_eq(pthread_create(&a, NULL, t_hammer, (void *)0), 0);
	ck_assert_int_eq(pthread_create(&b, NULL, t_hammer,
	    (void *)1000), 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	/* every insert was followed by its delete, unless it dropped */
	ck_assert_uint_le(dif_dstore_count(&t_ds), t_ds.ds_drops);
}
END_TEST

/*
 * Random stores, frees and loads of 300 keys (integers and strings of
 * several lengths) against a plain array: the store must agree at every
 * step, and its instance count must equal the model's.
 */
START_TEST(test_dstore_matches_model)
{
	static uint64_t area[8192];
	static uint64_t model[300];
	static char names[300][24];
	struct dif_dstore ds;
	struct dif_dkey k;
	uint32_t i, op, live = 0, seed = 12345;
	uint64_t v, *p;

	dif_dstore_init(&ds, area, sizeof (area), 64, 8);
	ck_assert_uint_gt(ds.ds_nchunks, 300);
	for (i = 0; i < 300; i++)
		snprintf(names[i], sizeof (names[i]), "%.*s%u",
		    (int)(i % 13), "kkkkkkkkkkkkk", i);
	memset(&k, 0, sizeof (k));
	k.dk_id = 0x510;
	for (op = 0; op < 30000; op++) {
		seed = seed * 1103515245u + 12345u;
		i = (seed >> 8) % 300;
		k.dk_n = 1;
		k.dk_ent[0].dke_ref = i % 2;
		k.dk_ent[0].dke_val = i;
		k.dk_ent[0].dke_ptr = names[i];
		k.dk_ent[0].dke_len = (uint32_t)strlen(names[i]);
		v = (seed >> 20) % 4 == 0 ? 0 : op + 1;
		if ((seed >> 4) % 3 == 0) {
			p = dif_dstore_load(&ds, &k);
			ck_assert_uint_eq(p == NULL ? 0 : *p, model[i]);
		} else if (v == 0) {
			ck_assert_int_eq(dif_dstore_delete(&ds, &k), 0);
			live -= model[i] != 0;
			model[i] = 0;
		} else {
			ck_assert_int_eq(dif_dstore_store(&ds, &k, &v, 8), 0);
			live += model[i] == 0;
			model[i] = v;
		}
	}
	ck_assert_uint_eq(dif_dstore_count(&ds), live);
	ck_assert_uint_eq(ds.ds_drops, 0);
}
END_TEST

static Suite *
dif_vars_suite(void)
{
	Suite *s = suite_create("dif_vars");
	TCase *tc = tcase_create("vars");

	tcase_add_checked_fixture(tc, t_setup, t_teardown);
	tcase_add_test(tc, test_global_scalar_persists);
	tcase_add_test(tc, test_global_string_is_copied);
	tcase_add_test(tc, test_global_string_compares);
	tcase_add_test(tc, test_clause_local_slots);
	tcase_add_test(tc, test_no_vstate_is_illop);
	tcase_add_test(tc, test_thread_local_store_load_free);
	tcase_add_test(tc, test_thread_local_is_per_thread);
	tcase_add_test(tc, test_thread_local_string);
	tcase_add_test(tc, test_assoc_integer_keys);
	tcase_add_test(tc, test_assoc_string_keys_by_content);
	tcase_add_test(tc, test_assoc_key_kinds_and_scopes_differ);
	tcase_add_test(tc, test_assoc_string_values);
	tcase_add_test(tc, test_dynvar_exhaustion_drops);
	tcase_add_test(tc, test_oversized_key_drops);
	tcase_add_test(tc, test_stores_into_variable_data);
	tcase_add_test(tc, test_vstate_errors);
	tcase_add_test(tc, test_validator_variable_rules);
	tcase_add_test(tc, test_dstore_concurrent_cpus);
	tcase_add_test(tc, test_dstore_matches_model);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(dif_vars_suite)
