/*
 * agg.h -- aggregations: bucket maths, the per-CPU aggregation buffer, and
 * how a loaded enabling describes each aggregation.
 *
 * An aggregating statement `@name[k1, k2] = func(expr [, args])` reaches
 * the kernel as a run of actions (reference 3.3): the variable-id action
 * (tuple[0], a constant `setx; ret`), one action per key, optionally one
 * for the increment, then the DTRACEAGG_* action with ntuple = the length
 * of that run.  dof_load() recognises each run and describes it once in a
 * struct dof_agg (dof_load.h); it marks every action with its role
 * (la_role) so the ECB runner knows which actions record into the
 * principal buffer and which build an aggregation key.  Invariant: for a
 * given aggregation id every key has the same size and layout (each key
 * action's value at la_rec_off inside the key, natural alignment, size
 * rounded to 8) and every value has ag_datasize bytes.  Aggregation ids
 * of one variable share kind, parameters and value size, but their keys
 * may differ in size where a key is a stack (@[stack()], @[ustack()],
 * @[stack(5)] of one @variable; dof_load.c rule G5): so entries are
 * hashed, found and sized by aggregation id (ag_keysize of that id),
 * never by variable, and the consumer merges ids of one variable by key
 * layout and bytes (consumer/kc_agg.c).
 *
 * Value words (all 64-bit, reference 3.2): count, sum, min, max: 1 word;
 * avg: count, sum; stddev: count, sum, sum of squares low, high (128-bit);
 * quantize: 127 buckets (index 63 is zero); lquantize: the parameter word,
 * then underflow, levels buckets, overflow; llquantize: the parameter
 * word, then its buckets.
 *
 * Per-CPU aggregation buffer.  One writer per CPU (the ECB runner, with
 * interrupts off in the kernel), so updates take no lock.  Everything is
 * addressed by offsets from the buffer start, never pointers, so a buffer
 * can live in the reserved region and be read from a dump.
 *
 *   +---------+--------------------------+--------------------------------+
 *   | agg_buf | bucket heads             | entry heap: agg_ent, key, data |
 *   | 64 B    | ab_nbuckets x u32 offset | ... growing to ab_size         |
 *   +---------+--------------------------+--------------------------------+
 *
 *   agg_buf:
 *   OFFSET SIZE DESCRIPTION
 *        0    4 ab_magic      AGG_BUF_MAGIC                         since v1
 *        4    4 ab_cpu        cpu that owns it                      since v1
 *        8    8 ab_size       bytes of the whole buffer             since v1
 *       16    4 ab_nbuckets   hash chains, a power of two           since v1
 *       20    4 ab_nents      entries in the heap                   since v1
 *       24    8 ab_heap_off   offset of the entry heap              since v1
 *       32    8 ab_heap_used  heap bytes in use                     since v1
 *       40    8 ab_drops      updates dropped because the heap was full
 *       48    8 ab_last       offset of the entry agg_update() last
 *                             found or made, 0 = none: the writer's hint
 *                             (one-entry cache, below); readers ignore it
 *                             (was zero padding: an older reader is
 *                             unaffected)
 *       56    8 ab_interval   the aggregation interval the buffer
 *                             collects (a live state's buffers in the
 *                             region, rgn.h "Aggregation totals"), 0 =
 *                             none; agg.c never changes it (was zero
 *                             padding: 0 in older images)
 *
 *   agg_ent (24 bytes, 8-aligned, then ae_keysize key bytes, then
 *   ae_datasize value bytes; entries are contiguous in the heap, so a
 *   reader walks them without the hash chains):
 *   OFFSET SIZE DESCRIPTION
 *        0    4 ae_next       offset of the next entry in its chain, 0 = end
 *        4    4 ae_hash       hash of (aggregation id, key)
 *        8    4 ae_aggid      aggregation id (struct dof_agg ag_id)
 *       12    4 ae_keysize    key bytes (multiple of 8)
 *       16    4 ae_datasize   value bytes (multiple of 8)
 *       20    4 ae_pad        zero
 *
 * Worked example: `@c[1] = count()` fired twice on cpu 0 gives one entry
 * (aggregation id 1, key = the 4-byte int 1 padded to 8, value 2):
 *
 *   ae: 00 00 00 00 hh hh hh hh 01 00 00 00 08 00 00 00
 *       08 00 00 00 00 00 00 00
 *   key: 01 00 00 00 00 00 00 00   value: 02 00 00 00 00 00 00 00
 *
 * The consumer snapshots the buffers (merging every CPU's entries with
 * agg_merge) and keeps the authoritative merged state itself; clear(),
 * trunc(), normalize() act on that state (consumer/kc_agg.c).
 */
#ifndef KDT_AGG_H
#define KDT_AGG_H

#include "kdt_env.h"
#include "kdt_err.h"
#include "dof_load.h"

