/*
 * kf.h -- what the libFuzzer targets in tests/fuzz/ share: an exact-size
 * copy of the input (so ASan sees a read one byte past it), a sink for the
 * decoders' text, and the little "userspace kernel" the dif target runs a
 * loaded enabling on.  The theory of the targets and of their corpora is
 * in tests/fuzz/README.md.  Static functions: each fuzz_*.c includes it
 * once.
 *
 * The run (kf_run) mirrors what consumer/kc_engine.c sets up in memory,
 * with every size capped so that one input costs at most a few hundred
 * KiB and a bounded amount of work:
 *
 *   dof_load --> one probe per ECB kind (BEGIN, END, ERROR, "tick"); ECB i
 *   gets EPID i + 1 on the probe its description names --> a one-CPU
 *   region (rgn_init, every probe and EPID published) --> ecb_create with
 *   capped sizes, destructive actions allowed, the userspace refusals
 *   --> BEGIN, KF_TICKS x tick, END (states WARMUP, ACTIVE, DRAINING,
 *   COOLDOWN) --> the shared decoder over the region and the aggregation
 *   buffer check + snapshot, all output to /dev/null.
 *
 * Memory model: DIF may read only what kc_env.h registers -- the probe
 * table (probe names) and kf_user, a 256-byte "user buffer" whose address
 * is arg0 of every firing -- and may write (copyout) only kf_user.  Every
 * other address faults, as it would in kdt.ko.
 */
#ifndef KF_H
#define KF_H

/* Not every target uses every helper. */
#pragma GCC diagnostic ignored "-Wunused-function"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/dof_load.h"
#include "common/ecb.h"
#include "common/rgn.h"
#include "common/agg.h"
#include "consumer/kc_env.h"
#include "consumer/kc_engine.h"
#include "consumer/kc_agg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KF_TICKS	3
#define KF_BUFSIZE	(4u << 10)	/* principal buffer cap */
#define KF_AGGSIZE	(8u << 10)
#define KF_DYNVARSIZE	(32u << 10)
#define KF_SPECSIZE	(4u << 10)
#define KF_NSPEC	4
#define KF_NPROBES	4
#define KF_PHYS		0x10000	/* where mkdumps.py puts the region */

/* A sink for every decoder's output, opened once. */
static FILE *
kf_null(void)
{
	static FILE *fp;

	if (fp == NULL && (fp = fopen("/dev/null", "w")) == NULL)
		abort();
	return fp;
}

/*
 * The decoders must create no file whatever the input (a freopen()
 * record in a region image once made them: bad/region/bad-freopen-
 * region).  kf_jail_enter() moves to an empty directory of our own for
 * the decoding, kf_jail_leave() moves back and aborts if anything
 * appeared there.
 */
static char kf_jail[64];
static int kf_home = -1;

static void
kf_jail_rm(void)
{
	(void) rmdir(kf_jail);
}

static void
kf_jail_enter(void)
{
	if (kf_home < 0) {
		snprintf(kf_jail, sizeof (kf_jail), "/tmp/kdt-fuzz-jail.XXXXXX");
		if (mkdtemp(kf_jail) == NULL ||
		    (kf_home = open(".", O_RDONLY | O_DIRECTORY)) < 0)
			abort();
		atexit(kf_jail_rm);
	}
	if (chdir(kf_jail) != 0)
		abort();
}

static void
kf_jail_leave(void)
{
	DIR *dp;
	struct dirent *de;
	int found = 0;

	if (fchdir(kf_home) != 0 || (dp = opendir(kf_jail)) == NULL)
		abort();
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			fprintf(stderr, "kf: the decoder created \"%s\"\n", de->d_name);
			found = 1;
		}
	closedir(dp);
	if (found)
		abort();
}

/* An exact-size, 8-aligned copy of data[0, size) (free() it). */
static void *
kf_copy(const uint8_t *data, size_t size)
{
	void *p = aligned_alloc(8, (size + 7) & ~(size_t)7);

	if (p == NULL)
		abort();
	memcpy(p, data, size);
	return p;
}

static uint64_t
kf_cap(uint64_t v, uint64_t cap)
{
	return v > cap ? cap : v;
}

/* ---- the dif target's run ---- */

