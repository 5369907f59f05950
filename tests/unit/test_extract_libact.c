/*
 * test_extract_libact.c -- a dump prints the aggregations a live kdt
 * would have printed at that moment, clear(), trunc(), normalize() and
 * denormalize() included (issue 6; consumer/kc_engine.h
 * kc_dec_apply_libacts, rgn.h "Aggregation totals").
 *
 * A 2-CPU region is made the way kdt.ko makes one (rgn_init, the ECB
 * runner of common/ecb.c firing hand-made probes) for the program tl_prog:
 * probe "upd" aggregates arg0, probes "nrm", "dnm", "clr", "trn" record
 * the actions.  Each case fires a sequence and runs the text printer
 * (kc_print_region_opts, what kdt-extract and the crash extension run)
 * or the JSON writer on the image.  What a live consumer prints: under
 * ring or fill (and for the anonymous state a consumer claims) it decodes
 * the records when it stops, merging every buffer before it acts on each
 * action record, so the expected text is the merged aggregations with
 * the actions applied in record order -- written out by hand below.
 *
 * The live-state cases play kdt.ko and the consumer as
 * test_rgn_aggtot.c does (buffer switch with intervals, kc_aggs_snap,
 * the totals slot written with kc_aggs_image): a panic right after a
 * clear() that the consumer has not acted on yet (ring: it acts when it
 * stops) must print the cleared values, not the totals' old ones; under
 * bufpolicy=switch, where the consumer has acted on some records the
 * image cannot name, the dump says the aggregations are partial and why.
 * Every interleaving of 5 steps from {update, round, clear(),
 * normalize()} is played too, against a model consumer fed a shadow
 * buffer of every update.  A printa() record prints where it is, with
 * the actions before it carried out; --format=json gives the same
 * numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "dof_load.h"
#include "rgn.h"
#include "agg.h"
#include "ecb.h"
#include "dof_libact.h"
#include "consumer/kc.h"
#include "consumer/kc_agg.h"

#define TL_RGNSIZE	(512 * 1024)
#define TL_NCPU		2
#define TL_NPROBES	6

static const char tl_prog[] =
    "sdt:kt::upd { @c[arg0] = count(); @s = sum(arg0);"
    " @q = quantize(arg0); }\n"
    "sdt:kt::nrm { normalize(@s, 10); normalize(@q, 2); }\n"
    "sdt:kt::dnm { denormalize(@s); }\n"
    "sdt:kt::clr { clear(@c); }\n"
    "sdt:kt::trn { trunc(@c, 1); }\n"
    "sdt:kt::prt { printa(@c); }\n";

enum { TL_UPD, TL_NRM, TL_DNM, TL_CLR, TL_TRN, TL_PRT };
static const char *const tl_names[TL_NPROBES] = {
	"upd", "nrm", "dnm", "clr", "trn", "prt"
};

struct tl {
	struct dc_out	t_out;
	struct dof_enabling *t_den;
	struct ecb_state *t_es;
	uint8_t		*t_rgn;
	struct ecb_probe t_probes[TL_NPROBES];
	struct ecb_ref	t_refs[TL_NPROBES][2];
	int		t_live;		/* buffers and spares, totals */
	struct agg_buf	*t_spare[TL_NCPU];
	struct kc_aggs	*t_ka;		/* the live consumer's table */
	uint64_t	t_ival[TL_NCPU];
	uint64_t	t_ts;
};

/*
 * live: 0 the anonymous state (ring); 1 a live vmalloc'd state under
 * ring (the program says so); 2 one under switch (the default: kdt.ko
 * writes it with the fill writer).
 */
