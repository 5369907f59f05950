/*
 * test_ecb.c -- the ECB runner (common/ecb.c) and speculations
 * (common/spec.c) in userspace: small D programs are compiled with
 * dc_compile(), loaded with dof_load(), given a one-CPU region in memory
 * and fired by hand; the tests then read the records back with the
 * region reader and the aggregation buffer with agg_next().
 *
 * Probes are assigned by name: BEGIN = 1, END = 2, ERROR = 3, anything
 * else (a tick) = 4; ECB i gets EPID i + 1.
 */
#define _GNU_SOURCE	/* program_invocation_short_name: kenv_execname() */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "consumer/kc_env.h"
#include "dof_load.h"
#include "dif.h"
#include "rgn.h"
#include "agg.h"
#include "spec.h"
#include "ecb.h"

#define TE_NPROBES	4
#define TE_MAXRECS	64
#define TE_RGNSIZE	(64 * 4096)

struct te_rec {
	uint32_t	tr_epid;
	uint32_t	tr_size;	/* payload bytes */
	uint8_t		tr_data[512];
};

struct te {
	struct dc_out	t_out;
	struct dof_enabling *t_den;
	struct ecb_state *t_es;
	void		*t_rgn;
	struct ecb_probe t_probes[TE_NPROBES];
	struct ecb_ref	t_refs[TE_NPROBES][16];
	char		t_names[TE_NPROBES][16];
	struct te_rec	t_recs[TE_MAXRECS];
	uint32_t	t_nrecs;
};

static uint32_t
te_probe_of(const struct dof_pdesc *pd)
{
	if (strcmp(pd->lp_name, "BEGIN") == 0)
		return 0;
	if (strcmp(pd->lp_name, "END") == 0)
		return 1;
	if (strcmp(pd->lp_name, "ERROR") == 0)
		return 2;
	return 3;
}

static void
te_probes(struct te *t)
{
	static const char *const names[] = { "BEGIN", "END", "ERROR", "tick" };
	static const uint32_t kinds[] = { ECB_PK_BEGIN, ECB_PK_END,
	    ECB_PK_ERROR, ECB_PK_OTHER };
	struct ecb_probe *ep;
	uint32_t i, p;

	for (p = 0; p < TE_NPROBES; p++) {
		ep = &t->t_probes[p];
		strcpy(t->t_names[p], names[p]);
		ep->ep_id = p + 1;
		ep->ep_kind = kinds[p];
		ep->ep_prov = "dtrace";
		ep->ep_mod = "";
		ep->ep_func = "";
		ep->ep_name = t->t_names[p];
		ep->ep_ecbs = t->t_refs[p];
	}
	for (i = 0; i < t->t_den->den_necbs; i++) {
		ep = &t->t_probes[te_probe_of(&t->t_den->den_ecbs[i].le_pdesc)];
		t->t_refs[ep->ep_id - 1][ep->ep_necbs].er_ecb = i;
		t->t_refs[ep->ep_id - 1][ep->ep_necbs].er_epid = i + 1;
		ep->ep_necbs++;
	}
}

/* Region with every probe and EPID published. */
static void
te_region(struct te *t, uint32_t policy)
{
	struct rgn_params rp;
	struct kdt_err ke;
	uint32_t i;

	t->t_rgn = aligned_alloc(4096, TE_RGNSIZE);
	ck_assert_ptr_nonnull(t->t_rgn);
	memset(t->t_rgn, 0, TE_RGNSIZE);
	memset(&rp, 0, sizeof (rp));
	rp.rp_ncpu = 1;
	rp.rp_policy = policy;
	rp.rp_probe_cap = 8;
	rp.rp_epid_cap = 32;
	rp.rp_dof = t->t_den->den_dof;
	rp.rp_dofsz = t->t_den->den_dofsz;
	ck_assert_int_eq(rgn_init(t->t_rgn, TE_RGNSIZE, &rp, &ke), 0);
	for (i = 0; i < TE_NPROBES; i++)
		ck_assert_int_eq(rgn_add_probe(t->t_rgn, i + 1, "dtrace", "",
		    "", t->t_names[i], &ke), 0);
	for (i = 0; i < t->t_den->den_necbs; i++)
		ck_assert_int_eq(rgn_add_epid(t->t_rgn, i + 1,
		    te_probe_of(&t->t_den->den_ecbs[i].le_pdesc) + 1, i,
		    t->t_den->den_ecbs[i].le_size, &ke), 0);
}

/* The buffer policy te_setup_p() gives the region and the runner. */
static uint32_t te_policy = DTRACEOPT_BUFPOLICY_FILL;
/* ... and the aggregation buffer's size */
static uint64_t te_aggsize = 64 * 1024;

/* Compile, load, set up; "p" may adjust the parameters. */
static void
te_setup_p(struct te *t, const char *src, const struct ecb_params *pp,
    int expect)
{
	struct dc_opts opts;
	struct ecb_params p;
	struct kdt_err ke;

	memset(t, 0, sizeof (*t));
	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "build/kernel/vmlinux";
	opts.dco_destructive = 1;
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts,
	    &t->t_out) == 0, "%s", t->t_out.dco_diag);
	ck_assert_int_eq(dof_load(t->t_out.dco_dof, t->t_out.dco_dofsz,
	    &t->t_den, &ke), 0);
	te_probes(t);
	/* the region is ring or fill; switch is the runner's fill */
	te_region(t, te_policy == DTRACEOPT_BUFPOLICY_RING ?
	    DTRACEOPT_BUFPOLICY_RING : DTRACEOPT_BUFPOLICY_FILL);
	ecb_params_init(&p, t->t_den, 1);
	p.ep_policy = te_policy;
	p.ep_user = 1;
	p.ep_aggsize = te_aggsize;
	if (pp != NULL) {
		p.ep_nspec = pp->ep_nspec;
		p.ep_specsize = pp->ep_specsize;
		p.ep_destructive = pp->ep_destructive;
	}
	ck_assert_int_eq(ecb_create(t->t_den, &p, &t->t_es, &ke), expect);
	if (expect != 0)
		return;
	ecb_set_region(t->t_es, t->t_rgn);
	ecb_set_error_probe(t->t_es, &t->t_probes[2]);
	kc_env_clear_readable();
	ck_assert_int_eq(kc_env_add_readable(t, sizeof (*t)), 0);
}

