/*
 * kc_engine.c -- the userspace engine: a D program run in-process on the
 * common/ code kdt.ko runs (kc_engine.h has the picture).
 *
 * Called by kc_run() (consumer/kc_run.c) for "kdt -s x.d" and "kdt -n".
 * The file has four parts: the probes it provides and how descriptions
 * match them (BEGIN = 1, END = 2, ERROR = 3, then one probe per distinct
 * tick-N / profile-N name in order of appearance); setup (DOF, region in
 * malloc'd memory, ECB runner, the session); the consumer side (the
 * aggregation snapshot the session calls, the drop counters it is
 * given); the life cycle (BEGIN, timers, exit()/SIGINT, END, final
 * output).
 *
 * Buffers: the region has one CPU (the CPU column prints 0).  bufpolicy
 * switch is a fill-policy buffer that the engine empties after consuming
 * every firing's records -- the "switch" -- so a firing that writes more
 * than bufsize drops records and counts them, as dtrace's switch buffers
 * do per switch interval; fill keeps the buffer and stops tracing at the
 * first drop; ring overwrites and is consumed only at the end.
 * dynvarsize is fitted to a quarter of memory as kdt.ko fits it
 * (kc_resize.h: halved under bufresize=auto, refused under manual).
 *
 * Timers run on real time: the next due timer (ties: lower probe id) is
 * slept for, then fired, so the order of firings is deterministic.  As
 * dtrace(1)'s loop does, the engine wakes for whatever is due first: a
 * timer; the aggregation snapshot (every aggrate, and for every
 * printa()); the consumption of the records (every switchrate, the
 * first one right after BEGIN); the drop report (every statusrate); all
 * of them once more at the end.  setopt() of switchrate, aggrate or
 * statusrate changes the pace from its next consumption on.  What a live consumer does with records,
 * aggregations and drop counts -- the decoder and its hooks, the notices,
 * the final output -- is the session's (kc_sess.h), shared with the
 * kernel engine; this file supplies the snapshot of its one CPU's
 * aggregation buffer.
 */
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <errno.h>
#include <unistd.h>

#include "common/dof.h"
#include "common/dof_load.h"
#include "common/dof_libact.h"
#include "common/rgn.h"
#include "common/agg.h"
#include "common/ecb.h"
#include "consumer/kc_env.h"
#include "consumer/kc_agg.h"
#include "consumer/kc_engine.h"
#include "consumer/kc_sess.h"
#include "consumer/kc_resize.h"

#define KE_PROBE_BEGIN	1
#define KE_PROBE_END	2
#define KE_PROBE_ERROR	3
#define KE_MAXPROBES	256
#define KE_BUFSIZE_DEFAULT	(4ULL << 20)
#define KE_NS		1000000000ULL

struct ke_probe {
	struct ecb_probe kp_ep;
	char		kp_prov[DOF_PROVNAMELEN];
	char		kp_empty[8];	/* module and function: "" */
	char		kp_name[DOF_NAMELEN];
	uint64_t	kp_period;	/* timers: ns between firings */
	uint64_t	kp_next;	/* timers: due time */
	struct ecb_ref	*kp_refs;
	uint32_t	kp_nrefs;
};

struct ke {
	const struct kc_run_opts *ke_ro;
	FILE		*ke_out;
	FILE		*ke_err;
	const char	*ke_prog;
	struct dof_enabling *ke_den;
	struct ke_probe	ke_probes[KE_MAXPROBES];
	uint32_t	ke_nprobes;
	uint32_t	ke_nmatched;	/* (description, probe) pairs */
	void		*ke_rgn;
	uint64_t	ke_rgnsize;
	uint32_t	ke_policy;	/* dtrace's bufpolicy */
	struct rgn_view	ke_view;
	struct ecb_state *ke_es;
	struct kc_sess	ke_sess;	/* decoder, aggregations, drops */
	uint64_t	ke_aggsize;
	uint64_t	ke_aggrate;	/* ns between snapshots */
	uint64_t	ke_lastsnap;
	uint64_t	ke_switchrate;	/* ns between consumptions */
	uint64_t	ke_lastswitch;	/* 0: none yet */
	uint64_t	ke_statusrate;	/* ns between drop reports */
	uint64_t	ke_lastreport;
};

static volatile sig_atomic_t ke_intr;

