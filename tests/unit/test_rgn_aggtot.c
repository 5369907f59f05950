/*
 * test_rgn_aggtot.c -- a live state's aggregations in its region and the
 * consumer's totals (common/rgn.h, "Aggregation totals"): the format, the
 * reader's merge rule, and damaged images.
 *
 * A 2-CPU region is laid out by rgn_init() as kdt.ko lays out a live
 * state's (rp_aggnbuf = 2 * ncpu, a totals area), for the program
 * `BEGIN { @c[arg0] = count(); @q = quantize(arg0); }` compiled with
 * dc_compile().  The test plays kdt.ko and the consumer with the very
 * functions they use: probe updates are agg_update() on a CPU's active
 * buffer; a snapshot of CPU c is kd_snap_agg()'s sequence (the spare's
 * interval to 0, reset, interval = active + 1, switch) followed by the
 * consumer's kc_aggs_snap() of the switched-out buffer; a totals write is
 * kc_aggs_image() into rgn_aggtot_begin()'s slot and rgn_aggtot_commit().
 * A shadow buffer receives every update too: it is the truth.
 *
 * Every sequence of 6 steps from {update, snapshot CPU 0, snapshot CPU 1,
 * totals} is played, then "the panic": kc_aggs_region() on the image must
 * print exactly what the shadow prints when no interval was lost, and
 * when the model says intervals are lost (a CPU snapshotted twice with no
 * totals between) it must say how many, per CPU.  Damaged slots (bad
 * CRC, an interval in the future, a length past the slot) are refused by
 * name and the other slot used; a totals area out of bounds fails
 * rgn_open(); a table too big for its slot is reported as partial with
 * the count left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "dof_load.h"
#include "rgn.h"
#include "agg.h"
#include "consumer/kc_agg.h"

#define TA_RGNSIZE	(256 * 1024)
#define TA_AGGSIZE	(16 * 1024)
#define TA_NCPU		2
#define TA_STEPS	6

static const char ta_prog[] =
    "BEGIN { @c[arg0] = count(); @q = quantize(arg0); }\n";

struct ta {
	struct dc_out	t_out;
	struct dof_enabling *t_den;
	uint8_t		*t_rgn;
	struct agg_buf	*t_act[TA_NCPU];	/* active buffer */
	struct agg_buf	*t_spare[TA_NCPU];
	struct agg_buf	*t_shadow;		/* the truth */
	struct kc_aggs	*t_ka;			/* the consumer's table */
	uint64_t	t_ival[TA_NCPU];	/* merged by the consumer */
	/* the model: what the reader must find */
	uint64_t	t_g[TA_NCPU];		/* in the newest totals */
	uint32_t	t_gone[TA_NCPU];	/* bit i: interval i's buffer
						   was reset (reused) */
	uint32_t	t_nupd;
	uint64_t	t_lost[TA_NCPU];	/* at the panic */
};

