/*
 * kt_aggtot.h -- kdt.ko and its consumer played around a region's
 * aggregation buffers and totals (common/rgn.h, "Aggregation totals")
 * for the tests of that format and of what reads it: test_rgn_aggtot.c
 * (a live state's region, read with kc_aggs_region), test_anon_aggtot.c
 * (the anonymous state a consumer claimed, printed whole) and
 * test_extract_libact.c (clear() and the other actions replayed).  Every
 * step is the very function kdt.ko or the consumer runs, so a test checks
 * that code and not a copy of it:
 *
 *  - kt_aggtot_switch: a snapshot of one CPU -- kd_snap_agg()'s sequence
 *    (the spare's interval to 0, reset, interval = the active one's + 1,
 *    switch), then the consumer's kc_aggs_snap() of the switched-out
 *    buffer;
 *  - kt_aggtot_write: KIO_AGGTOT -- the merged intervals and the
 *    consumer's table (kc_aggs_image, or kc_aggs_totals with the replay
 *    positions) into rgn_aggtot_begin()'s slot, then rgn_aggtot_commit();
 *  - kt_aggtot_dump: "the panic" -- kc_print_region_opts(), what
 *    kdt-extract and the crash extension run, on the image;
 *  - kt_aggtot_text: what the consumer prints for a table;
 *  - kt_ecb_*: the ECB runner of common/ecb.c over the region, for probes
 *    sdt:kt::NAME whose clause i is ECB i and EPID i + 1;
 *  - struct kt_agt and kt_agt_*: a 2-CPU region whose probe updates are
 *    agg_update() on a CPU's active buffer and on a shadow buffer (the
 *    truth), with the model of what a dump must find: which intervals the
 *    newest totals hold (t_g) and which buffers were reused (t_gone), and
 *    the step sequences {update, snapshot CPU 0, snapshot CPU 1, totals}
 *    the interleaving tests play.
 *
 * Static functions, marked unused (each test takes the part it needs):
 * include this once per test program.
 */
#ifndef KT_AGGTOT_H
#define KT_AGGTOT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "dof_load.h"
#include "rgn.h"
#include "agg.h"
#include "ecb.h"
#include "consumer/kc.h"
#include "consumer/kc_agg.h"

#define KT_AGT_NCPU	2
#define KT_AGT_SHADOW	(256 * 1024)	/* the truth's buffer */

/* "prog" compiled (file name "name" in its messages) and loaded. */
static __attribute__((unused)) void
kt_aggtot_compile(const char *prog, const char *name, struct dc_out *out,
    struct dof_enabling **den)
{
	struct dc_opts opts;
	struct kdt_err ke;

	memset(&opts, 0, sizeof (opts));
	ck_assert_msg(dc_compile(prog, strlen(prog), name, &opts, out) == 0,
	    "%s", out->dco_diag);
	ck_assert_int_eq(dof_load(out->dco_dof, out->dco_dofsz, den, &ke), 0);
}

/*
 * KIO_SNAP_AGG of one CPU (kd_snap_agg): *spare becomes the active buffer
 * of the next interval, the old active one the spare; the consumer merges
 * it into "ka" (checked with agg_buf_check against "den" first unless
 * den is NULL) and notes its interval in *ival.
 */
static __attribute__((unused)) void
kt_aggtot_switch(struct agg_buf **act, struct agg_buf **spare,
    const struct dof_enabling *den, struct kc_aggs *ka, uint64_t *ival)
{
	struct agg_buf *nb = *spare, *old = *act;
	struct kdt_err ke;

	nb->ab_interval = 0;
	agg_buf_reset(nb);
	nb->ab_drops = old->ab_drops;
	nb->ab_interval = old->ab_interval + 1;
	*act = nb;
	*spare = old;
	if (den != NULL)
		ck_assert_int_eq(agg_buf_check(old, old->ab_size, den, &ke),
		    0);
	ck_assert_int_eq(kc_aggs_snap(ka, old), 0);
	*ival = old->ab_interval;
}

/*
 * KIO_AGGTOT: "ival" (the intervals merged, one per CPU) and the table
 * "ka" into the older totals slot -- with "pos" (2 per CPU) the replay
 * part too (kc_aggs_totals), else the image alone (kc_aggs_image).  The
 * entries that did not fit are returned.
 */
