/*
 * ecb.c -- the ECB runner shared by kdt.ko and the userspace engine.
 *
 * The theory (roles of actions, record rules, faults and the ERROR probe,
 * enabling states, context rules) is in ecb.h.  Callers: kmod/kd_probe.c
 * (kprobe handlers and BEGIN, interrupts off) and consumer/kc_engine.c
 * (BEGIN/END/ERROR and profile timers, one CPU).  Setup functions come
 * first, then the probe-context runner.
 */
#include "kdt_env.h"
#include "kdt_err.h"
#include "dif.h"
#include "dof.h"
#include "dof_load.h"
#include "dif_vm.h"
#include "rgn.h"
#include "agg.h"
#include "spec.h"
#include "ecb.h"

#define ECB_MAX_PENDING	8	/* commit()/discard() calls per clause */

/* ---- setup ---- */

static uint64_t
ecb_opt(const struct dof_enabling *den, uint32_t opt, uint64_t dflt)
{
	uint64_t v = den->den_opts[opt];

	return v == DTRACEOPT_UNSET ? dflt : v;
}

/* Setup context. */
void
ecb_params_init(struct ecb_params *p, const struct dof_enabling *den,
    uint32_t ncpu)
{
	memset(p, 0, sizeof (*p));
	p->ep_ncpu = ncpu;
	p->ep_policy = (uint32_t)ecb_opt(den, DTRACEOPT_BUFPOLICY,
	    DTRACEOPT_BUFPOLICY_SWITCH);
	p->ep_scratch = ECB_SCRATCH_DEFAULT + den->den_strsize;
	p->ep_aggsize = ecb_opt(den, DTRACEOPT_AGGSIZE, ECB_AGGSIZE_DEFAULT);
	p->ep_dynvarsize = ecb_opt(den, DTRACEOPT_DYNVARSIZE,
	    ECB_DYNVARSIZE_DEFAULT);
	p->ep_specsize = ecb_opt(den, DTRACEOPT_SPECSIZE,
	    ECB_SPECSIZE_DEFAULT);
	p->ep_nspec = (uint32_t)ecb_opt(den, DTRACEOPT_NSPEC,
	    ECB_NSPEC_DEFAULT);
	p->ep_destructive = ecb_opt(den, DTRACEOPT_DESTRUCTIVE, 0) != 0;
}

static const char *
ecb_act_name(uint32_t kind)
{
	switch (kind) {
	case DTRACEACT_STOP: return "stop";
	case DTRACEACT_RAISE: return "raise";
	case DTRACEACT_SYSTEM: return "system";
	case DTRACEACT_FREOPEN: return "freopen";
	case DTRACEACT_BREAKPOINT: return "breakpoint";
	case DTRACEACT_PANIC: return "panic";
	case DTRACEACT_CHILL: return "chill";
	default: return "copyout";
	}
}

/* Kernel-only actions: they act on the traced kernel or process. */
static int
ecb_kernel_only(uint32_t kind)
{
	return kind == DTRACEACT_PANIC || kind == DTRACEACT_BREAKPOINT ||
	    kind == DTRACEACT_STOP || kind == DTRACEACT_RAISE;
}

/* May action "la" of ECB "i" run under params "p"?  0 or -errno. */
static int
ecb_check_act(const struct dof_lecb *le, uint32_t i, uint32_t j,
    const struct ecb_params *p, struct kdt_err *err)
{
	const struct dof_laction *la = &le->le_acts[j];
	const struct dof_pdesc *pd = &le->le_pdesc;
	uint32_t cls = DTRACEACT_CLASS(la->la_kind);
	int destr = cls == 2 || cls == 5 ||
	    (la->la_difo != NULL && la->la_difo->do_destructive);

	if (destr && !p->ep_destructive)
		return kdt_err_set(err, EPERM, "ECB_DESTRUCTIVE", KDT_ERR_NOOFF,
		    "clause %u (%s:%s:%s:%s) action #%u: %s() is a destructive action; allow destructive actions with -w or #pragma D option destructive",
		    i + 1, pd->lp_prov, pd->lp_mod, pd->lp_func, pd->lp_name,
		    j + 1, ecb_act_name(la->la_kind));
	if (p->ep_user && ecb_kernel_only(la->la_kind))
		return kdt_err_set(err, EOPNOTSUPP, "ECB_KERNEL_ONLY",
		    KDT_ERR_NOOFF,
		    "clause %u (%s:%s:%s:%s) action #%u: %s() needs the kernel engine (kdt.ko); the userspace engine cannot run it",
		    i + 1, pd->lp_prov, pd->lp_mod, pd->lp_func, pd->lp_name,
		    j + 1, ecb_act_name(la->la_kind));
	return 0;
}

/* Check every action and compute the staging sizes.  Setup context. */
static int
ecb_scan(struct ecb_state *es, const struct ecb_params *p,
    struct kdt_err *err)
{
	const struct dof_enabling *den = es->es_den;
	uint32_t i, j;
	int rv;

	es->es_stage_size = 8;
	es->es_key_size = 8;
	for (i = 0; i < den->den_necbs; i++) {
		if (den->den_ecbs[i].le_size > es->es_stage_size)
			es->es_stage_size = den->den_ecbs[i].le_size;
		for (j = 0; j < den->den_ecbs[i].le_nacts; j++)
			if ((rv = ecb_check_act(&den->den_ecbs[i], i, j, p,
			    err)) != 0)
				return rv;
	}
	for (i = 0; i < den->den_naggs; i++)
		if (den->den_aggs[i].ag_keysize > es->es_key_size)
			es->es_key_size = den->den_aggs[i].ag_keysize;
	return 0;
}

static int
ecb_nomem(struct kdt_err *err, const char *what, uint64_t size)
{
	return kdt_err_set(err, ENOMEM, "ECB_NOMEM", KDT_ERR_NOOFF,
	    "out of memory for %s (%llu bytes)", what,
	    (unsigned long long)size);
}

/* The variable state of the enabling.  Setup context. */
static int
ecb_vstate(struct ecb_state *es, const struct ecb_params *p,
    struct kdt_err *err)
{
	uint64_t size = dif_vstate_size(es->es_den, p->ep_dynvarsize);

	if (size == 0)
		size = 8;	/* dif_vstate_init says what is wrong */
	es->es_varea = kenv_zalloc(size);
	if (es->es_varea == NULL)
		return ecb_nomem(err, "variables", size);
	return dif_vstate_init(&es->es_vstate, es->es_varea, size,
	    es->es_den, err);
}

/* One CPU's storage.  Setup context. */
static int
ecb_cpu_alloc(struct ecb_state *es, struct ecb_cpu *ec, uint32_t cpu,
    const struct ecb_params *p, struct kdt_err *err)
{
	uint32_t nloc = dif_vstate_nlocals(&es->es_vstate);

	ec->ec_es = es;
	ec->ec_cpu = cpu;
	ec->ec_scratch = kenv_zalloc(es->es_scratch_size);
	ec->ec_stage = kenv_zalloc(es->es_stage_size);
	/* the key, then the simple execname key (ecb_simple_strkey()) */
	ec->ec_key = kenv_zalloc(2 * (uint64_t)es->es_key_size);
	ec->ec_locals = kenv_zalloc(((uint64_t)nloc + 1) * 8);
	ec->ec_strtok.ts_size = es->es_den->den_strsize + 1;
	ec->ec_strtok.ts_buf = kenv_zalloc(ec->ec_strtok.ts_size);
	if (ec->ec_scratch == NULL || ec->ec_stage == NULL ||
	    ec->ec_key == NULL || ec->ec_locals == NULL ||
	    ec->ec_strtok.ts_buf == NULL)
		return ecb_nomem(err, "per-CPU scratch and staging",
		    es->es_scratch_size + es->es_stage_size);
	if (es->es_den->den_naggs == 0)
		return 0;
	ec->ec_agg = ec->ec_agg_own = kenv_zalloc(p->ep_aggsize);
	if (ec->ec_agg == NULL)
		return ecb_nomem(err, "an aggregation buffer (aggsize)",
		    p->ep_aggsize);
	return agg_buf_init(ec->ec_agg, p->ep_aggsize, cpu, err);
}

/*
 * One precompiled simple aggregation (ecb.h): where each key value comes
 * from and goes.  A value is a constant (es_var 0) or a gate variable.
 */
#define ECB_SIMPLE_KEYS	4
struct ecb_sval {
	uint32_t	sv_var;		/* DIF_VAR_*, 0: the constant sv_k */
	uint32_t	sv_off;		/* key: offset in the key, ... */
	uint32_t	sv_size;	/* ... and bytes (1, 2, 4, 8) */
	uint32_t	sv_pad;
	uint64_t	sv_k;
};