static void
ta_setup(struct ta *t, uint64_t totsize)
{
	struct dc_opts opts;
	struct rgn_params rp;
	struct kdt_err ke;
	uint32_t c;

	memset(t, 0, sizeof (*t));
	memset(&opts, 0, sizeof (opts));
	ck_assert_msg(dc_compile(ta_prog, strlen(ta_prog), "t.d", &opts,
	    &t->t_out) == 0, "%s", t->t_out.dco_diag);
	ck_assert_int_eq(dof_load(t->t_out.dco_dof, t->t_out.dco_dofsz,
	    &t->t_den, &ke), 0);
	ck_assert_uint_eq(t->t_den->den_naggs, 2);
	t->t_rgn = aligned_alloc(4096, TA_RGNSIZE);
	ck_assert_ptr_nonnull(t->t_rgn);
	memset(t->t_rgn, 0, TA_RGNSIZE);
	memset(&rp, 0, sizeof (rp));
	rp.rp_phys = 0x30000000;
	rp.rp_ncpu = TA_NCPU;
	rp.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	rp.rp_probe_cap = 4;
	rp.rp_epid_cap = 4;
	rp.rp_aggsize = TA_AGGSIZE;
	rp.rp_aggnbuf = 2 * TA_NCPU;
	rp.rp_aggtot = totsize;
	rp.rp_release = "6.1.0-kt-aggtot";
	rp.rp_dof = t->t_den->den_dof;
	rp.rp_dofsz = t->t_den->den_dofsz;
	ck_assert_uint_le(rgn_size_for(&rp, 4096), TA_RGNSIZE);
	ck_assert_msg(rgn_init(t->t_rgn, TA_RGNSIZE, &rp, &ke) == 0, "%s",
	    ke.ke_msg);
	for (c = 0; c < TA_NCPU; c++) {
		t->t_act[c] = rgn_agg(t->t_rgn, c);
		t->t_spare[c] = rgn_agg(t->t_rgn, TA_NCPU + c);
		ck_assert_ptr_nonnull(t->t_spare[c]);
		ck_assert_uint_eq(t->t_act[c]->ab_interval, 1);
		ck_assert_uint_eq(t->t_spare[c]->ab_interval, 0);
		ck_assert_uint_eq(t->t_spare[c]->ab_cpu, c);
	}
	ck_assert_ptr_null(rgn_agg(t->t_rgn, 2 * TA_NCPU));
	t->t_shadow = malloc(4 * TA_AGGSIZE);
	ck_assert_int_eq(agg_buf_init(t->t_shadow, 4 * TA_AGGSIZE, 0, &ke),
	    0);
	t->t_ka = kc_aggs_new(t->t_den);
	ck_assert_ptr_nonnull(t->t_ka);
}

static void
ta_free(struct ta *t)
{
	kc_aggs_free(t->t_ka);
	free(t->t_shadow);
	free(t->t_rgn);
	dof_free(t->t_den);
	dc_out_free(&t->t_out);
}

/* A probe firing on "cpu" with arg0 "v": both aggregations, and truth. */
static void
ta_fire(struct ta *t, uint32_t cpu, int64_t v)
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

/* Step "update": a few firings on both CPUs, keys varying by step. */
static void
ta_update(struct ta *t)
{
	uint32_t i;

	t->t_nupd++;
	for (i = 0; i < 3 + t->t_nupd; i++)
		ta_fire(t, i % TA_NCPU, (int64_t)(i % 4) * 7 + t->t_nupd);
}

/* Step "snapshot CPU c": kdt.ko's switch, then the consumer's merge. */
static void
ta_snap(struct ta *t, uint32_t c)
{
	struct agg_buf *nb = t->t_spare[c], *old = t->t_act[c];
	struct kdt_err ke;

	/* kdt.ko: the spare is reused, the interval it held is gone */
	t->t_gone[c] |= 1u << nb->ab_interval;
	nb->ab_interval = 0;
	agg_buf_reset(nb);
	nb->ab_drops = old->ab_drops;
	nb->ab_interval = old->ab_interval + 1;
	t->t_act[c] = nb;
	t->t_spare[c] = old;
	/* the consumer */
	ck_assert_int_eq(agg_buf_check(old, old->ab_size, t->t_den, &ke), 0);
	ck_assert_int_eq(kc_aggs_snap(t->t_ka, old), 0);
	t->t_ival[c] = old->ab_interval;
}

/* Step "totals": the consumer's table into the region (KIO_AGGTOT). */
static void
ta_totals(struct ta *t)
{
	struct kdt_err ke;
	uint64_t cap, len, left;
	uint8_t *dst;

	dst = rgn_aggtot_begin(t->t_rgn, &cap);
	ck_assert_ptr_nonnull(dst);
	ck_assert_uint_eq(cap - 8 * TA_NCPU, rgn_aggtot_cap(t->t_rgn));
	memcpy(dst, t->t_ival, sizeof (t->t_ival));
	ck_assert_int_eq(kc_aggs_image(t->t_ka, dst + sizeof (t->t_ival),
	    cap - sizeof (t->t_ival), &len, &left), 0);
	ck_assert_msg(rgn_aggtot_commit(t->t_rgn, len, 0, left, &ke) == 0, "%s",
	    ke.ke_msg);
	memcpy(t->t_g, t->t_ival, sizeof (t->t_g));
}

/* What kc_aggs_print_all prints for "ka". */
static char *
ta_print(struct kc_aggs *ka)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(kc_aggs_print_all(ka, f), 0);
	fclose(f);
	return s;
}

