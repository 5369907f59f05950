/*
 * test_anon_aggtot.c -- the anonymous state's aggregations after "kdt -a"
 * claimed it (issue 6; common/rgn.h "Aggregation totals", kmod/kd_cs.c
 * kd_anon_aggrgn, anon/an_size.c).
 *
 * An anonymous enabling keeps its aggregation buffers in the reserved
 * region.  Once a consumer claims the state it snapshots them as a live
 * consumer does, so the region carries, as a live vmalloc'd state's does,
 * a spare per CPU and two totals slots: a snapshot switches with the
 * in-region spare and keeps the switched-out buffer until the consumer's
 * totals cover it.  A dump taken after the claim (a later panic, the
 * warm-reboot previous region) must then print what the claimed consumer
 * would have printed at that moment: the aggregations from before the
 * claim and after it, merged.
 *
 * The test plays kdt.ko and the consumer with the functions they use
 * (kt_aggtot.h, shared with test_rgn_aggtot.c and test_extract_libact.c):
 *
 *  - sizing: "kdt -A"'s an_size_compute() must give a region in which
 *    kdt.ko's anonymous layout (RGN_F_ANON, spares, totals slots sized
 *    as kd_aggrgn_params does) fits next to the buffers the program asks
 *    for -- else kdt.ko leaves the spares and totals out;
 *  - the region laid out by rgn_init() that way; probe updates are
 *    agg_update() on a CPU's active buffer (and on a shadow buffer: the
 *    truth); the claim takes the in-region spares; a snapshot of CPU c is
 *    kd_snap_agg()'s sequence (the spare's interval to 0, reset, interval
 *    = active + 1, switch) and the consumer's kc_aggs_snap(); a totals
 *    write is kc_aggs_image() into rgn_aggtot_begin()'s slot and
 *    rgn_aggtot_commit(), as KIO_AGGTOT does;
 *  - "the panic": kc_print_region_opts() (what kdt-extract and the crash
 *    extension run) on the image.
 *
 * Every sequence of 5 steps from {update, snapshot CPU 0, snapshot CPU 1,
 * totals} after updates before the claim must print exactly the truth,
 * except where the model says intervals are lost (a CPU snapshotted
 * twice with no totals written between): then the reader says how many.
 * Before any claim (no totals, spares at interval 0) a dump prints the
 * active buffers whole and the records' clear() replays as before.
 * After it, a clear() the consumer acted on (its totals' replay
 * positions are past the record: rgn.h "Aggregation totals", replay) is
 * not replayed on what came later; one it had not reached is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "kt_aggtot.h"
#include "dof_libact.h"
#include "anon/an_impl.h"

#define TN_NCPU		KT_AGT_NCPU
#define TN_STEPS	5
#define TN_PHYS		0x20000000ULL
#define TN_AGGTOT_NCPU	4	/* kmod/kd_cs.c KD_AGGTOT_NCPU */
#define TN_NKEYS	3	/* an update's keys: 3, 5 apart */
#define TN_KEYSTEP	5
#define MIB		(1ULL << 20)
#define GIB		(1ULL << 30)

static const char tn_prog[] =
    "#pragma D option bufsize=16k\n"
    "#pragma D option aggsize=16k\n"
    "sdt:kt::upd { @c[arg0] = count(); @q = quantize(arg0); }\n";

/*
 * kdt.ko's region parameters for the anonymous state of "den" on "ncpu"
 * CPUs (kmod/kd_cs.c kd_region, kd_anon_aggrgn, kd_aggrgn_params).
 */