#define ECB_SIMPLE_RECS	8	/* values of one simple record */
struct ecb_simple {
	uint32_t	es_ok;		/* 0, ECB_SKIND_AGG or ECB_SKIND_REC */
	uint32_t	es_nkeys;
	uint32_t	es_hasarg;	/* an AGGARG (lquantize's increment...) */
	uint32_t	es_hasval;	/* AGG has DIF (count() has none: 1) */
	uint32_t	es_haspred;	/* a (gate-shaped) predicate */
	uint32_t	es_plain;	/* no key, increment 1, value 1: count() */
	const struct dof_agg *es_ag;
	struct ecb_sval	es_key[ECB_SIMPLE_KEYS];
	struct ecb_sval	es_arg;
	struct ecb_sval	es_val;
	/* ECB_SKIND_REC: le_size payload bytes, es_nrecs values at their
	   sv_off; es_cover: they fill the payload (nothing to clear).
	   ECB_SKIND_AGG with es_strkey (a key is execname, ECB_EXECNAME
	   below: built after ec_key, updated with agg_update_sig()): es_sig,
	   the bytes of the key that can be nonzero in any key of the
	   aggregation (ecb_simple_sig()); es_rezero, another es_strkey ECB
	   has another key layout: clear that key after use; es_strkey is
	   ECB_STRKEY_ONLY when execname is the only key and es_rezero is 0
	   (ecb_fire_simple_exec1()).  (The structure stays 384 bytes:
	   indexing it is two instructions, lea and shl.) */
	union {
		uint32_t es_recsize;
		uint32_t es_sig;
	};
	uint32_t	es_nrecs;
	uint32_t	es_cover;
	uint16_t	es_strkey;
	uint16_t	es_rezero;
	struct ecb_sval	es_rec[ECB_SIMPLE_RECS];
};
_Static_assert(sizeof (struct ecb_simple) == 384, "ecb_simple: 3 << 7");
#define ECB_STRKEY_ONLY	2	/* es_strkey: see above */

/*
 * A key "ldgs execname; ret" (ECB_SKIND_AGG): the general path stores in
 * the key what dif_ldgs() made -- kenv_execname() of min(strsize,
 * ECB_EXECNAME_MAX) bytes, dif_vm.c's DIF_EXECNAME_MAX, in scratch --
 * copied by dif_copy_result() into min(la_rec_size, strsize) bytes and
 * zero-padded to la_rec_size.  When the copy holds all of that name
 * buffer (la_rec_size >= it), the key is exactly kenv_execname() of that
 * size at the key's offset, zeros after: what the simple path writes
 * (sv_size = that size).  test_ecb compares the two, with a task name
 * longer than the limit.
 */
#define ECB_EXECNAME_MAX	32

/* "setx K, %rN; ret %rN" (or no DIF): a constant.  Probe context. */
static int
ecb_const_difo(const struct dif_object *d)
{
	return d == NULL || (d->do_textlen == 2 &&
	    DIF_INSTR_OP(d->do_text[0]) == DIF_OP_SETX &&
	    DIF_INSTR_OP(d->do_text[1]) == DIF_OP_RET);
}

static int ecb_gate_readable(uint32_t v);

/* A DIF object that is "setx K; ret" or "ldgs VAR; ret" (gate VAR). */
static int
ecb_sval_make(const struct dif_object *d, struct ecb_sval *sv)
{
	uint32_t i0;

	if (d == NULL || d->do_textlen != 2)
		return 0;
	i0 = d->do_text[0];
	if (d->do_text[1] != (((uint32_t)DIF_OP_RET << 24) |
	    DIF_INSTR_RD(i0)))
		return 0;
	switch (DIF_INSTR_OP(i0)) {
	case DIF_OP_SETX:
		if (DIF_INSTR_INTEGER(i0) >= d->do_intlen)
			return 0;
		sv->sv_var = 0;
		sv->sv_k = d->do_inttab[DIF_INSTR_INTEGER(i0)];
		return 1;
	case DIF_OP_LDGS:
		if (!ecb_gate_readable(DIF_INSTR_VAR(i0)))
			return 0;
		sv->sv_var = DIF_INSTR_VAR(i0);
		return 1;
	default:
		return 0;
	}
}

/*
 * Setup context: is ECB "le" a simple record (ecb.h)?  Every action
 * trace() or printf() (REC role) of a constant or a gate variable stored
 * as an integer of 1, 2, 4 or 8 bytes inside the payload -- what
 * ecb_put_val() stores for it -- or recording nothing (no DIF or no
 * bytes: ecb_put_val() leaves the cleared staging); at least one action
 * and one payload byte.  The caller has checked the predicate.
 */
static void
ecb_simple_rec_make(const struct dof_lecb *le, struct ecb_simple *sa)
{
	const struct dof_laction *la;
	struct ecb_sval *sv, tmp;
	uint8_t seen[64];
	uint32_t a, b, covered = 0;

	/*
	 * Actions that record nothing write no record (ecb_emit): rare, left
	 * to ecb_fire().  So is the empty clause's header-only record: "{ }"
	 * is the usual predicate-false probe, which the gate stops anyway
	 * (and which the estimator's calibration measures as such).
	 */
	if (le->le_size > sizeof (seen) || le->le_size == 0 ||
	    le->le_nacts == 0)
		return;		/* the cover test below is sized */
	memset(seen, 0, sizeof (seen));
	for (a = 0; a < le->le_nacts; a++) {
		la = &le->le_acts[a];
		if (la->la_role != DOF_ROLE_REC ||
		    (la->la_kind != DTRACEACT_DIFEXPR &&
		    la->la_kind != DTRACEACT_PRINTF))
			return;
		if (la->la_rec_size == 0 || la->la_difo == NULL) {
			/* nothing stored, nothing that can fault */
			if (la->la_difo != NULL &&
			    !ecb_const_difo(la->la_difo) &&
			    !ecb_sval_make(la->la_difo, &tmp))
				return;
			continue;
		}
		if (sa->es_nrecs == ECB_SIMPLE_RECS || la->la_rec_isstr ||
		    (la->la_difo->do_rtype.dtdt_flags & DIF_TF_BYREF) != 0 ||
		    (la->la_rec_size != 1 && la->la_rec_size != 2 &&
		    la->la_rec_size != 4 && la->la_rec_size != 8) ||
		    la->la_rec_off + (uint64_t)la->la_rec_size > le->le_size)
			return;
		sv = &sa->es_rec[sa->es_nrecs];
		if (la->la_difo->do_textlen == 1 &&
		    la->la_difo->do_text[0] == (uint32_t)DIF_OP_RET << 24) {
			/* "ret %r0": the 0 printf("x") records for its format */
			sv->sv_var = 0;
			sv->sv_k = 0;
		} else if (!ecb_sval_make(la->la_difo, sv))
			return;
		sv->sv_off = la->la_rec_off;
		sv->sv_size = la->la_rec_size;
		sa->es_nrecs++;
		for (b = 0; b < la->la_rec_size; b++)
			if (seen[la->la_rec_off + b]++ == 0)
				covered++;
	}
	sa->es_recsize = le->le_size;
	sa->es_cover = covered == le->le_size;
	sa->es_haspred = le->le_pred != NULL;
	sa->es_ok = ECB_SKIND_REC;
}

/* A string key (ecb_simple_make()'s switch): not a DOF_ROLE_* bit. */
#define ECB_ROLE_STR	0x100

/* "ldgs execname, %rN; ret %rN".  Setup context. */
static int
ecb_execname_difo(const struct dif_object *d)
{
	uint32_t i0;

	if (d == NULL || d->do_textlen != 2)
		return 0;
	i0 = d->do_text[0];
	return DIF_INSTR_OP(i0) == DIF_OP_LDGS &&
	    DIF_INSTR_VAR(i0) == DIF_VAR_EXECNAME &&
	    d->do_text[1] == (((uint32_t)DIF_OP_RET << 24) | DIF_INSTR_RD(i0));
}

/* Bytes of the name dif_ldgs() makes for execname.  Setup context. */
static uint32_t
ecb_execname_size(const struct dof_enabling *den)
{
	return den->den_strsize < ECB_EXECNAME_MAX ? den->den_strsize :
	    ECB_EXECNAME_MAX;
}

/*
 * Setup context: is ECB "i" of "den" a simple aggregation or a simple
 * record (ecb.h)?  Fills "sa".  "fp" is its predicate's
 * dif_fastpred_make() result (unused without a predicate), "commits"
 * whether the enabling has commit()/discard().
 */