static __attribute__((unused)) uint64_t
kt_aggtot_write(uint8_t *rgn, uint32_t ncpu, const uint64_t *ival,
    const struct kc_aggs *ka, const uint64_t *pos)
{
	uint64_t cap, len, xlen = 0, left;
	struct kdt_err ke;
	uint8_t *dst;

	dst = rgn_aggtot_begin(rgn, &cap);
	ck_assert_ptr_nonnull(dst);
	ck_assert_uint_eq(cap - 8ULL * ncpu, rgn_aggtot_cap(rgn));
	memcpy(dst, ival, 8ULL * ncpu);
	if (pos != NULL)
		ck_assert_int_eq(kc_aggs_totals(ka, dst + 8ULL * ncpu,
		    cap - 8ULL * ncpu, pos, ncpu, &len, &xlen, &left), 0);
	else
		ck_assert_int_eq(kc_aggs_image(ka, dst + 8ULL * ncpu,
		    cap - 8ULL * ncpu, &len, &left), 0);
	ck_assert_msg(rgn_aggtot_commit(rgn, len, xlen, left, &ke) == 0,
	    "%s", ke.ke_msg);
	return left;
}

/*
 * kdt-extract's printer on the image "rgn" of "size" bytes at "phys"
 * (file name "img"): its exit status; *out and *err are what it printed
 * (the caller frees them).
 */
static __attribute__((unused)) int
kt_aggtot_dump(const uint8_t *rgn, uint64_t size, uint64_t phys,
    uint32_t fmt, uint32_t flags, char **out, char **err)
{
	struct kc_opts ko;
	size_t on = 0, en = 0;
	FILE *o = open_memstream(out, &on), *e = open_memstream(err, &en);
	int rv;

	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(e);
	memset(&ko, 0, sizeof (ko));
	ko.ko_prog = "kdt-extract";
	ko.ko_flags = KC_F_QUIET | KC_F_PARTIAL | flags;
	ko.ko_format = fmt;
	rv = kc_print_region_opts(rgn, size, phys, "img", o, e, &ko);
	fclose(o);
	fclose(e);
	return rv;
}

/* "prefix", then what kc_aggs_print_all prints for "ka" (caller frees). */
static __attribute__((unused)) char *
kt_aggtot_text(struct kc_aggs *ka, const char *prefix)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	ck_assert_ptr_nonnull(f);
	fputs(prefix, f);
	ck_assert_int_eq(kc_aggs_print_all(ka, f), 0);
	fclose(f);
	return s;
}

/* ---- the ECB runner over the region ---- */

/*
 * Probe sdt:kt::"name" with id "id" running ECB "ecb" alone (EPID ecb +
 * 1): in the region's probe and EPID tables, and as the runner's "ep"
 * with its one reference "ref".
 */
static __attribute__((unused)) void
kt_ecb_probe(uint8_t *rgn, const struct dof_enabling *den, uint32_t ecb,
    uint32_t id, const char *name, struct ecb_probe *ep, struct ecb_ref *ref)
{
	struct kdt_err ke;

	ck_assert_int_eq(rgn_add_probe(rgn, id, "sdt", "kt", "", name, &ke),
	    0);
	ck_assert_int_eq(rgn_add_epid(rgn, ecb + 1, id, ecb,
	    den->den_ecbs[ecb].le_size, &ke), 0);
	ref->er_ecb = ecb;
	ref->er_epid = ecb + 1;
	ep->ep_id = id;
	ep->ep_kind = ECB_PK_OTHER;
	ep->ep_prov = "sdt";
	ep->ep_mod = "kt";
	ep->ep_func = "";
	ep->ep_name = name;
	ep->ep_ecbs = ref;
	ep->ep_necbs = 1;
}

/* The runner of "den" on "ncpu" CPUs, writing into "rgn", active. */
static __attribute__((unused)) struct ecb_state *
kt_ecb_start(const struct dof_enabling *den, uint32_t ncpu, uint32_t policy,
    uint8_t *rgn)
{
	struct ecb_params p;
	struct ecb_state *es;
	struct kdt_err ke;

	ecb_params_init(&p, den, ncpu);
	p.ep_policy = policy;
	p.ep_user = 1;
	ck_assert_int_eq(ecb_create(den, &p, &es, &ke), 0);
	ecb_set_region(es, rgn);
	ecb_set_aggbufs(es, rgn);
	ecb_set_state(es, ECB_ST_ACTIVE);
	return es;
}

