/*
 * kc_agg.c -- the consumer's merged aggregation state and every way
 * dtrace(1) prints aggregations: default lines, the three histograms,
 * printa() with a format, several aggregations joined by key, the sort
 * rules and options, and clear/trunc/normalize/denormalize.
 *
 * The contract is kc_agg.h; the value words and per-CPU buffers are
 * common/agg.h; the output rules are reference 5.3 (lines), 5.4
 * (histograms), 5.5 (printa conversions through consumer/kc_fmt.h) and
 * 5.6 (sorting).  Callers: the userspace engine and the region decoder.
 *
 * State: one hash table of entries keyed by (variable id, key layout, key
 * bytes).  Several aggregation ids naming one variable merge into one
 * entry when their keys are laid out alike (the loader made sure they
 * share kind and parameters, and that keys differ in size only where
 * they are stacks: @[stack()] and @[ustack()] of one variable are
 * entries of different key sizes, as in dtrace, whose consumer hashes
 * record sizes and bytes).  Each entry keeps the aggregation whose key
 * layout it has (ke_ag) for printing and sorting.  Printing builds a row
 * per distinct key over the variables printed together, sorts the rows
 * and prints them.
 *
 * Map of the file, one banner per group: the table (kc_aggs_new ..
 * kc_aggs_snap); values (avg, stddev, sort weights and comparison); keys
 * (comparison, the byte rule, default columns); histograms (bucket range,
 * labels, bars in '@' or UTF-8 eighths); rows and sorting (join by key,
 * dtrace's bundle order); agghist and aggpack (one line per entry under
 * a per-variable header); printing (default lines, printa formats);
 * library actions (clear, trunc, normalize); run-time options.
 *
 * Where dtrace computes in long double (bar depths, aggzoom's 1/0.95),
 * we compute exactly in 128-bit integers and reproduce its roundings;
 * the comments at kc_aggtot and kc_agg_hist_total say how.
 */
#define _GNU_SOURCE		/* qsort_r */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/kdt_env.h"
#include "common/dof.h"
#include "common/dof_load.h"
#include "common/dof_libact.h"
#include "common/agg.h"
#include "common/rgn.h"
#include "consumer/kc_fmt.h"
#include "consumer/kc_agg.h"
#include "consumer/kc_sym.h"

typedef unsigned __int128 kc_u128;

/* The consumer option "encoding": how bars and packed forms are drawn. */
#define KC_AGG_ENC_UNSET	0	/* '@' bars; packed: UTF-8 unless the
					   terminal is dumb, sun, sun-color */
#define KC_AGG_ENC_ASCII	1
#define KC_AGG_ENC_UTF8		2
typedef __int128 kc_i128;

/* One merged entry. */
struct kc_agge {
	uint32_t	ke_varid;
	uint32_t	ke_hash;
	uint32_t	ke_next;	/* index + 1 of the next in its chain */
	uint32_t	ke_dead;	/* removed by trunc() */
	int64_t		ke_normal;	/* normalize() divisor, 1 = none */
	const struct dof_agg *ke_ag;	/* key layout: its first update's */
	uint8_t		*ke_key;	/* ke_ag->ag_keysize bytes */
	uint64_t	*ke_data;	/* datasize bytes */
};

/* What is known about one aggregation variable. */
struct kc_aggvar {
	const struct dof_agg *kv_ag;	/* first aggregation naming it */
	const struct dof_laction *kv_keys; /* its key actions */
	uint32_t	kv_printed;	/* printa() printed it */
};

struct kc_aggs {
	const struct dof_enabling *ka_den;
	uint64_t	ka_opts[DTRACEOPT_MAX];	/* den_opts, then setopt() */
	uint32_t	ka_enc;		/* KC_AGG_ENC_* (option encoding) */
	struct kc_aggvar *ka_vars;	/* indexed by variable id */
	struct kc_agge	*ka_ents;
	uint32_t	ka_nents;
	uint32_t	ka_cap;
	uint32_t	*ka_heads;	/* index + 1 of the first entry */
	uint32_t	ka_nheads;	/* a power of two */
};

/* A row: one key and the entry of each variable printed (NULL: none). */
struct kc_aggrow {
	const struct dof_agg *kr_ag;	/* the key's layout */
	const uint8_t	*kr_key;
	const struct kc_agge **kr_ents;
};

/* The rows of one print, and the entry-pointer block they share. */
struct kc_aggtab {
	struct kc_aggrow *kt_rows;
	const struct kc_agge **kt_ents;
	uint32_t	kt_n;
};

/* Sorting context (qsort_r). */
struct kc_aggsort {
	const struct kc_aggs *ks_ka;
	const uint32_t	*ks_varids;
	uint32_t	ks_nvarids;
	uint32_t	ks_pos;		/* which variable's value sorts */
	uint32_t	ks_keypos;	/* key comparison starts here */
	int		ks_bykey;
	int		ks_rev;
};

/* ---- the table ---- */

struct kc_aggs *
kc_aggs_new(const struct dof_enabling *den)
{
	struct kc_aggs *ka = calloc(1, sizeof (*ka));
	const struct dof_agg *ag;
	uint32_t i;

	if (ka == NULL)
		return NULL;
	ka->ka_den = den;
	memcpy(ka->ka_opts, den->den_opts, sizeof (ka->ka_opts));
	ka->ka_vars = calloc((size_t)den->den_nvarids + 1,
	    sizeof (*ka->ka_vars));
	ka->ka_nheads = 64;
	ka->ka_heads = calloc(ka->ka_nheads, sizeof (*ka->ka_heads));
	if (ka->ka_vars == NULL || ka->ka_heads == NULL) {
		kc_aggs_free(ka);
		return NULL;
	}
	for (i = 0; i < den->den_naggs; i++) {
		ag = &den->den_aggs[i];
		if (ka->ka_vars[ag->ag_varid].kv_ag != NULL)
			continue;
		ka->ka_vars[ag->ag_varid].kv_ag = ag;
		ka->ka_vars[ag->ag_varid].kv_keys =
		    &den->den_ecbs[ag->ag_ecb].le_acts[ag->ag_firstkey];
	}
	return ka;
}

void
kc_aggs_free(struct kc_aggs *ka)
{
	uint32_t i;

	if (ka == NULL)
		return;
	for (i = 0; i < ka->ka_nents; i++) {
		free(ka->ka_ents[i].ke_key);
		free(ka->ka_ents[i].ke_data);
	}
	free(ka->ka_ents);
	free(ka->ka_heads);
	free(ka->ka_vars);
	free(ka);
}

static uint32_t
kc_agg_hash(uint32_t varid, const uint8_t *key, uint32_t len)
{
	uint32_t h = 2166136261u ^ varid;
	uint32_t i;

	for (i = 0; i < len; i++) {
		h ^= key[i];
		h *= 16777619u;
	}
	return h;
}

static void
kc_agg_link(struct kc_aggs *ka, uint32_t idx)
{
	struct kc_agge *ke = &ka->ka_ents[idx];
	uint32_t *head = &ka->ka_heads[ke->ke_hash & (ka->ka_nheads - 1)];

	ke->ke_next = *head;
	*head = idx + 1;
}

/* Double the chain heads once the table is fuller than one per chain. */
static int
kc_agg_rehash(struct kc_aggs *ka)
{
	uint32_t *nh, i;

	if (ka->ka_nents < ka->ka_nheads)
		return 0;
	nh = calloc((size_t)ka->ka_nheads * 2, sizeof (*nh));
	if (nh == NULL)
		return -ENOMEM;
	free(ka->ka_heads);
	ka->ka_heads = nh;
	ka->ka_nheads *= 2;
	for (i = 0; i < ka->ka_nents; i++)
		kc_agg_link(ka, i);
	return 0;
}

/* The key actions of aggregation "ag" (ag_nkeys of them). */
static const struct dof_laction *
kc_agg_keyacts(const struct kc_aggs *ka, const struct dof_agg *ag)
{
	return &ka->ka_den->den_ecbs[ag->ag_ecb].le_acts[ag->ag_firstkey];
}

/*
 * Keys of "a" and "b" laid out alike: as many, each of one size at one
 * offset (dtrace matches keys by record sizes and bytes, whatever the
 * statement or variable that made them).
 */
static int
kc_agg_samekeys(const struct kc_aggs *ka, const struct dof_agg *a,
    const struct dof_agg *b)
{
	const struct dof_laction *x, *y;
	uint32_t i;

	if (a == b)
		return 1;
	if (a->ag_nkeys != b->ag_nkeys || a->ag_keysize != b->ag_keysize)
		return 0;
	x = kc_agg_keyacts(ka, a);
	y = kc_agg_keyacts(ka, b);
	for (i = 0; i < a->ag_nkeys; i++)
		if (x[i].la_rec_size != y[i].la_rec_size ||
		    x[i].la_rec_off != y[i].la_rec_off)
			return 0;
	return 1;
}

/* The entry of "varid" with key "key" laid out as aggregation "ag". */
static struct kc_agge *
kc_agg_find(struct kc_aggs *ka, uint32_t varid, const struct dof_agg *ag,
    const uint8_t *key, uint32_t hash)
{
	uint32_t i = ka->ka_heads[hash & (ka->ka_nheads - 1)];
	struct kc_agge *ke;

	while (i != 0) {
		ke = &ka->ka_ents[i - 1];
		if (ke->ke_hash == hash && ke->ke_varid == varid &&
		    kc_agg_samekeys(ka, ke->ke_ag, ag) &&
		    memcmp(ke->ke_key, key, ag->ag_keysize) == 0)
			return ke;
		i = ke->ke_next;
	}
	return NULL;
}