static void
ke_on_sigint(int sig)
{
	ke_intr = 1;
}

/* ---- probes and matching ---- */

/* "N[unit]" of tick-N / profile-N in ns; 0 when it does not parse. */
static uint64_t
ke_parse_rate(const char *s)
{
	static const struct { const char *u; uint64_t mul; } units[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 }, { "s", KE_NS },
		{ "sec", KE_NS }, { "m", 60 * KE_NS }, { "min", 60 * KE_NS },
		{ "h", 3600 * KE_NS }, { "hour", 3600 * KE_NS },
		{ "d", 86400 * KE_NS }, { "day", 86400 * KE_NS },
	};
	uint64_t n = 0;
	uint32_t i;

	if (*s < '0' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9' && n < KE_NS; s++)
		n = n * 10 + (uint64_t)(*s - '0');
	if (n == 0 || n >= KE_NS)
		return 0;
	if (*s == '\0' || strcmp(s, "hz") == 0)
		return KE_NS / n;
	for (i = 0; i < sizeof (units) / sizeof (units[0]); i++)
		if (strcmp(s, units[i].u) == 0)
			return n * units[i].mul;
	return 0;
}

/* Period of a literal tick-N / profile-N name, or 0. */
static uint64_t
ke_timer_period(const char *name)
{
	if (strncmp(name, "tick-", 5) == 0)
		return ke_parse_rate(name + 5);
	if (strncmp(name, "profile-", 8) == 0)
		return ke_parse_rate(name + 8);
	return 0;
}

static int
ke_has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Does pattern "p" (empty: anything) match "s"? */
static int
ke_pmatch(const char *p, const char *s)
{
	return p[0] == '\0' || dof_glob_match(p, s);
}

/* Is "p" a provider name without glob characters? */
static int
ke_literal(const char *p, const char *prov)
{
	return strcmp(p, prov) == 0;
}

/*
 * Which dtrace-provider probes (bit 0 BEGIN, 1 END, 2 ERROR) the
 * description matches.  A description whose provider is empty or a glob
 * must match one of them by a name no kernel provider uses; "dtrace"
 * spelled out may match any (or none: -Z).
 */
static uint32_t
ke_match_dtrace(const struct dof_pdesc *pd)
{
	static const char *const names[] = { "BEGIN", "END", "ERROR" };
	uint32_t i, m = 0;

	if (!ke_literal(pd->lp_prov, "dtrace") && (pd->lp_name[0] == '\0' ||
	    dof_glob_match(pd->lp_name, "entry") ||
	    dof_glob_match(pd->lp_name, "return")))
		return 0;
	if (!ke_pmatch(pd->lp_prov, "dtrace") || !ke_pmatch(pd->lp_mod, "") ||
	    !ke_pmatch(pd->lp_func, ""))
		return 0;
	for (i = 0; i < 3; i++)
		if (ke_pmatch(pd->lp_name, names[i]))
			m |= 1u << i;
	return m;
}

/* Is "pd" a profile-provider timer the engine provides? */
static int
ke_is_timer(const struct dof_pdesc *pd)
{
	return !ke_has_glob(pd->lp_name) && ke_timer_period(pd->lp_name) != 0 &&
	    ke_pmatch(pd->lp_prov, "profile") && ke_pmatch(pd->lp_mod, "") &&
	    ke_pmatch(pd->lp_func, "");
}

/*
 * Can "pd" name only probes of the engine's providers?  Descriptions of
 * the dtrace or profile provider spelled out qualify even when they
 * match nothing (the compiler has rejected those unless -Z was given).
 */
static int
ke_engine_desc(const struct dof_pdesc *pd)
{
	if (ke_is_timer(pd) || ke_match_dtrace(pd) != 0)
		return 1;
	return (ke_literal(pd->lp_prov, "dtrace") ||
	    ke_literal(pd->lp_prov, "profile")) &&
	    ke_pmatch(pd->lp_mod, "") && ke_pmatch(pd->lp_func, "");
}

int
kc_engine_can_run(const struct dof_enabling *den, char *bad, size_t badsz)
{
	const struct dof_pdesc *pd;
	uint32_t i;

	for (i = 0; i < den->den_necbs; i++) {
		pd = &den->den_ecbs[i].le_pdesc;
		if (ke_engine_desc(pd))
			continue;
		snprintf(bad, badsz, "%s:%s:%s:%s", pd->lp_prov, pd->lp_mod,
		    pd->lp_func, pd->lp_name);
		return 0;
	}
	return 1;
}

