/*
 * test_kc_agg.c -- unit tests of the consumer's aggregation state and
 * printing (consumer/kc_agg.c), userspace build.
 *
 * Each test describes a few aggregations by hand (a dof_enabling with the
 * roles, key layouts and value sizes dof_load() would compute: tk_*),
 * updates two CPUs' aggregation buffers with agg_update() as the ECB
 * runner does, merges them with kc_aggs_snap() after agg_buf_check(), and
 * compares what kc_aggs_print_all() / kc_aggs_printa() print with
 * tests/unit/fixtures/agg/<name>.out, written by hand to dtrace(1)'s
 * layout (reference 5.3, 5.4, 5.6).  A mismatch prints both texts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "agg.h"
#include "dof_libact.h"
#include "consumer/kc_agg.h"

#define T_FIXDIR	"tests/unit/fixtures/agg/"
#define TK_MAXACTS	64
#define TK_MAXAGGS	8
#define TK_BUFSZ	(64 << 10)

/* A hand-made enabling: one ECB holding every aggregation's actions. */
struct tk {
	struct dof_enabling tk_den;
	struct dof_lecb	tk_ecb;
	struct dof_laction tk_acts[TK_MAXACTS];
	struct dof_agg	tk_aggs[TK_MAXAGGS];
	uint64_t	*tk_cpu[2];
	struct kc_aggs	*tk_ka;
	uint8_t		tk_key[1024];
};

static void
tk_init(struct tk *t)
{
	uint32_t i;

	memset(t, 0, sizeof (*t));
	t->tk_den.den_ecbs = &t->tk_ecb;
	t->tk_den.den_necbs = 1;
	t->tk_den.den_aggs = t->tk_aggs;
	t->tk_den.den_strsize = 32;
	t->tk_ecb.le_acts = t->tk_acts;
	for (i = 0; i < DTRACEOPT_MAX; i++)
		t->tk_den.den_opts[i] = DTRACEOPT_UNSET;
	for (i = 0; i < 2; i++) {
		t->tk_cpu[i] = calloc(1, TK_BUFSZ);
		ck_assert_ptr_nonnull(t->tk_cpu[i]);
		ck_assert_int_eq(agg_buf_init(t->tk_cpu[i], TK_BUFSZ, i, NULL),
		    0);
	}
}

/*
 * Add aggregation @varid = kind(arg) with keys of the sizes in "ks"
 * (negative: a string of that many bytes); returns its id.  Call after
 * the options are set and before tk_start().
 */
static uint32_t
tk_agg(struct tk *t, uint32_t varid, uint32_t kind, uint64_t arg,
    const int *ks, uint32_t nkeys)
{
	struct dof_agg *ag = &t->tk_aggs[t->tk_den.den_naggs];
	struct dof_laction *la = &t->tk_acts[t->tk_ecb.le_nacts];
	uint32_t i, off = 0, size, align;

	ag->ag_id = ++t->tk_den.den_naggs;
	ag->ag_varid = varid;
	ag->ag_kind = kind;
	ag->ag_arg = arg;
	ag->ag_firstkey = t->tk_ecb.le_nacts + 1;
	ag->ag_nkeys = nkeys;
	ag->ag_incr_act = (uint32_t)-1;
	la[0].la_role = DOF_ROLE_AGGVAR;
	for (i = 0; i < nkeys; i++) {
		size = ks[i] < 0 ? (uint32_t)-ks[i] : (uint32_t)ks[i];
		align = size % 8 == 0 ? 8 : size % 4 == 0 ? 4 :
		    size % 2 == 0 ? 2 : 1;
		off = (off + align - 1) & ~(align - 1);
		la[1 + i].la_role = DOF_ROLE_AGGKEY;
		la[1 + i].la_aggid = ag->ag_id;
		la[1 + i].la_rec_off = off;
		la[1 + i].la_rec_size = size;
		la[1 + i].la_rec_isstr = ks[i] < 0;
		off += size;
	}
	la[1 + nkeys].la_role = DOF_ROLE_AGG;
	la[1 + nkeys].la_kind = kind;
	ag->ag_act = t->tk_ecb.le_nacts + 1 + nkeys;
	ag->ag_keysize = (off + 7) & ~7u;
	ag->ag_datasize = agg_data_size(kind, arg);
	ck_assert_uint_ne(ag->ag_datasize, 0);
	t->tk_ecb.le_nacts += 2 + nkeys;
	if (varid > t->tk_den.den_nvarids)
		t->tk_den.den_nvarids = varid;
	return ag->ag_id;
}

static void
tk_start(struct tk *t)
{
	t->tk_ka = kc_aggs_new(&t->tk_den);
	ck_assert_ptr_nonnull(t->tk_ka);
}