static void
te_setup(struct te *t, const char *src)
{
	te_setup_p(t, src, NULL, 0);
}

static void
te_free(struct te *t)
{
	kc_env_clear_readable();
	ecb_destroy(t->t_es);
	dof_free(t->t_den);
	dc_out_free(&t->t_out);
	free(t->t_rgn);
}

static void
te_fire(struct te *t, uint32_t probe, uint64_t arg0)
{
	uint64_t args[DIF_NARGS] = { arg0 };

	ecb_fire(t->t_es, &t->t_probes[probe - 1], 0, args, 1000);
}

static int
te_on_rec(void *arg, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff)
{
	struct te *t = arg;
	struct te_rec *r;

	ck_assert_uint_lt(t->t_nrecs, TE_MAXRECS);
	r = &t->t_recs[t->t_nrecs++];
	r->tr_epid = rec->rr_epid;
	r->tr_size = rec->rr_size - RGN_REC_HDRSIZE;
	ck_assert_uint_le(r->tr_size, sizeof (r->tr_data));
	memcpy(r->tr_data, payload, r->tr_size);
	return 0;
}

static int
te_on_bad(void *arg, uint32_t cpu, uint64_t loff, const char *what)
{
	ck_abort_msg("bad record stream at 0x%llx: %s",
	    (unsigned long long)loff, what);
	return 1;
}

/* Read every record of cpu 0 into t_recs. */
static void
te_read(struct te *t)
{
	struct rgn_walk_cb cb = { te_on_rec, te_on_bad, t };
	struct rgn_view v;
	struct kdt_err ke;

	t->t_nrecs = 0;
	ck_assert_int_eq(rgn_open(&v, t->t_rgn, TE_RGNSIZE, RGN_PHYS_ANY,
	    &ke), 0);
	ck_assert_int_eq(rgn_walk_cpu(&v, 0, &cb, &ke), 0);
}

static int64_t
te_i64(const struct te_rec *r, uint32_t off)
{
	int64_t v;

	memcpy(&v, r->tr_data + off, 8);
	return v;
}

START_TEST(test_predicate_selects_firings)
{
	struct te t;

	te_setup(&t, "BEGIN /arg0 == 5/ { trace(7); }");
	te_fire(&t, 1, 4);
	te_fire(&t, 1, 5);
	te_fire(&t, 1, 6);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 1);
	ck_assert_uint_eq(t.t_recs[0].tr_epid, 1);
	ck_assert_int_eq(te_i64(&t.t_recs[0], 0), 7);
	te_free(&t);
}
END_TEST

/*
 * The gate (ecb.h): usable exactly for probes whose every ECB has a fast
 * predicate on a variable a handler has at hand, and then closed exactly
 * when ecb_fire() would have recorded nothing.
 */
START_TEST(test_gate_agrees_with_fire)
{
	static const struct {
		const char *src;
		int usable;
	} progs[] = {
		{ "tick-1sec /arg0 == 5/ { trace(1); }", 1 },
		{ "tick-1sec /arg0 == 5/ { trace(1); }"
		  " tick-1sec /arg5 > 100/ { trace(2); }", 1 },
		{ "tick-1sec /arg1 != 7/ { trace(1); }", 1 },
		{ "tick-1sec /id == 4/ { trace(1); }", 1 },
		{ "tick-1sec /id == 3/ { trace(1); }", 1 },
		{ "tick-1sec /cpu < 1/ { trace(1); }", 1 },
		{ "tick-1sec /pid == 999999/ { trace(1); }", 1 },
		{ "tick-1sec /tid >= 1/ { trace(1); }", 1 },
		{ "tick-1sec /uid <= 0x7fffffff/ { trace(1); }", 1 },
		{ "tick-1sec /arg0 == 5/ { trace(1); } tick-1sec { trace(2); }",
		  0 },
		{ "tick-1sec /arg7 == 5/ { trace(1); }", 0 },
		{ "tick-1sec /arg0 == 5 && arg1 == 6/ { trace(1); }", 0 },
		{ "tick-1sec /execname == \"x\"/ { trace(1); }", 0 },
		{ "tick-1sec /timestamp > 5/ { trace(1); }", 0 },
		{ "tick-1sec /arg0 == 5/ { trace(1); }"
		  " END /arg0 == 1/ { commit(1); }", 0 },
	};
	static const uint64_t vals[] = { 0, 1, 4, 5, 6, 7, 100, 101,
	    (uint64_t)-1, 0x8000000000000000ULL };
	uint64_t args[DIF_NARGS];
	const struct dif_fastpred *fp;
	uint32_t before, i, x, a, n;
	struct te t;
	int open;

	for (i = 0; i < sizeof (progs) / sizeof (progs[0]); i++) {
		te_setup(&t, progs[i].src);
		ck_assert_msg(ecb_gate_usable(t.t_es, &t.t_probes[3]) ==
		    progs[i].usable, "%s: usable should be %d", progs[i].src,
		    progs[i].usable);
		ck_assert((ecb_gate_single(t.t_es, &t.t_probes[3]) != NULL) ==
		    (progs[i].usable && t.t_probes[3].ep_necbs == 1));
		if (!progs[i].usable) {
			te_free(&t);
			continue;
		}
		ecb_set_state(t.t_es, ECB_ST_ACTIVE);
		for (x = 0; x < sizeof (vals) / sizeof (vals[0]); x++) {
			for (a = 0; a < DIF_NARGS; a++)
				args[a] = vals[(x + a) %
				    (sizeof (vals) / sizeof (vals[0]))];
			te_read(&t);
			before = t.t_nrecs;
			open = ecb_gate_open(t.t_es, &t.t_probes[3], args, 0);
			fp = ecb_gate_single(t.t_es, &t.t_probes[3]);
			if (fp != NULL) {
				n = fp->fp_var - DIF_VAR_ARG0;
				ck_assert_int_eq(open, (int)dif_fastpred_test(
				    fp, n < ECB_GATE_NARGS ? args[n] :
				    ecb_gate_var(fp->fp_var, &t.t_probes[3],
				    0)));
			}
			ecb_fire(t.t_es, &t.t_probes[3], 0, args, 1000);
			te_read(&t);
			ck_assert_msg(open == (t.t_nrecs != before),
			    "%s with arg0 %#llx: gate %s, fire recorded %u",
			    progs[i].src, (unsigned long long)args[0],
			    open ? "open" : "closed", t.t_nrecs - before);
		}
		te_free(&t);
	}
}
END_TEST