static struct ke_probe *
ke_add_probe(struct ke *k, uint32_t kind, const char *prov,
    const char *name, uint64_t period)
{
	struct ke_probe *kp = &k->ke_probes[k->ke_nprobes];

	memset(kp, 0, sizeof (*kp));
	snprintf(kp->kp_name, sizeof (kp->kp_name), "%s", name);
	snprintf(kp->kp_prov, sizeof (kp->kp_prov), "%s", prov);
	kp->kp_ep.ep_id = ++k->ke_nprobes;
	kp->kp_ep.ep_kind = kind;
	kp->kp_ep.ep_prov = kp->kp_prov;
	kp->kp_ep.ep_mod = kp->kp_empty;
	kp->kp_ep.ep_func = kp->kp_empty;
	kp->kp_ep.ep_name = kp->kp_name;
	kp->kp_period = period;
	kp->kp_refs = calloc(k->ke_den->den_necbs, sizeof (struct ecb_ref));
	return kp->kp_refs != NULL ? kp : NULL;
}

/* The timer probe named "name", created on first use; NULL: no room. */
static struct ke_probe *
ke_timer_probe(struct ke *k, const char *name)
{
	uint32_t i;

	for (i = KE_PROBE_ERROR; i < k->ke_nprobes; i++)
		if (strcmp(k->ke_probes[i].kp_name, name) == 0)
			return &k->ke_probes[i];
	if (k->ke_nprobes == KE_MAXPROBES)
		return NULL;
	return ke_add_probe(k, ECB_PK_OTHER, "profile", name,
	    ke_timer_period(name));
}

/* Attach ECB "ecb" to probe "kp" with the next EPID. */
static void
ke_attach(struct ke *k, struct ke_probe *kp, uint32_t ecb, uint32_t *epid)
{
	kp->kp_refs[kp->kp_nrefs].er_ecb = ecb;
	kp->kp_refs[kp->kp_nrefs].er_epid = ++*epid;
	kp->kp_nrefs++;
	k->ke_nmatched++;
}

/* Match every ECB; EPIDs from 1 in ECB order.  0, or 1 after saying. */
static int
ke_match(struct ke *k)
{
	const struct dof_pdesc *pd;
	struct ke_probe *kp;
	uint32_t i, j, m, epid = 0;

	if (ke_add_probe(k, ECB_PK_BEGIN, "dtrace", "BEGIN", 0) == NULL ||
	    ke_add_probe(k, ECB_PK_END, "dtrace", "END", 0) == NULL ||
	    ke_add_probe(k, ECB_PK_ERROR, "dtrace", "ERROR", 0) == NULL)
		goto nomem;
	for (i = 0; i < k->ke_den->den_necbs; i++) {
		pd = &k->ke_den->den_ecbs[i].le_pdesc;
		if (ke_is_timer(pd)) {
			if ((kp = ke_timer_probe(k, pd->lp_name)) == NULL)
				goto nomem;
			ke_attach(k, kp, i, &epid);
			continue;
		}
		m = ke_match_dtrace(pd);
		for (j = 0; j < 3; j++)
			if (m & (1u << j))
				ke_attach(k, &k->ke_probes[j], i, &epid);
	}
	for (i = 0; i < k->ke_nprobes; i++) {
		k->ke_probes[i].kp_ep.ep_ecbs = k->ke_probes[i].kp_refs;
		k->ke_probes[i].kp_ep.ep_necbs = k->ke_probes[i].kp_nrefs;
	}
	return 0;
nomem:
	fprintf(k->ke_err, "%s: out of memory or more than %u timer probes\n",
	    k->ke_prog, KE_MAXPROBES - 3);
	return 1;
}

/* ---- setup ---- */

static uint64_t
ke_opt(const struct ke *k, uint32_t opt, uint64_t dflt)
{
	uint64_t v = k->ke_den->den_opts[opt];

	return v == DTRACEOPT_UNSET ? dflt : v;
}