static void
tn_params(const struct dof_enabling *den, uint32_t ncpu, uint64_t aggsize,
    struct rgn_params *rp)
{
	memset(rp, 0, sizeof (*rp));
	rp->rp_phys = TN_PHYS;
	rp->rp_ncpu = ncpu;
	rp->rp_policy = DTRACEOPT_BUFPOLICY_RING;
	rp->rp_probe_cap = 1 + 1024;
	rp->rp_epid_cap = 1 + 1024;
	rp->rp_flags = RGN_F_ANON;
	rp->rp_aggsize = aggsize;
	rp->rp_aggnbuf = 2 * ncpu;
	rp->rp_aggtot = aggsize * (ncpu < TN_AGGTOT_NCPU ? ncpu :
	    TN_AGGTOT_NCPU) + RGN_AGGTOT_HDRSIZE + 8ULL * ncpu;
	rp->rp_vararea = dif_vstate_size(den, 1 * MIB);
	rp->rp_release = "6.1.0-kt-anonagg";
	rp->rp_dof = den->den_dof;
	rp->rp_dofsz = den->den_dofsz;
}

/*
 * "kdt -A" sizes the region so that kdt.ko's anonymous layout, spares
 * and totals included, fits next to the buffers the program asks for:
 * kdt.ko keeps the spares and totals only then (kd_anon_aggrgn).  The
 * aggregations are most of the region here (1m per CPU, 2 CPUs: about
 * 8m with spares and totals), so a size counting the buffers alone,
 * rounded up to 2 MiB, does not hold them.
 */
START_TEST(test_kdt_A_sizes_spares_and_totals)
{
	static const char prog[] =
	    "#pragma D option bufsize=64k\n"
	    "#pragma D option aggsize=1m\n"
	    "sdt:kt::upd { @c[arg0] = count(); }\n";
	struct dof_enabling *den;
	struct rgn_params rp;
	struct dc_out out;
	struct an_size as;
	struct kdt_err ke;
	const struct rgn_hdr *h;
	const struct rgn_meta *m;
	uint8_t *rgn;
	char *msg = NULL;
	size_t n = 0;
	FILE *err = open_memstream(&msg, &n);

	kt_aggtot_compile(prog, "anon.d", &out, &den);
	ck_assert_int_eq(an_size_compute(out.dco_dof, out.dco_dofsz, TN_NCPU,
	    8 * GIB, 0, &as, err), 0);
	ck_assert_uint_eq(as.as_aggsize, 1 * MIB);
	/* 4 buffers of 1m and two slots of 2m + header, page-rounded */
	ck_assert_uint_eq(as.as_aggbytes, 4 * MIB + 2 * (2 * MIB + 4096));
	tn_params(den, TN_NCPU, as.as_aggsize, &rp);
	ck_assert_msg(rgn_size_for(&rp, as.as_bufsize) <= as.as_size,
	    "kdt.ko's layout needs %llu bytes, kdt -A reserved %llu",
	    (unsigned long long)rgn_size_for(&rp, as.as_bufsize),
	    (unsigned long long)as.as_size);
	rgn = aligned_alloc(4096, as.as_size);
	ck_assert_ptr_nonnull(rgn);
	memset(rgn, 0, as.as_size);
	ck_assert_msg(rgn_init(rgn, as.as_size, &rp, &ke) == 0, "%s",
	    ke.ke_msg);
	h = (const void *)rgn;
	m = (const void *)(rgn + h->rh_meta_off);
	ck_assert_uint_eq(m->rm_agg_nbuf, 2 * TN_NCPU);
	ck_assert_uint_ne(m->rm_aggtot_off, 0);
	ck_assert_uint_ge(h->rh_bufsize, as.as_bufsize);	/* not lowered */
	ck_assert_int_eq(kc_region_lowered(rgn, as.as_size, "kdt", err), 0);
	free(rgn);

	/* -x regionsize too small names aggsize and the bytes */
	ck_assert_int_eq(an_size_compute(out.dco_dof, out.dco_dofsz, TN_NCPU,
	    8 * GIB, 4 * MIB, &as, err), -1);
	/* a region over the limit made mostly of aggregations: lower aggsize */
	ck_assert_int_eq(an_size_compute(out.dco_dof, out.dco_dofsz, TN_NCPU,
	    32 * MIB, 0, &as, err), -1);
	fclose(err);
	ck_assert_msg(strstr(msg, "bytes of aggregation buffers, spares and totals for aggsize 1048576)") != NULL,
	    "%s", msg);
	ck_assert_msg(strstr(msg, "a quarter of RAM; lower aggsize\n") !=
	    NULL, "%s", msg);
	free(msg);
	dof_free(den);
	dc_out_free(&out);
}
END_TEST

