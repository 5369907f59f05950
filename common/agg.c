/*
 * agg.c -- aggregation bucket maths and the per-CPU aggregation buffer.
 *
 * The theory (value words of each function, buffer layout, the worked
 * example) lives in agg.h; the bucket rules are reference 3.2 and 3.4.
 * Callers: the ECB runner in probe context (kmod/kd_probe.c and the
 * userspace engine) calls agg_update(); the loader (dof_load.c) sizes
 * values with agg_data_size(); readers (consumer/kc_agg.c, on a live
 * snapshot or on a region image from a dump) call agg_buf_check() and
 * then walk with agg_next(); the printers use the bucket labels.
 *
 * This file is compiled into kdt.ko: no floating point, no 128-bit
 * division (stddev's sum of squares is kept as two 64-bit words and only
 * added and multiplied here), no recursion, no allocation.
 */
#include "kdt_env.h"
#include "kdt_err.h"
#include "dof.h"
#include "dof_load.h"
#include "agg.h"

#define AGG_I64_MAX	((int64_t)(~0ULL >> 1))
#define AGG_I64_MIN	(-AGG_I64_MAX - 1)
/* Largest value an aggregation may have (lquantize's 65535 levels fit). */
#define AGG_MAX_DATASIZE	(1u << 20)
/* Largest buffer: entry offsets are 32-bit. */
#define AGG_MAX_BUFSIZE		0xffffffffull

typedef unsigned long long agg_ull;

/* ---- quantize ---- */

/*
 * Index of the highest set bit of a non-zero value: one bsr/lzcnt, not a
 * loop of up to 63 shifts (a kernel address as quantize()'s value cost
 * ~190 instructions per firing that way).
 */
static inline uint32_t
agg_log2(uint64_t v)
{
	return v == 0 ? 0 : 63 - (uint32_t)__builtin_clzll(v);
}

uint32_t
agg_quantize_bucket(int64_t val)
{
	uint64_t mag;
	uint32_t k;

	if (val == 0)
		return AGG_QUANTIZE_ZEROBUCKET;
	if (val > 0)
		return AGG_QUANTIZE_ZEROBUCKET + 1 + agg_log2((uint64_t)val);
	mag = 0 - (uint64_t)val;
	k = agg_log2(mag);
	/* -2^63 has no bucket of its own: the lowest bucket holds it. */
	return k >= 62 ? 0 : 62 - k;
}

int64_t
agg_quantize_label(uint32_t idx)
{
	if (idx < AGG_QUANTIZE_ZEROBUCKET)
		return -((int64_t)1 << (62 - idx));
	if (idx == AGG_QUANTIZE_ZEROBUCKET)
		return 0;
	return (int64_t)1 << (idx - 64);
}

/* ---- lquantize: bits 63..48 step, 47..32 levels, 31..0 base ---- */

int32_t
agg_lquantize_base(uint64_t arg)
{
	return (int32_t)(uint32_t)(arg & 0xffffffffu);
}

uint16_t
agg_lquantize_levels(uint64_t arg)
{
	return (uint16_t)((arg >> 32) & 0xffff);
}

uint16_t
agg_lquantize_step(uint64_t arg)
{
	return (uint16_t)(arg >> 48);
}

static int
agg_lquantize_ok(uint64_t arg)
{
	int64_t limit = (int64_t)agg_lquantize_base(arg) +
	    (int64_t)agg_lquantize_levels(arg) * agg_lquantize_step(arg);

	return agg_lquantize_step(arg) != 0 &&
	    agg_lquantize_levels(arg) != 0 && limit <= 0x7fffffff;
}

/* Word index (after the parameter word) of a value: 0 underflow, ... */
static uint32_t
agg_lquantize_slot(uint64_t arg, int64_t val)
{
	int64_t v = (int32_t)(uint32_t)((uint64_t)val & 0xffffffffu);
	int64_t base = agg_lquantize_base(arg);
	int64_t level;

	if (v < base)
		return 0;
	level = (v - base) / agg_lquantize_step(arg);
	if (level < agg_lquantize_levels(arg))
		return 1 + (uint32_t)level;
	return 1 + agg_lquantize_levels(arg);
}

