/*
 * ecb.h -- the ECB runner: what happens when a probe fires, shared by
 * kdt.ko (kmod/kd_probe.c) and the userspace engine
 * (consumer/kc_engine.c), so both run the very same code.
 *
 * An enabled probe (struct ecb_probe, filled by the provider side) lists
 * the ECBs attached to it with their EPIDs.  ecb_fire() runs them for one
 * firing on the current CPU, in order:
 *
 *   for each ECB of the probe:
 *     clause-locals were cleared once for the firing; scratch is reset;
 *     predicate (false: next ECB)
 *     each action by its role (dof_load.h la_role, agg.h):
 *       REC     its data goes to the staging buffer at la_rec_off
 *               (integers by size, strings and by-reference data through
 *               dif_copy_result); EXIT also moves the enabling to
 *               DRAINING with its status; SPECULATE sends the ECB's
 *               record to a speculation buffer (spec.h); COMMIT/DISCARD
 *               act on a speculation after the record is written;
 *       AGGVAR  starts a key: the key staging area is cleared;
 *       AGGKEY  its value goes into the key at la_rec_off;
 *       AGGARG  its value is the increment of the next AGG;
 *       AGG     its value (count(): 1) updates this CPU's aggregation
 *               buffer with agg_update();
 *     the record: header + le_size payload bytes into this CPU's
 *     principal buffer (rgn_reserve/rgn_commit).  An ECB with no actions
 *     writes a header-only record (dtrace prints the probe line); an ECB
 *     whose actions record nothing (aggregations, assignments) writes
 *     none.
 *
 * A fault abandons the ECB (nothing it staged is kept), writes an
 * RGN_EPID_ERROR record (rgn.h) and fires the dtrace:::ERROR probe's ECBs
 * with arg1 = EPID, arg2 = action index (0 = predicate), arg3 = DIF byte
 * offset (instruction index x 4, as dtrace reports it), arg4 = fault code
 * and arg5 = address.  A fault inside an ERROR ECB is only counted
 * ("error(s) in ERROR probe enabling").
 *
 * Enabling states (es_state): WARMUP while BEGIN runs, ACTIVE, DRAINING
 * after exit() (only END and ERROR ECBs run; later BEGIN ECBs are
 * skipped), COOLDOWN while END runs, STOPPED (nothing runs).  The
 * consumer side drives WARMUP -> ACTIVE and DRAINING -> COOLDOWN ->
 * STOPPED with ecb_set_state(); exit() makes DRAINING.
 *
 * Per-CPU resources (struct ecb_cpu) are allocated by ecb_create() in
 * setup context: scratch, record and key staging, clause-local slots, the
 * aggregation buffer; per enabling: the variable state (dif_vm.h) and the
 * speculations (spec.h).  The principal buffers are the caller's region
 * (ecb_set_region()).  Counters that dtrace reports (reference 5.1) live
 * per CPU here: principal drops are rc_drops of the region, aggregation
 * drops ab_drops of the aggregation buffer, the others below.
 *
 * Context rules: ecb_fire() runs in probe context -- the caller has
 * interrupts off (kdt.ko) and is the only user of this CPU's ecb_cpu; it
 * never sleeps, never allocates, takes no lock.  A firing that arrives
 * while the same CPU is inside ecb_fire() (a probe in probe context) is
 * dropped and counted in rc_drops.
 */
#ifndef KDT_ECB_H
#define KDT_ECB_H

#include "kdt_env.h"
#include "kdt_err.h"
#include "dof_load.h"
#include "dif_vm.h"
#include "rgn.h"
#include "agg.h"
#include "spec.h"

#define ECB_ST_WARMUP		0
#define ECB_ST_ACTIVE		1
#define ECB_ST_DRAINING		2
#define ECB_ST_COOLDOWN		3
#define ECB_ST_STOPPED		4

/* What kind of probe an ecb_probe is, for the draining rule. */
#define ECB_PK_OTHER		0
#define ECB_PK_BEGIN		1
#define ECB_PK_END		2
#define ECB_PK_ERROR		3