/*
 * Two states of "src", both active, for comparing ecb_fire() (t1) with
 * ecb_fire_simple() (t2) on probe 3 -- after checking that
 * ecb_simple_usable() says "usable" (nonzero or 0) for it.  0 when it is
 * not usable (nothing left set up).
 */
static int
te_pair(struct te *t1, struct te *t2, const char *src, int usable)
{
	te_setup(t1, src);
	ck_assert_msg(ecb_simple_usable(t1->t_es, &t1->t_probes[3]) == usable,
	    "%s: usable should be %d", src, usable);
	if (!usable) {
		te_free(t1);
		return 0;
	}
	te_setup(t2, src);
	ecb_set_state(t1->t_es, ECB_ST_ACTIVE);
	ecb_set_state(t2->t_es, ECB_ST_ACTIVE);
	return 1;
}

/*
 * The arguments ecb_fire_simple() gets for a probe whose
 * ecb_simple_usable() is "usable": "args" with ECB_SIMPLE_ARGHI; with
 * ECB_SIMPLE_ARGS alone, args[0..1] and other values in args[2..5] (a
 * handler may leave them unset: ecb.h); without, "other" values only.
 */
static const uint64_t *
te_simple_args(int usable, const uint64_t *args, const uint64_t *other,
    uint64_t *mixed)
{
	uint32_t a;

	if (usable & ECB_SIMPLE_ARGHI)
		return args;
	if (!(usable & ECB_SIMPLE_ARGS))
		return other;
	for (a = 0; a < DIF_NARGS; a++)
		mixed[a] = a < 2 ? args[a] : other[a];
	return mixed;
}

/*
 * Simple aggregations (ecb.h): ecb_fire_simple() leaves exactly the
 * aggregation buffer ecb_fire() leaves, byte for byte, for every program
 * it accepts; the others are refused.  ecb_simple_usable() says
 * ECB_SIMPLE_OK | ECB_SIMPLE_ARGS (3) exactly when some clause reads
 * arg0..arg5, with ECB_SIMPLE_ARGHI (7) when one reads arg2..arg5: for
 * the others (1) ecb_fire_simple() is given arguments unlike ecb_fire()'s,
 * for 3 only arg0 and arg1 alike (te_simple_args()), and must still leave
 * the same buffer.
 */
START_TEST(test_simple_agg_same_as_fire)
{
	static const struct {
		const char *src;
		int usable;
	} progs[] = {
		{ "tick-1sec { @ = count(); }", 1 },
		{ "tick-1sec /arg1 > 5/ { @ = count(); }", 3 },
		{ "tick-1sec /pid != 0/ { @ = count(); }", 1 },
		{ "tick-1sec /cpu == 0/ { @[pid, 3] = sum(7); }", 1 },
		{ "tick-1sec { @ = count(); } tick-1sec { @b[tid] = count(); }"
		  " tick-1sec /arg0 == 5/ { @c = count(); }", 3 },
		{ "tick-1sec { @[arg0] = count(); }", 3 },
		{ "tick-1sec /arg1 > 5/ { @[pid, arg2] = sum(arg3); }", 7 },
		{ "tick-1sec { @ = quantize(arg0); }", 3 },
		{ "tick-1sec { @ = lquantize(arg0, 0, 100, 10); }", 3 },
		{ "tick-1sec { @ = lquantize(arg0, 0, 100, 10, arg1); }", 3 },
		{ "tick-1sec { @ = llquantize(arg0, 10, 0, 6, 20); }", 3 },
		{ "tick-1sec { @[id, uid] = stddev(arg0); }", 3 },
		{ "tick-1sec { @ = avg(arg0); } tick-1sec { @c[cpu] = min(arg1); }"
		  " tick-1sec /arg2 != 3/ { @m[arg4, 7] = max(arg5); }", 7 },
		{ "tick-1sec { @a = count(); @b = max(arg0); }", 0 },
		{ "tick-1sec { @[execname] = count(); }", 1 },
		{ "tick-1sec { @[probefunc] = count(); }", 0 },
		{ "tick-1sec { trace(arg0); @ = count(); }", 0 },
		{ "tick-1sec { @[arg0 + 1] = count(); }", 0 },
		{ "tick-1sec /arg0 == 1 || arg1 == 2/ { @ = count(); }", 0 },
		/* a simple record beside it: the probe is simple */
		{ "tick-1sec { @ = count(); } tick-1sec { trace(1); }", 1 },
		{ "tick-1sec { @ = count(); } tick-1sec { trace(arg0 + 1); }",
		  0 },
	};
	static const uint64_t vals[] = { 0, 1, 3, 5, 6, 7, 42, 99, 100, 1000,
	    (uint64_t)-1, (uint64_t)-7, 0x8000000000000000ULL };
	const uint32_t nv = sizeof (vals) / sizeof (vals[0]);
	uint64_t args[DIF_NARGS], other[DIF_NARGS], mixed[DIF_NARGS];
	const struct agg_buf *a1, *a2;
	uint32_t i, x, a;
	struct te t1, t2;

	for (i = 0; i < sizeof (progs) / sizeof (progs[0]); i++) {
		if (!te_pair(&t1, &t2, progs[i].src, progs[i].usable))
			continue;
		for (x = 0; x < 3 * nv; x++) {
			for (a = 0; a < DIF_NARGS; a++) {
				args[a] = vals[(x * (a + 1) + a) % nv];
				other[a] = vals[(x * (a + 3) + 1) % nv];
			}
			ecb_fire(t1.t_es, &t1.t_probes[3], 0, args, 1000);
			ecb_fire_simple(t2.t_es, &t2.t_probes[3], 0,
			    te_simple_args(progs[i].usable, args, other,
			    mixed), 1000);
		}
		a1 = t1.t_es->es_cpus[0].ec_agg;
		a2 = t2.t_es->es_cpus[0].ec_agg;
		ck_assert_ptr_nonnull(a1);
		ck_assert_uint_gt(a1->ab_nents, 0);
		ck_assert_msg(a1->ab_size == a2->ab_size &&
		    memcmp(a1, a2, a1->ab_size) == 0,
		    "%s: the buffers differ (%u and %u entries)",
		    progs[i].src, a1->ab_nents, a2->ab_nents);
		te_free(&t1);
		te_free(&t2);
	}
}
END_TEST