/* ---- llquantize: bits 63..48 factor, 47..32 low, 31..16 high,
 * 15..0 nsteps ---- */

struct agg_llq {
	uint64_t	lq_factor;
	uint64_t	lq_low;
	uint64_t	lq_high;
	uint64_t	lq_nsteps;
};

static void
agg_llq_decode(uint64_t arg, struct agg_llq *q)
{
	q->lq_factor = (arg >> 48) & 0xffff;
	q->lq_low = (arg >> 32) & 0xffff;
	q->lq_high = (arg >> 16) & 0xffff;
	q->lq_nsteps = arg & 0xffff;
}

/* factor^e, or 0 when it does not fit in 64 bits. */
static uint64_t
agg_pow(uint64_t factor, uint64_t e)
{
	uint64_t r = 1;

	while (e-- > 0) {
		if (r > ~0ULL / factor)
			return 0;
		r *= factor;
	}
	return r;
}

/* Buckets magnitude m contributes: n - n / factor, n = min(nsteps, f^(m+1)). */
static uint64_t
agg_llq_steps(const struct agg_llq *q, uint64_t next)
{
	return next < q->lq_nsteps ? next : q->lq_nsteps;
}

/*
 * Parameters are valid when factor >= 2, low < high, nsteps >= factor and
 * a multiple of it, factor^(high+1) fits in 64 bits, and every magnitude
 * cuts into equal integer-width parts.
 */
static int
agg_llquantize_ok(uint64_t arg)
{
	struct agg_llq q;
	uint64_t m, next, n;

	agg_llq_decode(arg, &q);
	if (q.lq_factor < 2 || q.lq_low >= q.lq_high ||
	    q.lq_nsteps < q.lq_factor || q.lq_nsteps % q.lq_factor != 0 ||
	    agg_pow(q.lq_factor, q.lq_high + 1) == 0)
		return 0;
	for (m = q.lq_low; m <= q.lq_high; m++) {
		next = agg_pow(q.lq_factor, m + 1);
		n = agg_llq_steps(&q, next);
		if (next % n != 0 || n % q.lq_factor != 0)
			return 0;
	}
	return 1;
}

uint32_t
agg_llquantize_nbuckets(uint64_t arg)
{
	struct agg_llq q;
	uint64_t m, n, total = 2;

	if (!agg_llquantize_ok(arg))
		return 0;
	agg_llq_decode(arg, &q);
	for (m = q.lq_low; m <= q.lq_high; m++) {
		n = agg_llq_steps(&q, agg_pow(q.lq_factor, m + 1));
		total += n - n / q.lq_factor;
		if (total > AGG_MAX_DATASIZE / 8)
			return 0;
	}
	return (uint32_t)total;
}

/* Valid parameters assumed (the loader checked agg_data_size). */
uint32_t
agg_llquantize_bucket(uint64_t arg, int64_t val)
{
	struct agg_llq q;
	uint64_t m, this, next, n, v = (uint64_t)val;
	uint32_t idx = 1;

	agg_llq_decode(arg, &q);
	this = agg_pow(q.lq_factor, q.lq_low);
	if (val < 0 || v < this)
		return 0;
	for (m = q.lq_low; m <= q.lq_high; m++) {
		next = this * q.lq_factor;
		n = agg_llq_steps(&q, next);
		if (v < next)
			return idx + (uint32_t)(v / (next / n) -
			    n / q.lq_factor);
		idx += (uint32_t)(n - n / q.lq_factor);
		this = next;
	}
	return idx;
}

/* Lower edge of a bucket; bucket 0 gives factor^low (the "<" bound). */
int64_t
agg_llquantize_label(uint64_t arg, uint32_t idx)
{
	struct agg_llq q;
	uint64_t m, this, next, n, nb;

	agg_llq_decode(arg, &q);
	this = agg_pow(q.lq_factor, q.lq_low);
	if (idx == 0)
		return (int64_t)this;
	idx--;
	for (m = q.lq_low; m <= q.lq_high; m++) {
		next = this * q.lq_factor;
		n = agg_llq_steps(&q, next);
		nb = n - n / q.lq_factor;
		if (idx < nb)
			return (int64_t)(this + idx * (next / n));
		idx -= (uint32_t)nb;
		this = next;
	}
	return (int64_t)this;
}

