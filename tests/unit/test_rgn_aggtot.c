/*
 * test_rgn_aggtot.c -- a live state's aggregations in its region and the
 * consumer's totals (common/rgn.h, "Aggregation totals"): the format, the
 * reader's merge rule, and damaged images.
 *
 * A 2-CPU region is laid out by rgn_init() as kdt.ko lays out a live
 * state's (rp_aggnbuf = 2 * ncpu, a totals area), for the program
 * `BEGIN { @c[arg0] = count(); @q = quantize(arg0); }` compiled with
 * dc_compile().  The test plays kdt.ko and the consumer with the very
 * functions they use (kt_aggtot.h, shared with test_anon_aggtot.c and
 * test_extract_libact.c): probe updates are agg_update() on a CPU's active
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
#include "kt_aggtot.h"

#define TA_RGNSIZE	(256 * 1024)
#define TA_AGGSIZE	(16 * 1024)
#define TA_NCPU		KT_AGT_NCPU
#define TA_STEPS	6
#define TA_NKEYS	4	/* an update's keys: 4, 7 apart */
#define TA_KEYSTEP	7

static const char ta_prog[] =
    "BEGIN { @c[arg0] = count(); @q = quantize(arg0); }\n";

static void
ta_setup(struct kt_agt *t, uint64_t totsize)
{
	struct rgn_params rp;

	kt_agt_new(t, ta_prog, "t.d");
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
	kt_agt_init(t, &rp, TA_RGNSIZE);
	kt_agt_claim(t);	/* a live state's consumer: from the start */
	ck_assert_ptr_null(rgn_agg(t->t_rgn, 2 * TA_NCPU));
}

static void
ta_update(struct kt_agt *t)
{
	kt_agt_update(t, TA_NKEYS, TA_KEYSTEP);
}

/* "The panic": the reader on the image; its output and its messages. */
static int
ta_read(struct kt_agt *t, char **out, char **msgs)
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
	*out = kt_aggtot_text(ka, "");
	kc_aggs_free(ka);
	return rv;
}

/* Every sequence of TA_STEPS steps, then the panic. */
START_TEST(test_every_interleaving_merges_exactly)
{
	uint32_t seq, k, c, nseq = 1, npartial = 0, nexact = 0;
	char name[TA_STEPS + 1], *out, *msgs, *truth, want[160];
	uint64_t lost, clost[TA_NCPU];
	struct kt_agt t;
	int rv;

	for (k = 0; k < TA_STEPS; k++)
		nseq *= 4;
	for (seq = 0; seq < nseq; seq++) {
		ta_setup(&t, TA_AGGSIZE * TA_NCPU);
		kt_agt_play(&t, seq, TA_STEPS, TA_NKEYS, TA_KEYSTEP, name);
		rv = ta_read(&t, &out, &msgs);
		truth = kt_agt_truth(&t, "");
		/* lost: a gone interval the newest totals do not hold */
		for (c = 0, lost = 0; c < TA_NCPU; c++) {
			clost[c] = kt_agt_lost(&t, c);
			lost += clost[c];
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
				if (clost[c] == 0)
					continue;
				snprintf(want, sizeof (want),
				    "kdt-extract: img: aggregations partial: %llu aggregation interval(s) of CPU %u are neither in the consumer's totals nor in a buffer\n",
				    (unsigned long long)clost[c], c);
				ck_assert_msg(strstr(msgs, want) != NULL,
				    "%s: %s", name, msgs);
			}
			npartial++;
		}
		free(out);
		free(msgs);
		free(truth);
		kt_agt_free(&t);
	}
	ck_assert_uint_gt(npartial, 0);
	ck_assert_uint_gt(nexact, 1000);
}
END_TEST

/* Two totals written after two rounds, then one more round pending. */
static void
ta_history(struct kt_agt *t)
{
	ta_setup(t, TA_AGGSIZE * TA_NCPU);
	ta_update(t);
	kt_agt_snap(t, 0);
	kt_agt_snap(t, 1);
	(void) kt_agt_totals(t);		/* slot 0, g = 1 */
	ta_update(t);
	kt_agt_snap(t, 0);
	kt_agt_snap(t, 1);
	(void) kt_agt_totals(t);		/* slot 1, g = 2 */
	ta_update(t);
}

static struct rgn_aggtot *
ta_slot(struct kt_agt *t, uint32_t i)
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
	struct kt_agt t;
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
	truth = kt_agt_truth(&t, "");
	ck_assert_str_eq(out, truth);
	ck_assert_msg(strstr(msgs, why[_i]) != NULL, "%s", msgs);
	ck_assert_msg(strstr(msgs, "(the other slot is used)") != NULL, "%s",
	    msgs);
	free(out);
	free(msgs);
	free(truth);
	kt_agt_free(&t);
}
END_TEST