static struct kc_agge *
kc_agg_add(struct kc_aggs *ka, const struct dof_agg *ag, const uint8_t *key,
    uint32_t hash)
{
	struct kc_agge *ke, *ne;
	uint32_t ncap;

	if (ka->ka_nents == ka->ka_cap) {
		ncap = ka->ka_cap == 0 ? 64 : ka->ka_cap * 2;
		ne = realloc(ka->ka_ents, (size_t)ncap * sizeof (*ne));
		if (ne == NULL)
			return NULL;
		ka->ka_ents = ne;
		ka->ka_cap = ncap;
	}
	ke = &ka->ka_ents[ka->ka_nents];
	memset(ke, 0, sizeof (*ke));
	ke->ke_varid = ag->ag_varid;
	ke->ke_hash = hash;
	ke->ke_normal = 1;
	ke->ke_ag = ag;
	ke->ke_key = malloc(ag->ag_keysize + 1);
	ke->ke_data = malloc(ag->ag_datasize);
	if (ke->ke_key == NULL || ke->ke_data == NULL) {
		free(ke->ke_key);
		free(ke->ke_data);
		return NULL;
	}
	memcpy(ke->ke_key, key, ag->ag_keysize);
	agg_data_init(ag->ag_kind, ag->ag_arg, ke->ke_data);
	kc_agg_link(ka, ka->ka_nents++);
	if (kc_agg_rehash(ka) != 0)
		return NULL;
	return &ka->ka_ents[ka->ka_nents - 1];
}

int
kc_aggs_snap(struct kc_aggs *ka, const struct agg_buf *ab)
{
	const struct agg_ent *ae = NULL;
	const struct dof_agg *ag;
	struct kc_agge *ke;
	uint32_t hash;

	while ((ae = agg_next(ab, ae)) != NULL) {
		ag = &ka->ka_den->den_aggs[ae->ae_aggid - 1];
		hash = kc_agg_hash(ag->ag_varid, agg_ent_key(ae),
		    ae->ae_keysize);
		ke = kc_agg_find(ka, ag->ag_varid, ag, agg_ent_key(ae), hash);
		if (ke == NULL)
			ke = kc_agg_add(ka, ag, agg_ent_key(ae), hash);
		if (ke == NULL)
			return -ENOMEM;
		if (ke->ke_dead) {
			/* removed by trunc(): it comes back as a new entry */
			ke->ke_dead = 0;
			ke->ke_normal = 1;
			agg_data_init(ag->ag_kind, ag->ag_arg, ke->ke_data);
		}
		agg_data_merge(ag->ag_kind, ag->ag_arg, ke->ke_data,
		    agg_ent_data(ae));
	}
	return 0;
}

int
kc_aggs_walk(const struct kc_aggs *ka,
    void (*fn)(void *, uint32_t, const struct dof_agg *, const uint8_t *,
    const uint64_t *, int64_t), void *arg)
{
	const struct kc_agge *ke;
	uint32_t i, n = 0;

	for (i = 0; i < ka->ka_nents; i++) {
		ke = &ka->ka_ents[i];
		if (ke->ke_dead)
			continue;
		fn(arg, ke->ke_varid, ke->ke_ag, ke->ke_key, ke->ke_data,
		    ke->ke_normal);
		n++;
	}
	return (int)n;
}

/* ---- the region's totals (rgn.h, "Aggregation totals") ---- */

/*
 * The image, leaving "fixed" bytes plus "per" bytes per entry written
 * free at the end of "cap" (the replay part: kc_aggs_totals).
 */
static int
kc_aggs_image_room(const struct kc_aggs *ka, void *buf, uint64_t cap,
    uint64_t fixed, uint64_t per, int64_t *norms, uint64_t *len,
    uint64_t *left)
{
	struct agg_buf *ab = buf;
	const struct kc_agge *ke;
	const struct dof_agg *ag;
	struct agg_ent *ae;
	struct kdt_err err;
	uint64_t need, end, room;
	uint32_t i;

	*len = 0;
	*left = 0;
	if (cap > 0xffffffffull)
		cap = 0xffffffffull;
	if (agg_buf_init(buf, cap & ~7ull, 0, &err) != 0 ||
	    fixed > ab->ab_size - ab->ab_heap_off)
		return -EINVAL;
	end = ab->ab_heap_off;
	room = ab->ab_size - fixed;
	for (i = 0; i < ka->ka_nents; i++) {
		ke = &ka->ka_ents[i];
		if (ke->ke_dead)
			continue;
		ag = ke->ke_ag;
		need = AGG_ENT_HDRSIZE + (uint64_t)ag->ag_keysize +
		    ag->ag_datasize;
		if (need + per > room - end) {
			(*left)++;
			continue;
		}
		room -= per;
		if (norms != NULL)	/* the written entries' divisors */
			norms[ab->ab_nents] = ke->ke_normal;
		ae = (struct agg_ent *)((uint8_t *)buf + end);
		memset(ae, 0, sizeof (*ae));
		ae->ae_hash = ke->ke_hash;
		ae->ae_aggid = ag->ag_id;
		ae->ae_keysize = ag->ag_keysize;
		ae->ae_datasize = ag->ag_datasize;
		memcpy(ae + 1, ke->ke_key, ag->ag_keysize);
		memcpy((uint8_t *)(ae + 1) + ag->ag_keysize, ke->ke_data,
		    ag->ag_datasize);
		end += need;
		ab->ab_nents++;
	}
	ab->ab_heap_used = end - ab->ab_heap_off;
	ab->ab_size = end;
	*len = end;
	return 0;
}

int
kc_aggs_image(const struct kc_aggs *ka, void *buf, uint64_t cap,
    uint64_t *len, uint64_t *left)
{
	return kc_aggs_image_room(ka, buf, cap, 0, 0, NULL, len, left);
}

int
kc_aggs_totals(const struct kc_aggs *ka, void *buf, uint64_t cap,
    const uint64_t *pos, uint32_t ncpu, uint64_t *len, uint64_t *xlen,
    uint64_t *left)
{
	int64_t *norms = malloc(((size_t)ka->ka_nents + 1) * 8);
	const uint64_t fixed = 16ULL * ncpu;
	uint8_t *x;
	uint64_t n;
	int rv;

	*xlen = 0;
	if (norms == NULL)
		return -ENOMEM;
	rv = kc_aggs_image_room(ka, buf, cap, fixed, 8, norms, len, left);
	if (rv == 0) {
		/* the replay part (rgn.h): at_pos, then each written
		   entry's divisor in image order */
		n = ((const struct agg_buf *)buf)->ab_nents;
		x = (uint8_t *)buf + *len;
		memcpy(x, pos, fixed);
		memcpy(x + fixed, norms, 8 * n);
		*xlen = fixed + 8 * n;
	}
	free(norms);
	return rv;
}

int
kc_aggs_set_normals(struct kc_aggs *ka, const struct agg_buf *img,
    const uint8_t *norms, uint64_t n)
{
	const struct agg_ent *ae = NULL;
	const struct dof_agg *ag;
	struct kc_agge *ke;
	uint64_t i = 0;
	int64_t nv;

	while ((ae = agg_next(img, ae)) != NULL && i < n) {
		ag = &ka->ka_den->den_aggs[ae->ae_aggid - 1];
		ke = kc_agg_find(ka, ag->ag_varid, ag, agg_ent_key(ae),
		    kc_agg_hash(ag->ag_varid, agg_ent_key(ae),
		    ae->ae_keysize));
		memcpy(&nv, norms + 8 * i, 8);
		if (ke == NULL || nv < 1)
			return -EINVAL;
		ke->ke_normal = nv;
		i++;
	}
	return 0;
}

/* Merge one checked-or-reported buffer of a region.  1: left out. */
static int
kc_aggs_region_buf(struct kc_aggs *ka, const void *buf, uint64_t len,
    const char *what, uint32_t cpu, const char *prog, const char *input,
    FILE *err)
{
	struct kdt_err ke;

	if (agg_buf_check(buf, len, ka->ka_den, &ke) != 0) {
		fprintf(err, "%s: %s: %s of CPU %u left out: %s\n",
		    prog, input, what, cpu, ke.ke_msg);
		return 1;
	}
	if (kc_aggs_snap(ka, buf) != 0)
		return -ENOMEM;
	return 0;
}

int
kc_aggs_region(struct kc_aggs *ka, const struct rgn_view *v,
    const char *prog, const char *input, FILE *err)
{
	const uint32_t ncpu = v->rv_hdr->rh_ncpu, n = rgn_view_nagg(v);
	struct rgn_aggtot_view tv;
	const struct agg_buf *ab;
	struct kdt_err note;
	uint64_t len, miss, *drops;
	uint32_t i, cpu;
	int rv, partial = 0;

	if (n == 0)
		return 0;
	if ((drops = calloc(ncpu, sizeof (*drops))) == NULL)
		return -ENOMEM;
	(void) rgn_view_aggtot(v, &tv, &note);
	if (note.ke_msg[0] != '\0')
		fprintf(err, "%s: %s: %s (the other slot is used)\n", prog,
		    input, note.ke_msg);
	if (tv.tv_img != NULL) {
		if (agg_buf_check(tv.tv_img, tv.tv_len, ka->ka_den,
		    &note) != 0) {
			fprintf(err, "%s: %s: aggregation totals (slot %u, write %llu) left out: %s\n",
			    prog, input, tv.tv_slot,
			    (unsigned long long)tv.tv_seq, note.ke_msg);
			tv.tv_img = NULL;
			tv.tv_ival = NULL;	/* then every buffer counts */
			partial = 1;
		} else if (kc_aggs_snap(ka, tv.tv_img) != 0) {
			free(drops);
			return -ENOMEM;
		}
		if (tv.tv_img != NULL && tv.tv_left != 0) {
			fprintf(err, "%s: %s: aggregations partial: %llu entries of the consumer's table did not fit the region's totals slot\n",
			    prog, input, (unsigned long long)tv.tv_left);
			partial = 1;
		}
	}
	for (i = 0; i < n; i++) {
		cpu = i % ncpu;
		ab = rgn_view_aggbuf(v, i, &len);
		if (!rgn_agg_take(v, &tv, i)) {
			/* covered by the totals: only its drop count */
			if (agg_buf_check(ab, len, ka->ka_den, &note) == 0 &&
			    ab->ab_drops > drops[cpu])
				drops[cpu] = ab->ab_drops;
			continue;
		}
		rv = kc_aggs_region_buf(ka, ab, len, i < ncpu || !tv.tv_rule ?
		    "aggregation buffer" : "spare aggregation buffer", cpu,
		    prog, input, err);
		if (rv < 0) {
			free(drops);
			return rv;
		}
		if (rv > 0) {
			partial = 1;
			continue;
		}
		if (ab->ab_drops > drops[cpu])
			drops[cpu] = ab->ab_drops;
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		kc_fmt_drops(err, prog, KC_DROP_AGGREGATION, drops[cpu], cpu);
		miss = rgn_agg_missing(v, tv.tv_img != NULL ? &tv : NULL, cpu);
		if (miss != 0) {
			fprintf(err, "%s: %s: aggregations partial: %llu aggregation interval(s) of CPU %u are neither in the consumer's totals nor in a buffer\n",
			    prog, input, (unsigned long long)miss, cpu);
			partial = 1;
		}
	}
	free(drops);
	return partial;
}