static uint64_t
ke_roundup(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* Publish every probe and EPID in the region's tables.  0 or -errno. */
static int
ke_publish(struct ke *k, struct kdt_err *ke)
{
	const struct ke_probe *kp;
	uint32_t i, j;
	int rv;

	for (i = 0; i < k->ke_nprobes; i++) {
		kp = &k->ke_probes[i];
		rv = rgn_add_probe(k->ke_rgn, kp->kp_ep.ep_id, kp->kp_prov,
		    kp->kp_empty, kp->kp_empty, kp->kp_name, ke);
		for (j = 0; rv == 0 && j < kp->kp_nrefs; j++)
			rv = rgn_add_epid(k->ke_rgn, kp->kp_refs[j].er_epid,
			    kp->kp_ep.ep_id, kp->kp_refs[j].er_ecb,
			    k->ke_den->den_ecbs[kp->kp_refs[j].er_ecb].le_size,
			    ke);
		if (rv != 0)
			return rv;
	}
	return 0;
}

/* Lay out the one-CPU region and publish probes and EPIDs.  0 or 1. */
static int
ke_region(struct ke *k)
{
	struct rgn_params p;
	struct kdt_err ke;
	uint64_t bufsize = ke_opt(k, DTRACEOPT_BUFSIZE, KE_BUFSIZE_DEFAULT);
	uint64_t meta;

	memset(&p, 0, sizeof (p));
	p.rp_ncpu = 1;
	k->ke_policy = (uint32_t)ke_opt(k, DTRACEOPT_BUFPOLICY,
	    DTRACEOPT_BUFPOLICY_SWITCH);
	p.rp_policy = k->ke_policy == DTRACEOPT_BUFPOLICY_RING ?
	    DTRACEOPT_BUFPOLICY_RING : DTRACEOPT_BUFPOLICY_FILL;
	p.rp_probe_cap = k->ke_nprobes;
	p.rp_epid_cap = k->ke_nmatched + 1;
	p.rp_created = (uint64_t)time(NULL) * KE_NS;
	p.rp_release = "userspace";
	p.rp_dof = k->ke_den->den_dof;
	p.rp_dofsz = k->ke_den->den_dofsz;
	meta = 64 + (uint64_t)p.rp_probe_cap * sizeof (struct rgn_probe) +
	    (uint64_t)p.rp_epid_cap * sizeof (struct rgn_epid) + p.rp_dofsz;
	k->ke_rgnsize = RGN_PAGE + ke_roundup(meta + 8, RGN_PAGE) +
	    ke_roundup(ke_roundup(bufsize, 8) + RGN_CPU_HDRSIZE, RGN_PAGE);
	if ((k->ke_rgn = aligned_alloc(RGN_PAGE, k->ke_rgnsize)) == NULL) {
		fprintf(k->ke_err, "%s: cannot allocate %llu bytes of buffer (bufsize %llu)\n",
		    k->ke_prog, (unsigned long long)k->ke_rgnsize,
		    (unsigned long long)bufsize);
		return 1;
	}
	memset(k->ke_rgn, 0, k->ke_rgnsize);
	if (rgn_init(k->ke_rgn, k->ke_rgnsize, &p, &ke) != 0 ||
	    ke_publish(k, &ke) != 0)
		goto bad;
	rgn_set_state(k->ke_rgn, RGN_STATE_ACTIVE);
	if (rgn_open(&k->ke_view, k->ke_rgn, k->ke_rgnsize, RGN_PHYS_ANY,
	    &ke) != 0)
		goto bad;
	return 0;
bad:
	fprintf(k->ke_err, "%s: could not enable tracing: %s\n", k->ke_prog,
	    ke.ke_msg);
	return 1;
}

/* A quarter of the machine's memory: the most dynvarsize may take. */
static uint64_t
ke_mem_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psz <= 0)
		return 1ULL << 30;	/* unknown: 1 GiB */
	return (uint64_t)pages * (uint64_t)psz / 4;
}