/* ---- values ---- */

uint32_t
agg_data_size(uint32_t kind, uint64_t arg)
{
	uint32_t nb;

	switch (kind) {
	case DTRACEAGG_COUNT:
	case DTRACEAGG_MIN:
	case DTRACEAGG_MAX:
	case DTRACEAGG_SUM:
		return 8;
	case DTRACEAGG_AVG:
		return 16;
	case DTRACEAGG_STDDEV:
		return 32;
	case DTRACEAGG_QUANTIZE:
		return AGG_QUANTIZE_NBUCKETS * 8;
	case DTRACEAGG_LQUANTIZE:
		if (!agg_lquantize_ok(arg))
			return 0;
		return ((uint32_t)agg_lquantize_levels(arg) + 3) * 8;
	case DTRACEAGG_LLQUANTIZE:
		nb = agg_llquantize_nbuckets(arg);
		return nb == 0 ? 0 : (nb + 1) * 8;
	}
	return 0;
}

void
agg_data_init(uint32_t kind, uint64_t arg, uint64_t *data)
{
	memset(data, 0, agg_data_size(kind, arg));
	if (kind == DTRACEAGG_MIN)
		data[0] = (uint64_t)AGG_I64_MAX;
	else if (kind == DTRACEAGG_MAX)
		data[0] = (uint64_t)AGG_I64_MIN;
	else if (kind == DTRACEAGG_LQUANTIZE || kind == DTRACEAGG_LLQUANTIZE)
		data[0] = arg;
}

/* (hi, lo) += a * a, for the stddev sum of squares, in 64-bit pieces. */
static void
agg_sq_add(uint64_t *lo, uint64_t *hi, uint64_t a)
{
	uint64_t ah = a >> 32, al = a & 0xffffffffu;
	uint64_t mid = ah * al;		/* < 2^64: both halves < 2^32 */
	uint64_t plo = al * al, phi = ah * ah, t;

	/* a^2 = phi * 2^64 + 2 * mid * 2^32 + plo */
	phi += mid >> 31;
	t = mid << 33;
	plo += t;
	if (plo < t)
		phi++;
	*lo += plo;
	if (*lo < plo)
		phi++;
	*hi += phi;
}

void
agg_data_apply(uint32_t kind, uint64_t arg, uint64_t *data, int64_t val,
    int64_t incr)
{
	uint64_t mag;

	switch (kind) {
	case DTRACEAGG_COUNT:
		data[0]++;
		break;
	case DTRACEAGG_SUM:
		data[0] += (uint64_t)val;
		break;
	case DTRACEAGG_MIN:
		if (val < (int64_t)data[0])
			data[0] = (uint64_t)val;
		break;
	case DTRACEAGG_MAX:
		if (val > (int64_t)data[0])
			data[0] = (uint64_t)val;
		break;
	case DTRACEAGG_AVG:
		data[0]++;
		data[1] += (uint64_t)val;
		break;
	case DTRACEAGG_STDDEV:
		mag = val < 0 ? 0 - (uint64_t)val : (uint64_t)val;
		data[0]++;
		data[1] += (uint64_t)val;
		agg_sq_add(&data[2], &data[3], mag);
		break;
	case DTRACEAGG_QUANTIZE:
		data[agg_quantize_bucket(val)] += (uint64_t)incr;
		break;
	case DTRACEAGG_LQUANTIZE:
		data[1 + agg_lquantize_slot(arg, val)] += (uint64_t)incr;
		break;
	case DTRACEAGG_LLQUANTIZE:
		data[1 + agg_llquantize_bucket(arg, val)] += (uint64_t)incr;
		break;
	}
}