/* A firing of "ep" on "cpu" with arg0 "a0", 1000ns after the last. */
static __attribute__((unused)) void
kt_ecb_fire(struct ecb_state *es, struct ecb_probe *ep, uint32_t cpu,
    int64_t a0, uint64_t *ts)
{
	uint64_t args[DIF_NARGS] = { (uint64_t)a0 };

	*ts += 1000;
	ecb_fire(es, ep, cpu, args, *ts);
}

/* ---- a region updated by hand, with its model ---- */

struct kt_agt {
	struct dc_out	t_out;
	struct dof_enabling *t_den;
	uint8_t		*t_rgn;
	uint64_t	t_size;
	struct agg_buf	*t_act[KT_AGT_NCPU];	/* active buffer */
	struct agg_buf	*t_spare[KT_AGT_NCPU];
	struct agg_buf	*t_shadow;	/* every update: the truth */
	struct kc_aggs	*t_ka;		/* the consumer's table */
	uint64_t	t_ival[KT_AGT_NCPU];	/* intervals it merged */
	/* the model: what the reader must find */
	uint64_t	t_g[KT_AGT_NCPU];	/* in the newest totals */
	uint32_t	t_gone[KT_AGT_NCPU];	/* bit i: interval i's
						   buffer was reset */
	uint32_t	t_nupd;
};

/*
 * "prog" compiled into t: two aggregations, for kt_agt_fire @c[arg0] =
 * count() and a quantize(arg0).  The caller then lays the region out
 * (kt_agt_init) with parameters naming t_den's DOF.
 */
static __attribute__((unused)) void
kt_agt_new(struct kt_agt *t, const char *prog, const char *name)
{
	memset(t, 0, sizeof (*t));
	kt_aggtot_compile(prog, name, &t->t_out, &t->t_den);
	ck_assert_uint_eq(t->t_den->den_naggs, 2);
}

/*
 * A zeroed region of "size" bytes laid out by rgn_init() with "rp"; each
 * CPU's active buffer at interval 1; the shadow buffer.
 */
static __attribute__((unused)) void
kt_agt_init(struct kt_agt *t, const struct rgn_params *rp, uint64_t size)
{
	struct kdt_err ke;
	uint32_t c;

	t->t_size = size;
	t->t_rgn = aligned_alloc(4096, size);
	ck_assert_ptr_nonnull(t->t_rgn);
	memset(t->t_rgn, 0, size);
	ck_assert_msg(rgn_init(t->t_rgn, size, rp, &ke) == 0, "%s",
	    ke.ke_msg);
	for (c = 0; c < KT_AGT_NCPU; c++) {
		t->t_act[c] = rgn_agg(t->t_rgn, c);
		ck_assert_uint_eq(t->t_act[c]->ab_interval, 1);
	}
	t->t_shadow = malloc(KT_AGT_SHADOW);
	ck_assert_ptr_nonnull(t->t_shadow);
	ck_assert_int_eq(agg_buf_init(t->t_shadow, KT_AGT_SHADOW, 0, &ke), 0);
}

/*
 * The consumer starts (an anonymous state's: KIO_CLAIM, kd_aggspares):
 * it takes the region's spares (interval 0) and a table of its own.
 */
static __attribute__((unused)) void
kt_agt_claim(struct kt_agt *t)
{
	uint32_t c;

	for (c = 0; c < KT_AGT_NCPU; c++) {
		t->t_spare[c] = rgn_agg(t->t_rgn, KT_AGT_NCPU + c);
		ck_assert_ptr_nonnull(t->t_spare[c]);
		ck_assert_uint_eq(t->t_spare[c]->ab_interval, 0);
		ck_assert_uint_eq(t->t_spare[c]->ab_cpu, c);
	}
	t->t_ka = kc_aggs_new(t->t_den);
	ck_assert_ptr_nonnull(t->t_ka);
}

static __attribute__((unused)) void
kt_agt_free(struct kt_agt *t)
{
	if (t->t_ka != NULL)
		kc_aggs_free(t->t_ka);
	free(t->t_shadow);
	free(t->t_rgn);
	dof_free(t->t_den);
	dc_out_free(&t->t_out);
}

