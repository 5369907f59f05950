/*
 * dif-emul.c -- how much slower a D clause runs in the DIF emulator than
 * the same logic written in plain C, measured side by side in one run.
 *
 * Four representative clauses, each hand-assembled here exactly as the
 * compiler (compiler/dc_cg.c) emits them, run through the real
 * validator and dif_emulate() (common/dif_vm.c, userspace build) with a
 * variable state from dif_vstate_init(), against a C function doing the
 * same work with the same environment calls (kenv_pid(),
 * kenv_execname()):
 *
 *	pred-builtin	/pid == 1234/
 *	pred-string	/execname == "bash"/
 *	assoc-update	counts[pid]++   (ldgaa, add, stgaa; C: a hash map)
 *	quantize	the power-of-two bucket of arg0 (DIF: a 6-step binary
 *			search with forward branches; C: count leading zeros)
 *
 * For each clause: R rounds, each timing N emulator runs and N C runs
 * back to back; the medians per operation and their ratio are printed.
 * Nothing is asserted about the times (bench/README.md).
 *
 * Usage: dif-emul [-n iterations] [-r rounds]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kdt_env.h"
#include "dif.h"
#include "dif_vm.h"

#define N(a)	((uint32_t)(sizeof (a) / sizeof ((a)[0])))
#define FLUSHTS	((uint32_t)DIF_OP_FLUSHTS << 24)
#define R3(op, a, b, d)	DIF_INSTR_FMT(DIF_OP_##op, a, b, d)
#define BR(op, l)	DIF_INSTR_BRANCH(DIF_OP_##op, l)
#define MAXROUNDS	101

static volatile uint64_t bn_sink;

/* One clause: its DIF text and tables, and its C twin. */
struct bn_case {
	const char	*bc_name;
	const char	*bc_d;		/* the D it stands for */
	const uint32_t	*bc_text;
	uint32_t	bc_ntext;
	uint64_t	(*bc_c)(uint64_t arg0);
	uint32_t	bc_pure;	/* no side effects: results compared */
};

static uint64_t bn_int[] = { 1234, 1, 63, 64, 32, 16, 8, 4, 2 };
static char bn_str[] = "bash\0";
static struct dif_var bn_vars[] = {
	{ 0, 0x500, DIFV_KIND_ARRAY, DIFV_SCOPE_GLOBAL, 0,
	    { DIF_TYPE_CTF, DIF_CTF_INTEGER, 0, 0, 8 } },
};

/* /pid == 1234/ */
static const uint32_t bn_pred_pid[] = {
	DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PID, 1), DIF_INSTR_SETX(0, 2),
	R3(CMP, 1, 2, 0), BR(BNE, 6), DIF_INSTR_SETX(1, 1), DIF_INSTR_RET(1),
	DIF_INSTR_RET(0),
};

static __attribute__((noinline)) uint64_t
bn_c_pred_pid(uint64_t arg0)
{
	return kenv_pid() == 1234;
}

/* /execname == "bash"/ */
static const uint32_t bn_pred_exec[] = {
	DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_EXECNAME, 1), DIF_INSTR_SETS(0, 2),
	R3(SCMP, 1, 2, 0), BR(BNE, 6), DIF_INSTR_SETX(1, 1),
	DIF_INSTR_RET(1), DIF_INSTR_RET(0),
};

static __attribute__((noinline)) uint64_t
bn_c_pred_exec(uint64_t arg0)
{
	char name[32];

	kenv_execname(name, sizeof (name));
	return strcmp(name, "bash") == 0;
}

/* counts[pid]++ */
static const uint32_t bn_assoc[] = {
	FLUSHTS, DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PID, 1),
	DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF_T, 0, 1),
	DIF_INSTR_LDV(DIF_OP_LDGAA, 0x500, 2), DIF_INSTR_SETX(1, 3),
	R3(ADD, 2, 3, 2), FLUSHTS,
	DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF_T, 0, 1),
	DIF_INSTR_STV(DIF_OP_STGAA, 0x500, 2), DIF_INSTR_RET(0),
};

/* The C twin: an open-addressing map from pid to count. */
#define BN_MAP	1024
static uint64_t bn_map_key[BN_MAP], bn_map_val[BN_MAP];