/* Key building: key i of aggregation "id" gets an integer or a string. */
static void
tk_kint(struct tk *t, uint32_t id, uint32_t i, int64_t v)
{
	const struct dof_agg *ag = &t->tk_aggs[id - 1];
	const struct dof_laction *k = &t->tk_acts[ag->ag_firstkey + i];

	if (i == 0)
		memset(t->tk_key, 0, sizeof (t->tk_key));
	memcpy(t->tk_key + k->la_rec_off, &v, k->la_rec_size);
}

static void
tk_kstr(struct tk *t, uint32_t id, uint32_t i, const char *s)
{
	const struct dof_agg *ag = &t->tk_aggs[id - 1];
	const struct dof_laction *k = &t->tk_acts[ag->ag_firstkey + i];

	if (i == 0)
		memset(t->tk_key, 0, sizeof (t->tk_key));
	strncpy((char *)t->tk_key + k->la_rec_off, s, k->la_rec_size - 1);
}

/* One firing on "cpu" with the key built so far. */
static void
tk_upd(struct tk *t, uint32_t cpu, uint32_t id, int64_t val, int64_t incr)
{
	if (t->tk_aggs[id - 1].ag_nkeys == 0)
		memset(t->tk_key, 0, sizeof (t->tk_key));
	ck_assert_int_eq(agg_update((struct agg_buf *)t->tk_cpu[cpu],
	    &t->tk_aggs[id - 1], t->tk_key, val, incr), 0);
}

/* Snapshot both CPUs as the engine does: check, merge, reset. */
static void
tk_snap(struct tk *t)
{
	struct kdt_err err;
	uint32_t i;

	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(agg_buf_check(t->tk_cpu[i], TK_BUFSZ,
		    &t->tk_den, &err), 0);
		ck_assert_int_eq(kc_aggs_snap(t->tk_ka,
		    (struct agg_buf *)t->tk_cpu[i]), 0);
		agg_buf_reset((struct agg_buf *)t->tk_cpu[i]);
	}
}

static void
tk_fini(struct tk *t)
{
	kc_aggs_free(t->tk_ka);
	free(t->tk_cpu[0]);
	free(t->tk_cpu[1]);
}

/* Output capture and the fixture comparison. */
struct tk_out {
	char	*to_buf;
	size_t	to_len;
	FILE	*to_fp;
};

static FILE *
tk_open(struct tk_out *o)
{
	o->to_fp = open_memstream(&o->to_buf, &o->to_len);
	ck_assert_ptr_nonnull(o->to_fp);
	return o->to_fp;
}