static void
tl_setup(struct tl *t, int live)
{
	char prog[sizeof (tl_prog) + 64];
	struct dc_opts opts;
	struct rgn_params rp;
	struct ecb_params p;
	struct kdt_err ke;
	uint32_t i, c;

	memset(t, 0, sizeof (*t));
	t->t_live = live;
	snprintf(prog, sizeof (prog), "%s%s", live == 1 ?
	    "#pragma D option bufpolicy=ring\n" : "", tl_prog);
	memset(&opts, 0, sizeof (opts));
	ck_assert_msg(dc_compile(prog, strlen(prog), "t.d", &opts,
	    &t->t_out) == 0, "%s", t->t_out.dco_diag);
	ck_assert_int_eq(dof_load(t->t_out.dco_dof, t->t_out.dco_dofsz,
	    &t->t_den, &ke), 0);
	ck_assert_uint_eq(t->t_den->den_necbs, TL_NPROBES);
	t->t_rgn = aligned_alloc(4096, TL_RGNSIZE);
	ck_assert_ptr_nonnull(t->t_rgn);
	memset(t->t_rgn, 0, TL_RGNSIZE);
	memset(&rp, 0, sizeof (rp));
	rp.rp_phys = 0x20000000;
	rp.rp_ncpu = TL_NCPU;
	rp.rp_policy = live == 2 ? DTRACEOPT_BUFPOLICY_FILL :
	    DTRACEOPT_BUFPOLICY_RING;
	rp.rp_probe_cap = 8;
	rp.rp_epid_cap = 8;
	rp.rp_aggsize = 16 * 1024;
	if (live) {
		rp.rp_aggnbuf = 2 * TL_NCPU;
		rp.rp_aggtot = 32 * 1024;
	} else {
		rp.rp_flags = RGN_F_ANON;
	}
	rp.rp_release = "6.1.0-kt-libact";
	rp.rp_dof = t->t_den->den_dof;
	rp.rp_dofsz = t->t_den->den_dofsz;
	ck_assert_msg(rgn_init(t->t_rgn, TL_RGNSIZE, &rp, &ke) == 0, "%s",
	    ke.ke_msg);
	for (i = 0; i < TL_NPROBES; i++) {
		ck_assert_int_eq(rgn_add_probe(t->t_rgn, i + 1, "sdt", "kt",
		    "", tl_names[i], &ke), 0);
		/* ECB i is the clause of probe i (tl_prog's order) */
		ck_assert_int_eq(rgn_add_epid(t->t_rgn, i + 1, i + 1, i,
		    t->t_den->den_ecbs[i].le_size, &ke), 0);
		t->t_refs[i][0].er_ecb = i;
		t->t_refs[i][0].er_epid = i + 1;
		t->t_probes[i].ep_id = i + 1;
		t->t_probes[i].ep_kind = ECB_PK_OTHER;
		t->t_probes[i].ep_prov = "sdt";
		t->t_probes[i].ep_mod = "kt";
		t->t_probes[i].ep_func = "";
		t->t_probes[i].ep_name = tl_names[i];
		t->t_probes[i].ep_ecbs = t->t_refs[i];
		t->t_probes[i].ep_necbs = 1;
	}
	ecb_params_init(&p, t->t_den, TL_NCPU);
	p.ep_policy = rp.rp_policy;
	p.ep_user = 1;
	ck_assert_int_eq(ecb_create(t->t_den, &p, &t->t_es, &ke), 0);
	ecb_set_region(t->t_es, t->t_rgn);
	ecb_set_aggbufs(t->t_es, t->t_rgn);
	ecb_set_state(t->t_es, ECB_ST_ACTIVE);
	if (live) {
		for (c = 0; c < TL_NCPU; c++)
			t->t_spare[c] = rgn_agg(t->t_rgn, TL_NCPU + c);
		t->t_ka = kc_aggs_new(t->t_den);
		ck_assert_ptr_nonnull(t->t_ka);
	}
}

static void
tl_free(struct tl *t)
{
	if (t->t_ka != NULL)
		kc_aggs_free(t->t_ka);
	ecb_destroy(t->t_es);
	dof_free(t->t_den);
	dc_out_free(&t->t_out);
	free(t->t_rgn);
}

static void
tl_fire(struct tl *t, uint32_t probe, uint32_t cpu, int64_t a0)
{
	uint64_t args[DIF_NARGS] = { (uint64_t)a0 };

	t->t_ts += 1000;
	ecb_fire(t->t_es, &t->t_probes[probe], cpu, args, t->t_ts);
}

