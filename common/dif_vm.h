/*
 * dif_vm.h -- the DIF validator and emulator.
 *
 * dif_validate() enforces the rules of reference section 2.5 (numbered in
 * dif_valid.c); it is called by dof_load() on every DIF object, so the
 * emulator can trust register numbers, table indices and branch targets.
 *
 * dif_emulate() runs one validated object in probe context.  It never
 * faults the machine: every load from traced memory goes through
 * kenv_read(); loads and stores into DTrace memory (scratch, string tables)
 * are bounds-checked; a problem stops the object with a fault recorded in
 * the machine state (dm_fault, dm_fault_addr, dm_fault_pc), exactly as the
 * ERROR probe will later report it.
 *
 * String values are addresses: of the object's STRTAB, of scratch, or of
 * variable storage.  The scratch area belongs to the caller (per CPU in
 * kdt.ko) and is reset for every probe firing.
 *
 * Writable memory.  DIF stores (stb..stx, copys, bcopy, copyinto) may
 * write allocated scratch, the clause-local slots, the data blocks of
 * by-reference globals and the value part of dynamic-variable chunks --
 * never the tables and headers that locate variables (dif_writable()).
 *
 * Variables (reference 2.4).  One struct dif_vstate per enabling holds
 * every variable that outlives a firing, in one caller-provided area of
 * dif_vstate_size() bytes:
 *
 *	| variable tables (3 scopes) | global values and data | dynamic store |
 *
 *  - global scalars: one 8-byte slot per user id (0x500 + n); a
 *    by-reference global (a string, a struct) also owns a data block of
 *    its size; stgs copies into it (strings bounded by strsize and
 *    NUL-padded), ldgs returns its address;
 *  - thread-locals (ldts/stts, key: the thread id from kenv_tid()) and
 *    associative arrays (ldgaa/stgaa, ldtaa/sttaa, key: the tuple stack)
 *    live in the dynamic store of dif_dvar.h: storing 0 frees an
 *    instance, loading an absent one gives 0, a store that finds no room
 *    is dropped and counted (dif_vstate_drops() + dm_dyndrops);
 *  - clause-locals (ldls/stls) live in caller-owned slots (dm_locals,
 *    per CPU, cleared by the caller once per firing, shared by all the
 *    clauses of that firing); a by-reference local occupies several
 *    consecutive slots; dif_vstate_nlocals() says how many are needed.
 * Variable ids and sizes come from the VARTABs of all the enabling's DIF
 * objects; one id must have one kind and size throughout.
 *
 * Subroutines (call) are listed with dif_subr_name(); their arguments are
 * the tuple stack, string results are strsize bytes of scratch.  The
 * destructive ones (copyout, copyoutstr) run only when dm_destructive is
 * set and fault ILLOP otherwise; dif_destructive() tells a loader whether
 * an object uses them.  speculation() asks the caller's speculation
 * buffers through dm_speculation(dm_spec_arg) (no hook: it returns 0);
 * strtok() keeps its continuation in the caller's struct dif_strtok
 * (dm_strtok): like dtrace's dtms_strtok it survives the clauses of one
 * firing and is cleared at the start of the next (dif_strtok_reset).
 */
#ifndef KDT_DIF_VM_H
#define KDT_DIF_VM_H

#include "kdt_env.h"
#include "kdt_err.h"
#include "dof_load.h"
#include "dif_dvar.h"

#define DIF_NARGS	10

/*
 * What the probe knows at firing time.  Filled by the provider through
 * ecb.c's ecb_fill_ctx(), which sets every field one by one (per firing,
 * no memset): a new field must be set there.
 */
struct dif_probe_ctx {
	uint32_t	pc_id;		/* probe id */
	uint32_t	pc_epid;	/* EPID of the running ECB */
	const char	*pc_prov;
	const char	*pc_mod;
	const char	*pc_func;
	const char	*pc_name;
	uint64_t	pc_args[DIF_NARGS];
	uint64_t	pc_timestamp;	/* taken once per firing, when first
					   needed (0 until then): a record,
					   a speculation, the variable */
	uint32_t	pc_cpu;
	/* Known only to some providers; 0 when the provider cannot tell. */
	int32_t		pc_errno;	/* errno (syscall return probes) */
	uint64_t	pc_caller;	/* caller: kernel return address */
	uint32_t	pc_stackdepth;	/* stackdepth */
	uint32_t	pc_ustackdepth;	/* ustackdepth */
	uint64_t	pc_ucaller;	/* ucaller: user return address */
};