static void
tk_expect(struct tk_out *o, const char *name)
{
	char path[256], *want;
	long n;
	FILE *f;

	fclose(o->to_fp);
	snprintf(path, sizeof (path), T_FIXDIR "%s.out", name);
	f = fopen(path, "r");
	if (f == NULL) {
		/* a new fixture: leave what we got beside it for review */
		snprintf(path, sizeof (path), "/tmp/kc_agg.%s.out", name);
		if ((f = fopen(path, "w")) != NULL) {
			fwrite(o->to_buf, 1, o->to_len, f);
			fclose(f);
		}
		ck_abort_msg("fixture %s.out missing; output left in %s",
		    name, path);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	want = calloc(1, (size_t)n + 1);
	ck_assert_uint_eq(fread(want, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	ck_assert_msg(o->to_len == (size_t)n &&
	    memcmp(o->to_buf, want, (size_t)n) == 0,
	    "%s: got\n[%s]\nwant\n[%s]", path, o->to_buf, want);
	free(want);
	free(o->to_buf);
}

static const int K_INT4[] = { 4 };
static const int K_STR[] = { -16 };

/* count/sum/avg/stddev/min/max with int, string, 1-, 2-, 8-byte keys. */
START_TEST(test_print_all_scalars)
{
	static const int k_8[] = { 8 }, k_12[] = { 1, 2 };
	struct tk_out o;
	struct tk t;
	uint32_t c, s, a, sd, mn, mx, i;

	tk_init(&t);
	c = tk_agg(&t, 1, DTRACEAGG_COUNT, 0, K_INT4, 1);
	s = tk_agg(&t, 2, DTRACEAGG_SUM, 0, K_STR, 1);
	a = tk_agg(&t, 3, DTRACEAGG_AVG, 0, NULL, 0);
	sd = tk_agg(&t, 4, DTRACEAGG_STDDEV, 0, NULL, 0);
	mn = tk_agg(&t, 5, DTRACEAGG_MIN, 0, k_8, 1);
	mx = tk_agg(&t, 6, DTRACEAGG_MAX, 0, k_12, 2);
	tk_start(&t);
	for (i = 0; i < 6; i++) {
		tk_kint(&t, c, 0, i % 3 == 0 ? -1 : (int64_t)i % 3);
		tk_upd(&t, i % 2, c, 0, 1);
	}
	tk_kint(&t, c, 0, 7);
	tk_upd(&t, 1, c, 0, 1);
	tk_kstr(&t, s, 0, "foo");
	tk_upd(&t, 0, s, 40, 1);
	tk_upd(&t, 1, s, 2, 1);
	tk_kstr(&t, s, 0, "bar");
	tk_upd(&t, 1, s, -5, 1);
	tk_upd(&t, 0, a, 10, 1);
	tk_upd(&t, 1, a, 5, 1);
	tk_upd(&t, 1, a, 6, 1);
	for (i = 0; i < 8; i++)
		tk_upd(&t, i % 2, sd, (int64_t[]){ 2, 4, 4, 4, 5, 5, 7, 9 }[i],
		    1);
	tk_kint(&t, mn, 0, -3);
	tk_upd(&t, 0, mn, 12, 1);
	tk_upd(&t, 1, mn, -4, 1);
	tk_kint(&t, mn, 0, 5);
	tk_upd(&t, 1, mn, 3, 1);
	tk_kint(&t, mx, 0, 200);
	tk_kint(&t, mx, 1, 65535);
	tk_upd(&t, 0, mx, -8, 1);
	tk_upd(&t, 1, mx, -9, 1);
	tk_snap(&t);
	ck_assert_int_eq(kc_aggs_print_all(t.tk_ka, tk_open(&o)), 0);
	tk_expect(&o, "print_all_scalars");
	tk_fini(&t);
}
END_TEST

/*
 * quantize: non-negative counts (of positive and of negative values),
 * negative counts, counts of both signs, and all zero (cleared).
 */
START_TEST(test_quantize_shapes)
{
	struct tk_out o;
	struct tk t;
	uint32_t q, i;
	uint32_t v[] = { 1, 2, 3, 4 };

	tk_init(&t);
	q = tk_agg(&t, 1, DTRACEAGG_QUANTIZE, 0, K_STR, 1);
	tk_start(&t);
	tk_kstr(&t, q, 0, "pos");
	for (i = 0; i < 20; i++)
		tk_upd(&t, i % 2, q, i < 8 ? 1 : i < 15 ? 5 : 100, 1);
	tk_kstr(&t, q, 0, "neg");
	tk_upd(&t, 0, q, -1, 1);
	tk_upd(&t, 0, q, -3, 3);
	tk_kstr(&t, q, 0, "negcount");
	tk_upd(&t, 0, q, 4, -3);
	tk_upd(&t, 1, q, 1, -1);
	tk_kstr(&t, q, 0, "both");
	tk_upd(&t, 0, q, -2, -2);
	tk_upd(&t, 1, q, 0, 1);
	tk_upd(&t, 1, q, 8, 1);
	tk_snap(&t);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, tk_open(&o), NULL, v, 1), 0);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_CLEAR, 1, 0, 0),
	    0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, o.to_fp, NULL, v, 1), 0);
	tk_expect(&o, "quantize_shapes");
	tk_fini(&t);
}
END_TEST

/* lquantize with underflow and overflow; llquantize; all-zero ones. */
START_TEST(test_lquantize_llquantize)
{
	uint64_t la = (uint64_t)10 << 48 | (uint64_t)5 << 32 | (uint32_t)-10;
	uint64_t lla = (uint64_t)10 << 48 | (uint64_t)0 << 32 |
	    (uint64_t)2 << 16 | 10;
	struct tk_out o;
	struct tk t;
	uint32_t l, ll, lz, llz;

	tk_init(&t);
	l = tk_agg(&t, 1, DTRACEAGG_LQUANTIZE, la, NULL, 0);
	ll = tk_agg(&t, 2, DTRACEAGG_LLQUANTIZE, lla, NULL, 0);
	lz = tk_agg(&t, 3, DTRACEAGG_LQUANTIZE,
	    (uint64_t)1 << 48 | (uint64_t)9 << 32 | 1, NULL, 0);
	llz = tk_agg(&t, 4, DTRACEAGG_LLQUANTIZE, lla, NULL, 0);
	tk_start(&t);
	tk_upd(&t, 0, l, -11, 1);
	tk_upd(&t, 1, l, 0, 2);
	tk_upd(&t, 1, l, 15, 1);
	tk_upd(&t, 0, l, 40, 4);
	tk_upd(&t, 0, ll, 0, 1);
	tk_upd(&t, 0, ll, 7, 2);
	tk_upd(&t, 1, ll, 55, 1);
	tk_upd(&t, 1, ll, 5000, 1);
	tk_upd(&t, 1, lz, 1, 1);
	tk_upd(&t, 1, llz, 3, 1);
	tk_snap(&t);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_CLEAR, 4, 0, 0),
	    0);
	ck_assert_int_eq(kc_aggs_print_all(t.tk_ka, tk_open(&o)), 0);
	tk_expect(&o, "lquantize_llquantize");
	tk_fini(&t);
}
END_TEST