#define AGG_BUF_MAGIC		0x67676164	/* "dagg" in memory order */
#define AGG_BUF_HDRSIZE		64
#define AGG_ENT_HDRSIZE		24
#define AGG_QUANTIZE_NBUCKETS	127
#define AGG_QUANTIZE_ZEROBUCKET	63

struct agg_buf {
	uint32_t	ab_magic;
	uint32_t	ab_cpu;
	uint64_t	ab_size;
	uint32_t	ab_nbuckets;
	uint32_t	ab_nents;
	uint64_t	ab_heap_off;
	uint64_t	ab_heap_used;
	uint64_t	ab_drops;
	uint64_t	ab_last;
	uint64_t	ab_interval;	/* rgn.h, "Aggregation totals" */
};

struct agg_ent {
	uint32_t	ae_next;
	uint32_t	ae_hash;
	uint32_t	ae_aggid;
	uint32_t	ae_keysize;
	uint32_t	ae_datasize;
	uint32_t	ae_pad;
};

_Static_assert(sizeof (struct agg_buf) == AGG_BUF_HDRSIZE, "agg_buf");
_Static_assert(sizeof (struct agg_ent) == AGG_ENT_HDRSIZE, "agg_ent");

/* ---- bucket maths (reference 3.4); also used by the consumer ---- */

/* Bytes of the value of an aggregating function with parameter "arg";
 * 0 for an unknown kind or invalid parameters. */
uint32_t agg_data_size(uint32_t kind, uint64_t arg);
/* Initial value (min: INT64_MAX, max: INT64_MIN, l/llquantize: param). */
void agg_data_init(uint32_t kind, uint64_t arg, uint64_t *data);
/* Apply one update: value "val", increment "incr" (quantizes; others 1). */
void agg_data_apply(uint32_t kind, uint64_t arg, uint64_t *data,
    int64_t val, int64_t incr);
/* dst op= src, as the function merges across CPUs. */
void agg_data_merge(uint32_t kind, uint64_t arg, uint64_t *dst,
    const uint64_t *src);
/* quantize: bucket index of a value, and the label of a bucket. */
uint32_t agg_quantize_bucket(int64_t val);
int64_t agg_quantize_label(uint32_t idx);
/* lquantize parameter word fields. */
int32_t agg_lquantize_base(uint64_t arg);
uint16_t agg_lquantize_levels(uint64_t arg);
uint16_t agg_lquantize_step(uint64_t arg);
/* llquantize: number of buckets, bucket of a value, lower edge label. */
uint32_t agg_llquantize_nbuckets(uint64_t arg);
uint32_t agg_llquantize_bucket(uint64_t arg, int64_t val);
int64_t agg_llquantize_label(uint64_t arg, uint32_t idx);

/* ---- the per-CPU buffer ---- */

/* Lay out an empty buffer of "size" bytes at "buf".  Setup context. */
int agg_buf_init(void *buf, uint64_t size, uint32_t cpu,
    struct kdt_err *err);
/* Forget every entry (after a snapshot).  Not concurrent with updates.
 * It also forgets ab_last: every change to a buffer other than
 * agg_update() goes through agg_buf_init() or this, so the hint only ever
 * names an entry of the current heap. */
void agg_buf_reset(struct agg_buf *ab);

/*
 * Update the entry of aggregation "ag" for key "key" (ag->ag_keysize
 * bytes) with "val" and "incr", creating it from agg_data_init if absent.
 * 0, or -ENOSPC when the heap is full (ab_drops is bumped).
 * Probe context: no locks, no allocation, no sleeping.
 */
int agg_update(struct agg_buf *ab, const struct dof_agg *ag, const void *key,
    int64_t val, int64_t incr);
/*
 * agg_update() when bytes [sig, ag_keysize) of "key" and of every entry
 * of "ag" in the buffer are known to be zero ("sig" a multiple of 8):
 * only "sig" bytes are compared and hashed byte by byte, with the same
 * result (ae_hash is the same hash of the whole key).  Probe context.
 */
int agg_update_sig(struct agg_buf *ab, const struct dof_agg *ag,
    const void *key, uint32_t sig, int64_t val, int64_t incr);

/*
 * Reader: validate a buffer image (magic, sizes, every entry inside the
 * heap with sizes that match "den"'s aggregations) before walking it.
 */
int agg_buf_check(const void *buf, uint64_t len, const struct dof_enabling *den,
    struct kdt_err *err);
/* Walk the entries of a checked buffer: NULL starts, NULL ends. */
const struct agg_ent *agg_next(const struct agg_buf *ab,
    const struct agg_ent *prev);
static inline const uint8_t *
agg_ent_key(const struct agg_ent *ae)
{
	return (const uint8_t *)(ae + 1);
}
static inline const uint64_t *
agg_ent_data(const struct agg_ent *ae)
{
	return (const uint64_t *)((const uint8_t *)(ae + 1) + ae->ae_keysize);
}

#endif /* KDT_AGG_H */