/*
 * Simple aggregations keyed by execname (ecb.c es_strkey): the same
 * aggregation buffer, byte for byte (entries, hashes, chains, the cache
 * hint, drops), as ecb_fire() leaves -- with task names short, empty and
 * longer than execname's 31 characters, changing between firings (new
 * entries, chain walks, cache misses); strsize below, at and above the
 * name's 32 bytes; the name first, last or between integer keys; several
 * ECBs on the probe; the aggregation also updated by a clause that is
 * not simple (fired first, on BEGIN: the whole key is compared); quantize
 * of negative, zero and huge values; and a buffer too small for all the
 * entries (drops counted the same).
 */
START_TEST(test_simple_strkey_same_as_fire)
{
	static const struct {
		const char *src;
		int usable;
	} progs[] = {
		{ "tick-1sec { @[execname] = quantize(arg0); }", 3 },
		{ "tick-1sec { @[execname] = count(); }", 1 },
		{ "tick-1sec { @[execname, arg1] = sum(arg0); }", 3 },
		{ "tick-1sec { @[pid, execname] = lquantize(arg0, -10, 100, 10); }",
		  3 },
		{ "tick-1sec { @[arg2, execname, cpu] = llquantize(arg0, 10, 0, "
		  "6, 20); }", 7 },
		{ "tick-1sec { @q[execname] = quantize(arg0); } tick-1sec "
		  "/arg1 > 5/ { @c[execname] = count(); } tick-1sec "
		  "{ @m[execname] = max(arg3); } tick-1sec { @[pid] = avg(arg4); }",
		  7 },
		{ "BEGIN { @[\"BEGIN-set-a-long-key-of-its-own\"] = quantize(3); }"
		  " tick-1sec { @[execname] = quantize(arg0); }", 3 },
		{ "BEGIN { @[execname] = quantize(-1); @[\"x\"] = quantize(9); }"
		  " tick-1sec { @[execname] = quantize(arg0); }", 3 },
		/* two key layouts in ec_skey: what one leaves, the other
		   must not see (es_rezero) */
		{ "tick-1sec { @a[arg1, execname] = count(); } tick-1sec "
		  "{ @b[execname] = sum(arg0); }", 3 },
		{ "#pragma D option strsize=20\n"
		  "tick-1sec { @a[pid, execname] = count(); } tick-1sec "
		  "{ @b[execname] = sum(arg0); }", 3 },
		{ "#pragma D option strsize=16\n"
		  "tick-1sec { @[execname] = quantize(arg0); }", 3 },
		{ "#pragma D option strsize=20\n"
		  "tick-1sec { @[execname, arg0] = count(); }", 3 },
		/* a key of 8 bytes: not simple (ecb_fire_simple_all() tests
		   es_strkey only in longer keys) */
		{ "#pragma D option strsize=8\n"
		  "tick-1sec { @[execname] = min(arg0); }", 0 },
		{ "#pragma D option strsize=9\n"
		  "tick-1sec { @[execname] = min(arg0); }", 3 },
		{ "#pragma D option strsize=40\n"
		  "tick-1sec { @[execname] = stddev(arg0); }", 3 },
	};
	static const char *const names[] = { "test_ecb",
	    "a-task-name-well-over-the-32-bytes-of-execname", "",
	    "bash", "exactly-thirty-one-characters-x" };
	static const uint64_t vals[] = { 0, 1, 3, 5, 6, 7, 42, 99, 100, 1000,
	    (uint64_t)-1, (uint64_t)-7, 0x8000000000000000ULL,
	    0x7fffffffffffffffULL, 0xffffc90000a3ff58ULL };
	static const uint64_t aggsizes[] = { 64 * 1024, 4096 };
	const uint32_t nv = sizeof (vals) / sizeof (vals[0]);
	const uint32_t nn = sizeof (names) / sizeof (names[0]);
	char *saved = program_invocation_short_name;
	uint64_t args[DIF_NARGS], other[DIF_NARGS], mixed[DIF_NARGS];
	const struct agg_buf *a1, *a2;
	uint64_t drops = 0;
	uint32_t i, x, a, z;
	struct te t1, t2;

	for (z = 0; z < sizeof (aggsizes) / sizeof (aggsizes[0]); z++) {
		te_aggsize = aggsizes[z];
		for (i = 0; i < sizeof (progs) / sizeof (progs[0]); i++) {
			if (!te_pair(&t1, &t2, progs[i].src, progs[i].usable))
				continue;
			ecb_fire(t1.t_es, &t1.t_probes[0], 0, NULL, 1000);
			ecb_fire(t2.t_es, &t2.t_probes[0], 0, NULL, 1000);
			for (x = 0; x < 4 * nv; x++) {
				/* runs of one name, then another */
				program_invocation_short_name =
				    (char *)names[(x / 3) % nn];
				for (a = 0; a < DIF_NARGS; a++) {
					args[a] = vals[(x * (a + 1) + a) % nv];
					other[a] = vals[(x * (a + 3) + 1) % nv];
				}
				ecb_fire(t1.t_es, &t1.t_probes[3], 0, args,
				    1000);
				ecb_fire_simple(t2.t_es, &t2.t_probes[3], 0,
				    te_simple_args(progs[i].usable, args,
				    other, mixed), 1000);
			}
			program_invocation_short_name = saved;
			a1 = t1.t_es->es_cpus[0].ec_agg;
			a2 = t2.t_es->es_cpus[0].ec_agg;
			ck_assert_ptr_nonnull(a1);
			ck_assert_uint_gt(a1->ab_nents, 1);
			drops += a1->ab_drops;
			ck_assert_msg(a1->ab_size == a2->ab_size &&
			    memcmp(a1, a2, a1->ab_size) == 0,
			    "%s, aggsize %llu: the buffers differ (%u and %u "
			    "entries, %llu and %llu drops)", progs[i].src,
			    (unsigned long long)te_aggsize, a1->ab_nents,
			    a2->ab_nents, (unsigned long long)a1->ab_drops,
			    (unsigned long long)a2->ab_drops);
			te_free(&t1);
			te_free(&t2);
		}
	}
	/* the small buffer filled up (quantize's 1 KiB values) */
	ck_assert_uint_gt(drops, 0);
	te_aggsize = 64 * 1024;
}
END_TEST