/*
 * aggzoom: the largest bucket is 95% of the bar (38 of 40); an exact half
 * rounds up (76 and 1: 0.5 -> 1; 3: 1.5 -> 2; 57: 28.5 -> 29), as
 * dtrace's floating point does with its 1/0.95 a hair below 20/19.
 */
START_TEST(test_aggzoom)
{
	struct tk_out o;
	struct tk t;
	uint32_t q, v = 1;

	tk_init(&t);
	t.tk_den.den_opts[DTRACEOPT_AGGZOOM] = 1;
	q = tk_agg(&t, 1, DTRACEAGG_QUANTIZE, 0, NULL, 0);
	tk_start(&t);
	tk_upd(&t, 0, q, 1, 76);
	tk_upd(&t, 1, q, 2, 1);
	tk_upd(&t, 0, q, 4, 3);
	tk_upd(&t, 1, q, 8, 57);
	tk_snap(&t);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, tk_open(&o), NULL, &v, 1),
	    0);
	tk_expect(&o, "aggzoom");
	tk_fini(&t);
}
END_TEST

/*
 * agghist: sum() as one bar per key under a "key" header, scaled to the
 * total of |values| (zoomed: to the largest over 0.95, truncated).
 */
START_TEST(test_agghist)
{
	static const int k_s[] = { -16 };
	struct tk_out o;
	struct tk t;
	uint32_t a, v = 1;
	FILE *f;

	tk_init(&t);
	t.tk_den.den_opts[DTRACEOPT_AGGHIST] = 1;
	a = tk_agg(&t, 1, DTRACEAGG_SUM, 0, k_s, 1);
	tk_start(&t);
	tk_kstr(&t, a, 0, "minus");
	tk_upd(&t, 0, a, -10, 1);
	tk_kstr(&t, a, 0, "plus");
	tk_upd(&t, 1, a, 10, 1);
	tk_kstr(&t, a, 0, "more");
	tk_upd(&t, 0, a, 19, 1);
	tk_snap(&t);
	f = tk_open(&o);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, NULL, &v, 1), 0);
	/* zoomed: 19 / 0.95 truncates to 19, so 19 is a full bar and 10
	 * rounds 10.5 up to 11 */
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "aggzoom", ""), 0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, NULL, &v, 1), 0);
	tk_expect(&o, "agghist");
	tk_fini(&t);
}
END_TEST

/*
 * aggpack with encoding=ascii: quantize on one line between the buckets
 * of every key (header once), lquantize over its whole range.
 */
START_TEST(test_aggpack)
{
	uint64_t la = (uint64_t)1 << 48 | (uint64_t)30 << 32 | (uint32_t)-10;
	struct tk_out o;
	struct tk t;
	uint32_t q, l, i, vq = 1, vl = 2;
	FILE *f;

	tk_init(&t);
	t.tk_den.den_opts[DTRACEOPT_AGGPACK] = 1;
	q = tk_agg(&t, 1, DTRACEAGG_QUANTIZE, 0, K_INT4, 1);
	l = tk_agg(&t, 2, DTRACEAGG_LQUANTIZE, la, NULL, 0);
	tk_start(&t);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "encoding", "ascii"),
	    0);
	for (i = 0; i < 3; i++) {
		tk_kint(&t, q, 0, (int64_t)i);
		tk_upd(&t, 0, q, 0, (int64_t)i + 1);
		tk_upd(&t, 1, q, 1, 10 - (int64_t)i);
		tk_upd(&t, 1, q, 1000, (int64_t)i);
	}
	tk_upd(&t, 0, l, -10, -1);
	tk_upd(&t, 0, l, -5, 1);
	tk_upd(&t, 1, l, 0, 1);
	tk_snap(&t);
	f = tk_open(&o);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, NULL, &vq, 1), 0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, NULL, &vl, 1), 0);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "aggzoom", "true"), 0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, NULL, &vl, 1), 0);
	tk_expect(&o, "aggpack");
	tk_fini(&t);
}
END_TEST

/* encoding=utf8: bars of non-negative counts in eighths of a block. */
START_TEST(test_utf8_bars)
{
	struct tk_out o;
	struct tk t;
	uint32_t q, v = 1;

	tk_init(&t);
	q = tk_agg(&t, 1, DTRACEAGG_QUANTIZE, 0, NULL, 0);
	tk_start(&t);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "encoding", "utf8"), 0);
	tk_upd(&t, 0, q, 1, 3);
	tk_upd(&t, 1, q, 2, 5);
	tk_upd(&t, 0, q, 4, 1);
	tk_snap(&t);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, tk_open(&o), NULL, &v, 1),
	    0);
	tk_expect(&o, "utf8_bars");
	tk_fini(&t);
}
END_TEST

