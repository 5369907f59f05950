/*
 * test_agg.c -- unit tests of common/agg.c, userspace build: the bucket
 * maths of quantize, lquantize and llquantize at every boundary (reference
 * 3.4), the value words of every function and their merge, and the
 * per-CPU aggregation buffer: update, drops when full, reset, and the
 * reader's validation of a buffer image (agg_buf_check rules B1-B6).
 *
 * Buffers are checked against a hand-made dof_enabling that describes two
 * aggregations (count with an 8-byte key, quantize without keys), so the
 * tests do not depend on the loader.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "agg.h"

#define I64MAX	((int64_t)(~0ULL >> 1))
#define I64MIN	(-I64MAX - 1)

/* lquantize parameter word: step, levels, base. */
static uint64_t
lq(uint16_t step, uint16_t levels, int32_t base)
{
	return (uint64_t)step << 48 | (uint64_t)levels << 32 | (uint32_t)base;
}

/* llquantize parameter word: factor, low, high, nsteps. */
static uint64_t
llq(uint16_t factor, uint16_t low, uint16_t high, uint16_t nsteps)
{
	return (uint64_t)factor << 48 | (uint64_t)low << 32 |
	    (uint64_t)high << 16 | nsteps;
}

START_TEST(test_quantize_every_power_of_two)
{
	uint32_t k;
	int64_t p;

	ck_assert_uint_eq(agg_quantize_bucket(0), 63);
	ck_assert_int_eq(agg_quantize_label(63), 0);
	for (k = 0; k <= 62; k++) {
		p = (int64_t)1 << k;
		ck_assert_uint_eq(agg_quantize_bucket(p), 64 + k);
		ck_assert_uint_eq(agg_quantize_bucket(
		    (int64_t)((uint64_t)p * 2 - 1)), 64 + k);
		ck_assert_int_eq(agg_quantize_label(64 + k), p);
		if (k == 62)
			break;
		ck_assert_uint_eq(agg_quantize_bucket(-p), 62 - k);
		ck_assert_uint_eq(agg_quantize_bucket(-2 * p + 1), 62 - k);
		ck_assert_int_eq(agg_quantize_label(62 - k), -p);
	}
	ck_assert_uint_eq(agg_quantize_bucket(I64MAX), 126);
	ck_assert_uint_eq(agg_quantize_bucket(I64MIN), 0);
	ck_assert_uint_eq(agg_quantize_bucket(-((int64_t)1 << 62)), 0);
	for (k = 0; k < AGG_QUANTIZE_NBUCKETS; k++)
		ck_assert_uint_eq(agg_quantize_bucket(agg_quantize_label(k)),
		    k);
}
END_TEST

START_TEST(test_lquantize_levels_underflow_overflow)
{
	uint64_t a = lq(5, 4, -10), d[7];

	ck_assert_int_eq(agg_lquantize_base(a), -10);
	ck_assert_uint_eq(agg_lquantize_levels(a), 4);
	ck_assert_uint_eq(agg_lquantize_step(a), 5);
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_LQUANTIZE, a), 7 * 8);
	agg_data_init(DTRACEAGG_LQUANTIZE, a, d);
	ck_assert_uint_eq(d[0], a);
	agg_data_apply(DTRACEAGG_LQUANTIZE, a, d, -11, 1);	/* under */
	agg_data_apply(DTRACEAGG_LQUANTIZE, a, d, -10, 1);	/* level 0 */
	agg_data_apply(DTRACEAGG_LQUANTIZE, a, d, -6, 2);	/* level 0 */
	agg_data_apply(DTRACEAGG_LQUANTIZE, a, d, -5, 1);	/* level 1 */
	agg_data_apply(DTRACEAGG_LQUANTIZE, a, d, 9, 1);	/* level 3 */
	agg_data_apply(DTRACEAGG_LQUANTIZE, a, d, 10, 1);	/* over */
	agg_data_apply(DTRACEAGG_LQUANTIZE, a, d, I64MAX, 1);	/* -1: 0 */
	/* truncated to 32 bits: 0x100000005 is 5, level 3 */
	agg_data_apply(DTRACEAGG_LQUANTIZE, a, d, 0x100000005ll, -3);
	ck_assert_uint_eq(d[0], a);
	ck_assert_int_eq((int64_t)d[1], 1);
	ck_assert_int_eq((int64_t)d[2], 3);
	ck_assert_int_eq((int64_t)d[3], 2);	/* -5 and I64MAX (= -1) */
	ck_assert_int_eq((int64_t)d[4], 0);
	ck_assert_int_eq((int64_t)d[5], -2);
	ck_assert_int_eq((int64_t)d[6], 1);
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_LQUANTIZE, lq(0, 4, 0)), 0);
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_LQUANTIZE, lq(1, 0, 0)), 0);
	/* base + levels x step beyond INT32_MAX */
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_LQUANTIZE,
	    lq(2, 10, 0x7ffffff0)), 0);
}
END_TEST