static void
tn_setup(struct kt_agt *t)
{
	struct rgn_params rp;
	struct kdt_err ke;

	kt_agt_new(t, tn_prog, "anon.d");
	tn_params(t->t_den, TN_NCPU, 16 * 1024, &rp);
	kt_agt_init(t, &rp, rgn_size_for(&rp, 16 * 1024));
	ck_assert_int_eq(rgn_add_probe(t->t_rgn, 4, "sdt", "kt", "", "upd",
	    &ke), 0);
	ck_assert_int_eq(rgn_add_epid(t->t_rgn, 1, 4, 0,
	    t->t_den->den_ecbs[0].le_size, &ke), 0);
	rgn_set_state(t->t_rgn, RGN_STATE_ACTIVE);
}

static void
tn_update(struct kt_agt *t)
{
	kt_agt_update(t, TN_NKEYS, TN_KEYSTEP);
}

/* KIO_AGGTOT: the consumer's whole table into the older slot. */
static void
tn_totals(struct kt_agt *t)
{
	ck_assert_uint_eq(kt_agt_totals(t), 0);
}

/* kdt-extract on the image: exit status, stdout, stderr. */
static int
tn_extract(const struct kt_agt *t, char **out, char **err)
{
	return kt_aggtot_dump(t->t_rgn, t->t_size, TN_PHYS, KC_FORMAT_TEXT, 0,
	    out, err);
}

/* The truth as the consumer prints it: a blank line, the aggregations. */
static char *
tn_truth(const struct kt_agt *t)
{
	return kt_agt_truth(t, "\n");
}

/* kdt-extract prints "want", exit 0, nothing on stderr. */
static void
tn_expect(const struct kt_agt *t, const char *want)
{
	char *out, *err;

	ck_assert_int_eq(tn_extract(t, &out, &err), 0);
	ck_assert_msg(err[0] == '\0', "stderr: [%s]", err);
	ck_assert_msg(strcmp(out, want) == 0, "[%s]\nwant\n[%s]", out,
	    want);
	free(out);
	free(err);
}

/* kdt-extract prints the truth. */
static void
tn_expect_truth(const struct kt_agt *t)
{
	char *truth = tn_truth(t);

	tn_expect(t, truth);
	free(truth);
}

/* Before any claim: the active buffers whole, no totals, no message. */
START_TEST(test_unclaimed_prints_active_buffers)
{
	struct kt_agt t;

	tn_setup(&t);
	tn_update(&t);
	tn_update(&t);
	tn_expect_truth(&t);
	kt_agt_free(&t);
}
END_TEST

/*
 * Updates before the claim, the claim, then every sequence of TN_STEPS
 * steps, then the panic.
 */
START_TEST(test_claimed_every_interleaving)
{
	uint32_t seq, k, c, nseq = 1, nexact = 0, npartial = 0;
	char name[TN_STEPS + 1], *out, *err, *truth, want[200];
	uint64_t lost, lc;
	struct kt_agt t;
	int rv;

	for (k = 0; k < TN_STEPS; k++)
		nseq *= 4;
	for (seq = 0; seq < nseq; seq++) {
		tn_setup(&t);
		tn_update(&t);		/* before the claim, from boot */
		tn_update(&t);
		kt_agt_claim(&t);
		kt_agt_play(&t, seq, TN_STEPS, TN_NKEYS, TN_KEYSTEP, name);
		rv = tn_extract(&t, &out, &err);
		truth = tn_truth(&t);
		for (c = 0, lost = 0; c < TN_NCPU; c++) {
			lc = kt_agt_lost(&t, c);
			lost += lc;
			if (lc == 0)
				continue;
			snprintf(want, sizeof (want),
			    "kdt-extract: img: aggregations partial: %llu aggregation interval(s) of CPU %u are neither in the consumer's totals nor in a buffer\n",
			    (unsigned long long)lc, c);
			ck_assert_msg(strstr(err, want) != NULL, "%s: %s",
			    name, err);
		}
		if (lost == 0) {
			ck_assert_msg(rv == 0, "%s: rv %d: %s", name, rv, err);
			ck_assert_msg(err[0] == '\0', "%s: %s", name, err);
			ck_assert_msg(strcmp(out, truth) == 0,
			    "%s:\n[%s]\nwant\n[%s]", name, out, truth);
			nexact++;
		} else {
			ck_assert_msg(rv != 0, "%s: rv %d", name, rv);
			npartial++;
		}
		free(out);
		free(err);
		free(truth);
		kt_agt_free(&t);
	}
	ck_assert_uint_gt(nexact, 600);
	ck_assert_uint_gt(npartial, 0);
}
END_TEST