/* What the variable tables record about one user variable id. */
struct dif_vinfo {
	uint32_t	vi_off;		/* global data / first local slot */
	uint32_t	vi_size;	/* value bytes (8 for scalars) */
	uint8_t		vi_byref;	/* value is by-reference data */
	uint8_t		vi_isstr;	/* ... and a string */
	uint8_t		vi_kind;	/* DIFV_KIND_*, 0xff: not declared */
	uint8_t		vi_pad;
};

/*
 * Variable state of one enabling.  Caller-owned; everything it points to
 * lies in the area given to dif_vstate_init().
 */
struct dif_vstate {
	uint8_t		*vst_area;
	uint64_t	vst_size;
	struct dif_vinfo *vst_vars[3];	/* per DIFV_SCOPE_*, by id - 0x500 */
	uint32_t	vst_nvars[3];
	uint64_t	*vst_gvals;	/* global scalar slots, by id - 0x500 */
	uint64_t	vst_gdata_off;	/* global data blocks: [off, end) */
	uint64_t	vst_gdata_end;
	uint32_t	vst_nlocals;	/* dm_locals slots needed */
	uint32_t	vst_strsize;
	struct dif_dstore vst_dyn;	/* thread-locals, assoc. arrays */
};

/*
 * Per-execution machine state.  Probe context: caller-owned storage.
 * ecb.c's ecb_mstate_reset() sets every field one by one (per ECB per
 * firing, no memset): a new field must be set there.
 */
/*
 * strtok()'s saved string: strtok(s, d) copies s (at most ts_size - 1
 * bytes, ts_size being strsize + 1) into ts_buf and the continuation is
 * ts_buf[ts_pos..ts_len); ts_pos >= ts_len means there is none and
 * strtok(NULL, d) gives NULL.  The buffer is the caller's (per CPU, as
 * the firing that uses it runs on one CPU), a copy rather than a pointer
 * because scratch and each clause's string table are per clause, while
 * dtrace continues a strtok() in any later clause of the same firing.
 */
struct dif_strtok {
	char		*ts_buf;
	uint32_t	ts_size;
	uint32_t	ts_pos;
	uint32_t	ts_len;
	uint32_t	ts_pad;
};

/* Forget the continuation: once per firing (dtrace's dtrace_probe). */
static inline void
dif_strtok_reset(struct dif_strtok *t)
{
	t->ts_pos = 0;
	t->ts_len = 0;
}

struct dif_mstate {
	char		*dm_scratch;	/* base of scratch */
	uint64_t	dm_scratch_size;
	uint64_t	dm_scratch_used;
	uint32_t	dm_strsize;	/* strsize option */
	uint32_t	dm_fault;	/* DTRACEFLT_*, 0 = none */
	uint32_t	dm_faulted;	/* non-zero once a fault happened */
	uint64_t	dm_fault_addr;
	uint32_t	dm_fault_pc;	/* instruction index */
	/* Variables: NULL vstate makes every variable op fault ILLOP. */
	struct dif_vstate *dm_vstate;
	uint64_t	*dm_locals;	/* clause-local slots, caller-owned */
	uint32_t	dm_nlocals;
	uint32_t	dm_destructive;	/* copyout/copyoutstr allowed */
	/* speculation(): returns a speculation id or 0; NULL -> 0 */
	uint32_t	(*dm_speculation)(void *arg);
	void		*dm_spec_arg;
	struct dif_strtok *dm_strtok;	/* strtok() continuation, caller-
					   owned; NULL: none is kept */
	uint64_t	dm_dyndrops;	/* dynamic-variable drops the store
					   did not count itself (a key too
					   large for any chunk); the runner
					   adds it to dif_vstate_drops() and
					   clears it */
};

/*
 * A predicate decided without the interpreter.  The compiler turns
 * "/VAR op K/" (VAR a built-in integer such as pid, tid, cpu, uid, gid,
 * ppid, errno, id or arg0..arg9; K an integer constant; op a comparison)
 * into the same eight instructions every time:
 *
 *	ldgs VAR, %r1; setx K, %r2; cmp %r1, %r2; bCC 6;
 *	mov %r0, %r1; ba 7; setx 1, %r1; ret %r1
 *
 * dif_fastpred_make() recognises exactly that object (fp_ok) when the
 * enabling is created, and dif_fastpred_eval() gives the same result as
 * dif_emulate() on it -- the variable read the same way, the condition
 * codes of cmp, the branch's test -- at a fraction of the cost: most
 * firings of a selective probe end at their predicate.
 */