struct t_llq {
	uint16_t	f, lo, hi, n;
	uint32_t	nbuckets;
	int64_t		val;
	uint32_t	bucket;
	int64_t		label;		/* of that bucket */
};

static const struct t_llq t_llqs[] = {
	{ 10, 0, 2, 10, 29, 0, 0, 1 },
	{ 10, 0, 2, 10, 29, -5, 0, 1 },
	{ 10, 0, 2, 10, 29, 1, 1, 1 },
	{ 10, 0, 2, 10, 29, 9, 9, 9 },
	{ 10, 0, 2, 10, 29, 10, 10, 10 },
	{ 10, 0, 2, 10, 29, 19, 10, 10 },
	{ 10, 0, 2, 10, 29, 99, 18, 90 },
	{ 10, 0, 2, 10, 29, 100, 19, 100 },
	{ 10, 0, 2, 10, 29, 999, 27, 900 },
	{ 10, 0, 2, 10, 29, 1000, 28, 1000 },
	{ 10, 0, 2, 10, 29, I64MAX, 28, 1000 },
	{ 2, 0, 4, 4, 11, 1, 1, 1 },
	{ 2, 0, 4, 4, 11, 3, 3, 3 },
	{ 2, 0, 4, 4, 11, 5, 4, 4 },
	{ 2, 0, 4, 4, 11, 6, 5, 6 },
	{ 2, 0, 4, 4, 11, 15, 7, 12 },
	{ 2, 0, 4, 4, 11, 31, 9, 24 },
	{ 2, 0, 4, 4, 11, 32, 10, 32 },
	{ 10, 1, 3, 100, 272, 9, 0, 10 },
	{ 10, 1, 3, 100, 272, 10, 1, 10 },
	{ 10, 1, 3, 100, 272, 99, 90, 99 },
	{ 10, 1, 3, 100, 272, 100, 91, 100 },
	{ 10, 1, 3, 100, 272, 109, 91, 100 },
	{ 10, 1, 3, 100, 272, 110, 92, 110 },
	{ 10, 1, 3, 100, 272, 9999, 270, 9900 },
	{ 10, 1, 3, 100, 272, 10000, 271, 10000 },
	{ 4, 2, 3, 16, 2 + 12 + 12, 15, 0, 16 },
	{ 4, 2, 3, 16, 26, 16, 1, 16 },
	{ 4, 2, 3, 16, 26, 63, 12, 60 },
	{ 4, 2, 3, 16, 26, 64, 13, 64 },
	{ 4, 2, 3, 16, 26, 255, 24, 240 },
	{ 4, 2, 3, 16, 26, 256, 25, 256 },
};

START_TEST(test_llquantize_table)
{
	const struct t_llq *t = &t_llqs[_i];
	uint64_t a = llq(t->f, t->lo, t->hi, t->n);

	ck_assert_uint_eq(agg_llquantize_nbuckets(a), t->nbuckets);
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_LLQUANTIZE, a),
	    (t->nbuckets + 1) * 8);
	ck_assert_uint_eq(agg_llquantize_bucket(a, t->val), t->bucket);
	ck_assert_int_eq(agg_llquantize_label(a, t->bucket), t->label);
}
END_TEST