void
agg_data_merge(uint32_t kind, uint64_t arg, uint64_t *dst,
    const uint64_t *src)
{
	uint32_t i, n = agg_data_size(kind, arg) / 8;

	switch (kind) {
	case DTRACEAGG_MIN:
		if ((int64_t)src[0] < (int64_t)dst[0])
			dst[0] = src[0];
		return;
	case DTRACEAGG_MAX:
		if ((int64_t)src[0] > (int64_t)dst[0])
			dst[0] = src[0];
		return;
	case DTRACEAGG_STDDEV:
		dst[0] += src[0];
		dst[1] += src[1];
		dst[2] += src[2];
		dst[3] += src[3] + (dst[2] < src[2]);
		return;
	case DTRACEAGG_LQUANTIZE:
	case DTRACEAGG_LLQUANTIZE:
		i = 1;		/* word 0 is the parameter word */
		break;
	default:
		i = 0;
		break;
	}
	for (; i < n; i++)
		dst[i] += src[i];
}

/* ---- the per-CPU buffer ---- */

static uint64_t
agg_heap_off(uint32_t nbuckets)
{
	return (AGG_BUF_HDRSIZE + (uint64_t)nbuckets * 4 + 7) & ~7ULL;
}

static uint32_t *
agg_heads(struct agg_buf *ab)
{
	return (uint32_t *)(ab + 1);
}

int
agg_buf_init(void *buf, uint64_t size, uint32_t cpu, struct kdt_err *err)
{
	struct agg_buf *ab = buf;
	uint32_t nb = 1;

	if (size < AGG_BUF_HDRSIZE + 256 || size > AGG_MAX_BUFSIZE ||
	    ((uintptr_t)buf & 7) != 0)
		return kdt_err_set(err, EINVAL, "AGG_BUF", KDT_ERR_NOOFF,
		    "aggregation buffer of cpu %u: size %llu is outside %u..%llu bytes or the buffer is not 8-aligned",
		    cpu, (agg_ull)size, AGG_BUF_HDRSIZE + 256,
		    (agg_ull)AGG_MAX_BUFSIZE);
	/* About one chain per 256 bytes of buffer, at most 64 Ki chains. */
	while (nb < 65536 && (uint64_t)nb * 2 * 256 <= size)
		nb *= 2;
	memset(ab, 0, agg_heap_off(nb));
	ab->ab_magic = AGG_BUF_MAGIC;
	ab->ab_cpu = cpu;
	ab->ab_size = size;
	ab->ab_nbuckets = nb;
	ab->ab_heap_off = agg_heap_off(nb);
	return 0;
}

/* ab_drops is a running total: the reader reports how much it grew. */
void
agg_buf_reset(struct agg_buf *ab)
{
	memset(agg_heads(ab), 0, (uint64_t)ab->ab_nbuckets * 4);
	ab->ab_nents = 0;
	ab->ab_heap_used = 0;
	ab->ab_last = 0;
}

#define AGG_FNV_PRIME	16777619u

/*
 * FNV-1a over the aggregation id and the key bytes.  "len" bytes are
 * hashed one by one; the "zeros" bytes after them are known to be zero:
 * each would only multiply by the prime (x ^ 0 == x), so they are applied
 * as one multiplication by prime^zeros -- the same hash as over all
 * len + zeros bytes, for a string key in a long strsize field at the
 * cost of its characters (agg_update_sig()).
 */
static uint32_t
agg_hash(uint32_t aggid, const uint8_t *key, uint32_t len, uint32_t zeros)
{
	uint32_t h = 2166136261u, m = AGG_FNV_PRIME, p = 1;
	uint32_t i;

	for (i = 0; i < 4; i++) {
		h ^= (aggid >> (8 * i)) & 0xff;
		h *= AGG_FNV_PRIME;
	}
	for (i = 0; i < len; i++) {
		h ^= key[i];
		h *= AGG_FNV_PRIME;
	}
	for (; zeros != 0; zeros >>= 1) {	/* p = prime^zeros, mod 2^32 */
		if (zeros & 1)
			p *= m;
		m *= m;
	}
	return h * p;
}