/* A probe firing on "cpu" with arg0 "v": both aggregations, and truth. */
static __attribute__((unused)) void
kt_agt_fire(struct kt_agt *t, uint32_t cpu, int64_t v)
{
	const struct dof_agg *c = &t->t_den->den_aggs[0];
	const struct dof_agg *q = &t->t_den->den_aggs[1];
	uint8_t key[8] = { 0 };

	memcpy(key, &v, sizeof (v));
	ck_assert_int_eq(agg_update(t->t_act[cpu], c, key, 0, 1), 0);
	ck_assert_int_eq(agg_update(t->t_act[cpu], q, key, v, 1), 0);
	ck_assert_int_eq(agg_update(t->t_shadow, c, key, 0, 1), 0);
	ck_assert_int_eq(agg_update(t->t_shadow, q, key, v, 1), 0);
}

/*
 * Step "update": 3 + n firings for the n-th update, on the CPUs in
 * turn, with "nkeys" keys "step" apart that move with n.
 */
static __attribute__((unused)) void
kt_agt_update(struct kt_agt *t, uint32_t nkeys, int64_t step)
{
	uint32_t i;

	t->t_nupd++;
	for (i = 0; i < 3 + t->t_nupd; i++)
		kt_agt_fire(t, i % KT_AGT_NCPU, (int64_t)(i % nkeys) * step +
		    t->t_nupd);
}

/* Step "snapshot CPU c": the spare is reused, the interval it held gone. */
static __attribute__((unused)) void
kt_agt_snap(struct kt_agt *t, uint32_t c)
{
	t->t_gone[c] |= 1u << t->t_spare[c]->ab_interval;
	kt_aggtot_switch(&t->t_act[c], &t->t_spare[c], t->t_den, t->t_ka,
	    &t->t_ival[c]);
}

/* Step "totals" (no replay part): the entries left out are returned. */
static __attribute__((unused)) uint64_t
kt_agt_totals(struct kt_agt *t)
{
	uint64_t left;

	left = kt_aggtot_write(t->t_rgn, KT_AGT_NCPU, t->t_ival, t->t_ka,
	    NULL);
	memcpy(t->t_g, t->t_ival, sizeof (t->t_g));
	return left;
}

/* The truth as the consumer prints it, after "prefix" (caller frees). */
static __attribute__((unused)) char *
kt_agt_truth(const struct kt_agt *t, const char *prefix)
{
	struct kc_aggs *ka = kc_aggs_new(t->t_den);
	char *s;

	ck_assert_ptr_nonnull(ka);
	ck_assert_int_eq(kc_aggs_snap(ka, t->t_shadow), 0);
	s = kt_aggtot_text(ka, prefix);
	kc_aggs_free(ka);
	return s;
}

/* Intervals of CPU c reused and not in the newest totals: lost. */
static __attribute__((unused)) uint64_t
kt_agt_lost(const struct kt_agt *t, uint32_t c)
{
	uint64_t k, n = 0;

	for (k = t->t_g[c] + 1; k < 32; k++)
		n += (t->t_gone[c] >> k) & 1;
	return n;
}

/*
 * Sequence "seq" of "nsteps" steps, base 4, lowest digit first: 0 an
 * update ("nkeys" keys "step" apart), 1 and 2 a snapshot of CPU 0 and 1,
 * 3 totals (the whole table: none left out).  name: the steps as
 * letters (U, 0, 1, T), nsteps + 1 bytes.
 */
static __attribute__((unused)) void
kt_agt_play(struct kt_agt *t, uint32_t seq, uint32_t nsteps, uint32_t nkeys,
    int64_t step, char *name)
{
	static const char letter[4] = { 'U', '0', '1', 'T' };
	uint32_t k;

	for (k = 0; k < nsteps; k++, seq /= 4) {
		name[k] = letter[seq % 4];
		switch (seq % 4) {
		case 0: kt_agt_update(t, nkeys, step); break;
		case 1: kt_agt_snap(t, 0); break;
		case 2: kt_agt_snap(t, 1); break;
		default: ck_assert_uint_eq(kt_agt_totals(t), 0); break;
		}
	}
	name[nsteps] = '\0';
}

#endif /* KT_AGGTOT_H */