START_TEST(test_llquantize_rejects_bad_parameters)
{
	ck_assert_uint_eq(agg_llquantize_nbuckets(llq(1, 0, 2, 10)), 0);
	ck_assert_uint_eq(agg_llquantize_nbuckets(llq(10, 2, 2, 10)), 0);
	ck_assert_uint_eq(agg_llquantize_nbuckets(llq(10, 0, 2, 5)), 0);
	ck_assert_uint_eq(agg_llquantize_nbuckets(llq(10, 0, 2, 15)), 0);
	/* 24 does not divide 6^2 = 36: unequal parts */
	ck_assert_uint_eq(agg_llquantize_nbuckets(llq(6, 0, 3, 24)), 0);
	/* 10^20 does not fit in 64 bits */
	ck_assert_uint_eq(agg_llquantize_nbuckets(llq(10, 0, 19, 10)), 0);
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_LLQUANTIZE,
	    llq(10, 0, 19, 10)), 0);
	ck_assert_uint_ne(agg_llquantize_nbuckets(llq(10, 0, 18, 10)), 0);
	ck_assert_uint_eq(agg_data_size(0x70a, 0), 0);
}
END_TEST

START_TEST(test_scalar_functions_apply_and_merge)
{
	uint64_t mn[1], mx[1], av[2], c[1], s[1], o[2];

	agg_data_init(DTRACEAGG_MIN, 0, mn);
	agg_data_init(DTRACEAGG_MAX, 0, mx);
	ck_assert_int_eq((int64_t)mn[0], I64MAX);
	ck_assert_int_eq((int64_t)mx[0], I64MIN);
	agg_data_apply(DTRACEAGG_MIN, 0, mn, -3, 1);
	agg_data_apply(DTRACEAGG_MIN, 0, mn, 5, 1);
	agg_data_apply(DTRACEAGG_MAX, 0, mx, -3, 1);
	agg_data_apply(DTRACEAGG_MAX, 0, mx, -7, 1);
	ck_assert_int_eq((int64_t)mn[0], -3);
	ck_assert_int_eq((int64_t)mx[0], -3);
	o[0] = (uint64_t)-9;
	agg_data_merge(DTRACEAGG_MIN, 0, mn, o);
	agg_data_merge(DTRACEAGG_MAX, 0, mx, o);
	ck_assert_int_eq((int64_t)mn[0], -9);
	ck_assert_int_eq((int64_t)mx[0], -3);
	agg_data_init(DTRACEAGG_AVG, 0, av);
	agg_data_apply(DTRACEAGG_AVG, 0, av, 10, 1);
	agg_data_apply(DTRACEAGG_AVG, 0, av, -4, 1);
	ck_assert_uint_eq(av[0], 2);
	ck_assert_int_eq((int64_t)av[1], 6);
	o[0] = 3;
	o[1] = 30;
	agg_data_merge(DTRACEAGG_AVG, 0, av, o);
	ck_assert_uint_eq(av[0], 5);
	ck_assert_int_eq((int64_t)av[1], 36);
	agg_data_init(DTRACEAGG_COUNT, 0, c);
	agg_data_apply(DTRACEAGG_COUNT, 0, c, 123, 1);
	agg_data_apply(DTRACEAGG_COUNT, 0, c, 0, 1);
	ck_assert_uint_eq(c[0], 2);
	agg_data_init(DTRACEAGG_SUM, 0, s);
	agg_data_apply(DTRACEAGG_SUM, 0, s, 40, 1);
	agg_data_apply(DTRACEAGG_SUM, 0, s, -42, 1);
	ck_assert_int_eq((int64_t)s[0], -2);
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_COUNT, 0), 8);
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_AVG, 0), 16);
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_STDDEV, 0), 32);
	ck_assert_uint_eq(agg_data_size(DTRACEAGG_QUANTIZE, 0), 127 * 8);
}
END_TEST