/* ---- values ---- */

int64_t
kc_agg_avg(const uint64_t *d, int64_t normal)
{
	if (d[0] == 0)
		return 0;
	return (int64_t)d[1] / normal / (int64_t)d[0];
}

/* Floor of the square root of a 128-bit value, bit by bit. */
static uint64_t
kc_agg_isqrt(kc_u128 v)
{
	kc_u128 r = 0, bit = (kc_u128)1 << 126;

	while (bit > v)
		bit >>= 2;
	while (bit != 0) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (uint64_t)r;
}

/* Reference 5.3: sqrt(sumsq/normal/normal/count - (sum/normal/count)^2). */
uint64_t
kc_agg_stddev(const uint64_t *d, int64_t normal)
{
	kc_u128 sq = ((kc_u128)d[3] << 64) | d[2];
	int64_t avg;
	kc_u128 avg2;

	if (d[0] == 0)
		return 0;
	sq = sq / (uint64_t)normal / (uint64_t)normal / d[0];
	avg = (int64_t)d[1] / normal / (int64_t)d[0];
	if (avg < 0)
		avg = -avg;
	avg2 = (kc_u128)(uint64_t)avg * (uint64_t)avg;
	return kc_agg_isqrt(sq >= avg2 ? sq - avg2 : 0);
}

/* Histogram geometry: number of count words and the first one. */
uint32_t
kc_agg_nbuckets(const struct dof_agg *ag)
{
	return ag->ag_kind == DTRACEAGG_QUANTIZE ? AGG_QUANTIZE_NBUCKETS :
	    ag->ag_datasize / 8 - 1;
}

const int64_t *
kc_agg_buckets(const struct dof_agg *ag, const uint64_t *d)
{
	return (const int64_t *)(ag->ag_kind == DTRACEAGG_QUANTIZE ? d :
	    d + 1);
}

/* The weight of bucket i in the sort sum (reference 5.6). */
static int64_t
kc_agg_weight(const struct dof_agg *ag, uint32_t i)
{
	uint32_t n = kc_agg_nbuckets(ag);
	int64_t base, lim;

	switch (ag->ag_kind) {
	case DTRACEAGG_QUANTIZE:
		return agg_quantize_label(i);
	case DTRACEAGG_LQUANTIZE:
		base = agg_lquantize_base(ag->ag_arg);
		lim = base + (int64_t)agg_lquantize_levels(ag->ag_arg) *
		    agg_lquantize_step(ag->ag_arg);
		if (i == 0)
			return base - 1;
		if (i == n - 1)
			return lim + 1;
		return base + (int64_t)(i - 1) * agg_lquantize_step(ag->ag_arg);
	}
	if (i == 0)
		return agg_llquantize_label(ag->ag_arg, 0) - 1;
	return agg_llquantize_label(ag->ag_arg, i);
}

/*
 * The count the tie-break compares (reference 5.6): of the bucket whose
 * sort weight is 0 -- quantize's zero bucket; for lquantize the bucket
 * weighted exactly 0 if there is one (underflow weighs base - 1, overflow
 * limit + 1), else none (0); for llquantize the first bucket.
 */
static int64_t
kc_agg_zerocount(const struct dof_agg *ag, const int64_t *b)
{
	uint32_t i, n = kc_agg_nbuckets(ag);

	if (ag->ag_kind == DTRACEAGG_QUANTIZE)
		return b[AGG_QUANTIZE_ZEROBUCKET];
	if (ag->ag_kind == DTRACEAGG_LLQUANTIZE)
		return b[0];
	for (i = 0; i < n; i++)
		if (kc_agg_weight(ag, i) == 0)
			return b[i];
	return 0;
}

/*
 * A histogram's sort key: the weighted sum, then the count at weight 0;
 * a missing (zero-filled) value weighs 0 and 0.
 */
static void
kc_agg_histkey(const struct dof_agg *ag, const uint64_t *d, kc_i128 *sum,
    kc_i128 *zc)
{
	const int64_t *b;
	uint32_t i, n;

	*sum = 0;
	*zc = 0;
	if (d == NULL)
		return;
	b = kc_agg_buckets(ag, d);
	n = kc_agg_nbuckets(ag);
	for (i = 0; i < n; i++)
		*sum += (kc_i128)kc_agg_weight(ag, i) * b[i];
	*zc = kc_agg_zerocount(ag, b);
}

/* Compare two values of one aggregation (missing = NULL = zero). */
static int
kc_agg_valcmp(const struct dof_agg *ag, const uint64_t *a, const uint64_t *b)
{
	static const uint64_t zero[4];
	kc_i128 sa, sb, za, zb;

	switch (ag->ag_kind) {
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		kc_agg_histkey(ag, a, &sa, &za);
		kc_agg_histkey(ag, b, &sb, &zb);
		if (sa == sb) {
			sa = za;
			sb = zb;
		}
		return sa < sb ? -1 : sa > sb ? 1 : 0;
	}
	a = a != NULL ? a : zero;
	b = b != NULL ? b : zero;
	switch (ag->ag_kind) {
	case DTRACEAGG_AVG:
		sa = kc_agg_avg(a, 1);
		sb = kc_agg_avg(b, 1);
		break;
	case DTRACEAGG_STDDEV:
		sa = kc_agg_stddev(a, 1);
		sb = kc_agg_stddev(b, 1);
		break;
	default:
		sa = (int64_t)a[0];
		sb = (int64_t)b[0];
		break;
	}
	return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/* ---- keys ---- */

/*
 * Keys of integer sizes (1, 2, 4, 8 bytes) print and sort as integers --
 * D expressions, and sym()/mod() addresses (they sort by address and
 * print as symbols).
 */
static int
kc_agg_isint(const struct dof_laction *k)
{
	switch (k->la_kind) {
	case DTRACEACT_STACK:
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
	case DTRACEACT_USYM:
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
		return 0;	/* frames or (pid, address): bytes */
	default:
		break;
	}
	return k->la_rec_size == 1 || k->la_rec_size == 2 ||
	    k->la_rec_size == 4 || k->la_rec_size == 8;
}

/*
 * Kernel-data keys (stack(), ustack(), sym(), mod(), usym()...): printed
 * as the record would be, stacks on their own lines (the value follows
 * them), symbols left-justified in 50 columns like strings.  1 if "k"
 * is one.
 */
static int
kc_agg_kdatakey(FILE *out, const struct dof_laction *k, const uint8_t *p)
{
	struct kc_val v = { p, k->la_rec_size, 0 };
	char buf[512];
	FILE *mf;

	switch (k->la_kind) {
	case DTRACEACT_STACK:
		(void) kc_fmt_stack(out, kc_sym_default(), p, k->la_rec_size,
		    (uint32_t)k->la_arg, KC_STACKINDENT);
		return 1;
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
		(void) kc_fmt_ustack(out, p, k->la_rec_size,
		    (uint32_t)k->la_arg, (uint32_t)(k->la_arg >> 32),
		    KC_STACKINDENT);
		return 1;
	case DTRACEACT_SYM:
	case DTRACEACT_MOD:
	case DTRACEACT_USYM:
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
		buf[0] = '\0';
		if ((mf = fmemopen(buf, sizeof (buf), "w")) != NULL) {
			if (k->la_kind == DTRACEACT_SYM)
				(void) kc_fmt_sym(mf, kc_sym_default(), &v);
			else if (k->la_kind == DTRACEACT_MOD)
				(void) kc_fmt_mod(mf, kc_sym_default(), &v);
			else
				(void) kc_fmt_usym(mf, &v, k->la_kind);
			fclose(mf);
		}
		buf[sizeof (buf) - 1] = '\0';
		/* the formatters print dtrace's "  %-50s" themselves */
		fputs(buf[0] != '\0' ? buf : "  ", out);
		if (buf[0] == '\0')
			fprintf(out, "%-50s", "");
		return 1;
	default:
		return 0;
	}
}

static uint64_t
kc_agg_keyint(const struct dof_laction *k, const uint8_t *key)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (k->la_rec_size) {
	case 1:
		memcpy(&u8, key + k->la_rec_off, 1);
		return u8;
	case 2:
		memcpy(&u16, key + k->la_rec_off, 2);
		return u16;
	case 4:
		memcpy(&u32, key + k->la_rec_off, 4);
		return u32;
	}
	memcpy(&u64, key + k->la_rec_off, 8);
	return u64;
}

/*
 * Reference 5.6: key by key from key "pos" (0 when out of range),
 * wrapping; key "a" is laid out as aggregation "ga", "b" as "gb" (one
 * variable's, or variables printed together: as many keys).  As dtrace
 * does, of two keys of different sizes (stacks of different depths,
 * stack() before ustack()) the smaller sorts first; a key of 1, 2, 4 or
 * 8 bytes compares as an unsigned integer of that size whatever its
 * type; others byte by byte.
 */