static __attribute__((noinline)) uint64_t
bn_c_assoc(uint64_t arg0)
{
	uint64_t k = kenv_pid(), h = (k * 0x9e3779b97f4a7c15ull) >> 54;
	uint32_t i;

	for (i = 0; i < BN_MAP; i++, h = (h + 1) % BN_MAP) {
		if (bn_map_val[h] != 0 && bn_map_key[h] != k)
			continue;
		bn_map_key[h] = k;
		return ++bn_map_val[h];
	}
	return 0;
}

/*
 * quantize bucket of arg0 (>= 0): 63 for 0, else 64 + floor(log2(v)),
 * found by testing v >> 32, 16, 8, 4, 2, 1 in turn.
 */
#define BN_STEP(k, at) \
	DIF_INSTR_SETX(k, 4), R3(SRL, 1, 4, 3), \
	DIF_INSTR_FMT(DIF_OP_TST, 3, 0, 0), BR(BE, (at) + 6), \
	R3(MOV, 3, 0, 1), R3(ADD, 2, 4, 2)

static const uint32_t bn_quant[] = {
	DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 1),
	DIF_INSTR_FMT(DIF_OP_TST, 1, 0, 0), BR(BNE, 5),
	DIF_INSTR_SETX(2, 2), DIF_INSTR_RET(2),
	DIF_INSTR_SETX(3, 2),				/* 5: r2 = 64 */
	BN_STEP(4, 6), BN_STEP(5, 12), BN_STEP(6, 18), BN_STEP(7, 24),
	BN_STEP(8, 30), BN_STEP(1, 36),
	DIF_INSTR_RET(2),				/* 42 */
};

static __attribute__((noinline)) uint64_t
bn_c_quant(uint64_t arg0)
{
	return arg0 == 0 ? 63 : 64 + 63 - (uint64_t)__builtin_clzll(arg0);
}

static const struct bn_case bn_cases[] = {
	{ "pred-builtin", "/pid == 1234/", bn_pred_pid, N(bn_pred_pid),
	    bn_c_pred_pid, 1 },
	{ "pred-string", "/execname == \"bash\"/", bn_pred_exec,
	    N(bn_pred_exec), bn_c_pred_exec, 1 },
	{ "assoc-update", "counts[pid]++", bn_assoc, N(bn_assoc), bn_c_assoc,
	    0 },
	{ "quantize", "quantize bucket of arg0", bn_quant, N(bn_quant),
	    bn_c_quant, 1 },
};

static uint64_t
bn_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
bn_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The machine every emulator run uses. */
struct bn_env {
	struct dif_object	be_difo;
	struct dif_mstate	be_ms;
	struct dif_probe_ctx	be_ctx;
	char			be_scratch[1024];
	uint64_t		be_locals[4];
};

static uint64_t
bn_time_dif(struct bn_env *e, uint32_t n)
{
	uint64_t t0 = bn_now(), acc = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		e->be_ctx.pc_args[0] = i;
		e->be_ms.dm_scratch_used = 0;
		acc += dif_emulate(&e->be_difo, &e->be_ms, &e->be_ctx);
	}
	bn_sink = acc;
	return bn_now() - t0;
}

static uint64_t
bn_time_c(const struct bn_case *bc, uint32_t n)
{
	uint64_t t0 = bn_now(), acc = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		acc += bc->bc_c(i);
	bn_sink = acc;
	return bn_now() - t0;
}

/* Set up the object, its enabling and its variable state. */
static int
bn_setup(struct bn_env *e, const struct bn_case *bc, struct dif_vstate *vs,
    void **area)
{
	static struct dof_lecb ecb;
	static struct dof_enabling den;
	struct kdt_err err;
	uint64_t size;

	memset(e, 0, sizeof (*e));
	e->be_difo.do_text = bc->bc_text;
	e->be_difo.do_textlen = bc->bc_ntext;
	e->be_difo.do_inttab = bn_int;
	e->be_difo.do_intlen = N(bn_int);
	e->be_difo.do_strtab = bn_str;
	e->be_difo.do_strlen = sizeof (bn_str);
	e->be_difo.do_vartab = bn_vars;
	e->be_difo.do_varlen = N(bn_vars);
	e->be_difo.do_rtype.dtdt_size = 8;
	if (dif_validate(&e->be_difo, &err) != 0) {
		fprintf(stderr, "dif-emul: %s: %s\n", bc->bc_name, err.ke_msg);
		return -1;
	}
	ecb.le_pred = &e->be_difo;
	den.den_ecbs = &ecb;
	den.den_necbs = 1;
	den.den_strsize = 256;
	size = dif_vstate_size(&den, 1 << 20);
	if ((*area = calloc(1, size)) == NULL ||
	    dif_vstate_init(vs, *area, size, &den, &err) != 0) {
		fprintf(stderr, "dif-emul: %s: variable state: %s\n",
		    bc->bc_name, err.ke_msg);
		return -1;
	}
	e->be_ms.dm_scratch = e->be_scratch;
	e->be_ms.dm_scratch_size = sizeof (e->be_scratch);
	e->be_ms.dm_strsize = 256;
	e->be_ms.dm_vstate = vs;
	e->be_ms.dm_locals = e->be_locals;
	e->be_ms.dm_nlocals = N(e->be_locals);
	return 0;
}