/*
 * A live state's aggregation round: kdt.ko switches every CPU's buffer
 * (kd_snap_agg: the spare's interval to 0, reset, interval = the active
 * one's + 1), the consumer merges the switched-out ones and hands its
 * table back (KIO_AGGTOT: kc_aggs_image into the older slot).
 */
static void
tl_round(struct tl *t)
{
	struct agg_buf *nb, *old;
	struct kdt_err ke;
	uint64_t cap, len, left;
	uint8_t *dst;
	uint32_t c;

	for (c = 0; c < TL_NCPU; c++) {
		old = t->t_es->es_cpus[c].ec_agg;
		nb = t->t_spare[c];
		nb->ab_interval = 0;
		agg_buf_reset(nb);
		nb->ab_drops = old->ab_drops;
		nb->ab_interval = old->ab_interval + 1;
		t->t_es->es_cpus[c].ec_agg = nb;
		t->t_spare[c] = old;
		ck_assert_int_eq(agg_buf_check(old, old->ab_size, t->t_den,
		    &ke), 0);
		ck_assert_int_eq(kc_aggs_snap(t->t_ka, old), 0);
		t->t_ival[c] = old->ab_interval;
	}
	dst = rgn_aggtot_begin(t->t_rgn, &cap);
	ck_assert_ptr_nonnull(dst);
	memcpy(dst, t->t_ival, sizeof (t->t_ival));
	ck_assert_int_eq(kc_aggs_image(t->t_ka, dst + sizeof (t->t_ival),
	    cap - sizeof (t->t_ival), &len, &left), 0);
	ck_assert_int_eq(left, 0);
	ck_assert_msg(rgn_aggtot_commit(t->t_rgn, len, left, &ke) == 0, "%s",
	    ke.ke_msg);
}

/* The printer on the image: its exit status, stdout and stderr. */
static int
tl_print(struct tl *t, uint32_t fmt, char **out, char **err)
{
	struct kc_opts ko;
	size_t on = 0, en = 0;
	FILE *o = open_memstream(out, &on), *e = open_memstream(err, &en);
	int rv;

	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(e);
	memset(&ko, 0, sizeof (ko));
	ko.ko_prog = "kdt-extract";
	ko.ko_flags = KC_F_QUIET | KC_F_PARTIAL;
	ko.ko_format = fmt;
	rv = kc_print_region_opts(t->t_rgn, TL_RGNSIZE, 0x20000000, "img",
	    o, e, &ko);
	fclose(o);
	fclose(e);
	return rv;
}

/* The aggregations of a text output: what follows its blank line. */
static const char *
tl_aggs(const char *out)
{
	const char *p = strstr(out, "\n\n");

	if (out[0] == '\n')
		return out + 1;
	ck_assert_msg(p != NULL, "no blank line in [%s]", out);
	return p + 2;
}

static void
tl_expect(struct tl *t, const char *want)
{
	char *out, *err;

	ck_assert_int_eq(tl_print(t, KC_FORMAT_TEXT, &out, &err), 0);
	ck_assert_msg(err[0] == '\0', "stderr: [%s]", err);
	ck_assert_msg(strcmp(tl_aggs(out), want) == 0,
	    "aggregations:\n[%s]\nwant:\n[%s]", tl_aggs(out), want);
	free(out);
	free(err);
}

START_TEST(test_normalize_anon)
{
	struct tl t;

	/* normalize() fired before the last update: the consumer acts on
	   it when it stops, on everything merged by then */
	tl_setup(&t, 0);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_fire(&t, TL_UPD, 1, 5);
	tl_fire(&t, TL_NRM, 1, 0);
	tl_fire(&t, TL_UPD, 1, 20);
	tl_expect(&t,
	    "               20                1\n"
	    "                5                3\n"
	    "                3\n"
	    "\n"
	    "           value  ------------- Distribution ------------- count    \n"
	    "               2 |                                         0        \n"
	    "               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           1        \n"
	    "               8 |                                         0        \n"
	    "              16 |@@@@@@@@@@                               0        \n"
	    "              32 |                                         0        \n"
	    "\n");
	tl_free(&t);
}
END_TEST