static int
kc_agg_keycmp(const struct kc_aggs *ka, uint32_t pos,
    const struct dof_agg *ga, const uint8_t *a, const struct dof_agg *gb,
    const uint8_t *b)
{
	const struct dof_laction *ka_keys = kc_agg_keyacts(ka, ga);
	const struct dof_laction *kb_keys = kc_agg_keyacts(ka, gb);
	const struct dof_laction *k, *kb;
	uint32_t i, n = ga->ag_nkeys < gb->ag_nkeys ? ga->ag_nkeys :
	    gb->ag_nkeys;
	uint64_t x, y;
	int c;

	if (pos >= n)
		pos = 0;
	for (i = 0; i < n; i++) {
		k = &ka_keys[(i + pos) % n];
		kb = &kb_keys[(i + pos) % n];
		if (k->la_rec_size != kb->la_rec_size)
			return k->la_rec_size < kb->la_rec_size ? -1 : 1;
		if (kc_agg_isint(k)) {
			x = kc_agg_keyint(k, a);
			y = kc_agg_keyint(kb, b);
			c = x < y ? -1 : x > y ? 1 : 0;
		} else {
			c = memcmp(a + k->la_rec_off, b + kb->la_rec_off,
			    k->la_rec_size);
		}
		if (c != 0)
			return c;
	}
	return 0;
}

/* The byte rule's "printable": isprint, isspace, backspace or bell. */
static int
kc_agg_printable(uint8_t c)
{
	return (c >= 0x20 && c < 0x7f) || (c >= '\t' && c <= '\r') ||
	    c == '\b' || c == '\a';
}

/*
 * A key that is not an integer, by the byte rule (reference 5.2) with
 * width -50 (agghist, aggpack: 16): printable bytes up to a NUL followed
 * only by NULs print as "  %-50s" (" %16s"), printable bytes filling the
 * key as "  %-50s" ("  %-16s"); anything else -- including an empty
 * string, whose first byte is already the NUL -- prints as a hex dump.
 */
static void
kc_agg_keystr(FILE *out, const uint8_t *p, uint32_t size, int width)
{
	struct kc_val v = { p, size, 0 };
	uint32_t i, j;

	for (i = 0; i < size && kc_agg_printable(p[i]); i++)
		continue;
	if (i == size) {
		fprintf(out, "  %-*.*s", width, (int)size, (const char *)p);
		return;
	}
	if (p[i] == '\0' && i > 0) {
		for (j = i + 1; j < size && p[j] == '\0'; j++)
			continue;
		if (j == size) {
			fprintf(out, " %s%*s", width < 0 ? " " : "", width,
			    (const char *)p);
			return;
		}
	}
	kc_fmt_tracemem(out, &v, size);
}

/* Column width of an integer key of "size" bytes (reference 5.3). */
static uint32_t
kc_agg_intwidth(uint32_t size)
{
	return size == 1 ? 3 : size == 2 ? 5 : size == 4 ? 8 : 16;
}

/* Reference 5.3: the key columns of one key laid out as "ag". */
static void
kc_agg_keycols(FILE *out, const struct kc_aggs *ka, const struct dof_agg *ag,
    const uint8_t *key, int packed)
{
	const struct dof_laction *k;
	uint32_t i;

	for (i = 0; i < ag->ag_nkeys; i++) {
		k = &kc_agg_keyacts(ka, ag)[i];
		if (kc_agg_kdatakey(out, k, key + k->la_rec_off))
			continue;
		if (!kc_agg_isint(k)) {
			kc_agg_keystr(out, key + k->la_rec_off,
			    k->la_rec_size, packed ? 16 : -50);
			continue;
		}
		switch (k->la_rec_size) {
		case 1:
			fprintf(out, " %3u", (unsigned)kc_agg_keyint(k, key));
			break;
		case 2:
			fprintf(out, " %5u", (unsigned)kc_agg_keyint(k, key));
			break;
		case 4:
			fprintf(out, " %8d", (int32_t)kc_agg_keyint(k, key));
			break;
		default:
			fprintf(out, " %16lld",
			    (long long)kc_agg_keyint(k, key));
			break;
		}
	}
}

/* ---- histograms (reference 5.4) ---- */

#define KC_AGG_BARLEN	40

static int
kc_agg_opt_set(const struct kc_aggs *ka, uint32_t opt)
{
	return ka->ka_opts[opt] != DTRACEOPT_UNSET;
}

/* The label of bucket i, as text. */
static void
kc_agg_label(const struct dof_agg *ag, uint32_t i, char *buf, size_t sz)
{
	uint32_t n = kc_agg_nbuckets(ag);
	int64_t base, step, lim;

	if (ag->ag_kind == DTRACEAGG_QUANTIZE) {
		snprintf(buf, sz, "%lld", (long long)agg_quantize_label(i));
		return;
	}
	if (ag->ag_kind == DTRACEAGG_LLQUANTIZE) {
		if (i == 0)
			snprintf(buf, sz, "< %lld", (long long)
			    agg_llquantize_label(ag->ag_arg, 0));
		else
			snprintf(buf, sz, i == n - 1 ? ">= %lld" : "%lld",
			    (long long)agg_llquantize_label(ag->ag_arg, i));
		return;
	}
	base = agg_lquantize_base(ag->ag_arg);
	step = agg_lquantize_step(ag->ag_arg);
	lim = base + (int64_t)agg_lquantize_levels(ag->ag_arg) * step;
	if (i == 0)
		snprintf(buf, sz, "< %lld", (long long)base);
	else if (i == n - 1)
		snprintf(buf, sz, ">= %lld", (long long)lim);
	else
		snprintf(buf, sz, "%lld", (long long)(base + (i - 1) * step));
}

/*
 * The total a bar is scaled to, as the fraction kt_num / kt_den: the sum
 * of |count| over the buckets shown, or with aggzoom the largest |count|
 * over 0.95 (dtrace's 1/0.95 in double is a hair below 20/19, so exact
 * rational arithmetic with 20/19 reproduces its roundings).
 */
struct kc_aggtot {
	kc_u128		kt_num;
	kc_u128		kt_den;
	int		kt_pos;		/* some count > 0 */
	int		kt_neg;		/* some count < 0 */
};

static kc_u128
kc_agg_abs(int64_t c)
{
	return c < 0 ? 0 - (uint64_t)c : (uint64_t)c;
}

/* Accumulate one count into a total (zoom: keep the largest). */
static void
kc_agg_tot_add(struct kc_aggtot *t, int64_t c, int zoom)
{
	kc_u128 m = kc_agg_abs(c);

	t->kt_pos |= c > 0;
	t->kt_neg |= c < 0;
	if (!zoom) {
		t->kt_num += m;
		t->kt_den = 1;
	} else if (m * 20 > t->kt_num) {
		t->kt_num = m * 20;
		t->kt_den = 19;
	}
}

/* round-half-up(|c| x len / total), at most len. */
static uint32_t
kc_agg_depth(int64_t c, const struct kc_aggtot *t, uint32_t len)
{
	kc_u128 m;

	if (t->kt_num == 0)
		return 0;
	m = (2 * kc_agg_abs(c) * len * t->kt_den + t->kt_num) /
	    (2 * t->kt_num);
	return m > len ? len : (uint32_t)m;
}

static void
kc_agg_chars(FILE *out, int c, uint32_t n)
{
	while (n-- > 0)
		fputc(c, out);
}

/* A Unicode code point below U+10000 as its 3-byte UTF-8 sequence. */
static void
kc_agg_utf8(FILE *out, uint32_t cp)
{
	fputc(0xe0 | (cp >> 12), out);
	fputc(0x80 | ((cp >> 6) & 0x3f), out);
	fputc(0x80 | (cp & 0x3f), out);
}

/*
 * With encoding=utf8, a bar of only non-negative counts is drawn in
 * eighths: full blocks U+2588, then one partial block U+258F..U+2589.
 */
static void
kc_agg_bar_utf8(FILE *out, int64_t c, const struct kc_aggtot *t,
    int64_t normal)
{
	kc_u128 a = kc_agg_abs(c) * KC_AGG_BARLEN * t->kt_den;
	uint32_t whole = (uint32_t)(a / t->kt_num);
	uint32_t part = (uint32_t)(a * 8 / t->kt_num) - whole * 8, i;

	fputc('|', out);
	for (i = 0; i < whole; i++)
		kc_agg_utf8(out, 0x2588);
	if (part != 0) {
		kc_agg_utf8(out, 0x258f - (part - 1));
		i++;
	}
	kc_agg_chars(out, ' ', KC_AGG_BARLEN - i);
	fprintf(out, " %-9lld\n", (long long)(c / normal));
}

/* The program's option "encoding" (kc_aggs_encoding), for every kc_aggs. */
static uint32_t kc_agg_enc_prog = KC_AGG_ENC_UNSET;

void
kc_aggs_encoding(int enc)
{
	kc_agg_enc_prog = enc == KC_AGG_ENC_ASCII || enc == KC_AGG_ENC_UTF8 ?
	    (uint32_t)enc : KC_AGG_ENC_UNSET;
}

/* The encoding in force: a setopt("encoding") first, else the program's. */
static uint32_t
kc_agg_enc(const struct kc_aggs *ka)
{
	return ka->ka_enc != KC_AGG_ENC_UNSET ? ka->ka_enc : kc_agg_enc_prog;
}