static void
ecb_simple_make(const struct dof_enabling *den, uint32_t i,
    const struct dif_fastpred *fp, uint32_t commits, struct ecb_simple *sa)
{
	const struct dof_lecb *le = &den->den_ecbs[i];
	const struct dof_laction *la;
	struct ecb_sval *sv;
	uint32_t a;

	sa->es_ok = 0;
	if (commits || (le->le_pred != NULL && !ecb_gate_pred(fp)))
		return;
	if (le->le_size != 0 || le->le_nacts == 0 ||
	    le->le_acts[0].la_role == DOF_ROLE_REC) {
		ecb_simple_rec_make(le, sa);
		return;
	}
	if (le->le_nacts < 2)
		return;
	for (a = 0; a < le->le_nacts; a++) {
		la = &le->le_acts[a];
		switch (la->la_role | (la->la_role == DOF_ROLE_AGGKEY &&
		    la->la_rec_isstr ? ECB_ROLE_STR : 0)) {
		case DOF_ROLE_AGGVAR:
			if (a != 0 || !ecb_const_difo(la->la_difo) ||
			    la->la_aggid < 1 || la->la_aggid > den->den_naggs)
				return;
			sa->es_ag = &den->den_aggs[la->la_aggid - 1];
			break;
		case DOF_ROLE_AGGKEY:
			if (sa->es_ag == NULL || la->la_difo == NULL ||
			    sa->es_nkeys == ECB_SIMPLE_KEYS ||
			    la->la_kind == DTRACEACT_STACK ||
			    la->la_kind == DTRACEACT_USTACK ||
			    la->la_kind == DTRACEACT_JSTACK ||
			    la->la_rec_isstr ||
			    (la->la_difo->do_rtype.dtdt_flags &
			    DIF_TF_BYREF) != 0 ||
			    (la->la_rec_size != 1 && la->la_rec_size != 2 &&
			    la->la_rec_size != 4 && la->la_rec_size != 8) ||
			    la->la_rec_off + (uint64_t)la->la_rec_size >
			    sa->es_ag->ag_keysize)
				return;
			sv = &sa->es_key[sa->es_nkeys];
			if (!ecb_sval_make(la->la_difo, sv))
				return;
			sv->sv_off = la->la_rec_off;
			sv->sv_size = la->la_rec_size;
			sa->es_nkeys++;
			break;
		case DOF_ROLE_AGGKEY | ECB_ROLE_STR:
			/* execname (ECB_EXECNAME_MAX above) */
			if (sa->es_ag == NULL || la->la_difo == NULL ||
			    sa->es_nkeys == ECB_SIMPLE_KEYS ||
			    !ecb_execname_difo(la->la_difo) ||
			    den->den_strsize == 0 ||
			    sa->es_ag->ag_keysize <= 8 ||
			    la->la_rec_size < ecb_execname_size(den) ||
			    la->la_rec_off + (uint64_t)la->la_rec_size >
			    sa->es_ag->ag_keysize)
				return;
			sv = &sa->es_key[sa->es_nkeys];
			sv->sv_var = DIF_VAR_EXECNAME;
			sv->sv_off = la->la_rec_off;
			sv->sv_size = ecb_execname_size(den);
			sa->es_nkeys++;
			sa->es_strkey = 1;
			break;
		case DOF_ROLE_AGGARG:
			if (sa->es_ag == NULL || sa->es_hasarg ||
			    !ecb_sval_make(la->la_difo, &sa->es_arg))
				return;
			sa->es_hasarg = 1;
			break;
		case DOF_ROLE_AGG:
			if (sa->es_ag == NULL || a != le->le_nacts - 1 ||
			    la->la_aggid != sa->es_ag->ag_id ||
			    la->la_aggid < 1 || la->la_aggid > den->den_naggs ||
			    &den->den_aggs[la->la_aggid - 1] != sa->es_ag)
				return;
			sa->es_hasval = la->la_difo != NULL;
			if (sa->es_hasval &&
			    !ecb_sval_make(la->la_difo, &sa->es_val))
				return;
			break;
		default:
			return;
		}
	}
	/* every key of the aggregation, each once, in its place */
	if (sa->es_ag == NULL || sa->es_nkeys != sa->es_ag->ag_nkeys)
		return;
	sa->es_haspred = le->le_pred != NULL;
	sa->es_plain = sa->es_nkeys == 0 && !sa->es_hasarg && !sa->es_hasval;
	sa->es_ok = ECB_SKIND_AGG;
}

/* An action of "den" is commit() or discard().  Setup context. */
static uint32_t
ecb_den_commits(const struct dof_enabling *den)
{
	uint32_t i, a;

	for (i = 0; i < den->den_necbs; i++)
		for (a = 0; a < den->den_ecbs[i].le_nacts; a++)
			if (den->den_ecbs[i].le_acts[a].la_kind ==
			    DTRACEACT_COMMIT ||
			    den->den_ecbs[i].le_acts[a].la_kind ==
			    DTRACEACT_DISCARD)
				return 1;
	return 0;
}

/* Setup context (ecb.h). */
int
ecb_simple_ecb(const struct dof_enabling *den, uint32_t i)
{
	struct dif_fastpred fp;
	struct ecb_simple sa;

	if (i >= den->den_necbs)
		return 0;
	memset(&fp, 0, sizeof (fp));
	memset(&sa, 0, sizeof (sa));
	if (den->den_ecbs[i].le_pred != NULL)
		dif_fastpred_make(den->den_ecbs[i].le_pred, &fp);
	ecb_simple_make(den, i, &fp, ecb_den_commits(den), &sa);
	return (int)sa.es_ok;
}

/* ECB "le" has an aggregating action of "ag".  Setup context. */
static int
ecb_uses_agg(const struct dof_lecb *le, const struct dof_agg *ag)
{
	uint32_t a;

	for (a = 0; a < le->le_nacts; a++)
		if (le->le_acts[a].la_role != DOF_ROLE_REC &&
		    le->le_acts[a].la_aggid == ag->ag_id)
			return 1;
	return 0;
}

/*
 * es_sig of the simple ECBs with an execname key of aggregation "ag":
 * when every ECB that updates "ag" is a simple aggregation, every key of
 * it -- built from zeros, integers of sv_size bytes and execname's
 * ECB_EXECNAME_MAX-limited name -- is zero past the end of its furthest
 * value, so every entry of "ag" in a buffer of this enabling is too
 * (agg_update_sig(): only those bytes are compared and hashed one by
 * one).  Otherwise the whole key.  Rounded up to 8.  Setup context.
 */
static uint32_t
ecb_simple_sig(const struct dof_enabling *den, const struct ecb_simple *sv,
    const struct dof_agg *ag)
{
	uint32_t i, k, end, sig = 0;

	for (i = 0; i < den->den_necbs; i++) {
		if (!ecb_uses_agg(&den->den_ecbs[i], ag))
			continue;
		if (sv[i].es_ok != ECB_SKIND_AGG || sv[i].es_ag != ag)
			return ag->ag_keysize;
		for (k = 0; k < sv[i].es_nkeys; k++) {
			end = sv[i].es_key[k].sv_off + sv[i].es_key[k].sv_size;
			if (end > sig)
				sig = end;
		}
	}
	sig = (sig + 7) & ~7u;
	return sig < ag->ag_keysize ? sig : ag->ag_keysize;
}

/*
 * es_rezero of es_strkey ECB "i": the simple key after ec_key (ecb.h)
 * is all zeros until an es_strkey ECB writes its values there, each of
 * them whole (kenv_execname() fills its sv_size bytes, integers theirs).  When every es_strkey ECB of the
 * enabling has the same key layout, each firing overwrites exactly the
 * bytes the previous one wrote and every other byte stays zero: nothing
 * to clear.  Otherwise ECB "i" clears its values after use.  Setup
 * context.
 */
static uint32_t
ecb_simple_rezero(const struct dof_enabling *den, const struct ecb_simple *sv,
    uint32_t i)
{
	uint32_t j, k;

	for (j = 0; j < den->den_necbs; j++) {
		if (!sv[j].es_strkey)
			continue;
		if (sv[j].es_nkeys != sv[i].es_nkeys)
			return 1;
		for (k = 0; k < sv[i].es_nkeys; k++)
			if (sv[j].es_key[k].sv_off != sv[i].es_key[k].sv_off ||
			    sv[j].es_key[k].sv_size != sv[i].es_key[k].sv_size)
				return 1;
	}
	return 0;
}

/* Setup context (allocates). */
int
ecb_create(const struct dof_enabling *den, const struct ecb_params *p,
    struct ecb_state **out, struct kdt_err *err)
{
	struct ecb_state *es;
	uint32_t cpu;
	int rv;

	*out = NULL;
	es = kenv_zalloc(sizeof (*es));
	if (es == NULL)
		return ecb_nomem(err, "the ECB runner", sizeof (*es));
	es->es_den = den;
	es->es_ncpu = p->ep_ncpu;
	es->es_policy = p->ep_policy;
	es->es_destructive = p->ep_destructive;
	es->es_scratch_size = p->ep_scratch;
	es->es_state = ECB_ST_WARMUP;
	es->es_commits = ecb_den_commits(den);
	es->es_fastpred = kenv_zalloc((uint64_t)(den->den_necbs + 1) *
	    sizeof (*es->es_fastpred));
	if (es->es_fastpred == NULL) {
		rv = ecb_nomem(err, "predicate fast paths",
		    (uint64_t)(den->den_necbs + 1) * sizeof (*es->es_fastpred));
		goto fail;
	}
	for (cpu = 0; cpu < den->den_necbs; cpu++)
		if (den->den_ecbs[cpu].le_pred != NULL)
			dif_fastpred_make(den->den_ecbs[cpu].le_pred,
			    &es->es_fastpred[cpu]);
	if ((rv = ecb_scan(es, p, err)) != 0 ||
	    (rv = ecb_vstate(es, p, err)) != 0 ||
	    (rv = spec_create(&es->es_spec, p->ep_nspec, p->ep_ncpu,
	    p->ep_specsize, err)) != 0)
		goto fail;
	es->es_simple = kenv_zalloc((uint64_t)(den->den_necbs + 1) *
	    sizeof (*es->es_simple));
	if (es->es_simple == NULL) {
		rv = ecb_nomem(err, "aggregation fast paths",
		    (uint64_t)(den->den_necbs + 1) * sizeof (*es->es_simple));
		goto fail;
	}
	for (cpu = 0; cpu < den->den_necbs; cpu++)
		ecb_simple_make(den, cpu, &es->es_fastpred[cpu],
		    es->es_commits, &es->es_simple[cpu]);
	for (cpu = 0; cpu < den->den_necbs; cpu++)
		if (es->es_simple[cpu].es_strkey) {
			es->es_simple[cpu].es_sig = ecb_simple_sig(den,
			    es->es_simple, es->es_simple[cpu].es_ag);
			es->es_simple[cpu].es_rezero = (uint16_t)
			    ecb_simple_rezero(den, es->es_simple, cpu);
		}
	/* after every es_rezero: ecb_simple_rezero() tests es_strkey != 0 */
	for (cpu = 0; cpu < den->den_necbs; cpu++)
		if (es->es_simple[cpu].es_strkey &&
		    !es->es_simple[cpu].es_rezero &&
		    es->es_simple[cpu].es_nkeys == 1 &&
		    es->es_simple[cpu].es_key[0].sv_var == DIF_VAR_EXECNAME)
			es->es_simple[cpu].es_strkey = ECB_STRKEY_ONLY;
	es->es_cpus = kenv_zalloc((uint64_t)p->ep_ncpu * sizeof (*es->es_cpus));
	if (es->es_cpus == NULL) {
		rv = ecb_nomem(err, "per-CPU runner state",
		    (uint64_t)p->ep_ncpu * sizeof (*es->es_cpus));
		goto fail;
	}
	for (cpu = 0; cpu < p->ep_ncpu; cpu++)
		if ((rv = ecb_cpu_alloc(es, &es->es_cpus[cpu], cpu, p,
		    err)) != 0)
			goto fail;
	*out = es;
	return 0;
fail:
	ecb_destroy(es);
	return rv;
}