#define ECB_SCRATCH_DEFAULT	8192	/* plus strsize, per CPU */
/*
 * Longest single chill(), in ns: dtrace's default chill_max.  A longer
 * one is an illegal-operation fault (the ERROR probe fires) rather than a
 * CPU held for seconds with interrupts off.
 */
#define ECB_CHILL_MAX		500000000ull
/* raise(): signals 1..ECB_SIG_MAX (Linux's _NSIG is 64) */
#define ECB_SIG_MAX		64
#define ECB_AGGSIZE_DEFAULT	(4ULL << 20)
#define ECB_DYNVARSIZE_DEFAULT	(1ULL << 20)
#define ECB_SPECSIZE_DEFAULT	(32ULL << 10)
#define ECB_NSPEC_DEFAULT	1

/* One ECB attached to a probe, with the EPID of the pair. */
struct ecb_ref {
	uint32_t	er_ecb;		/* index into den_ecbs */
	uint32_t	er_epid;
};

/* An enabled probe as the runner sees it.  Filled by the provider. */
struct ecb_probe {
	uint32_t	ep_id;		/* probe id */
	uint32_t	ep_kind;	/* ECB_PK_* */
	const char	*ep_prov;	/* names, readable by DIF (probefunc) */
	const char	*ep_mod;
	const char	*ep_func;
	const char	*ep_name;
	const struct ecb_ref *ep_ecbs;	/* in ECB order */
	uint32_t	ep_necbs;
};

/* Per-CPU probe-context storage, used only by its CPU. */
struct ecb_cpu {
	struct ecb_state *ec_es;	/* back pointer (speculation()) */
	uint32_t	ec_cpu;
	uint32_t	ec_busy;	/* inside ecb_fire */
	uint32_t	ec_in_error;	/* running ERROR ECBs */
	uint32_t	ec_pad;
	struct rgn_cpu	*ec_rc;		/* principal buffer */
	char		*ec_scratch;
	uint8_t		*ec_stage;	/* one record's payload */
	uint8_t		*ec_key;	/* one aggregation key; after its
					   es_key_size bytes, as many for a
					   simple aggregation's execname key
					   (ecb.c ecb_simple_strkey(): all
					   zeros between firings) */
	uint64_t	*ec_locals;	/* clause-local slots */
	struct dif_strtok ec_strtok;	/* strtok()'s saved string, kept
					   across the ECBs of one firing */
	struct agg_buf	*ec_agg;	/* NULL: no aggregations; the caller
					   may point it elsewhere (a switch,
					   ecb_set_aggbufs) */
	void		*ec_agg_own;	/* what ecb_create allocated */
	struct spec_counts ec_spec;	/* speculation counters */
	uint64_t	ec_dyndrops;	/* dynamic variable drops */
	uint64_t	ec_dblerrors;	/* faults inside ERROR ECBs */
	uint64_t	ec_errors;	/* faults (also rc_errors) */
	uint64_t	ec_sigdrops;	/* raise()/stop() requests the kernel
					   had no room to queue (kenv_signal) */
};

/* Sizes and switches for ecb_create(); ecb_params_init() fills them. */
struct ecb_params {
	uint32_t	ep_ncpu;
	uint32_t	ep_policy;	/* the region's DTRACEOPT_BUFPOLICY_* */
	uint64_t	ep_scratch;	/* scratch bytes per CPU */
	uint64_t	ep_aggsize;	/* aggregation buffer bytes per CPU */
	uint64_t	ep_dynvarsize;	/* dynamic variable bytes */
	uint64_t	ep_specsize;	/* bytes per speculation buffer */
	uint32_t	ep_nspec;
	uint32_t	ep_destructive;	/* destructive actions allowed */
	uint32_t	ep_user;	/* userspace engine: refuse kernel-only
					   actions (panic, chill, ...) */
	uint32_t	ep_pad;
};