/* The truth, printed. */
static char *
ta_truth(struct ta *t)
{
	struct kc_aggs *ka = kc_aggs_new(t->t_den);
	char *s;

	ck_assert_int_eq(kc_aggs_snap(ka, t->t_shadow), 0);
	s = ta_print(ka);
	kc_aggs_free(ka);
	return s;
}

/* "The panic": the reader on the image; its output and its messages. */
static int
ta_read(struct ta *t, char **out, char **msgs)
{
	struct rgn_view v;
	struct kdt_err ke;
	struct kc_aggs *ka;
	size_t n = 0;
	FILE *e;
	int rv;

	ck_assert_msg(rgn_open(&v, t->t_rgn, TA_RGNSIZE, RGN_PHYS_ANY,
	    &ke) == 0, "%s", ke.ke_msg);
	ka = kc_aggs_new(t->t_den);
	*msgs = NULL;
	e = open_memstream(msgs, &n);
	rv = kc_aggs_region(ka, &v, "kdt-extract", "img", e);
	fclose(e);
	*out = ta_print(ka);
	kc_aggs_free(ka);
	return rv;
}

static const char ta_stepname[4] = { 'U', '0', '1', 'T' };

/* Every sequence of TA_STEPS steps, then the panic. */
START_TEST(test_every_interleaving_merges_exactly)
{
	uint32_t seq, k, st, c, nseq = 1, npartial = 0, nexact = 0;
	char name[TA_STEPS + 1], *out, *msgs, *truth, want[160];
	uint64_t lost;
	struct ta t;
	int rv;

	for (k = 0; k < TA_STEPS; k++)
		nseq *= 4;
	for (seq = 0; seq < nseq; seq++) {
		ta_setup(&t, TA_AGGSIZE * TA_NCPU);
		for (k = 0, st = seq; k < TA_STEPS; k++, st /= 4) {
			name[k] = ta_stepname[st % 4];
			switch (st % 4) {
			case 0: ta_update(&t); break;
			case 1: ta_snap(&t, 0); break;
			case 2: ta_snap(&t, 1); break;
			default: ta_totals(&t); break;
			}
		}
		name[TA_STEPS] = '\0';
		rv = ta_read(&t, &out, &msgs);
		truth = ta_truth(&t);
		/* lost: a gone interval the newest totals do not hold */
		for (c = 0, lost = 0; c < TA_NCPU; c++) {
			t.t_lost[c] = 0;
			for (k = t.t_g[c] + 1; k < 32; k++)
				t.t_lost[c] += (t.t_gone[c] >> k) & 1;
			lost += t.t_lost[c];
		}
		if (lost == 0) {
			ck_assert_msg(rv == 0, "%s: rv %d: %s", name, rv, msgs);
			ck_assert_msg(strcmp(out, truth) == 0,
			    "%s:\n%s\nwanted\n%s", name, out, truth);
			ck_assert_msg(msgs[0] == '\0', "%s: %s", name, msgs);
			nexact++;
		} else {
			ck_assert_msg(rv == 1, "%s: rv %d", name, rv);
			for (c = 0; c < TA_NCPU; c++) {
				if (t.t_lost[c] == 0)
					continue;
				snprintf(want, sizeof (want),
				    "kdt-extract: img: aggregations partial: %llu aggregation interval(s) of CPU %u are neither in the consumer's totals nor in a buffer\n",
				    (unsigned long long)t.t_lost[c], c);
				ck_assert_msg(strstr(msgs, want) != NULL,
				    "%s: %s", name, msgs);
			}
			npartial++;
		}
		free(out);
		free(msgs);
		free(truth);
		ta_free(&t);
	}
	ck_assert_uint_gt(npartial, 0);
	ck_assert_uint_gt(nexact, 1000);
}
END_TEST

/* Two totals written after two rounds, then one more round pending. */
static void
ta_history(struct ta *t)
{
	ta_setup(t, TA_AGGSIZE * TA_NCPU);
	ta_update(t);
	ta_snap(t, 0);
	ta_snap(t, 1);
	ta_totals(t);		/* slot 0, g = 1 */
	ta_update(t);
	ta_snap(t, 0);
	ta_snap(t, 1);
	ta_totals(t);		/* slot 1, g = 2 */
	ta_update(t);
}