/*
 * Equal keys; the common integer sizes without a call to memcmp, longer
 * keys (multiples of 8 bytes, agg.h) a word at a time: memcmp() is a byte
 * loop in the kernel, ~5 instructions a byte of a 256-byte string key.
 */
static inline __attribute__((__always_inline__)) int
agg_key_eq(const void *a, const void *b, uint32_t n)
{
	const uint8_t *pa = a, *pb = b;
	uint64_t x8, y8;
	uint32_t x4, y4, i;

	if (n == 8) {
		memcpy(&x8, a, 8);
		memcpy(&y8, b, 8);
		return x8 == y8;
	}
	if (n == 4) {
		memcpy(&x4, a, 4);
		memcpy(&y4, b, 4);
		return x4 == y4;
	}
	if ((n & 7) != 0)
		return n == 0 || memcmp(a, b, n) == 0;
	for (i = 0; i < n; i += 8) {
		memcpy(&x8, pa + i, 8);
		memcpy(&y8, pb + i, 8);
		if (x8 != y8)
			return 0;
	}
	return 1;
}

/* The entry of "ag" and "key" (its first "sig" bytes compared, agg_update_sig). */
/*
 * Equal keys of "n" bytes, n a multiple of 8: words only, no call, two
 * per turn (a 32-byte execname key is two turns, not four).
 */
static inline int
agg_words_eq(const void *a, const void *b, uint32_t n)
{
	const uint8_t *pa = a, *pb = b;
	uint64_t x8, y8, x, y;
	uint32_t i;

	for (i = 0; i + 16 <= n; i += 16) {
		memcpy(&x8, pa + i, 8);
		memcpy(&y8, pb + i, 8);
		memcpy(&x, pa + i + 8, 8);
		memcpy(&y, pb + i + 8, 8);
		if (x8 != y8 || x != y)
			return 0;
	}
	if (i == n)
		return 1;
	memcpy(&x8, pa + i, 8);
	memcpy(&y8, pb + i, 8);
	return x8 == y8;
}

static struct agg_ent *
agg_find(struct agg_buf *ab, const struct dof_agg *ag, const void *key,
    uint32_t sig, uint32_t hash)
{
	uint8_t *base = (uint8_t *)ab;
	uint32_t off = agg_heads(ab)[hash & (ab->ab_nbuckets - 1)];
	struct agg_ent *ae;

	while (off != 0) {
		ae = (struct agg_ent *)(base + off);
		if (ae->ae_hash == hash && ae->ae_aggid == ag->ag_id &&
		    agg_key_eq(ae + 1, key, sig))
			return ae;
		off = ae->ae_next;
	}
	return NULL;
}

/*
 * agg_update() past the one-entry cache (below): hash, chain walk, a new
 * entry when absent ("sig": agg_update_sig(); last, so that the callers
 * pass val and incr in the registers they got them in).  Out of line, so that a cache hit does not pay the
 * saved registers of this path.  Probe context.
 */