START_TEST(test_denormalize_clear_trunc)
{
	struct tl t;

	/* normalize then denormalize @s; clear @c then 6 and 7 arrive;
	   trunc keeps the largest: 7 twice */
	tl_setup(&t, 0);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_fire(&t, TL_UPD, 1, 5);
	tl_fire(&t, TL_NRM, 0, 0);
	tl_fire(&t, TL_DNM, 1, 0);
	tl_fire(&t, TL_CLR, 0, 0);
	tl_fire(&t, TL_UPD, 1, 6);
	tl_fire(&t, TL_UPD, 1, 7);
	tl_fire(&t, TL_UPD, 0, 7);
	/* decode order: cpu 0 (nrm, clr), then cpu 1 (dnm): @s ends
	   denormalized (5+5+6+7+7), @q's 5 values normalized by 2; clear
	   acts on everything merged: all zero */
	tl_expect(&t,
	    "                5                0\n"
	    "                6                0\n"
	    "                7                0\n"
	    "               30\n"
	    "\n"
	    "           value  ------------- Distribution ------------- count    \n"
	    "               2 |                                         0        \n"
	    "               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 2        \n"
	    "               8 |                                         0        \n"
	    "\n");
	tl_free(&t);
	tl_setup(&t, 0);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_fire(&t, TL_UPD, 1, 6);
	tl_fire(&t, TL_UPD, 1, 7);
	tl_fire(&t, TL_UPD, 0, 7);
	tl_fire(&t, TL_TRN, 0, 0);
	tl_fire(&t, TL_UPD, 1, 5);
	tl_expect(&t,
	    "                7                2\n"
	    "               30\n"
	    "\n"
	    "           value  ------------- Distribution ------------- count    \n"
	    "               2 |                                         0        \n"
	    "               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 5        \n"
	    "               8 |                                         0        \n"
	    "\n");
	tl_free(&t);
}
END_TEST

/*
 * A live state under ring: the consumer merged and wrote its totals
 * twice, then clear() fired, more updates came, the guest panicked.  The
 * consumer acts on clear() when it stops (ring: the records come then),
 * so the dump prints every @c entry 0 -- not the totals' values.
 */
START_TEST(test_live_ring_clear_after_totals)
{
	struct tl t;

	tl_setup(&t, 1);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_fire(&t, TL_UPD, 1, 5);
	tl_round(&t);
	tl_fire(&t, TL_UPD, 1, 6);
	tl_round(&t);
	tl_fire(&t, TL_CLR, 0, 0);
	tl_fire(&t, TL_UPD, 0, 7);
	tl_fire(&t, TL_NRM, 1, 0);
	/* @s = (5+5+6+7)/10, @q's 4 values / 2 */
	tl_expect(&t,
	    "                5                0\n"
	    "                6                0\n"
	    "                7                0\n"
	    "                2\n"
	    "\n"
	    "           value  ------------- Distribution ------------- count    \n"
	    "               2 |                                         0        \n"
	    "               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 2        \n"
	    "               8 |                                         0        \n"
	    "\n");
	tl_free(&t);
}
END_TEST

/*
 * Under bufpolicy=switch the consumer acted on the clear() before its
 * next totals write ran; the image cannot tell: it says so, partial.
 */
START_TEST(test_live_switch_says_partial)
{
	struct tl t;
	char *out, *err;

	tl_setup(&t, 2);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_round(&t);
	tl_fire(&t, TL_CLR, 0, 0);
	ck_assert_int_eq(tl_print(&t, KC_FORMAT_TEXT, &out, &err),
	    KC_PARTIAL);
	ck_assert_msg(strstr(err, "kdt-extract: img: aggregations partial: the program uses clear(), trunc(), normalize() or denormalize() and its consumer read the buffers under bufpolicy=switch") != NULL,
	    "stderr: [%s]", err);
	/* the totals' numbers, no action applied */
	ck_assert_msg(strncmp(tl_aggs(out), "                5                1\n"
	    "                5\n", 52) == 0, "aggregations: [%s]", tl_aggs(out));
	free(out);
	free(err);
	tl_free(&t);
}
END_TEST