static void
ecb_free(void *p)
{
	if (p != NULL)
		kenv_free(p);
}

/* Setup context. */
void
ecb_destroy(struct ecb_state *es)
{
	struct ecb_cpu *ec;
	uint32_t cpu;

	if (es == NULL)
		return;
	for (cpu = 0; es->es_cpus != NULL && cpu < es->es_ncpu; cpu++) {
		ec = &es->es_cpus[cpu];
		ecb_free(ec->ec_scratch);
		ecb_free(ec->ec_stage);
		ecb_free(ec->ec_key);
		ecb_free(ec->ec_locals);
		ecb_free(ec->ec_strtok.ts_buf);
		ecb_free(ec->ec_agg_own);
	}
	ecb_free(es->es_cpus);
	ecb_free(es->es_fastpred);
	ecb_free(es->es_simple);
	spec_destroy(es->es_spec);
	ecb_free(es->es_varea);
	kenv_free(es);
}

/* Setup context. */
void
ecb_set_region(struct ecb_state *es, void *base)
{
	uint32_t cpu;

	for (cpu = 0; cpu < es->es_ncpu; cpu++)
		es->es_cpus[cpu].ec_rc = rgn_cpu(base, cpu);
}

/* Setup context. */
void
ecb_set_aggbufs(struct ecb_state *es, void *base)
{
	struct ecb_cpu *ec;
	struct agg_buf *ab;
	uint32_t cpu;

	for (cpu = 0; cpu < es->es_ncpu; cpu++) {
		ec = &es->es_cpus[cpu];
		if (ec->ec_agg == NULL || (ab = rgn_agg(base, cpu)) == NULL)
			continue;
		ecb_free(ec->ec_agg_own);
		ec->ec_agg_own = NULL;
		ec->ec_agg = ab;
	}
}

/* Setup context. */
void
ecb_set_error_probe(struct ecb_state *es, const struct ecb_probe *ep)
{
	es->es_error = ep;
}

/* Any context. */
void
ecb_set_state(struct ecb_state *es, uint32_t state)
{
	KENV_WRITE_ONCE(es->es_state, state);
}

/*
 * The store counts every dropped store (the per-CPU ec_dyndrops count
 * the same drops by CPU), so the total is the store's.  Any context.
 */
uint64_t
ecb_dyndrops(const struct ecb_state *es)
{
	return dif_vstate_drops(&es->es_vstate);
}

/* ---- probe context ---- */

/* What one ECB's run is doing; lives on the stack of ecb_run_ecb. */
struct ecb_run {
	struct ecb_cpu	*er_ec;
	const struct dof_lecb *er_le;
	struct dif_mstate er_ms;	/* only through ecb_ms() */
	uint32_t	er_ms_ready;	/* er_ms set up for this ECB */
	struct dif_probe_ctx *er_ctx;
	int64_t		er_incr;	/* AGGARG value for the next AGG */
	uint32_t	er_has_incr;
	uint32_t	er_spec;	/* speculate(): target id, 0 none */
	uint32_t	er_specd;	/* a speculate() action ran */
	uint32_t	er_npend;
	uint32_t	er_pend_id[ECB_MAX_PENDING];
	uint32_t	er_pend_kind[ECB_MAX_PENDING];
	uint32_t	er_fault_act;	/* 0 = predicate, n = action #n */
	uint32_t	er_fault_code;	/* set when not a DIF fault */
	uint64_t	er_fault_addr;
	uint32_t	er_panic;	/* panic() ran: after the record */
};

/* speculation(): the dm_speculation hook.  Probe context. */
static uint32_t
ecb_speculation(void *arg)
{
	struct ecb_cpu *ec = arg;

	return spec_alloc(ec->ec_es->es_spec, &ec->ec_spec);
}

/*
 * The firing's timestamp, taken when first needed (a record, a
 * speculation, the timestamp variable): most firings of a selective probe
 * record nothing, and reading the clock was 5 % of such a firing.
 * Probe context.
 */
static uint64_t
ecb_ts(struct dif_probe_ctx *ctx)
{
	if (ctx->pc_timestamp == 0)
		ctx->pc_timestamp = kenv_timestamp();
	return ctx->pc_timestamp;
}

/* Probe context: no locks, no allocation, no sleeping. */
static void
ecb_mstate_reset(struct ecb_run *r)
{
	struct ecb_cpu *ec = r->er_ec;
	struct ecb_state *es = ec->ec_es;
	struct dif_mstate *ms = &r->er_ms;

	/*
	 * Every field, one by one: this runs once per ECB per firing, and a
	 * memset of the whole structure cost more than the assignments
	 * (bench/run-probe-cost's step profile).  A field added to struct
	 * dif_mstate must be set here.
	 */
	ms->dm_scratch = ec->ec_scratch;
	ms->dm_scratch_size = es->es_scratch_size;
	ms->dm_scratch_used = 0;
	ms->dm_strsize = es->es_den->den_strsize;
	ms->dm_fault = 0;
	ms->dm_faulted = 0;
	ms->dm_fault_addr = 0;
	ms->dm_fault_pc = 0;
	ms->dm_vstate = &es->es_vstate;
	ms->dm_locals = ec->ec_locals;
	ms->dm_nlocals = dif_vstate_nlocals(&es->es_vstate);
	ms->dm_destructive = es->es_destructive;
	ms->dm_speculation = ecb_speculation;
	ms->dm_spec_arg = ec;
	ms->dm_strtok = &ec->ec_strtok;
	ms->dm_dyndrops = 0;
}

/*
 * The DIF machine state, set up on first use in this ECB's run: a clause
 * whose DIF is all fast shapes (dif_vm.h) never needs it, and setting it
 * up was ~10 % of a count() firing.  Probe context.
 */
static struct dif_mstate *
ecb_ms(struct ecb_run *r)
{
	if (!r->er_ms_ready) {
		ecb_mstate_reset(r);
		r->er_ms_ready = 1;
	}
	return &r->er_ms;
}

/* Store an integer of "size" bytes (1, 2, 4, 8) in native order. */
static void
ecb_store_int(uint8_t *dst, uint64_t v, uint32_t size)
{
	uint8_t v1 = (uint8_t)v;
	uint16_t v2 = (uint16_t)v;
	uint32_t v4 = (uint32_t)v;

	if (size == 1)
		memcpy(dst, &v1, 1);
	else if (size == 2)
		memcpy(dst, &v2, 2);
	else if (size == 4)
		memcpy(dst, &v4, 4);
	else
		memcpy(dst, &v, 8);
}

/*
 * Evaluate the action's DIF object (none: value 0) and keep the dynamic
 * variable drops it caused.  -EFAULT on a fault.  Probe context.
 */
static int
ecb_eval(struct ecb_run *r, const struct dof_laction *la, uint64_t *v)
{
	struct dif_mstate *ms;

	*v = 0;
	if (la->la_difo == NULL ||
	    dif_fast_eval(la->la_difo, r->er_ctx, v))
		return 0;
	ms = ecb_ms(r);
	*v = dif_emulate(la->la_difo, ms, r->er_ctx);
	r->er_ec->ec_dyndrops += ms->dm_dyndrops;
	ms->dm_dyndrops = 0;
	return ms->dm_faulted ? -EFAULT : 0;
}

/* usym(), umod() and uaddr(): records of (pid, address), 16 bytes. */
static int
ecb_is_uaddr(uint32_t kind)
{
	return kind == DTRACEACT_USYM || kind == DTRACEACT_UMOD ||
	    kind == DTRACEACT_UADDR;
}

/*
 * Put value "v" of action "la" at "dst": integers by size, strings and
 * other by-reference data copied.  -EFAULT when the data is unreadable
 * (the fault is recorded in the machine state).  Probe context.
 */