static __attribute__((__noinline__)) int
agg_update_find(struct agg_buf *ab, const struct dof_agg *ag,
    const void *key, int64_t val, int64_t incr, uint32_t sig)
{
	uint32_t hash, *head;
	struct agg_ent *ae;
	uint64_t need, off;

	/* the cache for the key sizes agg_update() leaves to this path */
	if (ab->ab_last - ab->ab_heap_off < ab->ab_heap_used) {
		ae = (struct agg_ent *)((uint8_t *)ab + ab->ab_last);
		if (ae->ae_aggid == ag->ag_id && agg_key_eq(ae + 1, key, sig))
			goto apply;
	}
	hash = agg_hash(ag->ag_id, key, sig, ag->ag_keysize - sig);
	ae = agg_find(ab, ag, key, sig, hash);
	if (ae == NULL) {
		need = AGG_ENT_HDRSIZE + (uint64_t)ag->ag_keysize +
		    ag->ag_datasize;
		off = ab->ab_heap_off + ab->ab_heap_used;
		if (!kdt_range_ok(off, need, ab->ab_size)) {
			ab->ab_drops++;
			return -ENOSPC;
		}
		ae = (struct agg_ent *)((uint8_t *)ab + off);
		head = &agg_heads(ab)[hash & (ab->ab_nbuckets - 1)];
		ae->ae_next = *head;
		ae->ae_hash = hash;
		ae->ae_aggid = ag->ag_id;
		ae->ae_keysize = ag->ag_keysize;
		ae->ae_datasize = ag->ag_datasize;
		ae->ae_pad = 0;
		if (ag->ag_keysize != 0)
			memcpy(ae + 1, key, ag->ag_keysize);
		agg_data_init(ag->ag_kind, ag->ag_arg,
		    (uint64_t *)((uint8_t *)(ae + 1) + ag->ag_keysize));
		*head = (uint32_t)off;
		ab->ab_heap_used += need;
		ab->ab_nents++;
	}
	ab->ab_last = (uint64_t)((uint8_t *)ae - (uint8_t *)ab);
apply:
	agg_data_apply(ag->ag_kind, ag->ag_arg, (uint64_t *)agg_ent_data(ae),
	    val, incr);
	return 0;
}

/*
 * Probe context: no locks, no allocation, no sleeping.
 *
 * The one-entry cache: ab_last names the entry of the previous update.
 * A probe that updates one aggregation, keyless or with a key that
 * repeats (a count() per probe, @[pid] in a loop), finds it there with
 * one key comparison, without hashing the key or walking a chain; any
 * other update costs that comparison more.  The hint is used only when
 * it lies inside the used heap (a buffer in a region may have been
 * written by anyone; 0, none, is below the heap), and names a whole
 * entry there: agg_update_find() is the only writer of ab_last besides
 * the resets (agg.h).  count() is applied in place.
 */
int
agg_update(struct agg_buf *ab, const struct dof_agg *ag, const void *key,
    int64_t val, int64_t incr)
{
	struct agg_ent *ae;
	uint64_t *d;
	uint32_t n = ag->ag_keysize;

	/* keys of 0 and 8 bytes here; others (memcmp) in the slow path */
	if (ab->ab_last - ab->ab_heap_off < ab->ab_heap_used &&
	    (n == 0 || n == 8)) {
		ae = (struct agg_ent *)((uint8_t *)ab + ab->ab_last);
		if (ae->ae_aggid == ag->ag_id && agg_key_eq(ae + 1, key, n)) {
			d = (uint64_t *)((uint8_t *)(ae + 1) + n);
			if (ag->ag_kind == DTRACEAGG_COUNT)
				d[0]++;
			else
				agg_data_apply(ag->ag_kind, ag->ag_arg, d,
				    val, incr);
			return 0;
		}
	}
	return agg_update_find(ab, ag, key, val, incr, n);
}

/*
 * Probe context.  agg_update() for a key whose bytes from "sig" (a
 * multiple of 8, at most ag_keysize) to ag_keysize are zero, as are those
 * of every entry of "ag" in the buffer -- the caller knows every key of
 * the aggregation is written that way (ecb.c's simple execname keys: the
 * task name, then zeros to strsize).  Only the first "sig" bytes are
 * compared and hashed one by one; the hash, the entry and the value are
 * those agg_update() makes.
 */
/*
 * agg_data_apply() returning agg_update()'s 0: a cache hit in
 * agg_update_sig() ends in a tail call to it, so that the hit path
 * saves no register.  Probe context.
 */
static __attribute__((__noinline__)) int
agg_apply_hit(const struct dof_agg *ag, uint64_t *data, int64_t val,
    int64_t incr)
{
	agg_data_apply(ag->ag_kind, ag->ag_arg, data, val, incr);
	return 0;
}