/*
 * Every sequence of TL_STEPS steps from {update, aggregation round,
 * clear(), normalize()} on a live state under ring, then the panic: the
 * dump must print what a model consumer prints -- every update merged
 * (a shadow buffer that received them all), then the actions in record
 * order -- whether the totals were written before or after an action's
 * record and whatever the buffers still hold.
 */
#define TL_STEPS	5

static char *
tl_text(struct kc_aggs *ka)
{
	char *t = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&t, &n);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(kc_aggs_print_all(ka, m), 0);
	fclose(m);
	return t;
}

START_TEST(test_live_ring_interleavings)
{
	const uint32_t nseq = 1u << (2 * TL_STEPS);
	struct agg_buf *shadow = malloc(64 * 1024);
	const struct dof_agg *ag;
	struct kc_aggs *model;
	struct kdt_err ke;
	char *out, *err, *want;
	uint32_t seq, i, step, nupd, c;
	uint8_t key[8];
	int64_t v;
	struct tl t;

	ck_assert_ptr_nonnull(shadow);
	for (seq = 0; seq < nseq; seq++) {
		tl_setup(&t, 1);
		ck_assert_int_eq(agg_buf_init(shadow, 64 * 1024, 0, &ke), 0);
		model = kc_aggs_new(t.t_den);
		ck_assert_ptr_nonnull(model);
		nupd = 0;
		for (i = 0; i < TL_STEPS; i++) {
			step = (seq >> (2 * i)) & 3;
			if (step == 0) {	/* update: both CPUs */
				for (c = 0; c < 3; c++) {
					v = (int64_t)(nupd++ % 4) * 3 + 1;
					tl_fire(&t, TL_UPD, c % TL_NCPU, v);
					memset(key, 0, sizeof (key));
					memcpy(key, &v, sizeof (v));
					ag = &t.t_den->den_aggs[0];
					ck_assert_int_eq(agg_update(shadow, ag,
					    key, v, 1), 0);
					ck_assert_int_eq(agg_update(shadow,
					    ag + 1, key, v, 1), 0);
					ck_assert_int_eq(agg_update(shadow,
					    ag + 2, key, v, 1), 0);
				}
			} else if (step == 1) {
				tl_round(&t);
			} else {	/* the record; on CPU 0: record order */
				tl_fire(&t, step == 2 ? TL_CLR : TL_NRM, 0, 0);
			}
		}
		/* the model: everything merged, then the actions in order */
		ck_assert_int_eq(kc_aggs_snap(model, shadow), 0);
		for (i = 0; i < TL_STEPS; i++) {
			step = (seq >> (2 * i)) & 3;
			if (step == 2)
				ck_assert_int_eq(kc_aggs_libact(model,
				    KDT_LIBACT_CLEAR, 1, 0, 0), 0);
			else if (step == 3) {
				ck_assert_int_eq(kc_aggs_libact(model,
				    KDT_LIBACT_NORMALIZE, 2, 10, 1), 0);
				ck_assert_int_eq(kc_aggs_libact(model,
				    KDT_LIBACT_NORMALIZE, 3, 2, 1), 0);
			}
		}
		want = tl_text(model);
		ck_assert_int_eq(tl_print(&t, KC_FORMAT_TEXT, &out, &err), 0);
		ck_assert_msg(err[0] == '\0', "sequence %u: stderr: [%s]", seq,
		    err);
		ck_assert_msg(strcmp(tl_aggs(out), want) == 0,
		    "sequence %u: aggregations:\n[%s]\nwant:\n[%s]", seq,
		    tl_aggs(out), want);
		free(out);
		free(err);
		free(want);
		kc_aggs_free(model);
		tl_free(&t);
	}
	free(shadow);
}
END_TEST