/*
 * The case of the VM scenario: snapshots and totals twice after the
 * claim, more updates, then the panic.  Without the totals (a region
 * whose spares live in kernel memory, as before) the pre-claim
 * aggregations would be gone; here they print, merged.
 */
START_TEST(test_claimed_twice_then_more)
{
	struct kt_agt t;

	tn_setup(&t);
	tn_update(&t);
	kt_agt_claim(&t);
	tn_update(&t);
	kt_agt_snap(&t, 0);
	kt_agt_snap(&t, 1);
	tn_totals(&t);
	tn_update(&t);
	kt_agt_snap(&t, 0);
	kt_agt_snap(&t, 1);
	tn_totals(&t);
	tn_update(&t);
	/* the consumer's next round had begun: CPU 0 switched, not merged */
	kt_agt_snap(&t, 0);
	tn_update(&t);
	tn_expect_truth(&t);
	kt_agt_free(&t);
}
END_TEST

/*
 * The ECB runner of common/ecb.c on an anonymous region in the new
 * layout for a program of probes sdt:kt::"names[i]", clause i each.
 */
struct tr {
	struct kt_agt	r_t;		/* the program, the region */
	struct ecb_state *r_es;
	struct ecb_probe r_probes[2];
	struct ecb_ref	r_refs[2][1];
	uint64_t	r_ts;
};

static const char *const tr_names[2] = { "upd", "clr" };

static void
tr_setup(struct tr *r, const char *prog)
{
	struct rgn_params rp;
	uint32_t i;

	memset(r, 0, sizeof (*r));
	kt_aggtot_compile(prog, "anon.d", &r->r_t.t_out, &r->r_t.t_den);
	tn_params(r->r_t.t_den, TN_NCPU, 16 * 1024, &rp);
	kt_agt_init(&r->r_t, &rp, rgn_size_for(&rp, 16 * 1024));
	for (i = 0; i < 2; i++)
		kt_ecb_probe(r->r_t.t_rgn, r->r_t.t_den, i, i + 4, tr_names[i],
		    &r->r_probes[i], r->r_refs[i]);
	r->r_es = kt_ecb_start(r->r_t.t_den, TN_NCPU,
	    DTRACEOPT_BUFPOLICY_RING, r->r_t.t_rgn);
}

static void
tr_free(struct tr *r)
{
	ecb_destroy(r->r_es);
	kt_agt_free(&r->r_t);
}

static void
tr_fire(struct tr *r, uint32_t probe, uint32_t cpu, int64_t a0)
{
	kt_ecb_fire(r->r_es, &r->r_probes[probe], cpu, a0, &r->r_ts);
}

/*
 * The claimed consumer's round: kdt.ko switches every CPU's aggregation
 * buffer with its in-region spare (kd_snap_agg), the consumer merges the
 * switched-out ones; it then takes every record committed so far
 * (kd_snap_cursor) and, for each clear() among them, snapshots again
 * (nothing new here) and clears @c; last it writes its totals with where
 * its decoding stands: each CPU's rc_head (KIO_AGGTOT, rgn.h replay).
 * "nclear": the clear() records it acts on in this round.
 */