/* One bucket's bar and count (reference 5.4). */
static void
kc_agg_bar(FILE *out, const struct kc_aggs *ka, int64_t c,
    const struct kc_aggtot *t, int64_t normal)
{
	int pos = t->kt_pos, neg = t->kt_neg;
	uint32_t len = pos && neg ? KC_AGG_BARLEN / 2 : KC_AGG_BARLEN;
	uint32_t d = kc_agg_depth(c, t, len);

	if (pos && !neg && kc_agg_enc(ka) == KC_AGG_ENC_UTF8) {
		kc_agg_bar_utf8(out, c, t, normal);
		return;
	}
	if (!neg) {
		fputc('|', out);
		kc_agg_chars(out, '@', d);
		kc_agg_chars(out, ' ', len - d);
		fputc(' ', out);
	} else if (!pos || c <= 0) {
		kc_agg_chars(out, ' ', len - d);
		kc_agg_chars(out, '@', d);
		fputc('|', out);
		kc_agg_chars(out, ' ', pos ? len + 1 : 1);
	} else {
		kc_agg_chars(out, ' ', len);
		fputc('|', out);
		kc_agg_chars(out, '@', d);
		kc_agg_chars(out, ' ', len - d);
		fputc(' ', out);
	}
	fprintf(out, "%-9lld\n", (long long)(c / normal));
}

/* Displayed range: one bucket either side of the non-zero ones. */
static void
kc_agg_range(const struct dof_agg *ag, const int64_t *b, uint32_t *first,
    uint32_t *last)
{
	uint32_t i, n = kc_agg_nbuckets(ag);
	int any = 0;

	for (i = 0; i < n; i++) {
		if (b[i] == 0)
			continue;
		if (!any)
			*first = i;
		*last = i;
		any = 1;
	}
	if (!any) {
		*first = ag->ag_kind == DTRACEAGG_QUANTIZE ?
		    AGG_QUANTIZE_ZEROBUCKET - 1 : 0;
		*last = ag->ag_kind == DTRACEAGG_QUANTIZE ?
		    AGG_QUANTIZE_ZEROBUCKET + 1 :
		    ag->ag_kind == DTRACEAGG_LQUANTIZE ? 2 : 1;
		if (*last > n - 1)
			*last = n - 1;
		return;
	}
	if (*first > 0)
		(*first)--;
	if (*last < n - 1)
		(*last)++;
}

static void
kc_agg_hist(FILE *out, const struct kc_aggs *ka, const struct dof_agg *ag,
    const uint64_t *d, int64_t normal)
{
	const int64_t *b = kc_agg_buckets(ag, d);
	uint32_t i, first = 0, last = 0;
	int zoom = kc_agg_opt_set(ka, DTRACEOPT_AGGZOOM);
	struct kc_aggtot t;
	char label[64];

	memset(&t, 0, sizeof (t));
	kc_agg_range(ag, b, &first, &last);
	for (i = first; i <= last; i++)
		kc_agg_tot_add(&t, b[i], zoom);
	fprintf(out, "\n%16s %41s %-9s\n", "value",
	    "------------- Distribution -------------", "count");
	for (i = first; i <= last; i++) {
		kc_agg_label(ag, i, label, sizeof (label));
		fprintf(out, "%16s ", label);
		kc_agg_bar(out, ka, b[i], &t, normal);
	}
}

static int
kc_agg_ishist(uint32_t kind)
{
	return kind == DTRACEAGG_QUANTIZE || kind == DTRACEAGG_LQUANTIZE ||
	    kind == DTRACEAGG_LLQUANTIZE;
}

/* The value column of one entry (reference 5.3); NULL = zero value. */
static void
kc_agg_valcol(FILE *out, const struct kc_aggs *ka, uint32_t varid,
    const struct kc_agge *ke)
{
	const struct dof_agg *ag = ka->ka_vars[varid].kv_ag;
	int64_t normal = ke != NULL ? ke->ke_normal : 1;
	const uint64_t *d;
	uint64_t *zero = NULL;

	if (ke == NULL) {
		/* Joined by key but absent here: print a zero value. */
		zero = calloc(1, ag->ag_datasize);
		if (zero == NULL)
			return;
		if (ag->ag_kind == DTRACEAGG_LQUANTIZE ||
		    ag->ag_kind == DTRACEAGG_LLQUANTIZE)
			zero[0] = ag->ag_arg;
	}
	d = ke != NULL ? ke->ke_data : zero;
	switch (ag->ag_kind) {
	case DTRACEAGG_AVG:
		fprintf(out, " %16lld", (long long)kc_agg_avg(d, normal));
		break;
	case DTRACEAGG_STDDEV:
		fprintf(out, " %16llu", (unsigned long long)
		    kc_agg_stddev(d, normal));
		break;
	case DTRACEAGG_QUANTIZE:
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		kc_agg_hist(out, ka, ag, d, normal);
		break;
	default:
		fprintf(out, " %16lld", (long long)((int64_t)d[0] / normal));
		break;
	}
	free(zero);
}

/* ---- rows and sorting ---- */

static const uint64_t *
kc_agg_data(const struct kc_agge *ke)
{
	return ke != NULL ? ke->ke_data : NULL;
}

/*
 * Rows compare by the values of the printed aggregations, starting with
 * the aggsortpos-th and wrapping, then by key; with aggsortkey by key
 * first; aggsortrev reverses it all (dtrace's bundle order).
 */
static int
kc_agg_rowcmp(const void *pa, const void *pb, void *arg)
{
	const struct kc_aggrow *a = pa, *b = pb;
	const struct kc_aggsort *ks = arg;
	const struct kc_aggs *ka = ks->ks_ka;
	uint32_t i, p;
	int c = 0;

	if (ks->ks_bykey)
		c = kc_agg_keycmp(ka, ks->ks_keypos, a->kr_ag, a->kr_key,
		    b->kr_ag, b->kr_key);
	for (i = 0; c == 0 && i < ks->ks_nvarids; i++) {
		p = (ks->ks_pos + i) % ks->ks_nvarids;
		c = kc_agg_valcmp(ka->ka_vars[ks->ks_varids[p]].kv_ag,
		    kc_agg_data(a->kr_ents[p]), kc_agg_data(b->kr_ents[p]));
	}
	if (c == 0 && !ks->ks_bykey)
		c = kc_agg_keycmp(ka, ks->ks_keypos, a->kr_ag, a->kr_key,
		    b->kr_ag, b->kr_key);
	return ks->ks_rev ? -c : c;
}

/* Does a variable before position p have a live entry for "key"? */
static int
kc_agg_seen(struct kc_aggs *ka, const uint32_t *varids, uint32_t p,
    const struct dof_agg *ag, const uint8_t *key)
{
	struct kc_agge *ke;
	uint32_t q;

	for (q = 0; q < p; q++) {
		ke = kc_agg_find(ka, varids[q], ag, key,
		    kc_agg_hash(varids[q], key, ag->ag_keysize));
		if (ke != NULL && !ke->ke_dead)
			return 1;
	}
	return 0;
}

static int
kc_agg_varpos(const uint32_t *varids, uint32_t nv, uint32_t varid)
{
	uint32_t p;

	for (p = 0; p < nv; p++)
		if (varids[p] == varid)
			return (int)p;
	return -1;
}

/* One row per distinct live key over "varids" (joined by key). */
static int
kc_agg_rows(struct kc_aggs *ka, const uint32_t *varids, uint32_t nv,
    struct kc_aggtab *tab)
{
	struct kc_aggrow *rows;
	const struct kc_agge **ents;
	struct kc_agge *ke, *ko;
	uint32_t i, q, n = 0;
	int p;

	rows = calloc((size_t)ka->ka_nents + 1, sizeof (*rows));
	ents = calloc(((size_t)ka->ka_nents + 1) * nv, sizeof (*ents));
	if (rows == NULL || ents == NULL) {
		free(rows);
		free(ents);
		return -ENOMEM;
	}
	for (i = 0; i < ka->ka_nents; i++) {
		ke = &ka->ka_ents[i];
		p = kc_agg_varpos(varids, nv, ke->ke_varid);
		if (p < 0 || ke->ke_dead ||
		    kc_agg_seen(ka, varids, (uint32_t)p, ke->ke_ag, ke->ke_key))
			continue;
		rows[n].kr_ag = ke->ke_ag;
		rows[n].kr_key = ke->ke_key;
		rows[n].kr_ents = &ents[(size_t)n * nv];
		for (q = 0; q < nv; q++) {
			ko = kc_agg_find(ka, varids[q], ke->ke_ag, ke->ke_key,
			    kc_agg_hash(varids[q], ke->ke_key,
			    ke->ke_ag->ag_keysize));
			if (ko != NULL && !ko->ke_dead)
				rows[n].kr_ents[q] = ko;
		}
		n++;
	}
	tab->kt_rows = rows;
	tab->kt_ents = ents;
	tab->kt_n = n;
	return 0;
}

static void
kc_agg_rows_free(struct kc_aggtab *tab)
{
	free(tab->kt_ents);
	free(tab->kt_rows);
}

/* Sort rows by the options (reference 5.6). */
static void
kc_agg_sort(struct kc_aggs *ka, const uint32_t *varids, uint32_t nv,
    struct kc_aggrow *rows, uint32_t n)
{
	const uint64_t *o = ka->ka_opts;
	struct kc_aggsort ks;

	memset(&ks, 0, sizeof (ks));
	ks.ks_ka = ka;
	ks.ks_varids = varids;
	ks.ks_nvarids = nv;
	ks.ks_bykey = kc_agg_opt_set(ka, DTRACEOPT_AGGSORTKEY);
	ks.ks_rev = kc_agg_opt_set(ka, DTRACEOPT_AGGSORTREV);
	if (o[DTRACEOPT_AGGSORTPOS] != DTRACEOPT_UNSET &&
	    o[DTRACEOPT_AGGSORTPOS] < nv)
		ks.ks_pos = (uint32_t)o[DTRACEOPT_AGGSORTPOS];
	if (o[DTRACEOPT_AGGSORTKEYPOS] != DTRACEOPT_UNSET &&
	    o[DTRACEOPT_AGGSORTKEYPOS] <= 0x7fffffff)
		ks.ks_keypos = (uint32_t)o[DTRACEOPT_AGGSORTKEYPOS];
	qsort_r(rows, n, sizeof (*rows), kc_agg_rowcmp, &ks);
}