/*
 * printa() in the records prints where the record is, with the actions
 * before it carried out, and the variable is not printed again at the
 * end -- as the consumer does: the userspace engine prints the same
 * lines (but for the key width of an int) for `BEGIN { @c[5] = count();
 * @c[5] = count(); @c[6] = count(); printa(@c); trunc(@c, 1);
 * printa(@c); @s = sum(16); exit(0); }`.
 */
START_TEST(test_printa_inline)
{
	struct tl t;
	char *out, *err;

	tl_setup(&t, 0);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_fire(&t, TL_PRT, 0, 0);	/* cpu 0's records: 5 x 2, 6 */
	tl_fire(&t, TL_TRN, 0, 0);
	tl_fire(&t, TL_PRT, 0, 0);	/* only 5 x 2 */
	tl_fire(&t, TL_UPD, 1, 6);
	ck_assert_int_eq(tl_print(&t, KC_FORMAT_TEXT, &out, &err), 0);
	ck_assert_msg(err[0] == '\0', "stderr: [%s]", err);
	ck_assert_msg(strcmp(out,
	    "\n"
	    "                6                1\n"
	    "                5                2\n"
	    "\n"
	    "                5                2\n"
	    "\n"
	    "               16\n"
	    "\n"
	    "           value  ------------- Distribution ------------- count    \n"
	    "               2 |                                         0        \n"
	    "               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 3        \n"
	    "               8 |                                         0        \n"
	    "\n") == 0, "output: [%s]", out);
	free(out);
	free(err);
	tl_free(&t);
}
END_TEST

/* --format=json: the same numbers, "normal" where normalize() acts. */
START_TEST(test_json_normalize)
{
	struct tl t;
	char *out, *err;

	tl_setup(&t, 0);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_fire(&t, TL_UPD, 0, 5);
	tl_fire(&t, TL_UPD, 1, 5);
	tl_fire(&t, TL_UPD, 1, 20);
	tl_fire(&t, TL_CLR, 1, 0);
	tl_fire(&t, TL_NRM, 1, 0);
	ck_assert_int_eq(tl_print(&t, KC_FORMAT_JSON, &out, &err), 0);
	ck_assert_msg(err[0] == '\0', "stderr: [%s]", err);
	ck_assert_msg(strstr(out, "{\"type\":\"aggregation\",\"id\":1,\"name\":\"@1\",\"function\":\"count\",\"keys\":[{\"action\":\"trace\",\"size\":8,\"type\":\"int\",\"value\":5}],\"value\":0}\n") != NULL,
	    "json: [%s]", out);
	ck_assert_msg(strstr(out, "{\"type\":\"aggregation\",\"id\":2,\"name\":\"@2\",\"function\":\"sum\",\"keys\":[],\"normal\":10,\"value\":3}\n") != NULL,
	    "json: [%s]", out);
	ck_assert_msg(strstr(out, "\"normal\":2,\"buckets\":[{\"lower\":4,\"label\":\"4\",\"count\":1},{\"lower\":16,\"label\":\"16\",\"count\":0}],\"total\":2}\n") != NULL,
	    "json: [%s]", out);
	ck_assert_msg(strstr(out, "{\"type\":\"printa\",\"id\":2,\"text\":\"\\n                3\\n\"}") != NULL,
	    "json: [%s]", out);
	free(out);
	free(err);
	tl_free(&t);
}
END_TEST

static Suite *
extract_libact_suite(void)
{
	Suite *s = suite_create("extract_libact");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_normalize_anon);
	tcase_add_test(tc, test_denormalize_clear_trunc);
	tcase_add_test(tc, test_live_ring_clear_after_totals);
	tcase_add_test(tc, test_live_switch_says_partial);
	tcase_add_test(tc, test_live_ring_interleavings);
	tcase_add_test(tc, test_printa_inline);
	tcase_add_test(tc, test_json_normalize);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(extract_libact_suite)