struct ecb_state {
	const struct dof_enabling *es_den;
	uint32_t	es_ncpu;
	uint32_t	es_policy;
	uint32_t	es_state;	/* ECB_ST_* */
	int32_t		es_status;	/* exit() value */
	uint32_t	es_exited;	/* exit() was called */
	uint32_t	es_destructive;
	uint64_t	es_scratch_size;
	uint32_t	es_stage_size;
	uint32_t	es_key_size;
	const struct ecb_probe *es_error;	/* dtrace:::ERROR, or NULL */
	struct ecb_cpu	*es_cpus;	/* [es_ncpu] */
	struct dif_vstate es_vstate;
	void		*es_varea;
	struct spec_state *es_spec;
	struct dif_fastpred *es_fastpred;	/* [den_necbs]: predicates
					   decided without the interpreter
					   (dif_vm.h) */
	uint32_t	es_commits;	/* a commit() or discard() exists: only
					   then can a firing find speculations
					   to finish (spec_clean) */
	struct ecb_simple *es_simple;	/* [den_necbs]: ecb_fire_simple()'s
					   precompiled ECBs (ecb.c) */
};

/*
 * Defaults for "den": sizes from its options (aggsize, dynvarsize,
 * specsize, nspec, bufpolicy, destructive) or dtrace's defaults.
 * Setup context.
 */
void ecb_params_init(struct ecb_params *p, const struct dof_enabling *den,
    uint32_t ncpu);

/*
 * Check every action against what this environment can run and allocate
 * the per-CPU and per-enabling resources.  -EPERM (destructive action
 * without permission), -EOPNOTSUPP (kernel-only action in userspace),
 * -ENOMEM, -EINVAL; "err" names the ECB, its probe description, the
 * action and the rule.  Setup context (allocates).
 */
int ecb_create(const struct dof_enabling *den, const struct ecb_params *p,
    struct ecb_state **out, struct kdt_err *err);
void ecb_destroy(struct ecb_state *es);

/* Point every CPU at its principal buffer in region "base".  Setup. */
void ecb_set_region(struct ecb_state *es, void *base);

/*
 * Keep the aggregations in region "base" instead (its rm_agg_off area,
 * laid out by rgn_init with rp_aggsize), so they survive a panic.  Does
 * nothing when the region or the enabling has none.  Setup context.
 */
void ecb_set_aggbufs(struct ecb_state *es, void *base);

/* Name the dtrace:::ERROR probe (NULL: none enabled).  Setup context. */
void ecb_set_error_probe(struct ecb_state *es, const struct ecb_probe *ep);

/* Move the enabling to ECB_ST_*.  Any context (a single store). */
void ecb_set_state(struct ecb_state *es, uint32_t state);

/*
 * Run every ECB of probe "ep" for one firing on CPU "cpu", with probe
 * arguments args[0, DIF_NARGS) (NULL: all 0) and timestamp "ts" -- or 0
 * to have kenv_timestamp() read only if the firing needs it (a record, a
 * speculation, the timestamp variable), once, the same for all its ECBs.
 * Probe context: no locks, no allocation, no sleeping; interrupts off in
 * the kernel; the caller runs on "cpu".
 */
void ecb_fire(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, uint64_t ts);
/* ecb_fire() with the errno D variable set to "err" (syscall returns). */
void ecb_fire_errno(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, uint64_t ts, int32_t err);

/*
 * The gate: most firings of a selective probe end at a predicate such as
 * "/pid == 1234/" or "/arg0 == 0/", and building a context for them costs
 * more than the test.  ecb_gate_usable() (setup context) says whether
 * every ECB of "ep" starts with a predicate of the fast "/VAR op K/" shape
 * (dif_vm.h) on a variable a provider's handler has at hand -- arg0..arg5
 * (the handler's args[0, 6)), pid, tid, uid, gid, ppid (current), cpu or
 * id -- and the enabling has no commit()/discard() (whose cleaning
 * ecb_fire() also does).  Then ecb_gate_open() (probe context, any
 * context: no state is touched) returns 0 when every one of those
 * predicates is false: the firing may be dropped before anything is built,
 * with exactly the effect ecb_fire() would have had -- none.  Not open
 * means "nothing to do", never "not allowed": a caller that ignores the
 * gate gets the same results, only slower.
 */
#define ECB_GATE_NARGS	6
/* A predicate the gate can decide (dif_fastpred_make()'s result). */
int ecb_gate_pred(const struct dif_fastpred *fp);
int ecb_gate_usable(const struct ecb_state *es, const struct ecb_probe *ep);
int ecb_gate_open(const struct ecb_state *es, const struct ecb_probe *ep,
    const uint64_t *args, uint32_t cpu);