struct kf {
	struct dof_enabling *k_den;
	struct ecb_probe k_probes[KF_NPROBES];
	char		k_names[KF_NPROBES][16];
	struct ecb_ref	*k_refs[KF_NPROBES];
	uint8_t		k_user[256];	/* arg0 points here */
	void		*k_rgn;
	uint64_t	k_rgnsize;
	struct rgn_view	k_view;
	struct ecb_state *k_es;
	uint32_t	k_policy;
	uint64_t	k_aggsize;
};

/* Which of the four probes a description names (default: "tick"). */
static uint32_t
kf_probe_of(const struct dof_pdesc *pd)
{
	if (strcmp(pd->lp_name, "BEGIN") == 0)
		return 0;
	if (strcmp(pd->lp_name, "END") == 0)
		return 1;
	if (strcmp(pd->lp_name, "ERROR") == 0)
		return 2;
	return 3;
}

static int
kf_probes(struct kf *k)
{
	static const char *const names[] = { "BEGIN", "END", "ERROR", "tick-1" };
	static const uint32_t kinds[] = { ECB_PK_BEGIN, ECB_PK_END,
	    ECB_PK_ERROR, ECB_PK_OTHER };
	struct ecb_probe *ep;
	struct ecb_ref *r;
	uint32_t i, p;

	for (p = 0; p < KF_NPROBES; p++) {
		ep = &k->k_probes[p];
		snprintf(k->k_names[p], sizeof (k->k_names[p]), "%s", names[p]);
		k->k_refs[p] = calloc(k->k_den->den_necbs + 1, sizeof (*r));
		if (k->k_refs[p] == NULL)
			return -1;
		ep->ep_id = p + 1;
		ep->ep_kind = kinds[p];
		ep->ep_prov = p == 3 ? "profile" : "dtrace";
		ep->ep_mod = "";
		ep->ep_func = "";
		ep->ep_name = k->k_names[p];
		ep->ep_ecbs = k->k_refs[p];
	}
	for (i = 0; i < k->k_den->den_necbs; i++) {
		ep = &k->k_probes[kf_probe_of(&k->k_den->den_ecbs[i].le_pdesc)];
		r = &k->k_refs[ep->ep_id - 1][ep->ep_necbs++];
		r->er_ecb = i;
		r->er_epid = i + 1;
	}
	return 0;
}

static int
kf_region(struct kf *k)
{
	struct rgn_params rp;
	struct kdt_err ke;
	uint64_t bufsize;
	uint32_t i, p;

	bufsize = k->k_den->den_opts[DTRACEOPT_BUFSIZE];
	bufsize = bufsize == DTRACEOPT_UNSET ? KF_BUFSIZE :
	    kf_cap(bufsize, KF_BUFSIZE);
	k->k_policy = k->k_den->den_opts[DTRACEOPT_BUFPOLICY] ==
	    DTRACEOPT_BUFPOLICY_RING ? DTRACEOPT_BUFPOLICY_RING :
	    DTRACEOPT_BUFPOLICY_FILL;
	memset(&rp, 0, sizeof (rp));
	rp.rp_phys = KF_PHYS;
	rp.rp_ncpu = 1;
	rp.rp_policy = k->k_policy;
	rp.rp_probe_cap = KF_NPROBES;
	rp.rp_epid_cap = k->k_den->den_necbs + 1;
	rp.rp_release = "fuzz";
	rp.rp_dof = k->k_den->den_dof;
	rp.rp_dofsz = k->k_den->den_dofsz;
	k->k_rgnsize = (rgn_size_for(&rp, bufsize) + RGN_PAGE - 1) &
	    ~(uint64_t)(RGN_PAGE - 1);
	if ((k->k_rgn = aligned_alloc(RGN_PAGE, k->k_rgnsize)) == NULL)
		return -1;
	memset(k->k_rgn, 0, k->k_rgnsize);
	if (rgn_init(k->k_rgn, k->k_rgnsize, &rp, &ke) != 0)
		return -1;
	for (p = 0; p < KF_NPROBES; p++)
		if (rgn_add_probe(k->k_rgn, p + 1, k->k_probes[p].ep_prov, "",
		    "", k->k_names[p], &ke) != 0)
			return -1;
	for (i = 0; i < k->k_den->den_necbs; i++)
		if (rgn_add_epid(k->k_rgn, i + 1,
		    kf_probe_of(&k->k_den->den_ecbs[i].le_pdesc) + 1, i,
		    k->k_den->den_ecbs[i].le_size, &ke) != 0)
			return -1;
	rgn_set_state(k->k_rgn, RGN_STATE_ACTIVE);
	return rgn_open(&k->k_view, k->k_rgn, k->k_rgnsize, RGN_PHYS_ANY,
	    &ke) != 0 ? -1 : 0;
}