static struct rgn_aggtot *
ta_slot(struct ta *t, uint32_t i)
{
	const struct rgn_meta *m = (const void *)(t->t_rgn + RGN_PAGE);

	return (struct rgn_aggtot *)(t->t_rgn + m->rm_aggtot_off +
	    i * (m->rm_aggtot_size / 2));
}

static void
ta_recrc(struct rgn_aggtot *a)
{
	a->at_crc = 0;
	a->at_crc = kenv_crc32(a, sizeof (*a)) ^ kenv_crc32(a + 1,
	    8 * a->at_ncpu + a->at_len);
}

/* The newest slot damaged three ways: the older one is used, exactly. */
START_TEST(test_damaged_newest_slot_falls_back)
{
	static const char *const why[3] = {
		"aggregation totals slot 1 (write 2): CRC",
		"aggregation totals slot 1: CPU 1's interval 99 is not below its newest buffer's interval 3 (an interval in the future)",
		"aggregation totals slot 1: image of 0x",
	};
	char *out, *msgs, *truth;
	struct rgn_aggtot *a;
	struct ta t;
	uint64_t *ival;

	ta_history(&t);
	a = ta_slot(&t, 1);
	ival = (uint64_t *)(a + 1);
	switch (_i) {
	case 0:
		((uint8_t *)(ival + TA_NCPU))[100] ^= 0x40;
		break;
	case 1:
		ival[1] = 99;
		ta_recrc(a);
		break;
	default:
		a->at_len = 1ULL << 40;
		a->at_crc = 0;
		break;
	}
	/* slot 0 has g = 1; the spares hold 2, the active buffers 3 */
	ck_assert_int_eq(ta_read(&t, &out, &msgs), 0);
	truth = ta_truth(&t);
	ck_assert_str_eq(out, truth);
	ck_assert_msg(strstr(msgs, why[_i]) != NULL, "%s", msgs);
	ck_assert_msg(strstr(msgs, "(the other slot is used)") != NULL, "%s",
	    msgs);
	free(out);
	free(msgs);
	free(truth);
	ta_free(&t);
}
END_TEST

/* A torn write (at_seq 0) is no damage: silently the older slot. */
START_TEST(test_slot_being_written_is_ignored)
{
	char *out, *msgs, *truth;
	uint64_t cap;
	struct ta t;

	ta_history(&t);
	ck_assert_ptr_nonnull(rgn_aggtot_begin(t.t_rgn, &cap));	/* slot 0 */
	ck_assert_uint_eq(ta_slot(&t, 0)->at_seq, 0);
	ck_assert_int_eq(ta_read(&t, &out, &msgs), 0);
	truth = ta_truth(&t);
	ck_assert_str_eq(out, truth);
	ck_assert_str_eq(msgs, "");
	free(out);
	free(msgs);
	free(truth);
	ta_free(&t);
}
END_TEST

/* Both slots damaged: buffers alone, and the lost intervals named. */
START_TEST(test_no_valid_slot_says_what_is_missing)
{
	char *out, *msgs;
	struct ta t;

	ta_history(&t);
	ta_slot(&t, 0)->at_crc ^= 1;
	ta_slot(&t, 1)->at_crc ^= 1;
	ck_assert_int_eq(ta_read(&t, &out, &msgs), 1);
	/* intervals 2 and 3 are in buffers, 1 only was in the totals */
	ck_assert_msg(strstr(msgs, "1 aggregation interval(s) of CPU 0 are neither") != NULL, "%s", msgs);
	ck_assert_msg(strstr(msgs, "1 aggregation interval(s) of CPU 1 are neither") != NULL, "%s", msgs);
	free(out);
	free(msgs);
	ta_free(&t);
}
END_TEST