/* setopt() values as dtrace reads them. */
START_TEST(test_setopt_values)
{
	struct tk t;

	tk_init(&t);
	tk_agg(&t, 1, DTRACEAGG_COUNT, 0, NULL, 0);
	tk_start(&t);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "aggsortrev", "yes"), 0);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "aggsortrev", "off"), 0);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "aggsortpos", "0x2"),
	    0);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "aggsortpos", "2x"),
	    -EINVAL);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "aggsortpos", "-1"),
	    -EINVAL);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "encoding", "ebcdic"),
	    -EINVAL);
	ck_assert_int_eq(kc_aggs_setopt_name(t.tk_ka, "quiet", "1"), 1);
	tk_fini(&t);
}
END_TEST

/* printa with formats: keys in order, %@ values, a histogram, joins. */
START_TEST(test_printa_formats)
{
	static const int k_si[] = { -16, 4 };
	struct tk_out o;
	struct tk t;
	uint32_t a, b, h, v[] = { 1, 2 }, vh = 3;
	FILE *f;

	tk_init(&t);
	a = tk_agg(&t, 1, DTRACEAGG_COUNT, 0, k_si, 2);
	b = tk_agg(&t, 2, DTRACEAGG_SUM, 0, k_si, 2);
	h = tk_agg(&t, 3, DTRACEAGG_QUANTIZE, 0, K_INT4, 1);
	tk_start(&t);
	tk_kstr(&t, a, 0, "read");
	tk_kint(&t, a, 1, 3);
	tk_upd(&t, 0, a, 0, 1);
	tk_upd(&t, 1, a, 0, 1);
	tk_upd(&t, 1, b, 4096, 1);
	tk_kstr(&t, a, 0, "write");
	tk_kint(&t, a, 1, 1);
	tk_upd(&t, 0, a, 0, 1);
	tk_kstr(&t, a, 0, "open");
	tk_kint(&t, a, 1, -1);
	tk_upd(&t, 1, b, 10, 1);
	tk_kint(&t, h, 0, 42);
	tk_upd(&t, 0, h, 3, 1);
	tk_snap(&t);
	f = tk_open(&o);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, "%-8s fd %d: %@u\n", v,
	    1), 0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f,
	    "%s/%d count %@d bytes %@d%%\n", v, 2), 0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, NULL, v, 2), 0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, "key %d:%@d\n", &vh, 1),
	    0);
	/* printed by printa: nothing left for the end */
	ck_assert_int_eq(kc_aggs_print_all(t.tk_ka, f), 0);
	tk_expect(&o, "printa_formats");
	tk_fini(&t);
}
END_TEST

/*
 * A format that wants more keys than there are fails with -EINVAL; %@
 * conversions beyond the aggregations repeat the last one; '*' takes a
 * key; a negative avg through %@ divides unsigned, as dtrace does.
 */
START_TEST(test_printa_format_edges)
{
	static const int k_ws[] = { 4, -16 };
	struct tk_out o;
	struct tk t;
	uint32_t a, av, v = 1, va = 2, bad = 9;
	FILE *f;

	tk_init(&t);
	a = tk_agg(&t, 1, DTRACEAGG_COUNT, 0, k_ws, 2);
	av = tk_agg(&t, 2, DTRACEAGG_AVG, 0, NULL, 0);
	tk_start(&t);
	tk_kint(&t, a, 0, -6);
	tk_kstr(&t, a, 1, "ab");
	tk_upd(&t, 0, a, 0, 1);
	tk_upd(&t, 0, av, -10, 1);
	tk_upd(&t, 1, av, 0, 1);
	tk_snap(&t);
	f = tk_open(&o);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, "%d %s %d %@d\n", &v, 1),
	    -EINVAL);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, "[%*s] %@d %@d\n", &v,
	    1), 0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, "%@d\n", &va, 1), 0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, NULL, &va, 1), 0);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, NULL, &bad, 1), -EINVAL);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_NORMALIZE, 1, 0,
	    1), -EINVAL);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, 99, 1, 0, 0), -EINVAL);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_CLEAR, 7, 0, 0),
	    -EINVAL);
	fclose(f);
	ck_assert_str_eq(o.to_buf, "-6 ab [ab    ] 1 1\n"
	    "9223372036854775803\n\n               -5\n");
	free(o.to_buf);
	tk_fini(&t);
}
END_TEST

/*
 * Keys by the byte rule: string, printable bytes filling the key, or hex
 * dump; a 4-byte string key prints (and sorts) as an integer, as dtrace
 * goes by size only.
 */
