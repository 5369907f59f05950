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
 * test_rgn_aggtot.c does, with kt_aggtot.h (buffer switch with
 * intervals, kc_aggs_snap, the totals slot written with kc_aggs_image):
 * a panic right after a clear() that the consumer has not acted on yet
 * (ring: it acts when it stops) must print the cleared values, not the
 * totals' old ones; under bufpolicy=switch, where the consumer has acted
 * on some records the image cannot name, the dump says the aggregations
 * are partial and why.
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
#include "kt_aggtot.h"
#include "dof_libact.h"
#include "kdt_env.h"	/* kenv_crc32: resealing a damaged slot */

#define TL_RGNSIZE	(512 * 1024)
#define TL_NCPU		KT_AGT_NCPU
#define TL_PHYS		0x20000000
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

/* The compiled program per "live" variant: compiled once (thousands of
   setups below), freed at exit with the process. */
static struct dc_out tl_compiled[3];
static int tl_have[3];

struct tl {
	struct dc_out	*t_out;
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
	struct rgn_params rp;
	struct kdt_err ke;
	uint32_t i, c;

	memset(t, 0, sizeof (*t));
	t->t_live = live;
	snprintf(prog, sizeof (prog), "%s%s", live == 1 ?
	    "#pragma D option bufpolicy=ring\n" : "", tl_prog);
	t->t_out = &tl_compiled[live];
	if (!tl_have[live])
		kt_aggtot_compile(prog, "t.d", t->t_out, &t->t_den);
	else
		ck_assert_int_eq(dof_load(t->t_out->dco_dof,
		    t->t_out->dco_dofsz, &t->t_den, &ke), 0);
	tl_have[live] = 1;
	ck_assert_uint_eq(t->t_den->den_necbs, TL_NPROBES);
	t->t_rgn = aligned_alloc(4096, TL_RGNSIZE);
	ck_assert_ptr_nonnull(t->t_rgn);
	memset(t->t_rgn, 0, TL_RGNSIZE);
	memset(&rp, 0, sizeof (rp));
	rp.rp_phys = TL_PHYS;
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
	/* ECB i is the clause of probe i (tl_prog's order) */
	for (i = 0; i < TL_NPROBES; i++)
		kt_ecb_probe(t->t_rgn, t->t_den, i, i + 1, tl_names[i],
		    &t->t_probes[i], t->t_refs[i]);
	t->t_es = kt_ecb_start(t->t_den, TL_NCPU, rp.rp_policy, t->t_rgn);
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
	free(t->t_rgn);
}

static void
tl_fire(struct tl *t, uint32_t probe, uint32_t cpu, int64_t a0)
{
	kt_ecb_fire(t->t_es, &t->t_probes[probe], cpu, a0, &t->t_ts);
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
	uint32_t c;

	for (c = 0; c < TL_NCPU; c++)
		kt_aggtot_switch(&t->t_es->es_cpus[c].ec_agg, &t->t_spare[c],
		    t->t_den, t->t_ka, &t->t_ival[c]);
	ck_assert_int_eq(kt_aggtot_write(t->t_rgn, TL_NCPU, t->t_ival,
	    t->t_ka, NULL), 0);
}

/* The printer on the image: its exit status, stdout and stderr. */
static int
tl_print_flags(struct tl *t, uint32_t fmt, uint32_t flags, char **out,
    char **err);

static int
tl_print(struct tl *t, uint32_t fmt, char **out, char **err)
{
	return tl_print_flags(t, fmt, 0, out, err);
}