/*
 * Simple records (ecb.h): ecb_fire_simple() leaves exactly the region
 * ecb_fire() leaves -- every byte of it: records, padding, head, tail,
 * drops -- for every program it accepts, under the ring, fill and switch
 * policies, through a full (fill, switch) or wrapped (ring) buffer; and
 * the same aggregation buffer beside them.  The others are refused.
 */
START_TEST(test_simple_rec_same_as_fire)
{
	static const struct {
		const char *src;
		int usable;	/* ecb_simple_usable()'s result */
	} progs[] = {
		{ "tick-1sec { trace(arg0); }", 3 },
		{ "tick-1sec { trace(7); }", 1 },
		{ "tick-1sec { }", 0 },		/* header-only: ecb_fire() */
		{ "tick-1sec /arg1 > 5/ { trace(arg0); trace(pid); }", 3 },
		{ "tick-1sec { printf(\"%d %d %d\", arg0, arg1, arg2); }", 7 },
		{ "tick-1sec { printf(\"%d\\n\", cpu); printf(\"x\"); }", 1 },
		{ "tick-1sec { trace(cpu); trace(arg0); trace(pid); "
		  "trace(arg3); }", 7 },
		{ "tick-1sec /pid != 0/ { trace(id); trace(tid); trace(uid); "
		  "trace(gid); trace(ppid); trace(arg5); }", 7 },
		{ "tick-1sec { trace(arg0); } tick-1sec /arg0 == 3/ "
		  "{ @[arg1] = count(); } tick-1sec /cpu == 0/ { trace(2); "
		  "trace(arg4); }", 7 },
		{ "tick-1sec { trace(arg0 + 1); }", 0 },
		{ "tick-1sec { trace(execname); }", 0 },
		{ "tick-1sec { trace(timestamp); }", 0 },
		{ "tick-1sec { trace(arg7); }", 0 },
		{ "tick-1sec { trace(arg0); @ = count(); }", 0 },
		{ "tick-1sec /arg0 == 1 || arg1 == 2/ { trace(arg0); }", 0 },
		{ "tick-1sec { trace(arg0); exit(0); }", 0 },
		{ "tick-1sec { trace(arg0); } tick-1sec { trace(arg0 * 2); }",
		  0 },
	};
	static const uint32_t pols[] = { DTRACEOPT_BUFPOLICY_RING,
	    DTRACEOPT_BUFPOLICY_FILL, DTRACEOPT_BUFPOLICY_SWITCH };
	static const uint64_t vals[] = { 0, 1, 3, 5, 6, 7, 42, 99, 100, 1000,
	    (uint64_t)-1, (uint64_t)-7, 0x8000000000000000ULL };
	const uint32_t nv = sizeof (vals) / sizeof (vals[0]);
	uint64_t args[DIF_NARGS], other[DIF_NARGS], mixed[DIF_NARGS];
	const struct rgn_cpu *r1, *r2;
	const struct agg_buf *a1, *a2;
	uint32_t i, x, a, pi;
	struct te t1, t2;

	for (pi = 0; pi < sizeof (pols) / sizeof (pols[0]); pi++) {
		te_policy = pols[pi];
		for (i = 0; i < sizeof (progs) / sizeof (progs[0]); i++) {
			if (!te_pair(&t1, &t2, progs[i].src,
			    progs[i].usable))
				continue;
			/* enough to fill (or wrap) the principal buffer */
			for (x = 0; x < 20000; x++) {
				for (a = 0; a < DIF_NARGS; a++) {
					args[a] = vals[(x * (a + 1) + a) % nv];
					other[a] = vals[(x * (a + 3) + 1) % nv];
				}
				ecb_fire(t1.t_es, &t1.t_probes[3], 0, args,
				    1000 + x);
				ecb_fire_simple(t2.t_es, &t2.t_probes[3], 0,
				    te_simple_args(progs[i].usable, args,
				    other, mixed), 1000 + x);
			}
			r1 = rgn_cpu(t1.t_rgn, 0);
			r2 = rgn_cpu(t2.t_rgn, 0);
			ck_assert_uint_gt(r1->rc_head, 0);
			if (te_policy == DTRACEOPT_BUFPOLICY_RING)
				ck_assert_uint_gt(r1->rc_tail, 0);
			else
				ck_assert_uint_gt(r1->rc_drops, 0);
			ck_assert_msg(r1->rc_drops == r2->rc_drops &&
			    r1->rc_head == r2->rc_head &&
			    r1->rc_tail == r2->rc_tail,
			    "%s, policy %u: drops %llu/%llu head %llu/%llu",
			    progs[i].src, te_policy,
			    (unsigned long long)r1->rc_drops,
			    (unsigned long long)r2->rc_drops,
			    (unsigned long long)r1->rc_head,
			    (unsigned long long)r2->rc_head);
			ck_assert_msg(memcmp(t1.t_rgn, t2.t_rgn,
			    TE_RGNSIZE) == 0, "%s, policy %u: the regions "
			    "differ", progs[i].src, te_policy);
			a1 = t1.t_es->es_cpus[0].ec_agg;
			a2 = t2.t_es->es_cpus[0].ec_agg;
			ck_assert(a1 == NULL ? a2 == NULL :
			    a2 != NULL && a1->ab_size == a2->ab_size &&
			    memcmp(a1, a2, a1->ab_size) == 0);
			te_free(&t1);
			te_free(&t2);
		}
	}
	te_policy = DTRACEOPT_BUFPOLICY_FILL;
}
END_TEST