static int
ecb_put_val(struct ecb_run *r, const struct dof_laction *la, uint64_t v,
    uint8_t *dst)
{
	struct dif_mstate *ms;
	uint32_t size = la->la_rec_size;
	int byref;

	if (size == 0 || la->la_difo == NULL)
		return 0;	/* no data, or zeroes (staging is cleared) */
	if (la->la_kind == DTRACEACT_EXIT) {
		ecb_store_int(dst, v, 4);
		return 0;
	}
	if (ecb_is_uaddr(la->la_kind) && size >= 16) {
		/* (pid, address): the consumer names it in that process */
		ecb_store_int(dst, kenv_pid(), 8);
		ecb_store_int(dst + 8, v, 8);
		return 0;
	}
	byref = la->la_rec_isstr ||
	    (la->la_difo->do_rtype.dtdt_flags & DIF_TF_BYREF) != 0;
	if (!byref && (size == 1 || size == 2 || size == 4 || size == 8)) {
		ecb_store_int(dst, v, size);
		return 0;
	}
	ms = ecb_ms(r);
	if (dif_copy_result(la->la_difo, ms, v, dst, size,
	    la->la_rec_isstr) == 0)
		return 0;
	if (!ms->dm_faulted) {
		ms->dm_faulted = 1;
		ms->dm_fault = DTRACEFLT_BADADDR;
		ms->dm_fault_addr = v;
		ms->dm_fault_pc = la->la_difo->do_textlen - 1;
	}
	return -EFAULT;
}

/* A fault that is not the DIF machine's (e.g. a bad speculation id). */
static int
ecb_fault(struct ecb_run *r, uint32_t code, uint64_t addr)
{
	r->er_fault_code = code;
	r->er_fault_addr = addr;
	return -EFAULT;
}

/* commit()/discard(): remember for after the record.  Probe context. */
static int
ecb_pend_spec(struct ecb_run *r, uint32_t kind, uint64_t id)
{
	struct ecb_state *es = r->er_ec->ec_es;

	if (id > es->es_spec->ss_nspec)
		return ecb_fault(r, DTRACEFLT_ILLOP, id);
	if (r->er_npend < ECB_MAX_PENDING) {
		r->er_pend_id[r->er_npend] = (uint32_t)id;
		r->er_pend_kind[r->er_npend++] = kind;
	}
	return 0;
}

/*
 * stack(), ustack() and jstack() records (or keys) at "dst": frames from
 * the environment, the rest of the record zero (the consumer stops at the
 * first zero frame).  ustack() and jstack() (ustack's layout; Linux has
 * no Java frame annotations) start with the pid.  Probe context.
 */
static void
ecb_put_stack(const struct dof_laction *la, uint8_t *dst)
{
	uint64_t *w = (uint64_t *)dst, pid = 0;
	uint32_t n;

	memset(dst, 0, la->la_rec_size);
	if (((uintptr_t)dst & 7) != 0)
		return;	/* dof_load aligns frame records; never here */
	if (la->la_kind == DTRACEACT_STACK) {
		(void) kenv_stack(w, la->la_rec_size / 8);
		return;
	}
	n = (uint32_t)(la->la_arg & 0xffffffffu);
	if ((uint64_t)(n + 1) * 8 > la->la_rec_size)
		return;
	(void) kenv_ustack(w + 1, n, &pid);
	w[0] = pid;
}

/* panic(): say which probe and ECB, then the environment panics. */
static void
ecb_panic(struct ecb_run *r)
{
	const struct dif_probe_ctx *c = r->er_ctx;
	char msg[DOF_PROVNAMELEN + DOF_MODNAMELEN + DOF_FUNCNAMELEN +
	    DOF_NAMELEN + 64];

	(void) snprintf(msg, sizeof (msg),
	    "kdt: panic action at probe %s:%s:%s:%s (EPID %u)", c->pc_prov,
	    c->pc_mod, c->pc_func, c->pc_name, c->pc_epid);
	kenv_panic(msg);
}

/* The data-recording actions and their side effects.  Probe context. */
static int
ecb_act_rec(struct ecb_run *r, const struct dof_laction *la, uint64_t v)
{
	struct ecb_state *es = r->er_ec->ec_es;

	switch (la->la_kind) {
	case DTRACEACT_STACK:
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
		ecb_put_stack(la, r->er_ec->ec_stage + la->la_rec_off);
		return 0;
	case DTRACEACT_PANIC:
		/*
		 * Later, once the clause's record is committed: the records
		 * that led to the panic are what the dump is for.  (dtrace
		 * panics on the spot and loses the clause's own data.)
		 */
		if (es->es_destructive)
			r->er_panic = 1;
		break;
	case DTRACEACT_RAISE:
		/* a bad number is an illegal operation, as in dtrace */
		if (v < 1 || v > ECB_SIG_MAX)
			return ecb_fault(r, DTRACEFLT_ILLOP, v);
		if (es->es_destructive && kenv_signal((uint32_t)v, 0) != 0)
			r->er_ec->ec_sigdrops++;
		break;
	case DTRACEACT_STOP:
		if (es->es_destructive && kenv_signal(0, 1) != 0)
			r->er_ec->ec_sigdrops++;
		break;
	case DTRACEACT_EXIT:
		es->es_status = (int32_t)v;
		es->es_exited = 1;
		if (es->es_state == ECB_ST_ACTIVE ||
		    es->es_state == ECB_ST_WARMUP)
			ecb_set_state(es, ECB_ST_DRAINING);
		break;
	case DTRACEACT_CHILL:
		/* One chill() may not hold the CPU longer than this. */
		if (v > ECB_CHILL_MAX)
			return ecb_fault(r, DTRACEFLT_ILLOP, v);
		kenv_delay_ns(v);
		break;
	case DTRACEACT_SPECULATE:
		if (spec_check(es->es_spec, v) < 0)
			return ecb_fault(r, DTRACEFLT_ILLOP, v);
		r->er_spec = (uint32_t)v;
		r->er_specd = 1;
		break;
	case DTRACEACT_COMMIT:
	case DTRACEACT_DISCARD:
		if (ecb_pend_spec(r, la->la_kind, v) != 0)
			return -EFAULT;
		break;
	default:
		break;
	}
	return ecb_put_val(r, la, v, r->er_ec->ec_stage + la->la_rec_off);
}

/* An aggregating action: update this CPU's buffer.  Probe context. */
static void
ecb_act_agg(struct ecb_run *r, const struct dof_laction *la, uint64_t v)
{
	const struct dof_enabling *den = r->er_ec->ec_es->es_den;
	struct ecb_cpu *ec = r->er_ec;
	int64_t incr = r->er_has_incr ? r->er_incr : 1;

	if (la->la_difo == NULL)
		v = 1;	/* count() */
	if (ec->ec_agg != NULL && la->la_aggid >= 1 &&
	    la->la_aggid <= den->den_naggs)
		(void) agg_update(ec->ec_agg, &den->den_aggs[la->la_aggid - 1],
		    ec->ec_key, (int64_t)v, incr);
	r->er_has_incr = 0;
}


/* Run action "i" by its role.  0 or -EFAULT.  Probe context. */
static int
ecb_run_act(struct ecb_run *r, uint32_t i)
{
	const struct dof_laction *la = &r->er_le->le_acts[i];
	const struct dof_enabling *den = r->er_ec->ec_es->es_den;
	struct ecb_cpu *ec = r->er_ec;
	uint32_t ks;
	uint64_t v;

	r->er_fault_act = i + 1;
	if (la->la_role == DOF_ROLE_AGGVAR) {
		/*
		 * The tuple's first action names the aggregation; its value
		 * is not used (la_aggid says which), so it is not evaluated
		 * when it is the compiler's constant (anything else still
		 * runs, for its faults).  Only this aggregation's key bytes
		 * are cleared: agg_update() reads ag_keysize of them.
		 */
		if (!ecb_const_difo(la->la_difo) && ecb_eval(r, la, &v) != 0)
			return -EFAULT;
		ks = la->la_aggid >= 1 && la->la_aggid <= den->den_naggs ?
		    den->den_aggs[la->la_aggid - 1].ag_keysize :
		    ec->ec_es->es_key_size;
		if (ks != 0)
			memset(ec->ec_key, 0, ks);
		r->er_has_incr = 0;
		return 0;
	}
	if (ecb_eval(r, la, &v) != 0)
		return -EFAULT;
	switch (la->la_role) {
	case DOF_ROLE_AGGKEY:
		if (la->la_rec_off + (uint64_t)la->la_rec_size >
		    ec->ec_es->es_key_size)
			return 0;	/* dof_load keeps keys in ag_keysize */
		if (la->la_kind == DTRACEACT_STACK ||
		    la->la_kind == DTRACEACT_USTACK ||
		    la->la_kind == DTRACEACT_JSTACK) {
			ecb_put_stack(la, ec->ec_key + la->la_rec_off);
			return 0;
		}
		return ecb_put_val(r, la, v, ec->ec_key + la->la_rec_off);
	case DOF_ROLE_AGGARG:
		r->er_incr = (int64_t)v;
		r->er_has_incr = 1;
		return 0;
	case DOF_ROLE_AGG:
		ecb_act_agg(r, la, v);
		return 0;
	default:
		return ecb_act_rec(r, la, v);
	}
}

/*
 * Write the staged record: to the principal buffer, or to a speculation
 * after speculate() (id 0 or an inactive id drops it silently).
 * Probe context.
 */
static void
ecb_emit(struct ecb_run *r, uint32_t epid)
{
	struct ecb_cpu *ec = r->er_ec;
	struct ecb_state *es = ec->ec_es;
	const struct dof_lecb *le = r->er_le;
	struct rgn_rec *rec;

	if (le->le_size == 0 && le->le_nacts != 0)
		return;	/* actions that record nothing: no record */
	if (r->er_specd) {
		if (r->er_spec != 0)
			(void) spec_put(es->es_spec, r->er_spec, ec->ec_cpu,
			    epid, ecb_ts(r->er_ctx), ec->ec_stage,
			    le->le_size, &ec->ec_spec);
		return;
	}
	if (ec->ec_rc == NULL)
		return;
	rec = rgn_reserve(ec->ec_rc, es->es_policy, le->le_size);
	if (rec == NULL)
		return;
	memcpy(rec + 1, ec->ec_stage, le->le_size);
	rgn_commit(ec->ec_rc, rec, epid, ecb_ts(r->er_ctx));
}