START_TEST(test_stddev_sum_of_squares_is_128_bit)
{
	static const int64_t v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	uint64_t d[4], e[4];
	uint32_t i;

	agg_data_init(DTRACEAGG_STDDEV, 0, d);
	for (i = 0; i < 8; i++)
		agg_data_apply(DTRACEAGG_STDDEV, 0, d, v[i], 1);
	ck_assert_uint_eq(d[0], 8);
	ck_assert_uint_eq(d[1], 40);
	ck_assert_uint_eq(d[2], 232);
	ck_assert_uint_eq(d[3], 0);
	/* (2^32 + 1)^2 = 2^64 + 2^33 + 1 */
	agg_data_init(DTRACEAGG_STDDEV, 0, e);
	agg_data_apply(DTRACEAGG_STDDEV, 0, e, -(((int64_t)1 << 32) + 1), 1);
	ck_assert_uint_eq(e[2], (1ull << 33) + 1);
	ck_assert_uint_eq(e[3], 1);
	/* (-2^63)^2 = 2^126 */
	agg_data_init(DTRACEAGG_STDDEV, 0, e);
	agg_data_apply(DTRACEAGG_STDDEV, 0, e, I64MIN, 1);
	ck_assert_uint_eq(e[2], 0);
	ck_assert_uint_eq(e[3], 1ull << 62);
	/* (2^63 - 1)^2 = 2^126 - 2^64 + 1 */
	agg_data_init(DTRACEAGG_STDDEV, 0, e);
	agg_data_apply(DTRACEAGG_STDDEV, 0, e, I64MAX, 1);
	ck_assert_uint_eq(e[2], 1);
	ck_assert_uint_eq(e[3], (1ull << 62) - 1);
	/* merge carries from the low word into the high word */
	d[2] = ~0ull;
	e[0] = 1;
	e[1] = 0;
	e[2] = 2;
	e[3] = 5;
	agg_data_merge(DTRACEAGG_STDDEV, 0, d, e);
	ck_assert_uint_eq(d[0], 9);
	ck_assert_uint_eq(d[2], 1);
	ck_assert_uint_eq(d[3], 6);
}
END_TEST

START_TEST(test_quantize_increment_and_merge)
{
	uint64_t a[127], b[127];

	agg_data_init(DTRACEAGG_QUANTIZE, 0, a);
	agg_data_init(DTRACEAGG_QUANTIZE, 0, b);
	agg_data_apply(DTRACEAGG_QUANTIZE, 0, a, 5, 3);
	agg_data_apply(DTRACEAGG_QUANTIZE, 0, a, -5, -2);
	agg_data_apply(DTRACEAGG_QUANTIZE, 0, b, 4, 1);
	agg_data_merge(DTRACEAGG_QUANTIZE, 0, a, b);
	ck_assert_int_eq((int64_t)a[66], 4);
	ck_assert_int_eq((int64_t)a[60], -2);
}
END_TEST

/* ---- the buffer ---- */

static struct dof_agg t_aggs[2] = {
	{ .ag_id = 1, .ag_varid = 1, .ag_kind = DTRACEAGG_COUNT,
	    .ag_nkeys = 1, .ag_keysize = 8, .ag_datasize = 8 },
	{ .ag_id = 2, .ag_varid = 2, .ag_kind = DTRACEAGG_QUANTIZE,
	    .ag_keysize = 0, .ag_datasize = 127 * 8 },
};

static struct dof_enabling t_den = { .den_aggs = t_aggs, .den_naggs = 2,
    .den_nvarids = 2 };

static uint64_t *
t_buf(uint64_t size)
{
	uint64_t *b = calloc(1, size);
	struct kdt_err err;

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(agg_buf_init(b, size, 3, &err), 0);
	return b;
}