/* ---- agghist and aggpack: one line per entry ---- */

#define KC_AGG_MODE_PLAIN	0
#define KC_AGG_MODE_HIST	1	/* count/sum as a bar per key */
#define KC_AGG_MODE_PACK	2	/* quantize/lquantize on one line */

/* One print (a printa, or everything at exit): the packed header state. */
struct kc_aggpr {
	struct kc_aggs	*kp_ka;
	FILE		*kp_out;
	uint32_t	kp_hdrvar;	/* variable of the last header, or 0 */
	struct kc_aggtot kp_tot;	/* agghist: over all its entries */
	uint32_t	kp_minbin;	/* aggpack: over all its entries */
	uint32_t	kp_maxbin;
};

static int
kc_agg_mode(const struct kc_aggs *ka, const struct dof_agg *ag)
{
	if (kc_agg_opt_set(ka, DTRACEOPT_AGGHIST) &&
	    (ag->ag_kind == DTRACEAGG_COUNT || ag->ag_kind == DTRACEAGG_SUM))
		return KC_AGG_MODE_HIST;
	if (kc_agg_opt_set(ka, DTRACEOPT_AGGPACK) &&
	    (ag->ag_kind == DTRACEAGG_QUANTIZE ||
	    ag->ag_kind == DTRACEAGG_LQUANTIZE))
		return KC_AGG_MODE_PACK;
	return KC_AGG_MODE_PLAIN;
}

/* dtrace's column width for a number: its digits and sign, at least 4. */
static int
kc_agg_ndigits(int64_t val)
{
	uint64_t v = val < 0 ? (val == INT64_MIN ? INT64_MAX :
	    (uint64_t)-val) : (uint64_t)val;
	uint64_t cmp = 10;
	int n = val < 0 ? 2 : 1;

	while (v > cmp) {
		n++;
		if (cmp > INT64_MAX / 10)
			break;
		cmp *= 10;
	}
	return n < 4 ? 4 : n;
}

/*
 * agghist: every entry of the variable adds |value| (aggzoom: the largest
 * one over 0.95, truncated to an integer as dtrace does -- a multiple of
 * 19 comes out one lower, its 1/0.95 being a hair below 20/19).
 */
static void
kc_agg_hist_total(struct kc_aggpr *pr, uint32_t varid)
{
	const struct kc_aggs *ka = pr->kp_ka;
	int zoom = kc_agg_opt_set(ka, DTRACEOPT_AGGZOOM);
	kc_u128 m, z;
	int64_t v;
	uint32_t i;

	memset(&pr->kp_tot, 0, sizeof (pr->kp_tot));
	pr->kp_tot.kt_den = 1;
	for (i = 0; i < ka->ka_nents; i++) {
		if (ka->ka_ents[i].ke_varid != varid || ka->ka_ents[i].ke_dead)
			continue;
		v = (int64_t)ka->ka_ents[i].ke_data[0];
		m = kc_agg_abs(v);
		pr->kp_tot.kt_pos |= v > 0;
		pr->kp_tot.kt_neg |= v < 0;
		z = m == 0 ? 0 : (m * 20 - 1) / 19;
		if (!zoom)
			pr->kp_tot.kt_num += m;
		else if (z > pr->kp_tot.kt_num)
			pr->kp_tot.kt_num = z;
	}
}

/* aggpack: the first and last non-zero bucket over the variable. */
static void
kc_agg_pack_bins(struct kc_aggpr *pr, uint32_t varid)
{
	const struct kc_aggs *ka = pr->kp_ka;
	const struct dof_agg *ag = ka->ka_vars[varid].kv_ag;
	uint32_t i, j, lo, hi;
	int any = 0;

	if (ag->ag_kind == DTRACEAGG_LQUANTIZE) {
		pr->kp_minbin = 1;
		pr->kp_maxbin = kc_agg_nbuckets(ag) - 1;
		return;
	}
	for (i = 0; i < ka->ka_nents; i++) {
		if (ka->ka_ents[i].ke_varid != varid || ka->ka_ents[i].ke_dead)
			continue;
		lo = hi = AGG_QUANTIZE_ZEROBUCKET;
		for (j = 0; j < AGG_QUANTIZE_NBUCKETS; j++)
			if (ka->ka_ents[i].ke_data[j] != 0)
				hi = j;
		for (j = AGG_QUANTIZE_NBUCKETS; j-- > 0; )
			if (ka->ka_ents[i].ke_data[j] != 0)
				lo = j;
		pr->kp_minbin = any && pr->kp_minbin < lo ? pr->kp_minbin : lo;
		pr->kp_maxbin = any && pr->kp_maxbin > hi ? pr->kp_maxbin : hi;
		any = 1;
	}
}

/* The quantize buckets an aggpack line shows. */
static void
kc_agg_pack_range(const struct kc_aggpr *pr, uint32_t *min, uint32_t *max)
{
	*min = pr->kp_minbin;
	*max = pr->kp_maxbin;
	if (*min != 0 && *min != AGG_QUANTIZE_ZEROBUCKET)
		(*min)--;
	if (*max < AGG_QUANTIZE_NBUCKETS - 1)
		(*max)++;
}

/* Header of an agghist or aggpack variable: its key columns' width. */
static void
kc_agg_pack_hdr(struct kc_aggpr *pr, uint32_t varid, int mode)
{
	const struct kc_aggvar *kv = &pr->kp_ka->ka_vars[varid];
	uint32_t i, min, max;
	int w = 0, minw, maxw;

	for (i = 0; i < kv->kv_ag->ag_nkeys; i++)
		w += (kc_agg_isint(&kv->kv_keys[i]) ?
		    (int)kc_agg_intwidth(kv->kv_keys[i].la_rec_size) : 16) + 1;
	pr->kp_hdrvar = varid;
	if (mode == KC_AGG_MODE_HIST) {
		kc_agg_hist_total(pr, varid);
		fprintf(pr->kp_out, "\n%*s %41s %-9s\n", w ? w : 16,
		    w ? "key" : "value",
		    "------------- Distribution -------------", "count");
		return;
	}
	kc_agg_pack_bins(pr, varid);
	if (kv->kv_ag->ag_kind == DTRACEAGG_QUANTIZE) {
		kc_agg_pack_range(pr, &min, &max);
		minw = kc_agg_ndigits(agg_quantize_label(min));
		maxw = kc_agg_ndigits(agg_quantize_label(max));
	} else {
		min = pr->kp_minbin;
		max = pr->kp_maxbin + 1;
		minw = 7;
		maxw = 8;
	}
	fprintf(pr->kp_out, "\n%*s %*s .", w, w > 0 ? "key" : "", minw,
	    "min");
	kc_agg_chars(pr->kp_out, '-', max - min + 1);
	fprintf(pr->kp_out, ". %*s | count\n", -maxw, "max");
}

/* Whether packed lines use UTF-8 blocks (dtrace's rule). */
static int
kc_agg_pack_utf8(const struct kc_aggs *ka)
{
	const char *term = getenv("TERM");

	if (kc_agg_enc(ka) != KC_AGG_ENC_UNSET)
		return kc_agg_enc(ka) == KC_AGG_ENC_UTF8;
	return term == NULL || (strcmp(term, "sun") != 0 &&
	    strcmp(term, "sun-color") != 0 && strcmp(term, "dumb") != 0);
}

/* One bucket of a packed line: a level of 6 (negative) or 8. */
static void
kc_agg_pack_char(FILE *out, int64_t c, const struct kc_aggtot *t, int utf8)
{
	uint32_t lv;

	if (c == 0 || t->kt_num == 0) {
		fputc(' ', out);
		return;
	}
	lv = (uint32_t)((2 * kc_agg_abs(c) * (c < 0 ? 5 : 7) * t->kt_den +
	    t->kt_num) / (2 * t->kt_num));
	if (c < 0)
		fputc("vvvvVV"[lv > 5 ? 5 : lv], out);
	else if (utf8)
		kc_agg_utf8(out, 0x2581 + (lv > 7 ? 7 : lv));
	else
		fputc("__xxxxXX"[lv > 7 ? 7 : lv], out);
}

/* The packed buckets first..last of one entry, and their count. */
static void
kc_agg_pack_cells(struct kc_aggpr *pr, const int64_t *b, uint32_t first,
    uint32_t last, kc_i128 *count)
{
	int zoom = kc_agg_opt_set(pr->kp_ka, DTRACEOPT_AGGZOOM);
	int utf8 = kc_agg_pack_utf8(pr->kp_ka);
	struct kc_aggtot t;
	uint32_t i;

	memset(&t, 0, sizeof (t));
	*count = 0;
	for (i = first; i <= last; i++) {
		kc_agg_tot_add(&t, b[i], zoom);
		*count += b[i];
	}
	for (i = first; i <= last; i++)
		kc_agg_pack_char(pr->kp_out, b[i], &t, utf8);
}

/* The value of one entry in the agghist or aggpack form. */
static void
kc_agg_pack_val(struct kc_aggpr *pr, uint32_t varid,
    const struct kc_agge *ke, int mode)
{
	const struct dof_agg *ag = pr->kp_ka->ka_vars[varid].kv_ag;
	static const uint64_t zero[1];
	const int64_t *b;
	uint32_t min, max;
	kc_i128 count;
	char lab[32];

	if (mode == KC_AGG_MODE_HIST) {
		fputc(' ', pr->kp_out);
		kc_agg_bar(pr->kp_out, pr->kp_ka, ke != NULL ?
		    (int64_t)ke->ke_data[0] : (int64_t)zero[0], &pr->kp_tot,
		    ke != NULL ? ke->ke_normal : 1);
		return;
	}
	if (ke == NULL)
		return;		/* joined aggpack: nothing to draw */
	b = kc_agg_buckets(ag, ke->ke_data);
	if (ag->ag_kind == DTRACEAGG_QUANTIZE) {
		kc_agg_pack_range(pr, &min, &max);
		fprintf(pr->kp_out, " %*lld :",
		    kc_agg_ndigits(agg_quantize_label(min)),
		    (long long)agg_quantize_label(min));
		kc_agg_pack_cells(pr, b, min, max, &count);
		fprintf(pr->kp_out, ": %*lld | %lld\n",
		    -kc_agg_ndigits(agg_quantize_label(max)),
		    (long long)agg_quantize_label(max), (long long)count);
		return;
	}
	kc_agg_label(ag, 0, lab, sizeof (lab));
	fprintf(pr->kp_out, "%8s :", lab);
	kc_agg_pack_cells(pr, b, 0, kc_agg_nbuckets(ag) - 1, &count);
	kc_agg_label(ag, kc_agg_nbuckets(ag) - 1, lab, sizeof (lab));
	fprintf(pr->kp_out, ": %-8s | %lld\n", lab, (long long)count);
}