struct dif_fastpred {
	uint32_t	fp_ok;
	uint32_t	fp_var;		/* DIF_VAR_* */
	uint32_t	fp_br;		/* DIF_OP_B* */
	uint32_t	fp_truth;	/* bit n<<2|z<<1|c: the branch taken
					   for those condition codes */
	uint64_t	fp_k;
};

/* Setup context. */
void dif_fastpred_make(const struct dif_object *difo, struct dif_fastpred *fp);
/*
 * The other shape worth a shortcut: an action whose DIF is one load of a
 * constant or of such a built-in and a ret ("trace(arg0)", "@[pid]",
 * count()'s aggregation id).  1 with *v what dif_emulate() would return,
 * 0 when "difo" is anything else.  Probe context.
 */
int dif_fast_eval(const struct dif_object *difo,
    const struct dif_probe_ctx *ctx, uint64_t *v);
/* Probe context: no locks, no allocation, no sleeping. */
uint64_t dif_fastpred_eval(const struct dif_fastpred *fp,
    const struct dif_probe_ctx *ctx);
/*
 * The same test on the variable's value "a", for a caller that reads the
 * variable itself because it has no context yet (ecb_gate_open()), and
 * for dif_fastpred_eval().  The condition codes are cmp's, exactly as the
 * interpreter sets them (n: sign of a - K, z: equal, c: unsigned borrow;
 * v is always 0), and fp_truth holds dif_vm.c's own branch test for each
 * of their 8 combinations (dif_fastpred_make()), so the answer is one
 * table lookup with no branch: this is the whole cost of a gated probe's
 * firing (tests/unit/test_compiler.c compares it with the interpreter for
 * every comparison).  Probe context.
 */
static inline uint64_t
dif_fastpred_test(const struct dif_fastpred *fp, uint64_t a)
{
	uint64_t k = fp->fp_k;
	uint32_t i = ((uint32_t)((int64_t)(a - k) < 0) << 2) |
	    ((uint32_t)(a == k) << 1) | (uint32_t)(a < k);

	return (fp->fp_truth >> i) & 1;
}

/* Validate one object; -EINVAL with "err" naming instruction and rule. */
int dif_validate(const struct dif_object *difo, struct kdt_err *err);

/*
 * Run "difo" and return its result (for string or by-reference results,
 * an address valid until the scratch is reset).  On a fault returns 0 with
 * mstate->dm_faulted set.  Probe context: no locks, no allocation, no
 * sleeping.
 */
uint64_t dif_emulate(const struct dif_object *difo, struct dif_mstate *mstate,
    const struct dif_probe_ctx *ctx);

/*
 * Read "size" bytes of a DIF value (a by-reference result or a string
 * address) into dst, whichever memory it lives in (STRTAB, scratch or
 * traced memory); strings are NUL-padded.  0 or -EFAULT.  Probe context.
 */
int dif_copy_result(const struct dif_object *difo, struct dif_mstate *mstate,
    uint64_t val, void *dst, uint32_t size, int isstr);

/*
 * Bytes of variable-state area an enabling needs: the variable tables,
 * the global values and data, and a dynamic store of "dynvarsize" bytes
 * (none when the enabling has no thread-local or associative variable).
 * 0 for an enabling without user variables.  Setup context.
 */
uint64_t dif_vstate_size(const struct dof_enabling *den, uint64_t dynvarsize);

/*
 * Lay out and clear the variable state of "den" in "area" (8-aligned,
 * "size" bytes, at least dif_vstate_size(den, dynvarsize) for the
 * dynvarsize intended: what is left after the tables becomes the dynamic
 * store).  -EINVAL with "err" naming the variable when two objects
 * declare one id differently; -ENOSPC when the area is too small.
 * Setup context.
 */
int dif_vstate_init(struct dif_vstate *vs, void *area, uint64_t size,
    const struct dof_enabling *den, struct kdt_err *err);

/* dm_locals slots the enabling's clause-locals need. */
uint32_t dif_vstate_nlocals(const struct dif_vstate *vs);

/*
 * Dynamic-variable drops counted by the store since init (no free chunk,
 * store busy).  Disjoint from dm_dyndrops: the total is the sum.
 */
uint64_t dif_vstate_drops(const struct dif_vstate *vs);

/* Non-zero when "difo" calls a destructive subroutine. */
uint32_t dif_destructive(const struct dif_object *difo);

/* Name of subroutine "subr" ("strlen"), or NULL when kdt has none. */
const char *dif_subr_name(uint32_t subr);

/* Text of a fault code, as dtrace(1) prints it ("invalid address"). */
const char *dif_fault_str(uint32_t fault);

#endif /* KDT_DIF_VM_H */