static void
t_check(const void *b, uint64_t len, const char *tag)
{
	struct kdt_err err;
	int rc;

	memset(&err, 0, sizeof (err));
	rc = agg_buf_check(b, len, &t_den, &err);
	if (tag == NULL) {
		ck_assert_msg(rc == 0, "[%s] %s", err.ke_tag, err.ke_msg);
		return;
	}
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_str_eq(err.ke_tag, tag);
	ck_assert(err.ke_msg[0] != '\0');
}

START_TEST(test_buffer_worked_example)
{
	uint64_t *b = t_buf(4096);
	struct agg_buf *ab = (struct agg_buf *)b;
	const struct agg_ent *ae;
	uint64_t key = 1;

	ck_assert_uint_eq(ab->ab_magic, AGG_BUF_MAGIC);
	ck_assert_uint_eq(ab->ab_cpu, 3);
	ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	ck_assert_uint_eq(ab->ab_nents, 1);
	ck_assert_uint_eq(ab->ab_heap_used, 24 + 8 + 8);
	t_check(b, 4096, NULL);
	ae = agg_next(ab, NULL);
	ck_assert_ptr_nonnull(ae);
	ck_assert_uint_eq(ae->ae_aggid, 1);
	ck_assert_uint_eq(ae->ae_keysize, 8);
	ck_assert_uint_eq(ae->ae_datasize, 8);
	ck_assert_uint_eq(ae->ae_next, 0);
	ck_assert_int_eq(memcmp(agg_ent_key(ae), &key, 8), 0);
	ck_assert_uint_eq(agg_ent_data(ae)[0], 2);
	ck_assert_ptr_null(agg_next(ab, ae));
	free(b);
}
END_TEST

START_TEST(test_buffer_keys_ids_and_reset)
{
	uint64_t *b = t_buf(8192);
	struct agg_buf *ab = (struct agg_buf *)b;
	const struct agg_ent *ae = NULL;
	uint64_t key, counts[40] = { 0 };
	uint32_t n = 0, i;

	for (i = 0; i < 100; i++) {
		key = i % 40;
		ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	}
	ck_assert_int_eq(agg_update(ab, &t_aggs[1], NULL, 3, 5), 0);
	ck_assert_uint_eq(ab->ab_nents, 41);
	t_check(b, 8192, NULL);
	while ((ae = agg_next(ab, ae)) != NULL) {
		n++;
		if (ae->ae_aggid == 2) {
			ck_assert_uint_eq(agg_ent_data(ae)[65], 5);
			continue;
		}
		memcpy(&key, agg_ent_key(ae), 8);
		counts[key] = agg_ent_data(ae)[0];
	}
	ck_assert_uint_eq(n, 41);
	for (i = 0; i < 40; i++)
		ck_assert_uint_eq(counts[i], i < 20 ? 3 : 2);
	agg_buf_reset(ab);
	ck_assert_uint_eq(ab->ab_nents, 0);
	ck_assert_ptr_null(agg_next(ab, NULL));
	key = 7;
	ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	ck_assert_uint_eq(agg_ent_data(agg_next(ab, NULL))[0], 1);
	free(b);
}
END_TEST