START_TEST(test_key_byte_rule)
{
	static const int k_s5[] = { -5 }, k_s4[] = { -4 };
	struct tk_out o;
	struct tk t;
	uint32_t a, b;

	tk_init(&t);
	a = tk_agg(&t, 1, DTRACEAGG_SUM, 0, k_s5, 1);
	b = tk_agg(&t, 2, DTRACEAGG_SUM, 0, k_s4, 1);
	tk_start(&t);
	tk_kstr(&t, a, 0, "ok");
	tk_upd(&t, 0, a, 1, 1);
	memcpy(t.tk_key, "abcde", 5);		/* fills the key: no NUL */
	tk_upd(&t, 0, a, 2, 1);
	memset(t.tk_key, 0, 8);			/* the empty string */
	tk_upd(&t, 1, a, 3, 1);
	memcpy(t.tk_key, "a\001b", 4);		/* not printable */
	tk_upd(&t, 1, a, 4, 1);
	memcpy(t.tk_key, "a\0b", 4);		/* bytes after the NUL */
	tk_upd(&t, 1, a, 5, 1);
	tk_kstr(&t, b, 0, "AB");
	tk_upd(&t, 0, b, 6, 1);
	tk_snap(&t);
	ck_assert_int_eq(kc_aggs_print_all(t.tk_ka, tk_open(&o)), 0);
	tk_expect(&o, "key_byte_rule");
	tk_fini(&t);
}
END_TEST

/*
 * Joined by key, a histogram missing for a key weighs 0: it sorts after
 * a histogram of negative values and before one of positive values.
 */
START_TEST(test_joined_missing_histogram_sorts_as_zero)
{
	struct tk_out o;
	struct tk t;
	uint32_t a, b, v[] = { 1, 2 };

	tk_init(&t);
	a = tk_agg(&t, 1, DTRACEAGG_QUANTIZE, 0, K_INT4, 1);
	b = tk_agg(&t, 2, DTRACEAGG_COUNT, 0, K_INT4, 1);
	tk_start(&t);
	tk_kint(&t, a, 0, 1);
	tk_upd(&t, 0, a, 8, 1);		/* weighs 8 */
	tk_kint(&t, a, 0, 2);
	tk_upd(&t, 1, a, -4, 1);	/* weighs -4 */
	tk_kint(&t, b, 0, 3);
	tk_upd(&t, 0, b, 0, 1);		/* only in @b: @a weighs 0 */
	tk_snap(&t);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, tk_open(&o), "%d ", v, 2),
	    0);
	fclose(o.to_fp);
	ck_assert_str_eq(o.to_buf, "2 3 1 ");
	free(o.to_buf);
	tk_fini(&t);
}
END_TEST

/*
 * Two statements updating one @variable (two aggregation ids, one
 * variable id) merge into one entry per key, across CPUs and snapshots.
 */
START_TEST(test_two_ids_one_variable_merge)
{
	struct tk_out o;
	struct tk t;
	uint32_t a1, a2, v = 1;

	tk_init(&t);
	a1 = tk_agg(&t, 1, DTRACEAGG_SUM, 0, K_INT4, 1);
	a2 = tk_agg(&t, 1, DTRACEAGG_SUM, 0, K_INT4, 1);
	ck_assert_uint_eq(t.tk_den.den_nvarids, 1);
	tk_start(&t);
	tk_kint(&t, a1, 0, 5);
	tk_upd(&t, 0, a1, 100, 1);
	tk_upd(&t, 1, a2, 20, 1);
	tk_snap(&t);
	tk_upd(&t, 0, a2, 3, 1);
	tk_kint(&t, a2, 0, 6);
	tk_upd(&t, 1, a2, 1, 1);
	tk_snap(&t);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, tk_open(&o), "%d:%@d ",
	    &v, 1), 0);
	fclose(o.to_fp);
	ck_assert_str_eq(o.to_buf, "6:1 5:123 ");
	free(o.to_buf);
	tk_fini(&t);
}
END_TEST

/*
 * One @variable keyed [stack(5), int] by two statements and [ustack(3,
 * 20), int] by a third: key sizes 48 and 64 (dof_load rule G5 lets stack
 * keys differ).  The per-CPU buffers keep each id's size, the table
 * merges the two stack(5) statements, sorts the 40-byte stack before the
 * 56-byte ustack at equal values (dtrace's record-size rule), %k prints
 * each by its kind (empty frames here), and kc_aggs_image() writes the
 * totals with each entry's own id and size, which agg_buf_check() and a
 * fresh table accept.
 */