/*
 * A simple record's bytes, read back: the values where the general path
 * puts them (cpu, 4 bytes, then arg0 and arg3 at 8 and 16), the padding
 * between them zero.
 */
START_TEST(test_simple_rec_reads_back)
{
	uint64_t args[DIF_NARGS] = { 0x1122334455667788ULL, 2, 3, 4 };
	struct te t;
	uint32_t c;

	te_setup(&t, "tick-1sec { trace(cpu); trace(arg0); trace(arg3); }");
	ck_assert_int_eq(ecb_simple_usable(t.t_es, &t.t_probes[3]), 7);
	ecb_set_state(t.t_es, ECB_ST_ACTIVE);
	ecb_fire_simple(t.t_es, &t.t_probes[3], 0, args, 4242);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 1);
	ck_assert_uint_eq(t.t_recs[0].tr_epid, 1);
	ck_assert_uint_eq(t.t_recs[0].tr_size, 24);
	memcpy(&c, t.t_recs[0].tr_data, 4);
	ck_assert_uint_eq(c, 0);
	ck_assert_uint_eq(te_i64(&t.t_recs[0], 0) >> 32, 0);
	ck_assert_uint_eq((uint64_t)te_i64(&t.t_recs[0], 8),
	    0x1122334455667788ULL);
	ck_assert_int_eq(te_i64(&t.t_recs[0], 16), 4);
	te_free(&t);
}
END_TEST

START_TEST(test_records_hold_integers_and_strings)
{
	struct te t;
	const struct dof_lecb *le;

	te_setup(&t, "BEGIN { trace(arg0 + 1); trace(\"hello\"); }");
	te_fire(&t, 1, 41);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 1);
	le = &t.t_den->den_ecbs[0];
	ck_assert_uint_eq(t.t_recs[0].tr_size, le->le_size);
	ck_assert_int_eq(te_i64(&t.t_recs[0], le->le_acts[0].la_rec_off), 42);
	ck_assert_str_eq((const char *)t.t_recs[0].tr_data +
	    le->le_acts[1].la_rec_off, "hello");
	te_free(&t);
}
END_TEST

START_TEST(test_empty_clause_writes_header_only_record)
{
	struct te t;

	te_setup(&t, "BEGIN { } BEGIN { @a = count(); }");
	te_fire(&t, 1, 0);
	te_read(&t);
	/* The empty clause: a record; the aggregation: none. */
	ck_assert_uint_eq(t.t_nrecs, 1);
	ck_assert_uint_eq(t.t_recs[0].tr_epid, 1);
	ck_assert_uint_eq(t.t_recs[0].tr_size, 0);
	te_free(&t);
}
END_TEST

START_TEST(test_aggregations_update_the_cpu_buffer)
{
	const struct agg_ent *ae = NULL;
	struct te t;
	uint32_t n = 0;
	int64_t key;

	te_setup(&t, "BEGIN { @c[arg0] = count(); @s = sum(arg0); }");
	te_fire(&t, 1, 3);
	te_fire(&t, 1, 3);
	te_fire(&t, 1, 9);
	while ((ae = agg_next(t.t_es->es_cpus[0].ec_agg, ae)) != NULL) {
		n++;
		if (ae->ae_keysize == 0) {
			ck_assert_int_eq((int64_t)agg_ent_data(ae)[0], 15);
			continue;
		}
		memcpy(&key, agg_ent_key(ae), 8);
		ck_assert_int_eq((int64_t)agg_ent_data(ae)[0],
		    key == 3 ? 2 : 1);
	}
	ck_assert_uint_eq(n, 3);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 0);
	te_free(&t);
}
END_TEST

static const char te_spec_src[] =
    "BEGIN /arg0 == 1/ { self->s = speculation(); }\n"
    "BEGIN /arg0 == 2/ { speculate(self->s); trace(arg0); }\n"
    "BEGIN /arg0 == 3/ { commit(self->s); }\n"
    "BEGIN /arg0 == 4/ { discard(self->s); }\n"
    "BEGIN /arg0 == 5/ { trace(55); }\n"
    "BEGIN /arg0 == 6/ { self->t = speculation(); }\n";