/*
 * The common case spelled out for a handler that reads only what the
 * predicate needs: ecb_gate_single() (setup) is the fast predicate of
 * the probe's only ECB when the gate is usable, else NULL; with it, the
 * gate is open exactly when dif_fastpred_test(fp, value) is nonzero,
 * where the value is argument fp_var - DIF_VAR_ARG0 when that is below
 * ECB_GATE_NARGS, else ecb_gate_var(fp_var, ep, cpu) (probe context).
 */
const struct dif_fastpred *ecb_gate_single(const struct ecb_state *es,
    const struct ecb_probe *ep);
uint64_t ecb_gate_var(uint32_t var, const struct ecb_probe *ep, uint32_t cpu);

/*
 * Simple ECBs.  A simple aggregation is "@[K1, ...] = AGG(V)" -- no
 * predicate or a gate-shaped one (above), integer keys and value each a
 * constant or a gate variable (arg0..arg5, pid, tid, uid, gid, ppid, cpu,
 * id), or a key execname in a key of more than 8 bytes (the task
 * name, zeros after it: built after ec_key, only its bytes compared and
 * hashed, ecb.c), AGG one of every aggregating function, nothing
 * recorded.  A simple
 * record is "trace(V); printf(FMT, V, ...); ..." -- the same predicates,
 * every action trace() or printf() of such values, each recorded as an
 * integer of 1, 2, 4 or 8 bytes (at most 8 values, a payload of 1 to 64
 * bytes; not the empty clause's header-only record); no
 * commit()/discard() in the enabling.  Its record layout -- where each
 * value comes from and where it goes -- is computed when the enabling is
 * created.  A probe whose every ECB is simple can be fired by
 * ecb_fire_simple() with the handler's six register arguments: the same
 * aggregation updates and the same record bytes (header, payload, drops
 * under every buffer policy) as ecb_fire() makes, without a probe
 * context, a DIF machine or a staging record -- a record is reserved,
 * its values stored in place and committed.  ecb_simple_usable() (setup)
 * says whether "ep" is such a probe; ecb_fire_simple() (probe context,
 * interrupts off, on "cpu"; "ts" as ecb_fire()'s: 0 reads the clock when
 * the first record is written) is then interchangeable with ecb_fire()
 * for it (test_ecb checks both give the same aggregation buffer and the
 * same principal buffer, byte for byte).
 */
int ecb_simple_usable(const struct ecb_state *es, const struct ecb_probe *ep);
/*
 * ecb_simple_usable()'s nonzero result is ECB_SIMPLE_OK, with
 * ECB_SIMPLE_ARGS added when a predicate, key, increment or value of one
 * of the ECBs reads arg0..arg5: without it ecb_fire_simple() reads
 * nothing of "args" and the handler may skip reading its arguments (it
 * still passes a valid array, e.g. ecb_simple_noargs).  ECB_SIMPLE_ARGHI
 * (set only with ECB_SIMPLE_ARGS): one of them reads arg2..arg5; without
 * it ecb_fire_simple() reads args[0] and args[1] only, and a handler may
 * leave the other four elements unset.
 */
#define ECB_SIMPLE_OK	1
#define ECB_SIMPLE_ARGS	2
#define ECB_SIMPLE_ARGHI	4
extern const uint64_t ecb_simple_noargs[ECB_GATE_NARGS];
/*
 * ECB "i" of "den" is a simple aggregation (ECB_SKIND_AGG), a simple
 * record (ECB_SKIND_REC) or neither (0): the estimator's test.  Setup.
 */
#define ECB_SKIND_AGG	1
#define ECB_SKIND_REC	2
int ecb_simple_ecb(const struct dof_enabling *den, uint32_t i);
void ecb_fire_simple(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, uint64_t ts);

/*
 * Drain speculations other CPUs committed or discarded while this CPU
 * holds data (a cleanrate timer may call it).  Probe context on "cpu".
 */
void ecb_clean(struct ecb_state *es, uint32_t cpu, uint64_t ts);

/* Dynamic-variable drops of the enabling.  Any context. */
uint64_t ecb_dyndrops(const struct ecb_state *es);

#endif /* KDT_ECB_H */