/* A table larger than its slot: written in part, reported with the count. */
START_TEST(test_table_too_big_is_partial_with_count)
{
	char *out, *msgs;
	struct ta t;
	uint32_t i;

	/* a slot of one page: room for a few dozen entries */
	ta_setup(&t, 1);
	for (i = 0; i < 200; i++)
		ta_fire(&t, 0, (int64_t)i);
	ta_snap(&t, 0);
	ta_snap(&t, 1);
	ta_totals(&t);
	ck_assert_uint_gt(ta_slot(&t, 0)->at_left, 0);
	ck_assert_int_eq(ta_read(&t, &out, &msgs), 1);
	ck_assert_msg(strstr(msgs, "aggregations partial: ") != NULL &&
	    strstr(msgs, " entries of the consumer's table did not fit the region's totals slot") != NULL,
	    "%s", msgs);
	free(out);
	free(msgs);
	ta_free(&t);
}
END_TEST

/* A totals area out of bounds fails rgn_open() with the field. */
START_TEST(test_totals_area_out_of_bounds_refused)
{
	struct rgn_meta *m;
	struct rgn_view v;
	struct kdt_err ke;
	struct ta t;

	ta_setup(&t, TA_AGGSIZE * TA_NCPU);
	m = (struct rgn_meta *)(t.t_rgn + RGN_PAGE);
	m->rm_aggtot_size = TA_RGNSIZE;
	ck_assert_int_eq(rgn_open(&v, t.t_rgn, TA_RGNSIZE, RGN_PHYS_ANY,
	    &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "RGN_AGGTOT");
	ck_assert_msg(strstr(ke.ke_msg, "aggregation totals area at offset") != NULL, "%s", ke.ke_msg);
	m->rm_aggtot_size = 2 * RGN_PAGE * 9;
	m->rm_agg_nbuf = 3;
	ck_assert_int_eq(rgn_open(&v, t.t_rgn, TA_RGNSIZE, RGN_PHYS_ANY,
	    &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "RGN_AGGNBUF");
	ta_free(&t);
}
END_TEST

/* The writer refuses an image that is not an agg_buf of its length. */
START_TEST(test_commit_checks_the_image)
{
	struct kdt_err ke;
	uint64_t cap;
	uint8_t *dst;
	struct ta t;

	ta_setup(&t, TA_AGGSIZE * TA_NCPU);
	dst = rgn_aggtot_begin(t.t_rgn, &cap);
	memset(dst, 0, 4096);
	ck_assert_int_eq(rgn_aggtot_commit(t.t_rgn, 4096, 0, 0, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "RGN_AGGTOT");
	ck_assert_int_eq(rgn_aggtot_commit(t.t_rgn, cap, 0, 0, &ke), -EINVAL);
	ta_free(&t);
}
END_TEST

/*
 * Seeds for fuzz_region (tests/fuzz/README.md): with KT_AGGTOT_SEEDS=DIR
 * set, a live state's region after two totals writes and a pending round,
 * intact and with its newest slot damaged, is written to DIR
 * (tests/fuzz/mkcorpus does this).  Without it this test does nothing.
 */
static void
ta_seed(const char *dir, const char *name, const struct ta *t)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof (path), "%s/rgn-aggtot-%s", dir, name);
	f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputc('R', f);
	ck_assert_uint_eq(fwrite(t->t_rgn, 1, TA_RGNSIZE, f), TA_RGNSIZE);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_fuzz_seeds)
{
	const char *dir = getenv("KT_AGGTOT_SEEDS");
	struct ta t;

	if (dir == NULL)
		return;
	ta_history(&t);
	ta_seed(dir, "ok", &t);
	ta_slot(&t, 1)->at_crc ^= 1;
	ta_seed(dir, "crc", &t);
	ta_free(&t);
}
END_TEST

static Suite *
rgn_aggtot_suite(void)
{
	Suite *s = suite_create("rgn_aggtot");
	TCase *tc = tcase_create("aggtot");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_every_interleaving_merges_exactly);
	tcase_add_loop_test(tc, test_damaged_newest_slot_falls_back, 0, 3);
	tcase_add_test(tc, test_slot_being_written_is_ignored);
	tcase_add_test(tc, test_no_valid_slot_says_what_is_missing);
	tcase_add_test(tc, test_table_too_big_is_partial_with_count);
	tcase_add_test(tc, test_totals_area_out_of_bounds_refused);
	tcase_add_test(tc, test_commit_checks_the_image);
	tcase_add_test(tc, test_fuzz_seeds);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(rgn_aggtot_suite)