static int
kf_runner(struct kf *k)
{
	struct ecb_params p;
	struct kdt_err ke;

	ecb_params_init(&p, k->k_den, 1);
	p.ep_policy = k->k_policy;
	p.ep_scratch = kf_cap(p.ep_scratch, ECB_SCRATCH_DEFAULT + 8192);
	p.ep_aggsize = kf_cap(p.ep_aggsize, KF_AGGSIZE);
	p.ep_dynvarsize = kf_cap(p.ep_dynvarsize, KF_DYNVARSIZE);
	p.ep_specsize = kf_cap(p.ep_specsize, KF_SPECSIZE);
	p.ep_nspec = (uint32_t)kf_cap(p.ep_nspec, KF_NSPEC);
	p.ep_destructive = 1;
	p.ep_user = 1;
	k->k_aggsize = p.ep_aggsize;
	if (ecb_create(k->k_den, &p, &k->k_es, &ke) != 0)
		return -1;
	ecb_set_region(k->k_es, k->k_rgn);
	ecb_set_error_probe(k->k_es, &k->k_probes[2]);
	kc_env_clear_readable();
	if (kc_env_add_readable(k->k_probes, sizeof (k->k_probes)) != 0 ||
	    kc_env_add_readable(k->k_names, sizeof (k->k_names)) != 0 ||
	    kc_env_add_readable(k->k_user, sizeof (k->k_user)) != 0 ||
	    kc_env_add_writable(k->k_user, sizeof (k->k_user)) != 0)
		abort();
	return 0;
}

static void
kf_fire(struct kf *k, uint32_t p, uint64_t ts)
{
	uint64_t args[DIF_NARGS];
	uint32_t i;

	for (i = 0; i < DIF_NARGS; i++)
		args[i] = i * 7 + ts;
	args[0] = (uint64_t)(uintptr_t)k->k_user;
	args[1] = (uint64_t)-1;
	if (k->k_probes[p].ep_necbs != 0)
		ecb_fire(k->k_es, &k->k_probes[p], 0, args, ts);
}

/* BEGIN, the ticks, END: the engine's life cycle in one go. */
static void
kf_lifecycle(struct kf *k)
{
	uint32_t t;

	ecb_set_state(k->k_es, ECB_ST_WARMUP);
	kf_fire(k, 0, 1000);
	if (k->k_es->es_state == ECB_ST_WARMUP)
		ecb_set_state(k->k_es, ECB_ST_ACTIVE);
	for (t = 0; t < KF_TICKS && k->k_es->es_state == ECB_ST_ACTIVE; t++)
		kf_fire(k, 3, 2000 + t);
	ecb_set_state(k->k_es, ECB_ST_COOLDOWN);
	kf_fire(k, 1, 9000);
	ecb_set_state(k->k_es, ECB_ST_STOPPED);
}

/* The consumer's side: decode the records, check and merge the aggs. */
static void
kf_consume(struct kf *k)
{
	struct kc_dec_opts o;
	struct kc_dec *d;
	struct kc_aggs *ka;
	struct agg_buf *ab = k->k_es->es_cpus[0].ec_agg;
	struct kdt_err ke;

	memset(&o, 0, sizeof (o));
	o.do_prog = "fuzz";
	o.do_input = "fuzz";
	o.do_out = kf_null();
	o.do_err = kf_null();
	o.do_engine = 1;
	if ((d = kc_dec_new(&k->k_view, k->k_den, &o)) != NULL) {
		(void) kc_dec_consume(d, 0);
		kc_dec_free(d);
	}
	if (ab == NULL || agg_buf_check(ab, k->k_aggsize, k->k_den, &ke) != 0)
		return;
	if ((ka = kc_aggs_new(k->k_den)) != NULL) {
		if (kc_aggs_snap(ka, ab) == 0)
			(void) kc_aggs_print_all(ka, kf_null());
		kc_aggs_free(ka);
	}
}

static void
kf_free(struct kf *k)
{
	uint32_t p;

	kc_env_clear_readable();
	if (k->k_es != NULL)
		ecb_destroy(k->k_es);
	for (p = 0; p < KF_NPROBES; p++)
		free(k->k_refs[p]);
	free(k->k_rgn);
	dof_free(k->k_den);
}

#endif /* KF_H */