/* The two versions must agree before they are timed. */
static int
bn_check(struct bn_env *e, const struct bn_case *bc)
{
	uint64_t v, want;
	uint32_t i;

	for (i = 0; bc->bc_pure && i < 70; i++) {
		e->be_ctx.pc_args[0] = i < 64 ? (uint64_t)1 << i : i * 977;
		e->be_ms.dm_scratch_used = 0;
		v = dif_emulate(&e->be_difo, &e->be_ms, &e->be_ctx);
		want = bc->bc_c(e->be_ctx.pc_args[0]);
		if (v != want || e->be_ms.dm_faulted) {
			fprintf(stderr, "dif-emul: %s: arg0 %llu: emulator %llu, C %llu\n",
			    bc->bc_name,
			    (unsigned long long)e->be_ctx.pc_args[0],
			    (unsigned long long)v, (unsigned long long)want);
			return -1;
		}
	}
	return 0;
}

static int
bn_run(const struct bn_case *bc, uint32_t n, uint32_t rounds)
{
	static struct bn_env e;
	uint64_t td[MAXROUNDS], tc[MAXROUNDS];
	struct dif_vstate vs;
	double dn, dc;
	void *area;
	uint32_t k;

	if (bn_setup(&e, bc, &vs, &area) != 0)
		return -1;
	if (bn_check(&e, bc) != 0) {
		free(area);
		return -1;
	}
	bn_time_dif(&e, n / 10 + 1);		/* warm up both */
	bn_time_c(bc, n / 10 + 1);
	for (k = 0; k < rounds; k++) {
		td[k] = bn_time_dif(&e, n);
		tc[k] = bn_time_c(bc, n);
	}
	if (e.be_ms.dm_faulted) {
		fprintf(stderr, "dif-emul: %s: DIF fault %s at %u\n",
		    bc->bc_name, dif_fault_str(e.be_ms.dm_fault),
		    e.be_ms.dm_fault_pc);
		free(area);
		return -1;
	}
	qsort(td, rounds, sizeof (td[0]), bn_cmp);
	qsort(tc, rounds, sizeof (tc[0]), bn_cmp);
	dn = (double)td[rounds / 2] / n;
	dc = (double)tc[rounds / 2] / n;
	printf("%-13s %-26s %9.1f %9.1f %8.2fx\n", bc->bc_name, bc->bc_d,
	    dn, dc, dc > 0 ? dn / dc : 0.0);
	free(area);
	return 0;
}

int
main(int argc, char **argv)
{
	uint32_t n = 200000, rounds = 11, i;
	int c, rc = 0;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		if (c == 'n')
			n = (uint32_t)strtoul(optarg, NULL, 0);
		else if (c == 'r')
			rounds = (uint32_t)strtoul(optarg, NULL, 0);
		else {
			fprintf(stderr, "usage: dif-emul [-n iterations] [-r rounds]\n");
			return 2;
		}
	}
	if (n == 0 || rounds == 0 || rounds > MAXROUNDS) {
		fprintf(stderr, "dif-emul: -n must be > 0 and -r 1..%d (got %u, %u)\n",
		    MAXROUNDS, n, rounds);
		return 2;
	}
	printf("dif-emul: %u iterations x %u rounds, median ns per operation\n",
	    n, rounds);
	printf("%-13s %-26s %9s %9s %9s\n", "clause", "D", "emulator", "C",
	    "ratio");
	for (i = 0; i < N(bn_cases); i++)
		if (bn_run(&bn_cases[i], n, rounds) != 0)
			rc = 1;
	return rc;
}