/* The one-entry cache (ab_last, agg.c): hits, misses, resets, bad hints. */
START_TEST(test_buffer_last_entry_cache)
{
	uint64_t *b = t_buf(8192);
	struct agg_buf *ab = (struct agg_buf *)b;
	const struct agg_ent *ae;
	uint64_t key, last;
	uint32_t i;

	ck_assert_uint_eq(ab->ab_last, 0);
	/* keyless, repeated: one entry, named by the hint */
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(agg_update(ab, &t_aggs[1], NULL, 3, 2), 0);
	ae = agg_next(ab, NULL);
	ck_assert_uint_eq(ab->ab_nents, 1);
	ck_assert_uint_eq(ab->ab_last, (uint8_t *)ae - (uint8_t *)ab);
	ck_assert_uint_eq(agg_ent_data(ae)[65], 10);
	/* keys alternating with it: every update lands on its own entry */
	for (i = 0; i < 30; i++) {
		key = i % 3;
		ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
		ck_assert_int_eq(agg_update(ab, &t_aggs[1], NULL, 3, 1), 0);
	}
	ck_assert_uint_eq(ab->ab_nents, 4);
	t_check(b, 8192, NULL);
	for (ae = NULL; (ae = agg_next(ab, ae)) != NULL; ) {
		if (ae->ae_aggid == 2) {
			ck_assert_uint_eq(agg_ent_data(ae)[65], 40);
			continue;
		}
		ck_assert_uint_eq(agg_ent_data(ae)[0], 10);
	}
	/* the hint is the last entry updated: a repeated key hits it */
	key = 2;
	ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	last = ab->ab_last;
	ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	ck_assert_uint_eq(ab->ab_last, last);
	ck_assert_uint_eq(agg_ent_data((const struct agg_ent *)
	    ((uint8_t *)ab + last))[0], 12);
	/* a reset (a snapshot, clear() or trunc() of the consumer's copy
	   start from it) forgets the hint: the next update makes a fresh
	   entry instead of adding to the forgotten one */
	agg_buf_reset(ab);
	ck_assert_uint_eq(ab->ab_last, 0);
	ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	ck_assert_uint_eq(ab->ab_nents, 1);
	ae = agg_next(ab, NULL);
	ck_assert_uint_eq(agg_ent_data(ae)[0], 1);
	/* a hint outside the used heap (a region image written by anyone)
	   is not followed */
	ab->ab_last = ab->ab_size - 8;
	key = 5;
	ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	ck_assert_uint_eq(ab->ab_nents, 2);
	ab->ab_last = 8;	/* inside the header */
	ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	ck_assert_uint_eq(ab->ab_nents, 2);
	t_check(b, 8192, NULL);
	free(b);
}
END_TEST

START_TEST(test_buffer_full_counts_drops)
{
	uint64_t size = 1024, *b = t_buf(size);
	struct agg_buf *ab = (struct agg_buf *)b;
	uint64_t key;
	uint32_t ok = 0, fail = 0, i;

	for (i = 0; i < 100; i++) {
		key = i;
		if (agg_update(ab, &t_aggs[0], &key, 0, 1) == 0)
			ok++;
		else
			fail++;
	}
	ck_assert_uint_eq(ok, (size - ab->ab_heap_off) / 40);
	ck_assert_uint_eq(fail, 100 - ok);
	ck_assert_uint_eq(ab->ab_drops, fail);
	/* an existing key still updates when full */
	key = 0;
	ck_assert_int_eq(agg_update(ab, &t_aggs[0], &key, 0, 1), 0);
	t_check(b, size, NULL);
	agg_buf_reset(ab);
	ck_assert_uint_eq(ab->ab_drops, fail);	/* a running total */
	free(b);
}
END_TEST

START_TEST(test_buffer_init_rejects_small)
{
	uint64_t b[16];
	struct kdt_err err;

	memset(&err, 0, sizeof (err));
	ck_assert_int_eq(agg_buf_init(b, sizeof (b), 0, &err), -EINVAL);
	ck_assert_str_eq(err.ke_tag, "AGG_BUF");
}
END_TEST

/* Break one thing of a good two-entry buffer; _i says which. */
START_TEST(test_check_rejections)
{
	uint64_t *b = t_buf(4096), key = 9, len = 4096;
	struct agg_buf *ab = (struct agg_buf *)b;
	struct agg_ent *ae;
	const char *tag = "AGG_ENT";

	agg_update(ab, &t_aggs[0], &key, 0, 1);
	agg_update(ab, &t_aggs[1], NULL, 1, 1);
	t_check(b, len, NULL);
	ae = (struct agg_ent *)((uint8_t *)b + ab->ab_heap_off);
	switch (_i) {
	case 0:
		ab->ab_magic ^= 1;
		tag = "AGG_MAGIC";
		break;
	case 1:
		len = 2048;		/* ab_size beyond the image */
		tag = "AGG_BUF";
		break;
	case 2:
		ab->ab_nbuckets = 3;
		tag = "AGG_BUF";
		break;
	case 3:
		ab->ab_heap_used = ab->ab_size;	/* heap past the end */
		tag = "AGG_BUF";
		break;
	case 4:
		ae->ae_keysize = 0x10000000;	/* entry past the heap */
		break;
	case 5:
		ae->ae_datasize = 16;		/* size mismatch */
		break;
	case 6:
		ae->ae_aggid = 3;		/* no such aggregation */
		break;
	case 7:
		ab->ab_nents = 5;
		break;
	case 8:
		ab->ab_heap_used -= 8;		/* last entry cut short */
		break;
	case 9:
		len = 32;
		tag = "AGG_BUF";
		break;
	}
	t_check(b, len, tag);
	free(b);
}
END_TEST