static void
tr_round(struct tr *r, uint32_t nclear)
{
	struct kt_agt *t = &r->r_t;
	uint64_t pos[2 * TN_NCPU];
	uint32_t c;

	if (t->t_ka == NULL)		/* the claim: kd_aggspares */
		kt_agt_claim(t);
	for (c = 0; c < TN_NCPU; c++) {
		kt_aggtot_switch(&r->r_es->es_cpus[c].ec_agg, &t->t_spare[c],
		    t->t_den, t->t_ka, &t->t_ival[c]);
		pos[2 * c] = rgn_cpu(t->t_rgn, c)->rc_head;
		pos[2 * c + 1] = 0;
	}
	while (nclear-- > 0)
		ck_assert_int_eq(kc_aggs_libact(t->t_ka, KDT_LIBACT_CLEAR, 1,
		    0, 0), 0);
	(void) kt_aggtot_write(t->t_rgn, TN_NCPU, t->t_ival, t->t_ka, pos);
}

static const char tr_prog[] =
    "sdt:kt::upd { @c[arg0] = count(); }\n"
    "sdt:kt::clr { clear(@c); }\n";

/*
 * An anonymous region in the new layout before the claim: the records'
 * clear() is still carried out on the merged aggregations (kc_print.c:
 * a consumer under ring merges every buffer, then acts on the records,
 * so the update after clear() is cleared too), the spares (interval 0)
 * count for nothing.
 */
START_TEST(test_unclaimed_clear_replays)
{
	struct tr r;

	tr_setup(&r, tr_prog);
	tr_fire(&r, 0, 0, 5);
	tr_fire(&r, 0, 1, 5);
	tr_fire(&r, 1, 1, 0);
	tr_fire(&r, 0, 0, 6);
	tr_fire(&r, 0, 1, 6);
	tn_expect(&r.r_t,
	    "\n"
	    "                5                0\n"
	    "                6                0\n");
	tr_free(&r);
}
END_TEST

/*
 * The claimed consumer acted on a clear() as its record came (kdt -a
 * takes the records as they are committed, kio.h) and wrote its totals;
 * updates after that are not cleared: the dump replays only the actions
 * of the records after the totals' positions, as for a live state read
 * under switch (rgn.h, "Aggregation totals": replay).  A clear() the
 * consumer had not reached yet is replayed.
 */
START_TEST(test_claimed_clear_acted_on_is_not_replayed)
{
	struct tr r;

	tr_setup(&r, tr_prog);
	tr_fire(&r, 0, 0, 5);		/* from boot */
	tr_fire(&r, 0, 1, 5);
	tr_round(&r, 0);		/* the claim's first round */
	tr_fire(&r, 0, 0, 7);
	tr_fire(&r, 1, 1, 0);		/* clear() */
	tr_round(&r, 1);		/* taken and acted on */
	tr_fire(&r, 0, 0, 6);
	tr_fire(&r, 0, 1, 6);
	tr_fire(&r, 0, 1, 6);
	/* kdt -a at this moment: 5 and 7 cleared, 6 counted three times */
	tn_expect(&r.r_t,
	    "\n"
	    "                5                0\n"
	    "                7                0\n"
	    "                6                3\n");
	/* another clear() the consumer has not reached: replayed */
	tr_fire(&r, 1, 0, 0);
	tr_fire(&r, 0, 0, 8);
	tn_expect(&r.r_t,
	    "\n"
	    "                5                0\n"
	    "                6                0\n"
	    "                7                0\n"
	    "                8                0\n");
	tr_free(&r);
}
END_TEST

static Suite *
anon_aggtot_suite(void)
{
	Suite *s = suite_create("anon_aggtot");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_kdt_A_sizes_spares_and_totals);
	tcase_add_test(tc, test_unclaimed_prints_active_buffers);
	tcase_add_test(tc, test_claimed_twice_then_more);
	tcase_add_test(tc, test_claimed_every_interleaving);
	tcase_add_test(tc, test_unclaimed_clear_replays);
	tcase_add_test(tc, test_claimed_clear_acted_on_is_not_replayed);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(anon_aggtot_suite)