/* The ECB runner, over the region.  0 or 1 after saying why. */
static int
ke_runner(struct ke *k)
{
	const int manual = kc_resize_manual(k->ke_den);
	struct ecb_params p;
	struct kdt_err ke;
	uint64_t want;
	char msg[256];
	int rv;

	ecb_params_init(&p, k->ke_den, 1);
	p.ep_policy = k->ke_policy == DTRACEOPT_BUFPOLICY_RING ?
	    DTRACEOPT_BUFPOLICY_RING : DTRACEOPT_BUFPOLICY_FILL;
	p.ep_user = 1;
	if (k->ke_ro->ro_destructive)
		p.ep_destructive = 1;
	k->ke_aggsize = p.ep_aggsize;
	/* dynvarsize: fit to a quarter of memory, as kdt.ko (kc_resize.h) */
	want = p.ep_dynvarsize;
	if (kc_dynvar_fit(k->ke_den, want, ke_mem_limit(),
	    "a quarter of memory", manual, &p.ep_dynvarsize, msg,
	    sizeof (msg)) != 0) {
		fprintf(k->ke_err, "%s: could not enable tracing: %s\n",
		    k->ke_prog, msg);
		return 1;
	}
	while ((rv = ecb_create(k->ke_den, &p, &k->ke_es, &ke)) == -ENOMEM &&
	    !manual && strstr(ke.ke_msg, "for variables") != NULL &&
	    p.ep_dynvarsize / 2 >= KC_DYNVARSIZE_MIN)
		p.ep_dynvarsize /= 2;	/* bufresize=auto: what can be had */
	if (rv != 0) {
		fprintf(k->ke_err, "%s: could not enable tracing: %s%s\n",
		    k->ke_prog, ke.ke_msg, rv == -ENOMEM &&
		    strstr(ke.ke_msg, "for variables") != NULL ?
		    (manual ? " (dynvarsize; bufresize=manual)" :
		    " (dynvarsize; bufresize=auto halved it to its minimum)") :
		    "");
		return 1;
	}
	(void) kc_dynvar_lowered(k->ke_err, k->ke_prog, want,
	    p.ep_dynvarsize);
	ecb_set_region(k->ke_es, k->ke_rgn);
	ecb_set_error_probe(k->ke_es, &k->ke_probes[KE_PROBE_ERROR - 1].kp_ep);
	/* What DIF may read: the probes' names (probeprov, probefunc...). */
	kc_env_clear_readable();
	(void) kc_env_add_readable(k->ke_probes, sizeof (k->ke_probes));
	return 0;
}

/* ---- consumer side: aggregations, drops ---- */

/* Merge the CPU's aggregation buffer into the session's state. */
static void
ke_snap(void *arg)
{
	struct ke *k = arg;
	struct agg_buf *ab = k->ke_es->es_cpus[0].ec_agg;
	struct kdt_err ke;

	k->ke_lastsnap = kenv_timestamp();
	if (ab == NULL || k->ke_sess.se_aggs == NULL)
		return;
	if (agg_buf_check(ab, k->ke_aggsize, k->ke_den, &ke) != 0) {
		fprintf(k->ke_err, "%s: aggregation buffer of CPU 0: %s\n",
		    k->ke_prog, ke.ke_msg);
		return;
	}
	if (kc_aggs_snap(k->ke_sess.se_aggs, ab) != 0)
		fprintf(k->ke_err, "%s: out of memory merging aggregations\n",
		    k->ke_prog);
	agg_buf_reset(ab);
}

static void
ke_report_drops(struct ke *k)
{
	const struct ecb_cpu *ec = &k->ke_es->es_cpus[0];
	struct kc_sess *s = &k->ke_sess;

	kc_sess_drops_begin(s);
	kc_sess_drop(s, KC_DROP_PRINCIPAL, 0, ec->ec_rc->rc_drops);
	if (ec->ec_agg != NULL)
		kc_sess_drop(s, KC_DROP_AGGREGATION, 0, ec->ec_agg->ab_drops);
	kc_sess_drop(s, KC_DROP_DYNAMIC, 0, ecb_dyndrops(k->ke_es));
	kc_sess_drop(s, KC_DROP_SPEC, 0, ec->ec_spec.sc_drops);
	kc_sess_drop(s, KC_DROP_SPECBUSY, 0, ec->ec_spec.sc_busy);
	kc_sess_drop(s, KC_DROP_SPECUNAVAIL, 0, ec->ec_spec.sc_unavail);
	kc_sess_drop(s, KC_DROP_DBLERROR, 0, ec->ec_dblerrors);
}

/* A rate a setopt() changed (kc_sess_rate) replaces "rate". */
static void
ke_take_rate(struct ke *k, uint32_t opt, uint64_t *rate)
{
	uint64_t v = kc_sess_rate(&k->ke_sess, opt);

	if (v != 0)
		*rate = v;
}