/*
 * Validate once, then trust: corrupt a good buffer image one byte at a
 * time (a fixed pseudo-random sequence); whenever agg_buf_check() still
 * accepts it, walking every entry and reading every key and value byte
 * must stay inside the image (the image is an exactly-sized heap block,
 * so AddressSanitizer catches any read past it).
 */
START_TEST(test_check_then_walk_survives_corruption)
{
	uint64_t len = 2048, key, sum;
	uint64_t *good = t_buf(len), *img = malloc(len);
	const struct agg_ent *ae;
	uint32_t seed = 12345, i, j, accepted = 0;

	ck_assert_ptr_nonnull(img);
	for (i = 0; i < 5; i++) {
		key = i;
		agg_update((struct agg_buf *)good, &t_aggs[0], &key, 0, 1);
	}
	agg_update((struct agg_buf *)good, &t_aggs[1], NULL, 7, 1);
	for (i = 0; i < 4000; i++) {
		memcpy(img, good, len);
		seed = seed * 1103515245u + 12345u;
		((uint8_t *)img)[(seed >> 8) % (64 + 24 * 8 + 200)] ^=
		    (uint8_t)(1u << ((seed >> 4) & 7));
		if (agg_buf_check(img, len, &t_den, NULL) != 0)
			continue;
		accepted++;
		sum = 0;
		for (ae = agg_next((struct agg_buf *)img, NULL); ae != NULL;
		    ae = agg_next((struct agg_buf *)img, ae)) {
			for (j = 0; j < ae->ae_keysize; j++)
				sum += agg_ent_key(ae)[j];
			for (j = 0; j < ae->ae_datasize / 8; j++)
				sum += agg_ent_data(ae)[j];
		}
		(void)sum;
	}
	/* flips in keys, values and chain heads are harmless */
	ck_assert_uint_gt(accepted, 0);
	ck_assert_uint_lt(accepted, 4000);
	free(img);
	free(good);
}
END_TEST

static Suite *
agg_suite(void)
{
	Suite *s = suite_create("agg");
	TCase *tm = tcase_create("maths");
	TCase *tb = tcase_create("buffer");

	tcase_add_test(tm, test_quantize_every_power_of_two);
	tcase_add_test(tm, test_lquantize_levels_underflow_overflow);
	tcase_add_loop_test(tm, test_llquantize_table, 0,
	    sizeof (t_llqs) / sizeof (t_llqs[0]));
	tcase_add_test(tm, test_llquantize_rejects_bad_parameters);
	tcase_add_test(tm, test_scalar_functions_apply_and_merge);
	tcase_add_test(tm, test_stddev_sum_of_squares_is_128_bit);
	tcase_add_test(tm, test_quantize_increment_and_merge);
	suite_add_tcase(s, tm);
	tcase_add_test(tb, test_buffer_worked_example);
	tcase_add_test(tb, test_buffer_keys_ids_and_reset);
	tcase_add_test(tb, test_buffer_last_entry_cache);
	tcase_add_test(tb, test_buffer_full_counts_drops);
	tcase_add_test(tb, test_buffer_init_rejects_small);
	tcase_add_loop_test(tb, test_check_rejections, 0, 10);
	tcase_add_test(tb, test_check_then_walk_survives_corruption);
	suite_add_tcase(s, tb);
	return s;
}

KT_MAIN(agg_suite)