int
agg_update_sig(struct agg_buf *ab, const struct dof_agg *ag,
    const void *key, uint32_t sig, int64_t val, int64_t incr)
{
	struct agg_ent *ae;
	uint64_t *d;

	if (sig > ag->ag_keysize || (sig & 7) != 0)
		sig = ag->ag_keysize;
	/* the one-entry cache, as agg_update()'s, for keys of whole words
	   (every key: agg.h) */
	if (ab->ab_last - ab->ab_heap_off < ab->ab_heap_used &&
	    (sig & 7) == 0) {
		ae = (struct agg_ent *)((uint8_t *)ab + ab->ab_last);
		if (ae->ae_aggid != ag->ag_id || !agg_words_eq(ae + 1, key, sig))
			return agg_update_find(ab, ag, key, val, incr, sig);
		d = (uint64_t *)((uint8_t *)(ae + 1) + ag->ag_keysize);
		/* quantize() in place: agg_data_apply()'s switch reaches it
		   after five comparisons */
		if (ag->ag_kind == DTRACEAGG_QUANTIZE) {
			d[agg_quantize_bucket(val)] += (uint64_t)incr;
			return 0;
		}
		return agg_apply_hit(ag, d, val, incr);
	}
	return agg_update_find(ab, ag, key, val, incr, sig);
}

/* Header rules B1-B4 of agg_buf_check. */
static int
agg_buf_check_hdr(const struct agg_buf *ab, uint64_t len,
    struct kdt_err *err)
{
	if (ab->ab_magic != AGG_BUF_MAGIC)
		return kdt_err_set(err, EINVAL, "AGG_MAGIC", 0,
		    "aggregation buffer: magic 0x%08x is not 0x%08x",
		    ab->ab_magic, AGG_BUF_MAGIC);
	if (ab->ab_size > len || ab->ab_size > AGG_MAX_BUFSIZE)
		return kdt_err_set(err, EINVAL, "AGG_BUF", 8,
		    "aggregation buffer of cpu %u: size 0x%llx exceeds the image length 0x%llx (limit 0x%llx)",
		    ab->ab_cpu, (agg_ull)ab->ab_size, (agg_ull)len,
		    (agg_ull)AGG_MAX_BUFSIZE);
	if (ab->ab_nbuckets == 0 ||
	    (ab->ab_nbuckets & (ab->ab_nbuckets - 1)) != 0 ||
	    ab->ab_heap_off != agg_heap_off(ab->ab_nbuckets) ||
	    ab->ab_heap_off > ab->ab_size)
		return kdt_err_set(err, EINVAL, "AGG_BUF", 16,
		    "aggregation buffer of cpu %u: %u chains (need a power of two) with heap at 0x%llx (need 0x%llx, inside size 0x%llx)",
		    ab->ab_cpu, ab->ab_nbuckets, (agg_ull)ab->ab_heap_off,
		    (agg_ull)agg_heap_off(ab->ab_nbuckets),
		    (agg_ull)ab->ab_size);
	if (ab->ab_heap_used > ab->ab_size - ab->ab_heap_off)
		return kdt_err_set(err, EINVAL, "AGG_BUF", 32,
		    "aggregation buffer of cpu %u: heap use 0x%llx exceeds the heap of 0x%llx bytes",
		    ab->ab_cpu, (agg_ull)ab->ab_heap_used,
		    (agg_ull)(ab->ab_size - ab->ab_heap_off));
	return 0;
}