/*
 * What is due now, in dtrace(1)'s order: the aggregation snapshot, then
 * the records -- printed, and under the switch policy the buffer emptied
 * afterwards (the "switch"; ring buffers are read only at the end) --
 * then the drop report.  "final" does all three.
 */
static void
ke_consume(struct ke *k, int final)
{
	struct rgn_cpu *rc = k->ke_es->es_cpus[0].ec_rc;
	uint64_t now = kenv_timestamp();

	if (final || now - k->ke_lastsnap >= k->ke_aggrate)
		ke_snap(k);
	if (final || k->ke_lastswitch == 0 ||
	    now - k->ke_lastswitch >= k->ke_switchrate) {
		k->ke_lastswitch = now;
		if (k->ke_policy != DTRACEOPT_BUFPOLICY_RING || final) {
			(void) kc_dec_consume(k->ke_sess.se_dec, 0);
			if (k->ke_policy == DTRACEOPT_BUFPOLICY_SWITCH &&
			    rc->rc_reserve == rc->rc_head)
				rc->rc_tail = rc->rc_head;
		}
		ke_take_rate(k, DTRACEOPT_SWITCHRATE, &k->ke_switchrate);
		ke_take_rate(k, DTRACEOPT_AGGRATE, &k->ke_aggrate);
		ke_take_rate(k, DTRACEOPT_STATUSRATE, &k->ke_statusrate);
	}
	if (final || now - k->ke_lastreport >= k->ke_statusrate) {
		ke_report_drops(k);
		k->ke_lastreport = kenv_timestamp();
	}
}

/* When ke_consume() next has something to do. */
static uint64_t
ke_consume_due(const struct ke *k)
{
	uint64_t t = k->ke_lastswitch + k->ke_switchrate;

	if (k->ke_lastsnap + k->ke_aggrate < t)
		t = k->ke_lastsnap + k->ke_aggrate;
	if (k->ke_lastreport + k->ke_statusrate < t)
		t = k->ke_lastreport + k->ke_statusrate;
	return t;
}

/* ---- life cycle ---- */

static void
ke_fire(struct ke *k, uint32_t id, uint64_t ts)
{
	const struct ke_probe *kp = &k->ke_probes[id - 1];

	if (kp->kp_nrefs != 0)
		ecb_fire(k->ke_es, &kp->kp_ep, 0, NULL, ts);
	ke_consume(k, 0);
}

/* Tracing must stop: exit(), ^C, or a full fill-policy buffer. */
static int
ke_stopping(const struct ke *k)
{
	if (ke_intr || k->ke_es->es_state != ECB_ST_ACTIVE)
		return 1;
	return k->ke_policy == DTRACEOPT_BUFPOLICY_FILL &&
	    k->ke_es->es_cpus[0].ec_rc->rc_drops != 0;
}

/* The due timer with the earliest time (ties: lower id), or NULL. */
static struct ke_probe *
ke_next_timer(struct ke *k)
{
	struct ke_probe *best = NULL;
	uint32_t i;

	for (i = KE_PROBE_ERROR; i < k->ke_nprobes; i++)
		if (k->ke_probes[i].kp_nrefs != 0 && (best == NULL ||
		    k->ke_probes[i].kp_next < best->kp_next))
			best = &k->ke_probes[i];
	return best;
}