/* commit()/discard() calls of the clause, after its record.  Probe ctx. */
static void
ecb_do_pending(struct ecb_run *r)
{
	struct ecb_cpu *ec = r->er_ec;
	struct ecb_state *es = ec->ec_es;
	uint32_t i;

	for (i = 0; i < r->er_npend; i++) {
		if (r->er_pend_kind[i] == DTRACEACT_COMMIT)
			spec_commit(es->es_spec, r->er_pend_id[i], ec->ec_cpu,
			    ec->ec_rc, es->es_policy, ecb_ts(r->er_ctx));
		else
			spec_discard(es->es_spec, r->er_pend_id[i],
			    ec->ec_cpu);
	}
}

static void ecb_error(struct ecb_cpu *ec, struct ecb_run *r, uint32_t epid);

/* Run one ECB: predicate, actions, record.  Probe context. */
static void
ecb_run_ecb(struct ecb_cpu *ec, const struct ecb_ref *ref,
    struct dif_probe_ctx *ctx)
{
	const struct dof_enabling *den = ec->ec_es->es_den;
	const struct dif_fastpred *fp;
	struct ecb_run r KENV_NOINIT;	/* set field by field below */
	uint64_t v;
	uint32_t i;

	if (ref->er_ecb >= den->den_necbs)
		return;
	/* field by field, as ecb_mstate_reset(); er_pend_* beyond er_npend
	   are never read */
	r.er_ec = ec;
	r.er_le = &den->den_ecbs[ref->er_ecb];
	r.er_ctx = ctx;
	r.er_incr = 0;
	r.er_has_incr = 0;
	r.er_spec = 0;
	r.er_specd = 0;
	r.er_npend = 0;
	r.er_fault_act = 0;
	r.er_fault_code = 0;
	r.er_fault_addr = 0;
	r.er_panic = 0;
	r.er_ms_ready = 0;
	ctx->pc_epid = ref->er_epid;
	if (r.er_le->le_pred == NULL) {
		;
	} else if ((fp = &ec->ec_es->es_fastpred[ref->er_ecb])->fp_ok) {
		/* "/VAR op K/" (dif_vm.h): no interpreter, cannot fault */
		if (dif_fastpred_eval(fp, ctx) == 0)
			return;
	} else {
		v = dif_emulate(r.er_le->le_pred, ecb_ms(&r), ctx);
		ec->ec_dyndrops += r.er_ms.dm_dyndrops;
		if (r.er_ms.dm_faulted) {
			ecb_error(ec, &r, ref->er_epid);
			return;
		}
		if (v == 0)
			return;
	}
	if (r.er_le->le_size != 0)	/* a call to memset is not free */
		memset(ec->ec_stage, 0, r.er_le->le_size);
	for (i = 0; i < r.er_le->le_nacts; i++) {
		if (ecb_run_act(&r, i) != 0) {
			ecb_error(ec, &r, ref->er_epid);
			return;
		}
	}
	ecb_emit(&r, ref->er_epid);
	ecb_do_pending(&r);
	if (r.er_panic)
		ecb_panic(&r);
}

/* May probe "ep" run in the enabling's state?  Probe context. */
static int
ecb_may_run(const struct ecb_state *es, const struct ecb_probe *ep)
{
	uint32_t st = KENV_READ_ONCE(es->es_state);

	switch (st) {
	case ECB_ST_WARMUP:
	case ECB_ST_ACTIVE:
		return 1;
	case ECB_ST_DRAINING:
	case ECB_ST_COOLDOWN:
		return ep->ep_kind == ECB_PK_END || ep->ep_kind == ECB_PK_ERROR;
	default:
		return 0;
	}
}

/*
 * Run every ECB of "ep" with a filled context, each only if the
 * enabling's state still allows it (exit() in one BEGIN ECB skips the
 * later ones).  Probe context.
 */
static void
ecb_run_probe(struct ecb_cpu *ec, const struct ecb_probe *ep,
    struct dif_probe_ctx *ctx)
{
	uint32_t i;

	for (i = 0; i < ep->ep_necbs; i++)
		if (ecb_may_run(ec->ec_es, ep))
			ecb_run_ecb(ec, &ep->ep_ecbs[i], ctx);
}

static void
ecb_fill_ctx(struct dif_probe_ctx *ctx, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, uint64_t ts)
{
	uint32_t i;

	/* field by field (per firing; see ecb_mstate_reset) */
	ctx->pc_id = ep->ep_id;
	ctx->pc_epid = 0;
	ctx->pc_errno = 0;
	ctx->pc_caller = 0;
	ctx->pc_stackdepth = 0;
	ctx->pc_ustackdepth = 0;
	ctx->pc_ucaller = 0;
	ctx->pc_prov = ep->ep_prov;
	ctx->pc_mod = ep->ep_mod;
	ctx->pc_func = ep->ep_func;
	ctx->pc_name = ep->ep_name;
	ctx->pc_timestamp = ts;
	ctx->pc_cpu = cpu;
	if (args != NULL)
		for (i = 0; i < DIF_NARGS; i++)
			ctx->pc_args[i] = args[i];
	else
		for (i = 0; i < DIF_NARGS; i++)
			ctx->pc_args[i] = 0;
}

/*
 * A fault in ECB "epid": count it, write the error record and fire the
 * ERROR probe -- unless we are already inside an ERROR ECB, where it only
 * counts.  Probe context: no locks, no allocation, no sleeping.
 */
static void
ecb_error(struct ecb_cpu *ec, struct ecb_run *r, uint32_t epid)
{
	struct ecb_state *es = ec->ec_es;
	struct dif_probe_ctx ctx;
	struct rgn_errrec ee;
	struct rgn_rec *rec;
	uint64_t args[DIF_NARGS];

	if (ec->ec_in_error) {
		ec->ec_dblerrors++;
		return;
	}
	ec->ec_errors++;
	memset(&ee, 0, sizeof (ee));
	ee.ee_epid = epid;
	ee.ee_act = r->er_fault_act;
	if (r->er_fault_code != 0) {
		ee.ee_pc = (uint32_t)-1;
		ee.ee_fault = r->er_fault_code;
		ee.ee_addr = r->er_fault_addr;
	} else {
		ee.ee_pc = ecb_ms(r)->dm_fault_pc;
		ee.ee_fault = r->er_ms.dm_fault;
		ee.ee_addr = r->er_ms.dm_fault_addr;
	}
	if (ec->ec_rc != NULL) {
		KENV_WRITE_ONCE(ec->ec_rc->rc_errors, ec->ec_rc->rc_errors + 1);
		rec = rgn_reserve(ec->ec_rc, es->es_policy, sizeof (ee));
		if (rec != NULL) {
			memcpy(rec + 1, &ee, sizeof (ee));
			rgn_commit(ec->ec_rc, rec, RGN_EPID_ERROR,
			    ecb_ts(r->er_ctx));
		}
	}
	if (es->es_error == NULL || es->es_error->ep_necbs == 0)
		return;
	memset(args, 0, sizeof (args));
	args[1] = epid;
	args[2] = ee.ee_act;
	args[3] = ee.ee_pc == (uint32_t)-1 ? (uint64_t)-1 :
	    (uint64_t)ee.ee_pc * sizeof (uint32_t);
	args[4] = ee.ee_fault;
	args[5] = ee.ee_addr;
	ecb_fill_ctx(&ctx, es->es_error, ec->ec_cpu, args,
	    ecb_ts(r->er_ctx));
	ec->ec_in_error = 1;
	ecb_run_probe(ec, es->es_error, &ctx);
	ec->ec_in_error = 0;
}

/* A variable the gate can read without a context (ecb.h). */
static int
ecb_gate_readable(uint32_t v)
{
	switch (v) {
	case DIF_VAR_PID: case DIF_VAR_TID: case DIF_VAR_UID:
	case DIF_VAR_GID: case DIF_VAR_PPID: case DIF_VAR_CPU:
	case DIF_VAR_ID:
		return 1;
	default:
		return v >= DIF_VAR_ARG0 && v < DIF_VAR_ARG0 + ECB_GATE_NARGS;
	}
}

/* Any context. */
int
ecb_gate_pred(const struct dif_fastpred *fp)
{
	return fp->fp_ok && ecb_gate_readable(fp->fp_var);
}

/* Setup context. */
int
ecb_gate_usable(const struct ecb_state *es, const struct ecb_probe *ep)
{
	uint32_t i;

	if (ep->ep_necbs == 0 || es->es_commits)
		return 0;
	for (i = 0; i < ep->ep_necbs; i++) {
		if (ep->ep_ecbs[i].er_ecb >= es->es_den->den_necbs)
			return 0;
		if (!ecb_gate_pred(&es->es_fastpred[ep->ep_ecbs[i].er_ecb]))
			return 0;
	}
	return 1;
}