static int
tl_print_flags(struct tl *t, uint32_t fmt, uint32_t flags, char **out,
    char **err)
{
	return kt_aggtot_dump(t->t_rgn, TL_RGNSIZE, TL_PHYS, fmt, flags, out,
	    err);
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

/* The printer on the image: exit 0, nothing on stderr. */
static void
tl_print_ok(struct tl *t, uint32_t fmt, char **out, char **err)
{
	ck_assert_int_eq(tl_print(t, fmt, out, err), 0);
	ck_assert_msg((*err)[0] == '\0', "stderr: [%s]", *err);
}

static void
tl_expect(struct tl *t, const char *want)
{
	char *out, *err;

	tl_print_ok(t, KC_FORMAT_TEXT, &out, &err);
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
 * Under bufpolicy=switch, totals written by a consumer from before
 * replay (no replay part, at_xlen 0): the consumer acted on the clear()
 * before its next totals write ran and the image cannot tell -- it says
 * so, partial, as such images always read.
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

/* Step i of interleaving "seq": its i-th digit in base 4. */
#define TL_STEP(seq, i)	(((seq) >> (2 * (i))) & 3)

/* The n-th firing of an "update" step: arg0 1, 4, 7, 10 in turn. */
static int64_t
tl_upd_val(uint32_t n)
{
	return (int64_t)(n % 4) * 3 + 1;
}

/* The aggregation actions of probe "p"'s record, in action order. */
static uint32_t
tl_acts(uint32_t p, uint32_t *code, uint32_t *varid, int64_t *val)
{
	if (p == TL_CLR) {
		code[0] = KDT_LIBACT_CLEAR, varid[0] = 1, val[0] = 0;
		return 1;
	}
	if (p == TL_NRM) {
		code[0] = KDT_LIBACT_NORMALIZE, varid[0] = 2, val[0] = 10;
		code[1] = KDT_LIBACT_NORMALIZE, varid[1] = 3, val[1] = 2;
		return 2;
	}
	return 0;
}

/* The model consumer acts on probe "p"'s record from action "from" on. */
static void
tl_acts_apply(struct kc_aggs *ka, uint32_t p, uint32_t from)
{
	uint32_t code[2], varid[2], n, i;
	int64_t val[2];

	n = tl_acts(p, code, varid, val);
	for (i = from; i < n; i++)
		ck_assert_int_eq(kc_aggs_libact(ka, code[i], varid[i], val[i],
		    code[i] == KDT_LIBACT_NORMALIZE), 0);
}

/* A firing of "upd" on "cpu" with arg0 "v", and the same on "shadow". */
static void
tl_fire_upd(struct tl *t, struct agg_buf *shadow, uint32_t cpu, int64_t v)
{
	const struct dof_agg *ag = &t->t_den->den_aggs[0];
	uint8_t key[8] = { 0 };
	uint32_t a;

	tl_fire(t, TL_UPD, cpu, v);
	memcpy(key, &v, sizeof (v));
	for (a = 0; a < 3; a++)		/* @c, @s, @q */
		ck_assert_int_eq(agg_update(shadow, ag + a, key, v, 1), 0);
}

START_TEST(test_live_ring_interleavings)
{
	const uint32_t nseq = 1u << (2 * TL_STEPS);
	struct agg_buf *shadow = malloc(64 * 1024);
	struct kc_aggs *model;
	struct kdt_err ke;
	char *out, *err, *want;
	uint32_t seq, i, step, nupd, c;
	struct tl t;

	ck_assert_ptr_nonnull(shadow);
	for (seq = 0; seq < nseq; seq++) {
		tl_setup(&t, 1);
		ck_assert_int_eq(agg_buf_init(shadow, 64 * 1024, 0, &ke), 0);
		model = kc_aggs_new(t.t_den);
		ck_assert_ptr_nonnull(model);
		nupd = 0;
		for (i = 0; i < TL_STEPS; i++) {
			step = TL_STEP(seq, i);
			if (step == 0) {	/* update: both CPUs */
				for (c = 0; c < 3; c++)
					tl_fire_upd(&t, shadow, c % TL_NCPU,
					    tl_upd_val(nupd++));
			} else if (step == 1) {
				tl_round(&t);
			} else {	/* the record; on CPU 0: record order */
				tl_fire(&t, step == 2 ? TL_CLR : TL_NRM, 0, 0);
			}
		}
		/* the model: everything merged, then the actions in order */
		ck_assert_int_eq(kc_aggs_snap(model, shadow), 0);
		for (i = 0; i < TL_STEPS; i++) {
			step = TL_STEP(seq, i);
			if (step >= 2)
				tl_acts_apply(model, step == 2 ? TL_CLR :
				    TL_NRM, 0);
		}
		want = kt_aggtot_text(model, "");
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
 * ---- bufpolicy=switch: replay (rgn.h "Aggregation totals") ----
 *
 * A model of the live consumer under switch (consumer/kc_kernel.c and
 * kc_sess.c), step by step so that a panic can come between any two:
 *  - a decode round: per CPU, the principal buffer switched and the
 *    records taken decoded in order.  The dump shows the switched-out
 *    buffer until the CPU writes a record into the fresh one (the
 *    reader takes the copy with the larger rc_head, or the same and
 *    more records: rgn.h, page list), so the switch is played on the
 *    region's buffer when that record comes: rc_tail = rc_head, what
 *    kd_switch_buf's fresh buffer looks like.  Each aggregation
 *    action: a snapshot round (every CPU's aggregation buffer merged,
 *    then the totals written), the action, the decoder's position past
 *    it, a snapshot round again;
 *    after a CPU's records, when it had any, the totals written once
 *    more (kk_snap_buf);
 *  - an aggregation round (aggrate): every CPU merged, totals written.
 * The totals carry the replay part (kc_aggs_totals: each CPU's position
 * as kc_dec_acted gives it, the normalize() divisors).  What the dump
 * must print: what this consumer would have printed had it done one more
 * round at the panic -- every aggregation buffer it has not merged, then
 * the actions of the records it has not acted on, CPU 0's first, in
 * record order.
 */
#define TL_MAXREC	64

struct tl_rec {
	uint64_t	r_loff, r_end;
	uint32_t	r_probe;
};

struct tl_sw {
	struct tl	*w_t;
	uint32_t	w_budget;	/* micro-steps left before the panic */
	int		w_dead;
	struct tl_rec	w_recs[TL_NCPU][TL_MAXREC];
	uint32_t	w_nrec[TL_NCPU];
	uint32_t	w_next[TL_NCPU];	/* first record not started */
	uint64_t	w_decend[TL_NCPU];	/* kd_next: end of the last */
	uint64_t	w_taken[TL_NCPU];	/* head at the last switch */
	int		w_pendsw[TL_NCPU];	/* fresh buffer, empty */
	int		w_incur;	/* in a record: cpu, loff, done */
	uint32_t	w_curcpu;
	uint64_t	w_curloff, w_curdone;
	uint64_t	w_slotpos[2 * TL_NCPU];	/* the last totals */
	int		w_written;
};

/* A live state under switch (tl_setup's 2) in t, played by w. */
static void
tl_sw_start(struct tl_sw *w, struct tl *t, uint32_t budget)
{
	tl_setup(t, 2);
	memset(w, 0, sizeof (*w));
	w->w_t = t;
	w->w_budget = budget;
}

/* One micro-step: 1 when it runs, 0 when the panic came before it. */
static int
tl_go(struct tl_sw *w)
{
	if (w->w_dead)
		return 0;
	if (w->w_budget == 0) {
		w->w_dead = 1;
		return 0;
	}
	w->w_budget--;
	return 1;
}

static void
tl_sw_fire(struct tl_sw *w, uint32_t probe, uint32_t cpu, int64_t a0)
{
	struct rgn_cpu *rc;
	struct tl_rec *r;

	if (!tl_go(w))
		return;
	rc = w->w_t->t_es->es_cpus[cpu].ec_rc;
	if (w->w_pendsw[cpu]) {	/* the fresh buffer takes over */
		rc->rc_tail = rc->rc_reserve = rc->rc_head;
		w->w_pendsw[cpu] = 0;
	}
	ck_assert_uint_lt(w->w_nrec[cpu], TL_MAXREC);
	r = &w->w_recs[cpu][w->w_nrec[cpu]];
	r->r_loff = rc->rc_head;
	tl_fire(w->w_t, probe, cpu, a0);
	r->r_end = rc->rc_head;
	r->r_probe = probe;
	/* an update records nothing in the principal buffer */
	ck_assert_uint_eq(rc->rc_drops, 0);
	if (r->r_end > r->r_loff)
		w->w_nrec[cpu]++;
}

/* The totals with the replay part, as kk_aggtot writes them. */
static void
tl_sw_write(struct tl_sw *w)
{
	struct tl *t = w->w_t;
	uint64_t pos[2 * TL_NCPU];
	uint32_t c;

	if (!tl_go(w))
		return;
	for (c = 0; c < TL_NCPU; c++) {	/* kc_dec_acted */
		pos[2 * c] = w->w_incur && w->w_curcpu == c ? w->w_curloff :
		    w->w_decend[c];
		pos[2 * c + 1] = w->w_incur && w->w_curcpu == c ?
		    w->w_curdone : 0;
	}
	ck_assert_int_eq(kt_aggtot_write(t->t_rgn, TL_NCPU, t->t_ival,
	    t->t_ka, pos), 0);
	memcpy(w->w_slotpos, pos, sizeof (pos));
	w->w_written = 1;
}

/* KIO_SNAP_AGG of CPU c and its merge (kd_snap_agg, kk_snap_aggs). */
static void
tl_sw_snapcpu(struct tl_sw *w, uint32_t c)
{
	struct tl *t = w->w_t;

	if (!tl_go(w))
		return;
	kt_aggtot_switch(&t->t_es->es_cpus[c].ec_agg, &t->t_spare[c], NULL,
	    t->t_ka, &t->t_ival[c]);
}

static void
tl_sw_snap(struct tl_sw *w)
{
	uint32_t c;

	for (c = 0; c < TL_NCPU; c++)
		tl_sw_snapcpu(w, c);
	tl_sw_write(w);
}

/* One aggregation action of the record being decoded (kc_sess). */
static void
tl_sw_act(struct tl_sw *w, uint32_t code, uint32_t varid, int64_t val,
    int has)
{
	tl_sw_snap(w);
	if (!tl_go(w))
		return;
	ck_assert_int_eq(kc_aggs_libact(w->w_t->t_ka, code, varid, val, has),
	    0);
	w->w_curdone++;			/* kc_dec_libact_acted */
	tl_sw_snap(w);
}

/* A decode round (kk_switch, then kk_loop's totals write). */
static void
tl_sw_decode(struct tl_sw *w)
{
	uint32_t code[2], varid[2], n, nd, i, c;
	struct rgn_cpu *rc;
	int64_t val[2];
	struct tl_rec *r;

	for (c = 0; c < TL_NCPU && !w->w_dead; c++) {
		if (!tl_go(w))
			return;
		rc = w->w_t->t_es->es_cpus[c].ec_rc;	/* the switch */
		w->w_taken[c] = rc->rc_head;
		w->w_pendsw[c] = 1;
		nd = 0;
		while (w->w_next[c] < w->w_nrec[c] &&
		    w->w_recs[c][w->w_next[c]].r_loff < w->w_taken[c]) {
			r = &w->w_recs[c][w->w_next[c]++];
			nd++;
			w->w_decend[c] = r->r_end;	/* kc_on_rec */
			w->w_incur = 1;
			w->w_curcpu = c;
			w->w_curloff = r->r_loff;
			w->w_curdone = 0;
			n = tl_acts(r->r_probe, code, varid, val);
			for (i = 0; i < n; i++)
				tl_sw_act(w, code[i], varid[i], val[i],
				    code[i] == KDT_LIBACT_NORMALIZE);
			if (w->w_dead)
				return;
			w->w_incur = 0;
		}
		if (nd != 0)
			tl_sw_write(w);
	}
}

/*
 * What the consumer would print after one more round now: the buffers
 * it has not merged (the active ones: a switched-out one is merged in
 * the same step), then every action it has not carried out.
 */
static char *
tl_sw_want(struct tl_sw *w)
{
	struct tl *t = w->w_t;
	struct tl_rec *r;
	uint32_t c, j;
	uint64_t from;

	for (c = 0; c < TL_NCPU; c++)
		ck_assert_int_eq(kc_aggs_snap(t->t_ka,
		    t->t_es->es_cpus[c].ec_agg), 0);
	for (c = 0; c < TL_NCPU; c++)
		for (j = 0; j < w->w_nrec[c]; j++) {
			r = &w->w_recs[c][j];
			from = 0;
			if (w->w_incur && w->w_curcpu == c &&
			    r->r_loff == w->w_curloff)
				from = w->w_curdone;
			else if (r->r_loff < w->w_decend[c])
				continue;	/* acted on */
			tl_acts_apply(t->t_ka, r->r_probe, (uint32_t)from);
		}
	return kt_aggtot_text(t->t_ka, "");
}

/*
 * Every sequence of TL_SW_STEPS steps from {3 updates, decode round,
 * aggregation round, an action record (clear() on CPU 0 at even steps,
 * normalize() on CPU 1 at odd ones)}, and a panic before each of its
 * micro-steps and after the last: the dump prints what the model
 * consumer would have printed, exit 0 (before replay: "aggregations
 * partial", exit 3).  Were records the consumer had taken no longer in
 * the buffer the dump shows, it would name them and say partial; a
 * record comes between steps only, so that is test_live_switch_taken's.
 */
#define TL_SW_STEPS	4

static void
tl_sw_play(struct tl_sw *w, uint32_t seq)
{
	uint32_t i, step, c, nupd = 0;

	for (i = 0; i < TL_SW_STEPS && !w->w_dead; i++) {
		step = TL_STEP(seq, i);
		if (step == 0) {
			for (c = 0; c < 3; c++)
				tl_sw_fire(w, TL_UPD, c % TL_NCPU,
				    tl_upd_val(nupd++));
		} else if (step == 1) {
			tl_sw_decode(w);
		} else if (step == 2) {
			tl_sw_snap(w);
		} else {
			tl_sw_fire(w, i % 2 == 0 ? TL_CLR : TL_NRM, i % 2, 0);
		}
	}
}

START_TEST(test_live_switch_replay)
{
	const uint32_t nseq = 1u << (2 * TL_SW_STEPS);
	uint32_t seq, cut, c, nmicro;
	struct tl_sw *w = malloc(sizeof (*w));
	char *out, *err, *want;
	int partial, rv;
	uint64_t tail;
	uint32_t nok = 0, npart = 0;
	struct tl t;

	ck_assert_ptr_nonnull(w);
	for (seq = 0; seq < nseq; seq++) {
		/* count the micro-steps: a run without a panic */
		tl_sw_start(w, &t, UINT32_MAX);
		tl_sw_play(w, seq);
		nmicro = UINT32_MAX - w->w_budget;
		tl_free(&t);
		for (cut = 0; cut <= nmicro; cut++) {
			tl_sw_start(w, &t, cut);
			tl_sw_play(w, seq);
			partial = 0;
			for (c = 0; c < TL_NCPU; c++) {
				tail = t.t_es->es_cpus[c].ec_rc->rc_tail;
				if (w->w_slotpos[2 * c] < tail)
					partial = 1;
			}
			rv = tl_print(&t, KC_FORMAT_TEXT, &out, &err);
			want = tl_sw_want(w);
			if (partial) {
				ck_assert_msg(rv == KC_PARTIAL &&
				    strstr(err, "without acting on them") !=
				    NULL, "sequence %u cut %u: rv %d stderr: [%s]",
				    seq, cut, rv, err);
				npart++;
			} else {
				ck_assert_msg(rv == 0 && err[0] == '\0',
				    "sequence %u cut %u: rv %d stderr: [%s]",
				    seq, cut, rv, err);
				ck_assert_msg(strcmp(tl_aggs(out), want) == 0,
				    "sequence %u cut %u: aggregations:\n[%s]\nwant:\n[%s]",
				    seq, cut, tl_aggs(out), want);
				nok++;
			}
			if (!partial && cut % 4 == 0) {
				/* --merge decodes by timestamp; the same
				   aggregations (the round goes by CPU) */
				free(out);
				free(err);
				ck_assert_int_eq(tl_print_flags(&t,
				    KC_FORMAT_TEXT, KC_F_MERGE, &out, &err), 0);
				ck_assert_msg(strcmp(tl_aggs(out), want) == 0,
				    "sequence %u cut %u --merge:\n[%s]\nwant:\n[%s]",
				    seq, cut, tl_aggs(out), want);
			}
			free(out);
			free(err);
			free(want);
			tl_free(&t);
		}
	}
	/* a panic here never splits taken records from the dump: a
	   record comes between steps only (test_live_switch_taken) */
	ck_assert_uint_gt(nok, 1000);
	ck_assert_uint_eq(npart, 0);
	free(w);
}
END_TEST

/*
 * A record comes on CPU 0 between the consumer's switch of that CPU and
 * its decoding: the fresh buffer takes over in the dump, and the taken
 * records (a clear()) are only in the switched-out copy, which the dump
 * does not show -- said, with the offsets; CPU 1's normalize() is still
 * replayed.
 */
START_TEST(test_live_switch_taken)
{
	struct tl_sw *w = calloc(1, sizeof (*w));
	char *out, *err;
	struct rgn_cpu *rc;
	struct tl t;

	ck_assert_ptr_nonnull(w);
	tl_sw_start(w, &t, UINT32_MAX);
	tl_sw_fire(w, TL_UPD, 0, 5);
	tl_sw_fire(w, TL_UPD, 1, 20);
	tl_sw_snap(w);
	tl_sw_fire(w, TL_CLR, 0, 0);
	tl_sw_fire(w, TL_NRM, 1, 0);
	/* the consumer switches CPU 0; CPU 0 writes into the new buffer */
	rc = t.t_es->es_cpus[0].ec_rc;
	w->w_taken[0] = rc->rc_head;
	w->w_pendsw[0] = 1;
	tl_sw_fire(w, TL_UPD, 0, 5);
	tl_sw_fire(w, TL_PRT, 0, 0);
	ck_assert_int_eq(tl_print(&t, KC_FORMAT_TEXT, &out, &err),
	    KC_PARTIAL);
	ck_assert_msg(strstr(err, "kdt-extract: img: aggregations partial: CPU 0: the consumer had taken the records at logical offsets 0x0-0x") != NULL &&
	    strstr(err, "without acting on them") != NULL &&
	    strstr(err, "CPU 1") == NULL, "stderr: [%s]", err);
	/* @c not cleared, @s = 30 normalized by 10 */
	ck_assert_msg(strstr(tl_aggs(out), "                3\n") != NULL,
	    "aggregations: [%s]", tl_aggs(out));
	free(out);
	free(err);
	tl_free(&t);
	free(w);
}
END_TEST

/*
 * Under switch the consumer normalized @s and @q (CPU 1's record: in its
 * totals' at_norm) and had not yet read CPU 0's clear(): the JSON export
 * gives @s "normal":10 from the totals and @c cleared by the replay,
 * status 0.
 */
START_TEST(test_live_switch_json)
{
	struct tl_sw *w = calloc(1, sizeof (*w));
	char *out, *err;
	struct tl t;

	ck_assert_ptr_nonnull(w);
	tl_sw_start(w, &t, UINT32_MAX);
	tl_sw_fire(w, TL_UPD, 0, 5);
	tl_sw_fire(w, TL_UPD, 1, 20);
	tl_sw_fire(w, TL_NRM, 1, 0);
	tl_sw_decode(w);
	tl_sw_fire(w, TL_CLR, 0, 0);
	tl_sw_fire(w, TL_UPD, 1, 5);
	tl_print_ok(&t, KC_FORMAT_JSON, &out, &err);
	ck_assert_msg(strstr(out, "\"function\":\"sum\",\"keys\":[],\"normal\":10,\"value\":3}\n") != NULL,
	    "json: [%s]", out);
	ck_assert_msg(strstr(out, "\"keys\":[{\"action\":\"trace\",\"size\":8,\"type\":\"int\",\"value\":20}],\"value\":0}\n") != NULL,
	    "json: [%s]", out);
	free(out);
	free(err);
	tl_free(&t);
	free(w);
}
END_TEST

/*
 * Hostile replay parts (rgn.h rules R1-R6): each damage is named with
 * the field and its value, the dump is partial and prints the totals and
 * the buffers with no action of the records applied -- never a crash.
 * The slot is resealed (at_xcrc unless the case is about it, at_crc) so
 * that the rule under test is the one that trips.
 */
static const struct {
	const char	*h_want;
} tl_hostile[] = {
	{ "at_xlen 5 is not 16 x 2 CPUs plus 8 per entry" },
	{ "at_xlen 1099511627776 after the" },
	{ "at_xcrc 0x" },
	{ "at_pos of CPU 0, logical offset 0x" },
	{ "says 5000 actions of one record were carried out, more than the limit of 4096" },
	{ "at_norm[0], the normalize() divisor of entry 0, is 0, below 1" },
	{ "at_norm holds 5 divisors, the totals image has 4 entries" },
};

static struct rgn_aggtot *
tl_newest(struct tl *t)
{
	const struct rgn_meta *m = (const void *)(t->t_rgn + RGN_PAGE);
	struct rgn_aggtot *a = (void *)(t->t_rgn + m->rm_aggtot_off);
	struct rgn_aggtot *b = (void *)((uint8_t *)a + m->rm_aggtot_size / 2);

	return a->at_seq > b->at_seq ? a : b;
}

START_TEST(test_live_switch_hostile_replay)
{
	struct tl_sw *w = calloc(1, sizeof (*w));
	struct rgn_aggtot *a;
	char *out, *err;
	uint8_t *x;
	uint64_t v;
	struct tl t;

	ck_assert_ptr_nonnull(w);
	tl_sw_start(w, &t, UINT32_MAX);
	tl_sw_fire(w, TL_UPD, 0, 5);
	tl_sw_fire(w, TL_UPD, 1, 6);
	tl_sw_snap(w);
	tl_sw_fire(w, TL_CLR, 0, 0);
	a = tl_newest(&t);
	/* @c[5], @c[6], @s, @q */
	ck_assert_uint_eq(a->at_xlen, 16 * TL_NCPU + 8 * 4);
	x = (uint8_t *)(a + 1) + 8 * TL_NCPU + a->at_len;
	switch (_i) {
	case 0:
		a->at_xlen = 5;
		break;
	case 1:
		a->at_xlen = 1ULL << 40;
		break;
	case 2:
		x[0] ^= 1;	/* at_xcrc left as it was */
		break;
	case 3:
		v = t.t_es->es_cpus[0].ec_rc->rc_head + 0x1000;
		memcpy(x, &v, 8);
		break;
	case 4:
		v = 5000;
		memcpy(x + 8, &v, 8);
		break;
	case 5:
		v = 0;
		memcpy(x + 16 * TL_NCPU, &v, 8);
		break;
	case 6:
		v = 1;
		memcpy(x + a->at_xlen, &v, 8);
		a->at_xlen += 8;
		break;
	}
	if (_i != 2 && _i != 0 && _i != 1)
		a->at_xcrc = kenv_crc32(x, a->at_xlen);
	a->at_crc = 0;
	a->at_crc = kenv_crc32(a, sizeof (*a)) ^ kenv_crc32(a + 1,
	    8 * TL_NCPU + a->at_len);
	ck_assert_int_eq(tl_print(&t, KC_FORMAT_TEXT, &out, &err),
	    KC_PARTIAL);
	ck_assert_msg(strstr(err, "kdt-extract: img: aggregations partial: the program uses clear(), trunc(), normalize() or denormalize() and its consumer read the buffers under bufpolicy=switch, but the totals cannot tell which records it had acted on: aggregation totals slot ") != NULL &&
	    strstr(err, tl_hostile[_i].h_want) != NULL,
	    "case %d: stderr: [%s]", _i, err);
	/* the totals, no clear() applied: @c[5] and @c[6] count 1 */
	ck_assert_msg(strncmp(tl_aggs(out), "                5                1\n"
	    "                6                1\n               11\n", 88) == 0,
	    "case %d: aggregations: [%s]", _i, tl_aggs(out));
	free(out);
	free(err);
	tl_free(&t);
	free(w);
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
	tl_print_ok(&t, KC_FORMAT_TEXT, &out, &err);
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
	tl_print_ok(&t, KC_FORMAT_JSON, &out, &err);
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

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_normalize_anon);
	tcase_add_test(tc, test_denormalize_clear_trunc);
	tcase_add_test(tc, test_live_ring_clear_after_totals);
	tcase_add_test(tc, test_live_switch_says_partial);
	tcase_add_test(tc, test_live_ring_interleavings);
	tcase_add_test(tc, test_live_switch_replay);
	tcase_add_test(tc, test_live_switch_taken);
	tcase_add_test(tc, test_live_switch_json);
	tcase_add_loop_test(tc, test_live_switch_hostile_replay, 0,
	    (int)(sizeof (tl_hostile) / sizeof (tl_hostile[0])));
	tcase_add_test(tc, test_printa_inline);
	tcase_add_test(tc, test_json_normalize);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(extract_libact_suite)