START_TEST(test_stack_keys_of_two_sizes)
{
	static const int k_s[] = { 40, 4 }, k_u[] = { 56, 4 };
	static const char want[] = "\n2:1 \n3:1 \n1:3 ";
	struct kc_aggs *ka2;
	struct kdt_err err;
	struct tk_out o;
	struct tk t;
	uint64_t len, left, pid = 7, *img;
	uint32_t s1, s2, u, v = 1;

	tk_init(&t);
	s1 = tk_agg(&t, 1, DTRACEAGG_COUNT, 0, k_s, 2);
	u = tk_agg(&t, 1, DTRACEAGG_COUNT, 0, k_u, 2);
	s2 = tk_agg(&t, 1, DTRACEAGG_COUNT, 0, k_s, 2);
	t.tk_acts[t.tk_aggs[s1 - 1].ag_firstkey].la_kind = DTRACEACT_STACK;
	t.tk_acts[t.tk_aggs[s1 - 1].ag_firstkey].la_arg = 5;
	t.tk_acts[t.tk_aggs[s2 - 1].ag_firstkey].la_kind = DTRACEACT_STACK;
	t.tk_acts[t.tk_aggs[s2 - 1].ag_firstkey].la_arg = 5;
	t.tk_acts[t.tk_aggs[u - 1].ag_firstkey].la_kind = DTRACEACT_USTACK;
	t.tk_acts[t.tk_aggs[u - 1].ag_firstkey].la_arg = 3 | 20ull << 32;
	ck_assert_uint_eq(t.tk_aggs[s1 - 1].ag_keysize, 48);
	ck_assert_uint_eq(t.tk_aggs[u - 1].ag_keysize, 64);
	tk_start(&t);
	memset(t.tk_key, 0, sizeof (t.tk_key));	/* no frames */
	memcpy(t.tk_key, &pid, 8);
	tk_kint(&t, u, 1, 3);
	tk_upd(&t, 0, u, 0, 1);
	memset(t.tk_key, 0, sizeof (t.tk_key));	/* no frames */
	tk_kint(&t, s1, 1, 1);
	tk_upd(&t, 0, s1, 0, 1);
	tk_upd(&t, 0, s1, 0, 1);
	tk_upd(&t, 1, s2, 0, 1);
	tk_kint(&t, s2, 1, 2);
	tk_upd(&t, 1, s2, 0, 1);
	tk_snap(&t);
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, tk_open(&o), "%k%d:%@d ",
	    &v, 1), 0);
	fclose(o.to_fp);
	ck_assert_str_eq(o.to_buf, want);
	free(o.to_buf);
	img = calloc(1, TK_BUFSZ);
	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(kc_aggs_image(t.tk_ka, img, TK_BUFSZ, &len, &left),
	    0);
	ck_assert_uint_eq(left, 0);
	ck_assert_uint_eq(((struct agg_buf *)img)->ab_nents, 3);
	ck_assert_int_eq(agg_buf_check(img, len, &t.tk_den, &err), 0);
	ka2 = kc_aggs_new(&t.tk_den);
	ck_assert_ptr_nonnull(ka2);
	ck_assert_int_eq(kc_aggs_snap(ka2, (struct agg_buf *)img), 0);
	ck_assert_int_eq(kc_aggs_printa(ka2, tk_open(&o), "%k%d:%@d ", &v,
	    1), 0);
	fclose(o.to_fp);
	ck_assert_str_eq(o.to_buf, want);
	free(o.to_buf);
	kc_aggs_free(ka2);
	free(img);
	tk_fini(&t);
}
END_TEST

/* Sort options, one enabling per option set; _i picks the option. */
static const struct {
	uint32_t	so_opt;
	uint64_t	so_val;
	const char	*so_name;
} t_sorts[] = {
	{ DTRACEOPT_MAX, 0, "sort_default" },
	{ DTRACEOPT_AGGSORTKEY, 1, "sort_key" },
	{ DTRACEOPT_AGGSORTREV, 1, "sort_rev" },
	{ DTRACEOPT_AGGSORTPOS, 1, "sort_pos" },
	{ DTRACEOPT_AGGSORTKEYPOS, 1, "sort_keypos" },
};