/* Setup context. */
const struct dif_fastpred *
ecb_gate_single(const struct ecb_state *es, const struct ecb_probe *ep)
{
	if (ep->ep_necbs != 1 || !ecb_gate_usable(es, ep))
		return NULL;
	return &es->es_fastpred[ep->ep_ecbs[0].er_ecb];
}

/*
 * Probe context.  Read as dif_ldgs() reads it in ecb_fire()'s context:
 * the same kenv_*() calls, pc_id = ep_id, pc_cpu = "cpu".
 */
uint64_t
ecb_gate_var(uint32_t var, const struct ecb_probe *ep, uint32_t cpu)
{
	switch (var) {
	case DIF_VAR_PID: return kenv_pid();
	case DIF_VAR_TID: return kenv_tid();
	case DIF_VAR_UID: return kenv_uid();
	case DIF_VAR_GID: return kenv_gid();
	case DIF_VAR_PPID: return kenv_ppid();
	case DIF_VAR_CPU: return cpu;
	default: return ep->ep_id;		/* DIF_VAR_ID */
	}
}

/* Probe context; pc_args[] = "args". */
int
ecb_gate_open(const struct ecb_state *es, const struct ecb_probe *ep,
    const uint64_t *args, uint32_t cpu)
{
	const struct dif_fastpred *fp;
	uint32_t i, n;
	uint64_t a;

	for (i = 0; i < ep->ep_necbs; i++) {
		fp = &es->es_fastpred[ep->ep_ecbs[i].er_ecb];
		n = fp->fp_var - DIF_VAR_ARG0;
		a = n < ECB_GATE_NARGS ? args[n] :
		    ecb_gate_var(fp->fp_var, ep, cpu);
		if (dif_fastpred_test(fp, a))
			return 1;
	}
	return 0;
}

/*
 * The start of every firing: the probe may run in the enabling's state,
 * and this CPU is not already inside a firing (an NMI in probe context):
 * such a firing is dropped and counted.  The CPU's runner state, now
 * busy, or NULL.  Probe context.
 */
static inline struct ecb_cpu *
ecb_enter(struct ecb_state *es, const struct ecb_probe *ep, uint32_t cpu)
{
	struct ecb_cpu *ec;

	if (cpu >= es->es_ncpu || !ecb_may_run(es, ep))
		return NULL;
	ec = &es->es_cpus[cpu];
	if (ec->ec_busy) {
		if (ec->ec_rc != NULL)
			KENV_WRITE_ONCE(ec->ec_rc->rc_drops,
			    ec->ec_rc->rc_drops + 1);
		return NULL;
	}
	ec->ec_busy = 1;
	return ec;
}

/* ecb.h: all zeros, what a handler passes when no ECB reads an argument */
const uint64_t ecb_simple_noargs[ECB_GATE_NARGS];

/*
 * ecb_simple_usable()'s argument bits for one variable (0, a constant,
 * reads none): ECB_SIMPLE_ARGS for arg0..arg5, with ECB_SIMPLE_ARGHI for
 * arg2..arg5.
 */
static int
ecb_var_argbits(uint32_t var)
{
	if (var == 0 || var - DIF_VAR_ARG0 >= ECB_GATE_NARGS)
		return 0;
	return var - DIF_VAR_ARG0 < 2 ? ECB_SIMPLE_ARGS :
	    ECB_SIMPLE_ARGS | ECB_SIMPLE_ARGHI;
}

/* Setup context. */
int
ecb_simple_usable(const struct ecb_state *es, const struct ecb_probe *ep)
{
	const struct ecb_simple *sa;
	uint32_t i, k, e;
	int rv = ECB_SIMPLE_OK;

	if (ep->ep_necbs == 0)
		return 0;
	for (i = 0; i < ep->ep_necbs; i++) {
		e = ep->ep_ecbs[i].er_ecb;
		if (e >= es->es_den->den_necbs || !es->es_simple[e].es_ok)
			return 0;
		sa = &es->es_simple[e];
		if (es->es_den->den_ecbs[e].le_pred != NULL)
			rv |= ecb_var_argbits(es->es_fastpred[e].fp_var);
		for (k = 0; k < sa->es_nkeys; k++)
			rv |= ecb_var_argbits(sa->es_key[k].sv_var);
		if (sa->es_hasarg)
			rv |= ecb_var_argbits(sa->es_arg.sv_var);
		if (sa->es_hasval)
			rv |= ecb_var_argbits(sa->es_val.sv_var);
		for (k = 0; k < sa->es_nrecs; k++)
			rv |= ecb_var_argbits(sa->es_rec[k].sv_var);
	}
	return rv;
}

/* A simple aggregation's value, read as the DIF would.  Probe context. */
static uint64_t
ecb_sval(const struct ecb_sval *sv, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args)
{
	uint32_t n;

	if (sv->sv_var == 0)
		return sv->sv_k;
	n = sv->sv_var - DIF_VAR_ARG0;
	return n < ECB_GATE_NARGS ? args[n] : ecb_gate_var(sv->sv_var, ep, cpu);
}

/*
 * A simple record (ECB_SKIND_REC): what ecb_run_ecb() and ecb_emit()
 * write for it -- the payload cleared (unless its values fill it) and
 * each value stored as ecb_put_val() stores integers, written straight
 * into the reserved record instead of the staging buffer, then committed
 * with the firing's timestamp ("ts", read once per firing when 0, and
 * returned for the firing's next record).  The
 * bytes past le_size up to the record's 8-byte end are left as
 * rgn_reserve() gave them, as ecb_emit()'s copy leaves them.  Probe
 * context.
 */
static inline uint64_t
ecb_simple_record(struct ecb_cpu *ec, const struct ecb_simple *sa,
    uint32_t epid, const struct ecb_probe *ep, uint32_t cpu,
    const uint64_t *args, uint64_t ts)
{
	const struct ecb_sval *sv;
	struct rgn_rec *rec;
	uint8_t *p;
	uint32_t k;

	if (ec->ec_rc == NULL)
		return ts;
	rec = rgn_reserve(ec->ec_rc, ec->ec_es->es_policy, sa->es_recsize);
	if (rec == NULL)
		return ts;
	p = (uint8_t *)(rec + 1);
	if (!sa->es_cover)
		memset(p, 0, sa->es_recsize);
	for (k = 0; k < sa->es_nrecs; k++) {
		sv = &sa->es_rec[k];
		ecb_store_int(p + sv->sv_off, ecb_sval(sv, ep, cpu, args),
		    sv->sv_size);
	}
	if (ts == 0)
		ts = kenv_timestamp();
	rgn_commit(ec->ec_rc, rec, epid, ts);
	return ts;
}

/* count() without key (es_plain): the zero key, one update.  Probe context. */
static inline void
ecb_count_plain(struct ecb_cpu *ec, const struct ecb_simple *sa)
{
	uint64_t v = 0;

	memcpy(ec->ec_key, &v, 8);	/* one store (es_key_size is >= 8) */
	if (ec->ec_agg != NULL)
		(void) agg_update(ec->ec_agg, sa->es_ag, ec->ec_key, 1, 1);
}

/*
 * ecb_simple_record() out of line, for ecb_fire_simple_all()'s loop:
 * inlined there, it cost the simple aggregations' firings ~10
 * instructions of saved registers.
 */
static __attribute__((__noinline__)) uint64_t
ecb_simple_record_ool(struct ecb_cpu *ec, const struct ecb_simple *sa,
    uint32_t epid, const struct ecb_probe *ep, uint32_t cpu,
    const uint64_t *args, uint64_t ts)
{
	return ecb_simple_record(ec, sa, epid, ep, cpu, args, ts);
}

/* Zero "n" bytes at "p", 8 at a time (no call, no rep stosb). */
static inline void
ecb_zero(uint8_t *p, uint32_t n)
{
	uint64_t z = 0;

	for (; n >= 8; n -= 8, p += 8)
		memcpy(p, &z, 8);
	while (n-- != 0)
		*p++ = 0;
}

/*
 * A simple aggregation with an execname key (es_strkey): the key is
 * built in the es_key_size bytes after ec_key (ecb.h), all zeros between
 * firings -- its values are written, the aggregation updated with
 * agg_update_sig(), and the same bytes cleared again when another
 * layout may follow (es_rezero) -- so a strsize-long key costs its name,
 * not strsize bytes cleared, compared and hashed.  The same key bytes as
 * ecb_run_act() stages in ec_key (ECB_EXECNAME_MAX above).  Out of line,
 * as ecb_simple_record_ool().  Probe context.
 */
static __attribute__((__noinline__)) void
ecb_simple_strkey(struct ecb_cpu *ec, const struct ecb_simple *sa,
    const struct ecb_probe *ep, uint32_t cpu, const uint64_t *args)
{
	const struct ecb_sval *sv;
	uint8_t *key = ec->ec_key + ec->ec_es->es_key_size;
	uint64_t v;
	int64_t incr;
	uint32_t k;

	for (k = 0; k < sa->es_nkeys; k++) {
		sv = &sa->es_key[k];
		if (sv->sv_var == DIF_VAR_EXECNAME)
			kenv_execname((char *)key + sv->sv_off, sv->sv_size);
		else
			ecb_store_int(key + sv->sv_off,
			    ecb_sval(sv, ep, cpu, args), sv->sv_size);
	}
	incr = sa->es_hasarg ?
	    (int64_t)ecb_sval(&sa->es_arg, ep, cpu, args) : 1;
	v = sa->es_hasval ? ecb_sval(&sa->es_val, ep, cpu, args) : 1;
	if (ec->ec_agg != NULL)
		(void) agg_update_sig(ec->ec_agg, sa->es_ag, key, sa->es_sig,
		    (int64_t)v, incr);
	if (!sa->es_rezero)
		return;
	for (k = 0; k < sa->es_nkeys; k++)
		ecb_zero(key + sa->es_key[k].sv_off, sa->es_key[k].sv_size);
}