/* Entry rules B5-B6 for the entry at "off". */
static int
agg_buf_check_ent(const struct agg_buf *ab, uint64_t off, uint64_t end,
    const struct dof_enabling *den, struct kdt_err *err)
{
	const struct agg_ent *ae =
	    (const struct agg_ent *)((const uint8_t *)ab + off);
	const struct dof_agg *ag;

	if (!kdt_range_ok(off, AGG_ENT_HDRSIZE, end))
		return kdt_err_set(err, EINVAL, "AGG_ENT", off,
		    "aggregation buffer of cpu %u: entry header at 0x%llx extends past the heap end 0x%llx",
		    ab->ab_cpu, (agg_ull)off, (agg_ull)end);
	if (ae->ae_aggid == 0 || ae->ae_aggid > den->den_naggs)
		return kdt_err_set(err, EINVAL, "AGG_ENT", off,
		    "aggregation buffer of cpu %u: entry at 0x%llx has aggregation id %u, the enabling has 1..%u",
		    ab->ab_cpu, (agg_ull)off, ae->ae_aggid, den->den_naggs);
	ag = &den->den_aggs[ae->ae_aggid - 1];
	if (ae->ae_keysize != ag->ag_keysize ||
	    ae->ae_datasize != ag->ag_datasize)
		return kdt_err_set(err, EINVAL, "AGG_ENT", off,
		    "aggregation buffer of cpu %u: entry at 0x%llx of aggregation %u has key/value sizes %u/%u, the enabling says %u/%u",
		    ab->ab_cpu, (agg_ull)off, ae->ae_aggid, ae->ae_keysize,
		    ae->ae_datasize, ag->ag_keysize, ag->ag_datasize);
	if (!kdt_range_ok(off + AGG_ENT_HDRSIZE,
	    (uint64_t)ae->ae_keysize + ae->ae_datasize, end))
		return kdt_err_set(err, EINVAL, "AGG_ENT", off,
		    "aggregation buffer of cpu %u: entry at 0x%llx with %u key and %u value bytes extends past the heap end 0x%llx",
		    ab->ab_cpu, (agg_ull)off, ae->ae_keysize,
		    ae->ae_datasize, (agg_ull)end);
	return 0;
}

/*
 * Validate a buffer image before agg_next() walks it.  Rules (tag):
 *  B1  magic is AGG_BUF_MAGIC.  [AGG_MAGIC]
 *  B2  ab_size fits in the image and in 32-bit offsets.  [AGG_BUF]
 *  B3  the chain count is a power of two and the heap starts right after
 *      the chain heads, inside the buffer.  [AGG_BUF]
 *  B4  the used heap lies inside the buffer.  [AGG_BUF]
 *  B5  every entry lies inside the used heap, names an aggregation of
 *      "den" and has exactly its key and value sizes.  [AGG_ENT]
 *  B6  the entries fill the used heap exactly and number ab_nents.
 *      [AGG_ENT]
 * The chains are not followed by readers, so they are not checked.
 */
int
agg_buf_check(const void *buf, uint64_t len, const struct dof_enabling *den,
    struct kdt_err *err)
{
	const struct agg_buf *ab = buf;
	const struct agg_ent *ae;
	uint64_t off, end;
	uint32_t n = 0;
	int rc;

	if (len < AGG_BUF_HDRSIZE)
		return kdt_err_set(err, EINVAL, "AGG_BUF", 0,
		    "aggregation buffer image of %llu bytes is shorter than its %u-byte header",
		    (agg_ull)len, AGG_BUF_HDRSIZE);
	if ((rc = agg_buf_check_hdr(ab, len, err)) != 0)
		return rc;
	off = ab->ab_heap_off;
	end = ab->ab_heap_off + ab->ab_heap_used;
	while (off < end) {
		if ((rc = agg_buf_check_ent(ab, off, end, den, err)) != 0)
			return rc;
		ae = (const struct agg_ent *)((const uint8_t *)ab + off);
		off += AGG_ENT_HDRSIZE + (uint64_t)ae->ae_keysize +
		    ae->ae_datasize;
		n++;
	}
	if (n != ab->ab_nents)
		return kdt_err_set(err, EINVAL, "AGG_ENT", 20,
		    "aggregation buffer of cpu %u: %u entries in the heap, the header says %u",
		    ab->ab_cpu, n, ab->ab_nents);
	return 0;
}

const struct agg_ent *
agg_next(const struct agg_buf *ab, const struct agg_ent *prev)
{
	const uint8_t *base = (const uint8_t *)ab;
	uint64_t off;

	if (prev == NULL)
		off = ab->ab_heap_off;
	else
		off = (uint64_t)((const uint8_t *)prev - base) +
		    AGG_ENT_HDRSIZE + prev->ae_keysize + prev->ae_datasize;
	if (off >= ab->ab_heap_off + ab->ab_heap_used)
		return NULL;
	return (const struct agg_ent *)(base + off);
}