START_TEST(test_sort_options)
{
	static const int k_is[] = { 4, -16 };
	static const struct { int32_t k; const char *s; int64_t a, b; } e[] = {
		{ 2, "b", 5, 1 }, { -1, "a", 5, 2 }, { 1, "c", 3, 3 },
		{ 1, "a", 9, 0 }, { 2, "a", 5, 7 },
	};
	struct tk_out o;
	struct tk t;
	uint32_t a, b, i, v[] = { 1, 2 };
	FILE *f;

	tk_init(&t);
	if (t_sorts[_i].so_opt != DTRACEOPT_MAX)
		t.tk_den.den_opts[t_sorts[_i].so_opt] = t_sorts[_i].so_val;
	a = tk_agg(&t, 1, DTRACEAGG_SUM, 0, k_is, 2);
	b = tk_agg(&t, 2, DTRACEAGG_SUM, 0, k_is, 2);
	tk_start(&t);
	for (i = 0; i < sizeof (e) / sizeof (e[0]); i++) {
		tk_kint(&t, a, 0, e[i].k);
		tk_kstr(&t, a, 1, e[i].s);
		tk_upd(&t, i % 2, a, e[i].a, 1);
		tk_upd(&t, 1 - i % 2, b, e[i].b, 1);
	}
	tk_snap(&t);
	f = tk_open(&o);
	/* each on its own (variable order: aggsortrev reverses it) ... */
	ck_assert_int_eq(kc_aggs_print_all(t.tk_ka, f), 0);
	/* ... and joined by key, sorted by the aggsortpos-th value */
	ck_assert_int_eq(kc_aggs_printa(t.tk_ka, f, "%d %s %@d %@d\n", v, 2),
	    0);
	tk_expect(&o, t_sorts[_i].so_name);
	tk_fini(&t);
}
END_TEST

/* trunc, clear, normalize, denormalize on the merged state. */
START_TEST(test_libacts)
{
	struct tk_out o;
	struct tk t;
	uint32_t c, av, q, i, v = 1, va = 2, vq = 3;
	FILE *f;

	tk_init(&t);
	c = tk_agg(&t, 1, DTRACEAGG_SUM, 0, K_INT4, 1);
	av = tk_agg(&t, 2, DTRACEAGG_AVG, 0, NULL, 0);
	q = tk_agg(&t, 3, DTRACEAGG_QUANTIZE, 0, NULL, 0);
	tk_start(&t);
	for (i = 1; i <= 6; i++) {
		tk_kint(&t, c, 0, (int64_t)i);
		tk_upd(&t, i % 2, c, (int64_t)(i * 10) - 25, 1);
	}
	tk_upd(&t, 0, av, 100, 1);
	tk_upd(&t, 1, av, 51, 1);
	tk_upd(&t, 1, q, 4, 10);
	tk_snap(&t);
	f = tk_open(&o);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_NORMALIZE, 1, 10,
	    1), 0);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_NORMALIZE, 2, 2,
	    1), 0);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_NORMALIZE, 3, 4,
	    1), 0);
	kc_aggs_printa(t.tk_ka, f, NULL, &v, 1);
	kc_aggs_printa(t.tk_ka, f, NULL, &va, 1);
	kc_aggs_printa(t.tk_ka, f, NULL, &vq, 1);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_DENORMALIZE, 1, 0,
	    0), 0);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_TRUNC, 1, 4, 1),
	    0);
	kc_aggs_printa(t.tk_ka, f, NULL, &v, 1);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_TRUNC, 1, -2, 1),
	    0);
	kc_aggs_printa(t.tk_ka, f, NULL, &v, 1);
	/* a truncated key comes back with only its new data */
	tk_kint(&t, c, 0, 6);
	tk_upd(&t, 0, c, 1, 1);
	tk_snap(&t);
	kc_aggs_printa(t.tk_ka, f, NULL, &v, 1);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_CLEAR, 1, 0, 0),
	    0);
	kc_aggs_printa(t.tk_ka, f, NULL, &v, 1);
	ck_assert_int_eq(kc_aggs_libact(t.tk_ka, KDT_LIBACT_TRUNC, 1, 0, 0),
	    0);
	kc_aggs_printa(t.tk_ka, f, NULL, &v, 1);
	tk_expect(&o, "libacts");
	tk_fini(&t);
}
END_TEST

static Suite *
kc_agg_suite(void)
{
	Suite *s = suite_create("kc_agg");
	TCase *tp = tcase_create("print");
	TCase *ts = tcase_create("sort");

	tcase_add_test(tp, test_print_all_scalars);
	tcase_add_test(tp, test_quantize_shapes);
	tcase_add_test(tp, test_lquantize_llquantize);
	tcase_add_test(tp, test_aggzoom);
	tcase_add_test(tp, test_agghist);
	tcase_add_test(tp, test_aggpack);
	tcase_add_test(tp, test_utf8_bars);
	tcase_add_test(tp, test_setopt_values);
	tcase_add_test(tp, test_joined_missing_histogram_sorts_as_zero);
	tcase_add_test(tp, test_two_ids_one_variable_merge);
	tcase_add_test(tp, test_stack_keys_of_two_sizes);
	tcase_add_test(tp, test_printa_formats);
	tcase_add_test(tp, test_printa_format_edges);
	tcase_add_test(tp, test_key_byte_rule);
	tcase_add_test(tp, test_libacts);
	suite_add_tcase(s, tp);
	tcase_add_loop_test(ts, test_sort_options, 0,
	    sizeof (t_sorts) / sizeof (t_sorts[0]));
	suite_add_tcase(s, ts);
	return s;
}

KT_MAIN(kc_agg_suite)