/* ---- printing ---- */

/* A stack(), ustack() or jstack() key: any depth matches another. */
static int
kc_agg_isstack(const struct dof_laction *k)
{
	return k->la_kind == DTRACEACT_STACK ||
	    k->la_kind == DTRACEACT_USTACK || k->la_kind == DTRACEACT_JSTACK;
}

/*
 * Every variable id names an aggregation; joined ones have as many keys
 * (rows join entries whose keys are laid out alike, kc_agg_samekeys, as
 * dtrace joins by record sizes and bytes).
 */
static int
kc_agg_check_vars(const struct kc_aggs *ka, const uint32_t *varids,
    uint32_t nv)
{
	const struct dof_agg *a0, *a;
	uint32_t p;

	if (nv == 0)
		return -EINVAL;
	for (p = 0; p < nv; p++) {
		if (varids[p] == 0 || varids[p] > ka->ka_den->den_nvarids ||
		    ka->ka_vars[varids[p]].kv_ag == NULL) {
			fprintf(stderr, "kdt: printa: aggregation variable id %u is not one of the enabling's 1..%u\n",
			    varids[p], ka->ka_den->den_nvarids);
			return -EINVAL;
		}
		a0 = ka->ka_vars[varids[0]].kv_ag;
		a = ka->ka_vars[varids[p]].kv_ag;
		if (a->ag_nkeys != a0->ag_nkeys) {
			fprintf(stderr, "kdt: printa: aggregation variables %u and %u have different key counts (%u vs %u)\n",
			    varids[0], varids[p], a0->ag_nkeys, a->ag_nkeys);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A default line: key columns, each variable's value column, newline; in
 * the agghist and aggpack forms the first line of a variable is preceded
 * by its header and the value ends the line itself.
 */
static void
kc_agg_line(struct kc_aggpr *pr, const uint32_t *varids, uint32_t nv,
    const struct kc_aggrow *r)
{
	const struct kc_aggs *ka = pr->kp_ka;
	const struct kc_aggvar *kv = &ka->ka_vars[varids[0]];
	int mode = kc_agg_mode(ka, kv->kv_ag);
	uint32_t p;

	if (mode != KC_AGG_MODE_PLAIN && pr->kp_hdrvar != varids[0])
		kc_agg_pack_hdr(pr, varids[0], mode);
	kc_agg_keycols(pr->kp_out, ka, r->kr_ag, r->kr_key,
	    mode != KC_AGG_MODE_PLAIN);
	for (p = 0; p < nv; p++) {
		if (mode == KC_AGG_MODE_PLAIN)
			kc_agg_valcol(pr->kp_out, ka, varids[p],
			    r->kr_ents[p]);
		else
			kc_agg_pack_val(pr, varids[p], r->kr_ents[p], mode);
	}
	if (mode == KC_AGG_MODE_PLAIN)
		fputc('\n', pr->kp_out);
}

/* The value %@ prints for a scalar aggregation, normalized. */
static void
kc_agg_scalar(const struct kc_aggvar *kv, const struct kc_agge *ke,
    uint8_t *buf)
{
	static const uint64_t zero[4];
	const uint64_t *d = ke != NULL ? ke->ke_data : zero;
	int64_t normal = ke != NULL ? ke->ke_normal : 1, v;

	switch (kv->kv_ag->ag_kind) {
	case DTRACEAGG_AVG:
		/* unlike the default column, dtrace divides unsigned here */
		v = d[0] == 0 ? 0 : (int64_t)(d[1] / (uint64_t)normal / d[0]);
		break;
	case DTRACEAGG_STDDEV:
		v = (int64_t)kc_agg_stddev(d, normal);
		break;
	default:
		v = (int64_t)d[0] / normal;
		break;
	}
	memcpy(buf, &v, 8);
}

/* Format state while one row is printed. */
struct kc_aggfmt {
	const struct kc_aggs *kf_ka;
	const uint32_t	*kf_varids;
	uint32_t	kf_nv;
	const struct kc_aggrow *kf_row;
	uint32_t	kf_key;		/* next key a conversion takes */
	const struct dof_laction *kf_keyact; /* the key kc_agg_nextkey took */
	uint32_t	kf_val;		/* next aggregation %@ takes */
	uint8_t		kf_buf[8];
	char		kf_why[128];
};

/* The next key as a value; -1 when the format wants more keys. */
static int
kc_agg_nextkey(struct kc_aggfmt *kf, struct kc_val *v)
{
	const struct dof_agg *ag = kf->kf_row->kr_ag;
	const struct dof_laction *k;

	if (kf->kf_key >= ag->ag_nkeys) {
		snprintf(kf->kf_why, sizeof (kf->kf_why),
		    "conversion %u needs a key, the aggregation has %u",
		    kf->kf_key + 1, ag->ag_nkeys);
		return -1;
	}
	k = &kc_agg_keyacts(kf->kf_ka, ag)[kf->kf_key++];
	kf->kf_keyact = k;
	v->kv_data = kf->kf_row->kr_key + k->la_rec_off;
	v->kv_size = k->la_rec_size;
	v->kv_isstr = k->la_rec_isstr;
	return 0;
}

/* A key as a signed integer of its size (a '*' width or precision). */
static int64_t
kc_agg_keysint(const struct kc_val *v)
{
	int8_t i8;
	int16_t i16;
	int32_t i32;
	int64_t i64 = 0;

	switch (v->kv_size) {
	case 1:
		memcpy(&i8, v->kv_data, 1);
		return i8;
	case 2:
		memcpy(&i16, v->kv_data, 2);
		return i16;
	case 4:
		memcpy(&i32, v->kv_data, 4);
		return i32;
	case 8:
		memcpy(&i64, v->kv_data, 8);
		return i64;
	}
	return 0;
}

/* Resolve '*' width and precision from the keys. */
static int
kc_agg_stars(struct kc_aggfmt *kf, struct kc_spec *s)
{
	struct kc_val v;

	if (s->ks_star_width) {
		if (kc_agg_nextkey(kf, &v) != 0)
			return -1;
		kc_fmt_star(s, 0, kc_agg_keysint(&v));
	}
	if (s->ks_star_prec) {
		if (kc_agg_nextkey(kf, &v) != 0)
			return -1;
		kc_fmt_star(s, 1, kc_agg_keysint(&v));
	}
	return 0;
}

/*
 * %k of a ustack() or jstack() key: as dtrace, the record's own printer
 * (pid, frames, helper strings), not kernel frames; indented as
 * kc_fmt.c's %k indents kernel stacks (by the width when left-adjusted).
 */
static int
kc_agg_ustackconv(FILE *out, const struct kc_spec *s,
    const struct dof_laction *k, const struct kc_val *v)
{
	int indent = 0;

	if (s->ks_has_width && s->ks_width < 0)
		indent = -s->ks_width;
	else if ((s->ks_flags & KC_SF_LEFT) != 0 && s->ks_has_width)
		indent = s->ks_width;
	(void) kc_fmt_ustack(out, v->kv_data, v->kv_size,
	    (uint32_t)k->la_arg, (uint32_t)(k->la_arg >> 32), indent);
	return 0;
}

/* One conversion of a printa() format. */
static int
kc_agg_conv(FILE *out, struct kc_aggfmt *kf, struct kc_spec *s)
{
	const struct kc_aggvar *kv;
	const struct kc_agge *ke;
	struct kc_val v = { kf->kf_buf, 8, 0 };
	uint32_t p;

	memset(kf->kf_buf, 0, sizeof (kf->kf_buf));
	if (s->ks_conv == '%')
		return kc_fmt_conv(out, s, &v, kf->kf_why,
		    sizeof (kf->kf_why));
	if (kc_agg_stars(kf, s) != 0)
		return -1;
	if (!s->ks_agg) {
		if (kc_agg_nextkey(kf, &v) != 0)
			return -1;
		if (s->ks_conv == 'k' && kc_agg_isstack(kf->kf_keyact) &&
		    kf->kf_keyact->la_kind != DTRACEACT_STACK)
			return kc_agg_ustackconv(out, s, kf->kf_keyact, &v);
		return kc_fmt_conv(out, s, &v, kf->kf_why,
		    sizeof (kf->kf_why));
	}
	/* %@ conversions beyond the aggregations repeat the last one */
	p = kf->kf_val < kf->kf_nv ? kf->kf_val++ : kf->kf_nv - 1;
	kv = &kf->kf_ka->ka_vars[kf->kf_varids[p]];
	ke = kf->kf_row->kr_ents[p];
	if (kc_agg_ishist(kv->kv_ag->ag_kind)) {
		kc_agg_valcol(out, kf->kf_ka, kf->kf_varids[p], ke);
		return 0;
	}
	kc_agg_scalar(kv, ke, kf->kf_buf);
	return kc_fmt_conv(out, s, &v, kf->kf_why, sizeof (kf->kf_why));
}

/* printa("fmt", ...) for one row.  0, or -1 with kf_why set. */
static int
kc_agg_fmtrow(FILE *out, struct kc_aggfmt *kf, const char *fmt)
{
	struct kc_spec s;
	const char *p = fmt;

	kf->kf_key = 0;
	kf->kf_val = 0;
	while (*p != '\0') {
		if (*p != '%') {
			fputc(*p++, out);
			continue;
		}
		p++;
		memset(&s, 0, sizeof (s));
		if (kc_fmt_parse_spec(&p, &s, kf->kf_why,
		    sizeof (kf->kf_why)) != 0 ||
		    kc_agg_conv(out, kf, &s) != 0)
			return -1;
	}
	return 0;
}

/* Print the rows of "varids", default or formatted. */
static int
kc_agg_print(struct kc_aggpr *pr, const char *fmt, const uint32_t *varids,
    uint32_t nv)
{
	struct kc_aggs *ka = pr->kp_ka;
	FILE *out = pr->kp_out;
	struct kc_aggtab tab;
	struct kc_aggrow *rows;
	struct kc_aggfmt kf;
	uint32_t i, n;
	int rc;

	if ((rc = kc_agg_rows(ka, varids, nv, &tab)) != 0)
		return rc;
	rows = tab.kt_rows;
	n = tab.kt_n;
	kc_agg_sort(ka, varids, nv, rows, n);
	memset(&kf, 0, sizeof (kf));
	kf.kf_ka = ka;
	kf.kf_varids = varids;
	kf.kf_nv = nv;
	for (i = 0; i < n; i++) {
		if (fmt == NULL) {
			kc_agg_line(pr, varids, nv, &rows[i]);
			continue;
		}
		kf.kf_row = &rows[i];
		if (kc_agg_fmtrow(out, &kf, fmt) != 0) {
			fprintf(stderr, "kdt: printa format \"%s\": %s\n", fmt,
			    kf.kf_why);
			rc = -EINVAL;
			break;
		}
	}
	kc_agg_rows_free(&tab);
	return rc;
}

int
kc_aggs_printa(struct kc_aggs *ka, FILE *out, const char *fmt,
    const uint32_t *varids, uint32_t nvarids)
{
	struct kc_aggpr pr;
	uint32_t p;
	int rc;

	if ((rc = kc_agg_check_vars(ka, varids, nvarids)) != 0)
		return rc;
	for (p = 0; p < nvarids; p++)
		ka->ka_vars[varids[p]].kv_printed = 1;
	if (fmt == NULL)
		fputc('\n', out);
	memset(&pr, 0, sizeof (pr));
	pr.kp_ka = ka;
	pr.kp_out = out;
	return kc_agg_print(&pr, fmt, varids, nvarids);
}

int
kc_aggs_print_all(struct kc_aggs *ka, FILE *out)
{
	uint32_t i, v, n = ka->ka_den->den_nvarids;
	int rev = kc_agg_opt_set(ka, DTRACEOPT_AGGSORTREV);
	struct kc_aggpr pr;
	int rc;

	memset(&pr, 0, sizeof (pr));
	pr.kp_ka = ka;
	pr.kp_out = out;
	for (i = 1; i <= n; i++) {
		v = rev ? n + 1 - i : i;
		if (ka->ka_vars[v].kv_ag == NULL || ka->ka_vars[v].kv_printed)
			continue;
		if ((rc = kc_agg_print(&pr, NULL, &v, 1)) != 0)
			return rc;
	}
	return 0;
}

/* ---- clear, trunc, normalize, denormalize ---- */

static int
kc_agg_entcmp(const void *pa, const void *pb, void *arg)
{
	const struct kc_agge *a = *(const struct kc_agge * const *)pa;
	const struct kc_agge *b = *(const struct kc_agge * const *)pb;
	const struct kc_aggs *ka = arg;
	int c = kc_agg_valcmp(ka->ka_vars[a->ke_varid].kv_ag, a->ke_data,
	    b->ke_data);

	return c != 0 ? c : kc_agg_keycmp(ka, 0, a->ke_ag, a->ke_key,
	    b->ke_ag, b->ke_key);
}

/* trunc(@a, n): keep the n largest values (n < 0: the -n smallest). */
static int
kc_agg_trunc(struct kc_aggs *ka, uint32_t varid, int64_t keep)
{
	struct kc_agge **v;
	uint32_t i, n = 0;
	uint64_t k = keep < 0 ? 0 - (uint64_t)keep : (uint64_t)keep;

	v = calloc((size_t)ka->ka_nents + 1, sizeof (*v));
	if (v == NULL)
		return -ENOMEM;
	for (i = 0; i < ka->ka_nents; i++)
		if (ka->ka_ents[i].ke_varid == varid &&
		    !ka->ka_ents[i].ke_dead)
			v[n++] = &ka->ka_ents[i];
	qsort_r(v, n, sizeof (*v), kc_agg_entcmp, ka);
	for (i = 0; i < n; i++) {
		if (keep > 0 && n - i <= k)
			continue;	/* among the k largest */
		if (keep < 0 && i < k)
			continue;	/* among the k smallest */
		v[i]->ke_dead = 1;
	}
	free(v);
	return 0;
}

/* clear(): dtrace zeroes the value, keeping l/llquantize parameters. */
static void
kc_agg_clear(struct kc_aggs *ka, uint32_t varid)
{
	const struct dof_agg *ag = ka->ka_vars[varid].kv_ag;
	uint32_t i, skip = ag->ag_kind == DTRACEAGG_LQUANTIZE ||
	    ag->ag_kind == DTRACEAGG_LLQUANTIZE;

	for (i = 0; i < ka->ka_nents; i++)
		if (ka->ka_ents[i].ke_varid == varid)
			memset(ka->ka_ents[i].ke_data + skip, 0,
			    ag->ag_datasize - skip * 8);
}

/* normalize()/denormalize(): the entries that exist now (as dtrace). */
static void
kc_agg_normal(struct kc_aggs *ka, uint32_t varid, int64_t normal)
{
	uint32_t i;

	for (i = 0; i < ka->ka_nents; i++)
		if (ka->ka_ents[i].ke_varid == varid)
			ka->ka_ents[i].ke_normal = normal;
}

int
kc_aggs_libact(struct kc_aggs *ka, uint32_t libact, uint32_t varid,
    int64_t arg, int has_arg)
{
	if (varid == 0 || varid > ka->ka_den->den_nvarids ||
	    ka->ka_vars[varid].kv_ag == NULL)
		return -EINVAL;
	switch (libact) {
	case KDT_LIBACT_CLEAR:
		kc_agg_clear(ka, varid);
		return 0;
	case KDT_LIBACT_NORMALIZE:
		if (!has_arg || arg <= 0)
			return -EINVAL;
		kc_agg_normal(ka, varid, arg);
		return 0;
	case KDT_LIBACT_DENORMALIZE:
		kc_agg_normal(ka, varid, 1);
		return 0;
	case KDT_LIBACT_TRUNC:
		return kc_agg_trunc(ka, varid, has_arg ? arg : 0);
	}
	return -EINVAL;
}

/* ---- run-time options ---- */

void
kc_aggs_setopt(struct kc_aggs *ka, uint32_t opt, uint64_t val)
{
	if (opt < DTRACEOPT_MAX)
		ka->ka_opts[opt] = val;
}

/* The aggregation options setopt() may name at run time. */
static const struct {
	const char	*ko_name;
	uint32_t	ko_opt;
} kc_agg_optnames[] = {
	{ "aggsortkey", DTRACEOPT_AGGSORTKEY },
	{ "aggsortrev", DTRACEOPT_AGGSORTREV },
	{ "aggsortpos", DTRACEOPT_AGGSORTPOS },
	{ "aggsortkeypos", DTRACEOPT_AGGSORTKEYPOS },
	{ "aggzoom", DTRACEOPT_AGGZOOM },
	{ "aggpack", DTRACEOPT_AGGPACK },
	{ "agghist", DTRACEOPT_AGGHIST },
};

/*
 * A run-time option value as dtrace reads one: yes/enable/enabled/true/
 * on/set give 1, their opposites turn the option off, else a number.
 * An omitted value (NULL or "", as setopt("x") records it) gives 1.
 */
static int
kc_agg_optval(const char *v, uint64_t *out)
{
	static const char *const on[] = { "yes", "enable", "enabled", "true",
	    "on", "set" };
	static const char *const off[] = { "no", "disable", "disabled",
	    "false", "off", "unset" };
	unsigned long long n;
	char *end;
	uint32_t i;

	*out = 1;
	if (v == NULL || *v == '\0')
		return 0;
	for (i = 0; i < sizeof (on) / sizeof (on[0]); i++) {
		if (strcasecmp(v, on[i]) == 0)
			return 0;
		if (strcasecmp(v, off[i]) == 0) {
			*out = DTRACEOPT_UNSET;
			return 0;
		}
	}
	errno = 0;
	n = strtoull(v, &end, 0);
	if (*end != '\0' || errno != 0 || *v == '-')
		return -EINVAL;
	*out = n;
	return 0;
}

int
kc_aggs_setopt_name(struct kc_aggs *ka, const char *name, const char *value)
{
	uint64_t v;
	uint32_t i;

	if (strcmp(name, "encoding") == 0) {
		if (value != NULL && strcmp(value, "ascii") == 0)
			ka->ka_enc = KC_AGG_ENC_ASCII;
		else if (value != NULL && strcmp(value, "utf8") == 0)
			ka->ka_enc = KC_AGG_ENC_UTF8;
		else
			return -EINVAL;
		return 0;
	}
	for (i = 0; i < sizeof (kc_agg_optnames) /
	    sizeof (kc_agg_optnames[0]); i++) {
		if (strcmp(name, kc_agg_optnames[i].ko_name) != 0)
			continue;
		if (kc_agg_optval(value, &v) != 0)
			return -EINVAL;
		kc_aggs_setopt(ka, kc_agg_optnames[i].ko_opt, v);
		return 0;
	}
	return 1;
}