/* A torn write (at_seq 0) is no damage: silently the older slot. */
START_TEST(test_slot_being_written_is_ignored)
{
	char *out, *msgs, *truth;
	uint64_t cap;
	struct kt_agt t;

	ta_history(&t);
	ck_assert_ptr_nonnull(rgn_aggtot_begin(t.t_rgn, &cap));	/* slot 0 */
	ck_assert_uint_eq(ta_slot(&t, 0)->at_seq, 0);
	ck_assert_int_eq(ta_read(&t, &out, &msgs), 0);
	truth = kt_agt_truth(&t, "");
	ck_assert_str_eq(out, truth);
	ck_assert_str_eq(msgs, "");
	free(out);
	free(msgs);
	free(truth);
	kt_agt_free(&t);
}
END_TEST

/* Both slots damaged: buffers alone, and the lost intervals named. */
START_TEST(test_no_valid_slot_says_what_is_missing)
{
	char *out, *msgs;
	struct kt_agt t;

	ta_history(&t);
	ta_slot(&t, 0)->at_crc ^= 1;
	ta_slot(&t, 1)->at_crc ^= 1;
	ck_assert_int_eq(ta_read(&t, &out, &msgs), 1);
	/* intervals 2 and 3 are in buffers, 1 only was in the totals */
	ck_assert_msg(strstr(msgs, "1 aggregation interval(s) of CPU 0 are neither") != NULL, "%s", msgs);
	ck_assert_msg(strstr(msgs, "1 aggregation interval(s) of CPU 1 are neither") != NULL, "%s", msgs);
	free(out);
	free(msgs);
	kt_agt_free(&t);
}
END_TEST

/* A table larger than its slot: written in part, reported with the count. */
START_TEST(test_table_too_big_is_partial_with_count)
{
	char *out, *msgs;
	struct kt_agt t;
	uint32_t i;

	/* a slot of one page: room for a few dozen entries */
	ta_setup(&t, 1);
	for (i = 0; i < 200; i++)
		kt_agt_fire(&t, 0, (int64_t)i);
	kt_agt_snap(&t, 0);
	kt_agt_snap(&t, 1);
	(void) kt_agt_totals(&t);
	ck_assert_uint_gt(ta_slot(&t, 0)->at_left, 0);
	ck_assert_int_eq(ta_read(&t, &out, &msgs), 1);
	ck_assert_msg(strstr(msgs, "aggregations partial: ") != NULL &&
	    strstr(msgs, " entries of the consumer's table did not fit the region's totals slot") != NULL,
	    "%s", msgs);
	free(out);
	free(msgs);
	kt_agt_free(&t);
}
END_TEST

/* A totals area out of bounds fails rgn_open() with the field. */
START_TEST(test_totals_area_out_of_bounds_refused)
{
	struct rgn_meta *m;
	struct rgn_view v;
	struct kdt_err ke;
	struct kt_agt t;

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
	kt_agt_free(&t);
}
END_TEST

/* The writer refuses an image that is not an agg_buf of its length. */
START_TEST(test_commit_checks_the_image)
{
	struct kdt_err ke;
	uint64_t cap;
	uint8_t *dst;
	struct kt_agt t;

	ta_setup(&t, TA_AGGSIZE * TA_NCPU);
	dst = rgn_aggtot_begin(t.t_rgn, &cap);
	memset(dst, 0, 4096);
	ck_assert_int_eq(rgn_aggtot_commit(t.t_rgn, 4096, 0, 0, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "RGN_AGGTOT");
	ck_assert_int_eq(rgn_aggtot_commit(t.t_rgn, cap, 0, 0, &ke), -EINVAL);
	kt_agt_free(&t);
}
END_TEST

/*
 * Seeds for fuzz_region (tests/fuzz/README.md): with KT_AGGTOT_SEEDS=DIR
 * set, a live state's region after two totals writes and a pending round,
 * intact and with its newest slot damaged, is written to DIR
 * (tests/fuzz/mkcorpus does this).  Without it this test does nothing.
 */
static void
ta_seed(const char *dir, const char *name, const struct kt_agt *t)
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
	struct kt_agt t;

	if (dir == NULL)
		return;
	ta_history(&t);
	ta_seed(dir, "ok", &t);
	ta_slot(&t, 1)->at_crc ^= 1;
	ta_seed(dir, "crc", &t);
	kt_agt_free(&t);
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