START_TEST(test_speculation_commit_copies_records)
{
	struct te t;

	te_setup(&t, te_spec_src);
	te_fire(&t, 1, 1);
	ck_assert_uint_eq(spec_state_of(t.t_es->es_spec, 1), SPEC_ACTIVE);
	te_fire(&t, 1, 2);
	te_fire(&t, 1, 2);
	ck_assert_uint_eq(spec_state_of(t.t_es->es_spec, 1), SPEC_ACTIVEONE);
	te_fire(&t, 1, 5);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 1);	/* only trace(55) so far */
	te_fire(&t, 1, 3);
	ck_assert_uint_eq(spec_state_of(t.t_es->es_spec, 1), SPEC_INACTIVE);
	te_read(&t);
	/* trace(55), then the two speculated ones (commit records none) */
	ck_assert_uint_eq(t.t_nrecs, 3);
	ck_assert_uint_eq(t.t_recs[0].tr_epid, 5);
	ck_assert_uint_eq(t.t_recs[1].tr_epid, 2);
	ck_assert_int_eq(te_i64(&t.t_recs[1], 0), 2);
	ck_assert_uint_eq(t.t_recs[2].tr_epid, 2);
	te_free(&t);
}
END_TEST

START_TEST(test_speculation_discard_drops_records)
{
	struct te t;

	te_setup(&t, te_spec_src);
	te_fire(&t, 1, 1);
	te_fire(&t, 1, 2);
	te_fire(&t, 1, 4);
	ck_assert_uint_eq(spec_state_of(t.t_es->es_spec, 1), SPEC_INACTIVE);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 0);	/* nothing reached the buffer */
	te_fire(&t, 1, 1);	/* the buffer is free again */
	ck_assert_uint_eq(spec_state_of(t.t_es->es_spec, 1), SPEC_ACTIVE);
	te_free(&t);
}
END_TEST

START_TEST(test_speculation_overflow_and_exhaustion_count)
{
	struct ecb_params p;
	struct te t;

	memset(&p, 0, sizeof (p));
	p.ep_nspec = 1;
	p.ep_specsize = 40;	/* one 32-byte record fits, not two */
	te_setup_p(&t, te_spec_src, &p, 0);
	te_fire(&t, 1, 1);
	te_fire(&t, 1, 2);
	te_fire(&t, 1, 2);
	ck_assert_uint_eq(t.t_es->es_cpus[0].ec_spec.sc_drops, 1);
	te_fire(&t, 1, 6);	/* the only buffer is active */
	ck_assert_uint_eq(t.t_es->es_cpus[0].ec_spec.sc_unavail, 1);
	te_fire(&t, 1, 3);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 1);	/* the one that fitted */
	te_free(&t);
}
END_TEST

START_TEST(test_exit_drains_and_skips_later_begin)
{
	struct te t;

	te_setup(&t, "BEGIN { exit(4); } BEGIN { trace(1); } "
	    "tick-1s { trace(2); } END { trace(3); }");
	te_fire(&t, 1, 0);
	ck_assert_uint_eq(t.t_es->es_state, ECB_ST_DRAINING);
	ck_assert_int_eq(t.t_es->es_status, 4);
	ck_assert_uint_eq(t.t_es->es_exited, 1);
	te_fire(&t, 4, 0);	/* not a dtrace probe: skipped */
	te_fire(&t, 2, 0);	/* END runs */
	ecb_set_state(t.t_es, ECB_ST_STOPPED);
	te_fire(&t, 2, 0);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 2);
	ck_assert_uint_eq(t.t_recs[0].tr_epid, 1);
	ck_assert_uint_eq(t.t_recs[1].tr_epid, 4);
	te_free(&t);
}
END_TEST

START_TEST(test_fault_writes_error_record_and_fires_error)
{
	struct rgn_errrec ee;
	struct te t;

	te_setup(&t, "BEGIN { trace(1); trace(*(int *)arg0); }\n"
	    "ERROR { trace(arg1); trace(arg2); trace(arg3); trace(arg4); "
	    "trace(arg5); }\n"
	    "ERROR { trace(*(int *)0); }\n");
	te_fire(&t, 1, 0x10);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 2);
	ck_assert_uint_eq(t.t_recs[0].tr_epid, RGN_EPID_ERROR);
	memcpy(&ee, t.t_recs[0].tr_data, sizeof (ee));
	ck_assert_uint_eq(ee.ee_epid, 1);
	ck_assert_uint_eq(ee.ee_act, 2);
	ck_assert_uint_eq(ee.ee_fault, DTRACEFLT_BADADDR);
	ck_assert_uint_eq(ee.ee_addr, 0x10);
	ck_assert_uint_eq(t.t_recs[1].tr_epid, 2);
	ck_assert_int_eq(te_i64(&t.t_recs[1], 0), 1);
	ck_assert_int_eq(te_i64(&t.t_recs[1], 8), 2);
	ck_assert_int_eq(te_i64(&t.t_recs[1], 16), (int64_t)ee.ee_pc * 4);
	ck_assert_int_eq(te_i64(&t.t_recs[1], 24), DTRACEFLT_BADADDR);
	ck_assert_int_eq(te_i64(&t.t_recs[1], 32), 0x10);
	/* The fault inside the second ERROR clause only counts. */
	ck_assert_uint_eq(t.t_es->es_cpus[0].ec_dblerrors, 1);
	ck_assert_uint_eq(t.t_es->es_cpus[0].ec_rc->rc_errors, 1);
	te_free(&t);
}
END_TEST

START_TEST(test_destructive_needs_permission)
{
	struct ecb_params p;
	struct te t;

	memset(&p, 0, sizeof (p));
	p.ep_nspec = 1;
	te_setup_p(&t, "BEGIN { system(\"true\"); }", &p, -EPERM);
	te_free(&t);
	p.ep_destructive = 1;
	te_setup_p(&t, "BEGIN { system(\"true\"); }", &p, 0);
	te_free(&t);
	te_setup_p(&t, "BEGIN { panic(); }", &p, -EOPNOTSUPP);
	te_free(&t);
}
END_TEST

START_TEST(test_nested_firing_is_dropped)
{
	struct te t;

	te_setup(&t, "BEGIN { trace(1); }");
	t.t_es->es_cpus[0].ec_busy = 1;
	te_fire(&t, 1, 0);
	t.t_es->es_cpus[0].ec_busy = 0;
	ck_assert_uint_eq(t.t_es->es_cpus[0].ec_rc->rc_drops, 1);
	te_read(&t);
	ck_assert_uint_eq(t.t_nrecs, 0);
	te_free(&t);
}
END_TEST