/* Sleep until monotonic time "t" ns, or a signal. */
static void
ke_sleep_until(uint64_t t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(t / KE_NS);
	ts.tv_nsec = (long)(t % KE_NS);
	(void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* ACTIVE: run the timers (or wait for ^C) until tracing stops. */
static void
ke_loop(struct ke *k)
{
	uint64_t start = kenv_timestamp(), t;
	struct ke_probe *kp;
	uint32_t i;

	for (i = KE_PROBE_ERROR; i < k->ke_nprobes; i++)
		k->ke_probes[i].kp_next = start + k->ke_probes[i].kp_period;
	/*
	 * Consumptions on the timers' grid: one due at the same time as a
	 * timer comes after its firing (ke_fire consumes what is due), as
	 * dtrace(1)'s consumer usually wakes just after a tick of the same
	 * period.
	 */
	k->ke_lastswitch = k->ke_lastsnap = start;
	while (!ke_stopping(k)) {
		kp = ke_next_timer(k);
		t = kp != NULL ? kp->kp_next : kenv_timestamp() + KE_NS;
		if (ke_consume_due(k) < t)
			t = ke_consume_due(k);
		if (kenv_timestamp() < t)
			ke_sleep_until(t);
		if (ke_stopping(k))
			break;
		if (kp != NULL && kenv_timestamp() >= kp->kp_next) {
			ke_fire(k, kp->kp_ep.ep_id, kenv_timestamp());
			kp->kp_next += kp->kp_period;
		} else if (kenv_timestamp() >= ke_consume_due(k)) {
			ke_consume(k, 0);
		}
	}
}

/* BEGIN, timers, END; returns the exit status. */
static int
ke_lifecycle(struct ke *k)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof (sa));
	sa.sa_handler = ke_on_sigint;
	sigemptyset(&sa.sa_mask);
	ke_intr = 0;
	(void) sigaction(SIGINT, &sa, &old);
	ke_fire(k, KE_PROBE_BEGIN, kenv_timestamp());
	if (k->ke_es->es_state == ECB_ST_WARMUP)
		ecb_set_state(k->ke_es, ECB_ST_ACTIVE);
	ke_loop(k);
	ecb_set_state(k->ke_es, ECB_ST_COOLDOWN);
	ke_fire(k, KE_PROBE_END, kenv_timestamp());
	ecb_set_state(k->ke_es, ECB_ST_STOPPED);
	ke_consume(k, 1);
	(void) sigaction(SIGINT, &old, NULL);
	return kc_sess_finish(&k->ke_sess, k->ke_es->es_exited != 0,
	    k->ke_es->es_status);
}

/* ---- setup and entry ---- */

/* Load the DOF and check that this engine can run it.  0 or 1. */
static int
ke_load(struct ke *k, const void *dof, uint64_t dofsz)
{
	struct kdt_err ke;
	char bad[DOF_PROVNAMELEN + DOF_MODNAMELEN + DOF_FUNCNAMELEN +
	    DOF_NAMELEN + 4];

	if (dof_load(dof, dofsz, &k->ke_den, &ke) != 0) {
		fprintf(k->ke_err, "%s: could not enable tracing: DOF: %s\n",
		    k->ke_prog, ke.ke_msg);
		return 1;
	}
	if (!kc_engine_can_run(k->ke_den, bad, sizeof (bad))) {
		fprintf(k->ke_err, "%s: probe description %s needs the kernel engine (kdt.ko); the userspace engine provides only dtrace:::BEGIN, END, ERROR and profile:::tick-*/profile-*\n",
		    k->ke_prog, bad);
		return 1;
	}
	return 0;
}

static void
ke_free(struct ke *k)
{
	uint32_t i;

	kc_env_clear_readable();
	kc_sess_fini(&k->ke_sess);
	ecb_destroy(k->ke_es);
	free(k->ke_rgn);
	for (i = 0; i < k->ke_nprobes; i++)
		free(k->ke_probes[i].kp_refs);
	if (k->ke_den != NULL)
		dof_free(k->ke_den);
	free(k);
}

int
kc_engine_run(const void *dof, uint64_t dofsz, const struct kc_run_opts *ro,
    FILE *out, FILE *err)
{
	struct ke *k = calloc(1, sizeof (*k));
	int rc = 1;

	if (k == NULL)
		return 1;
	k->ke_ro = ro;
	k->ke_out = out;
	k->ke_err = err;
	k->ke_prog = ro->ro_prog != NULL ? ro->ro_prog : "kdt";
	if (ke_load(k, dof, dofsz) != 0 || ke_match(k) != 0 ||
	    ke_region(k) != 0 || ke_runner(k) != 0 ||
	    kc_sess_init(&k->ke_sess, ro, out, err, k->ke_den, &k->ke_view, 1,
	    ke_snap, k) != 0)
		goto out;
	k->ke_aggrate = ke_opt(k, DTRACEOPT_AGGRATE, KE_NS);	/* ns */
	k->ke_switchrate = ke_opt(k, DTRACEOPT_SWITCHRATE, KE_NS);
	k->ke_statusrate = ke_opt(k, DTRACEOPT_STATUSRATE, KE_NS);
	k->ke_lastsnap = k->ke_lastreport = kenv_timestamp();
	kc_sess_matched(&k->ke_sess, k->ke_nmatched);
	fflush(err);
	rc = ke_lifecycle(k);
out:
	ke_free(k);
	return rc;
}