/*
 * Probe context: no locks, no allocation, no sleeping; irqs off.  What
 * ecb_fire_errno() and ecb_run_ecb() do for these ECBs, in their order:
 * the predicate, the key cleared to the aggregation's key size and filled
 * as ecb_put_val() stores integers, the increment (AGGARG) and value,
 * agg_update().  The enabling's state is tested once, in ecb_enter():
 * ecb_run_probe() tests it again before each ECB because an ECB's exit()
 * may change it, and no simple ECB has an action that can.  count()
 * without a key (es_plain) goes straight to agg_update(), and a probe
 * whose only ECB is that, without a predicate, skips the loop
 * (ecb_fire_simple_plain()).  Out of line: ecb_fire_simple() stays a
 * test and a jump.
 */
static __attribute__((__noinline__)) void
ecb_fire_simple_all(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, uint64_t ts)
{
	const struct ecb_simple *sa;
	const struct dif_fastpred *fp;
	const struct ecb_sval *sv;
	struct ecb_cpu *ec;
	uint32_t i, k, e;
	int64_t incr;
	uint64_t v;

	if ((ec = ecb_enter(es, ep, cpu)) == NULL)
		return;
	for (i = 0; i < ep->ep_necbs; i++) {
		e = ep->ep_ecbs[i].er_ecb;
		sa = &es->es_simple[e];
		if (sa->es_haspred) {
			fp = &es->es_fastpred[e];
			k = fp->fp_var - DIF_VAR_ARG0;
			v = k < ECB_GATE_NARGS ? args[k] :
			    ecb_gate_var(fp->fp_var, ep, cpu);
			if (!dif_fastpred_test(fp, v))
				continue;
		}
		if (sa->es_ok == ECB_SKIND_REC) {
			ts = ecb_simple_record_ool(ec, sa,
			    ep->ep_ecbs[i].er_epid, ep, cpu, args, ts);
			continue;
		}
		if (sa->es_plain) {
			ecb_count_plain(ec, sa);
			continue;
		}
		if (sa->es_ag->ag_keysize <= 8) {
			/* one store, not a call (es_key_size is >= 8) */
			v = 0;
			memcpy(ec->ec_key, &v, 8);
		} else if (sa->es_strkey) {	/* only in longer keys */
			ecb_simple_strkey(ec, sa, ep, cpu, args);
			continue;
		} else
			memset(ec->ec_key, 0, sa->es_ag->ag_keysize);
		for (k = 0; k < sa->es_nkeys; k++) {
			sv = &sa->es_key[k];
			ecb_store_int(ec->ec_key + sv->sv_off,
			    ecb_sval(sv, ep, cpu, args), sv->sv_size);
		}
		incr = sa->es_hasarg ?
		    (int64_t)ecb_sval(&sa->es_arg, ep, cpu, args) : 1;
		v = sa->es_hasval ? ecb_sval(&sa->es_val, ep, cpu, args) : 1;
		if (ec->ec_agg != NULL)
			(void) agg_update(ec->ec_agg, sa->es_ag, ec->ec_key,
			    (int64_t)v, incr);
	}
	ec->ec_busy = 0;
}

/*
 * The probe's only ECB is count() without key or predicate: what
 * ecb_fire_simple_all() does for it, without its loop.
 */
static void
ecb_fire_simple_plain(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const struct ecb_simple *sa)
{
	struct ecb_cpu *ec;

	if ((ec = ecb_enter(es, ep, cpu)) == NULL)
		return;
	ecb_count_plain(ec, sa);
	ec->ec_busy = 0;
}

/*
 * The probe's only ECB is a simple record without predicate
 * (trace(arg0)): what ecb_fire_simple_all() does for it, without its
 * loop.  Out of line, as ecb_fire_simple_all(): inlined, its frame cost
 * every simple aggregation's firing ~17 instructions.
 */
static __attribute__((__noinline__)) void
ecb_fire_simple_rec1(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, uint64_t ts,
    const struct ecb_simple *sa)
{
	struct ecb_cpu *ec;

	if ((ec = ecb_enter(es, ep, cpu)) == NULL)
		return;
	(void) ecb_simple_record(ec, sa, ep->ep_ecbs[0].er_epid, ep, cpu,
	    args, ts);
	ec->ec_busy = 0;
}

/*
 * ecb_fire_simple_strkey1() for an ECB whose only key is execname
 * (ECB_STRKEY_ONLY: @[execname] = quantize(arg0)): ecb_simple_strkey()
 * without its loops over the keys -- the name written, the increment and
 * value read before the call so that fewer registers live across it,
 * agg_update_sig() -- in one frame.  The same key, entry and value.
 * Probe context.
 */
static __attribute__((__noinline__)) void
ecb_fire_simple_exec1(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, const struct ecb_simple *sa)
{
	struct ecb_cpu *ec;
	uint8_t *key;
	int64_t incr;
	uint64_t v;

	if ((ec = ecb_enter(es, ep, cpu)) == NULL)
		return;
	incr = sa->es_hasarg ?
	    (int64_t)ecb_sval(&sa->es_arg, ep, cpu, args) : 1;
	v = sa->es_hasval ? ecb_sval(&sa->es_val, ep, cpu, args) : 1;
	key = ec->ec_key + es->es_key_size;
	kenv_execname((char *)key + sa->es_key[0].sv_off,
	    sa->es_key[0].sv_size);
	if (ec->ec_agg != NULL)
		(void) agg_update_sig(ec->ec_agg, sa->es_ag, key, sa->es_sig,
		    (int64_t)v, incr);
	ec->ec_busy = 0;
}

/*
 * The probe's only ECB is a simple aggregation with an execname key, no
 * predicate (@[execname] = quantize(arg0)): what ecb_fire_simple_all()
 * does for it, without its loop.  Out of line, as
 * ecb_fire_simple_rec1(): inlined, its saved register cost the other
 * simple aggregations' firings 2 instructions.
 */
static __attribute__((__noinline__)) void
ecb_fire_simple_strkey1(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, const struct ecb_simple *sa)
{
	struct ecb_cpu *ec;

	/* here, not in ecb_fire_simple(): its other paths test once */
	if (sa->es_strkey == ECB_STRKEY_ONLY) {
		ecb_fire_simple_exec1(es, ep, cpu, args, sa);
		return;
	}
	if ((ec = ecb_enter(es, ep, cpu)) == NULL)
		return;
	ecb_simple_strkey(ec, sa, ep, cpu, args);
	ec->ec_busy = 0;
}

void
ecb_fire_simple(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, uint64_t ts)
{
	const struct ecb_simple *sa;

	/* one ECB without predicate: a record, or count() without key */
	if (ep->ep_necbs == 1) {
		sa = &es->es_simple[ep->ep_ecbs[0].er_ecb];
		if (!sa->es_haspred && sa->es_ok == ECB_SKIND_REC) {
			ecb_fire_simple_rec1(es, ep, cpu, args, ts, sa);
			return;
		}
		if (!sa->es_haspred && sa->es_plain) {
			ecb_fire_simple_plain(es, ep, cpu, sa);
			return;
		}
		if (!sa->es_haspred && sa->es_strkey) {
			ecb_fire_simple_strkey1(es, ep, cpu, args, sa);
			return;
		}
	}
	ecb_fire_simple_all(es, ep, cpu, args, ts);
}

/* Probe context: no locks, no allocation, no sleeping; irqs off. */
void
ecb_fire(struct ecb_state *es, const struct ecb_probe *ep, uint32_t cpu,
    const uint64_t *args, uint64_t ts)
{
	ecb_fire_errno(es, ep, cpu, args, ts, 0);
}

/* Probe context: no locks, no allocation, no sleeping; irqs off. */
void
ecb_fire_errno(struct ecb_state *es, const struct ecb_probe *ep,
    uint32_t cpu, const uint64_t *args, uint64_t ts, int32_t err)
{
	struct dif_probe_ctx ctx KENV_NOINIT;	/* ecb_fill_ctx() sets all */
	struct ecb_cpu *ec;
	uint32_t i, nloc;

	if ((ec = ecb_enter(es, ep, cpu)) == NULL)
		return;
	if (es->es_commits) {
		if (ts == 0)
			ts = kenv_timestamp();
		spec_clean(es->es_spec, cpu, ec->ec_rc, es->es_policy, ts);
	}
	nloc = dif_vstate_nlocals(&es->es_vstate);
	for (i = 0; i < nloc; i++)
		ec->ec_locals[i] = 0;
	dif_strtok_reset(&ec->ec_strtok);
	ecb_fill_ctx(&ctx, ep, cpu, args, ts);
	ctx.pc_errno = err;
	ecb_run_probe(ec, ep, &ctx);
	ec->ec_busy = 0;
}

/* Probe context on "cpu". */
void
ecb_clean(struct ecb_state *es, uint32_t cpu, uint64_t ts)
{
	if (cpu >= es->es_ncpu)
		return;
	spec_clean(es->es_spec, cpu, es->es_cpus[cpu].ec_rc, es->es_policy,
	    ts);
}