/* Two CPUs, one speculation: the committing CPU copies its own records
 * at once, the other CPU's follow when it cleans. */
START_TEST(test_spec_commit_many_cpus)
{
	struct spec_counts sc;
	struct spec_state *ss;
	struct rgn_params rp;
	struct kdt_err ke;
	uint64_t word = 7;
	void *rgn = aligned_alloc(4096, TE_RGNSIZE);
	uint32_t id;

	ck_assert_ptr_nonnull(rgn);
	memset(rgn, 0, TE_RGNSIZE);
	memset(&rp, 0, sizeof (rp));
	memset(&sc, 0, sizeof (sc));
	rp.rp_ncpu = 2;
	rp.rp_policy = DTRACEOPT_BUFPOLICY_FILL;
	rp.rp_probe_cap = 8;
	rp.rp_epid_cap = 8;
	ck_assert_int_eq(rgn_init(rgn, TE_RGNSIZE, &rp, &ke), 0);
	ck_assert_int_eq(spec_create(&ss, 1, 2, 256, &ke), 0);
	id = spec_alloc(ss, &sc);
	ck_assert_uint_eq(id, 1);
	ck_assert_int_eq(spec_put(ss, id, 0, 9, 1, &word, 8, &sc), 0);
	ck_assert_uint_eq(spec_state_of(ss, id), SPEC_ACTIVEONE);
	ck_assert_int_eq(spec_put(ss, id, 1, 9, 2, &word, 8, &sc), 0);
	ck_assert_uint_eq(spec_state_of(ss, id), SPEC_ACTIVEMANY);
	spec_commit(ss, id, 0, rgn_cpu(rgn, 0), DTRACEOPT_BUFPOLICY_FILL, 5);
	ck_assert_uint_eq(spec_state_of(ss, id), SPEC_COMMITTINGMANY);
	ck_assert_uint_eq(rgn_cpu(rgn, 0)->rc_head, 24);
	ck_assert_uint_eq(spec_alloc(ss, &sc), 0);
	ck_assert_uint_eq(sc.sc_busy, 1);
	ck_assert_int_eq(spec_put(ss, id, 1, 9, 3, &word, 8, &sc), -ENOENT);
	spec_clean(ss, 1, rgn_cpu(rgn, 1), DTRACEOPT_BUFPOLICY_FILL, 6);
	ck_assert_uint_eq(rgn_cpu(rgn, 1)->rc_head, 24);
	ck_assert_uint_eq(spec_state_of(ss, id), SPEC_INACTIVE);
	ck_assert_int_eq(spec_check(ss, 2), -1);
	ck_assert_int_eq(spec_check(ss, 0), 0);
	spec_destroy(ss);
	free(rgn);
}
END_TEST

/* A buffer left holding data of an older speculation is never reused. */
START_TEST(test_spec_stale_buffer_is_emptied)
{
	struct spec_counts sc;
	struct spec_state *ss;
	struct kdt_err ke;
	uint64_t word = 7;
	uint32_t id;

	memset(&sc, 0, sizeof (sc));
	ck_assert_int_eq(spec_create(&ss, 1, 2, 64, &ke), 0);
	id = spec_alloc(ss, &sc);
	ck_assert_int_eq(spec_put(ss, id, 1, 9, 1, &word, 8, &sc), 0);
	spec_discard(ss, id, 0);
	spec_clean(ss, 1, NULL, DTRACEOPT_BUFPOLICY_FILL, 2);
	ck_assert_uint_eq(spec_state_of(ss, id), SPEC_INACTIVE);
	/* Simulate a late append from before the claim. */
	ss->ss_bufs[1].sb_used = 24;
	ck_assert_uint_eq(spec_alloc(ss, &sc), 1);
	ck_assert_int_eq(spec_put(ss, id, 1, 9, 3, &word, 8, &sc), 0);
	ck_assert_uint_eq(ss->ss_bufs[1].sb_used, 24);
	ck_assert_int_eq(spec_put(ss, id, 1, 9, 3, &word, 8, &sc), 0);
	ck_assert_int_eq(spec_put(ss, id, 1, 9, 3, &word, 8, &sc), -ENOSPC);
	ck_assert_uint_eq(sc.sc_drops, 1);
	spec_destroy(ss);
}
END_TEST

static Suite *
ecb_suite(void)
{
	Suite *s = suite_create("ecb");
	TCase *tc = tcase_create("runner");

	tcase_add_test(tc, test_predicate_selects_firings);
	tcase_add_test(tc, test_gate_agrees_with_fire);
	tcase_add_test(tc, test_simple_agg_same_as_fire);
	tcase_add_test(tc, test_simple_rec_same_as_fire);
	tcase_add_test(tc, test_simple_strkey_same_as_fire);
	tcase_add_test(tc, test_simple_rec_reads_back);
	tcase_add_test(tc, test_records_hold_integers_and_strings);
	tcase_add_test(tc, test_empty_clause_writes_header_only_record);
	tcase_add_test(tc, test_aggregations_update_the_cpu_buffer);
	tcase_add_test(tc, test_speculation_commit_copies_records);
	tcase_add_test(tc, test_speculation_discard_drops_records);
	tcase_add_test(tc, test_speculation_overflow_and_exhaustion_count);
	tcase_add_test(tc, test_exit_drains_and_skips_later_begin);
	tcase_add_test(tc, test_fault_writes_error_record_and_fires_error);
	tcase_add_test(tc, test_destructive_needs_permission);
	tcase_add_test(tc, test_nested_firing_is_dropped);
	suite_add_tcase(s, tc);
	tc = tcase_create("spec");
	tcase_add_test(tc, test_spec_commit_many_cpus);
	tcase_add_test(tc, test_spec_stale_buffer_is_emptied);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(ecb_suite)
