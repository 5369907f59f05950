/*
 * kc_agg.h -- the consumer's merged aggregation state of one enabling, and
 * everything dtrace(1) prints from it.
 *
 * Probe context updates per-CPU aggregation buffers (common/agg.h).  The
 * consumer owns the authoritative state: at each snapshot (aggrate, and at
 * the end) the engine hands every CPU's checked buffer to kc_aggs_snap(),
 * which merges its entries into one table keyed by (aggregation variable
 * id, key bytes), and then resets the CPU buffer.  clear(), trunc(), normalize()
 * and denormalize() act on this table (kc_aggs_libact); printa() and the
 * final print at exit read it (reference 5.3, 5.4, 5.6).
 *
 *   engine: agg_buf per cpu --agg_buf_check--> kc_aggs_snap --> table
 *                                                          |
 *      printa action --> kc_aggs_printa --+                |
 *      exit          --> kc_aggs_print_all +-- sort, join by key, print
 *
 * Entries are grouped by aggregation *variable* (ag_varid): several
 * statements may update one @name with different aggregation ids and the
 * same key types -- stack keys (stack(), ustack(), jstack()) of
 * different depths, hence key sizes, included; they print as one
 * aggregation, an entry per key layout and key.  Variable ids are the
 * ones the PRINTA and LIBACT actions return (1..den_nvarids).
 *
 * Called by the live session (consumer/kc_sess.c) of either engine, the
 * engines' snapshots (kc_engine.c, kc_kernel.c) and, for region images,
 * by the record decoder.  Not thread-safe; one owner.
 */
#ifndef KDT_KC_AGG_H
#define KDT_KC_AGG_H

#include <stdio.h>
#include <stdint.h>

struct dof_enabling;
struct agg_buf;
struct kc_aggs;

/* A new, empty state for "den" (kept by reference; must outlive it).
 * NULL when out of memory. */
/*
 * An aggregation value's parts, as dtrace computes them (shared with the
 * export writers, consumer/kc_export.c): avg() and stddev() of the data
 * words d with normalization "normal" (1 for none), and a histogram's
 * number of count words and where they start in d.
 */
int64_t kc_agg_avg(const uint64_t *d, int64_t normal);
uint64_t kc_agg_stddev(const uint64_t *d, int64_t normal);
uint32_t kc_agg_nbuckets(const struct dof_agg *ag);
const int64_t *kc_agg_buckets(const struct dof_agg *ag, const uint64_t *d);

struct kc_aggs *kc_aggs_new(const struct dof_enabling *den);
void kc_aggs_free(struct kc_aggs *ka);

/*
 * Merge one CPU's buffer, already accepted by agg_buf_check() against the
 * same enabling, into the state.  0, or -ENOMEM.
 */
int kc_aggs_snap(struct kc_aggs *ka, const struct agg_buf *ab);

/*
 * Every entry of the table not removed by trunc(), in table order: its
 * variable id, the aggregation whose key layout it has (its first
 * update's: the kind, parameters and value size are the variable's, but
 * stack keys of one variable may differ in size, agg.h), key and value
 * (kept by the table) and its normalize() divisor (1: none).  The export
 * writers (consumer/kc_export.c) read a region's table this way.  The
 * number of entries.
 */
struct dof_agg;
int kc_aggs_walk(const struct kc_aggs *ka,
    void (*fn)(void *arg, uint32_t varid, const struct dof_agg *ag,
    const uint8_t *key, const uint64_t *data, int64_t normal), void *arg);

/*
 * The table as an agg_buf image (agg.h) for the region's totals (rgn.h,
 * "Aggregation totals"): entries removed by trunc() are left out, every
 * other one is written with the first aggregation id of its variable and
 * its merged value (normalize() is a display setting: not applied), the
 * chains empty, ab_size = the bytes used (*len).  At most "cap" bytes
 * (at least AGG_BUF_HDRSIZE + 256): entries that do not fit are counted
 * in *left.  0, or -EINVAL when cap is too small for an empty table.
 */
int kc_aggs_image(const struct kc_aggs *ka, void *buf, uint64_t cap,
    uint64_t *len, uint64_t *left);
/*
 * The same followed by the replay part (rgn.h, "Aggregation totals":
 * at_pos, the 2 * ncpu words "pos", then each written entry's normalize()
 * divisor), image and replay part together within "cap": *len the
 * image's bytes, *xlen the replay part's.  0, -EINVAL, -ENOMEM.
 */
int kc_aggs_totals(const struct kc_aggs *ka, void *buf, uint64_t cap,
    const uint64_t *pos, uint32_t ncpu, uint64_t *len, uint64_t *xlen,
    uint64_t *left);
/*
 * After the totals image "img" was merged (kc_aggs_snap): give its
 * entries the normalize() divisors "norms" (n 8-byte words in image
 * order, at_norm).  -EINVAL when one is below 1 or not in the table.
 */
int kc_aggs_set_normals(struct kc_aggs *ka, const struct agg_buf *img,
    const uint8_t *norms, uint64_t n);

struct rgn_view;
/*
 * A region image's aggregations merged into "ka" (kdt-extract, the crash
 * extension): the buffers, or for a live state's region its totals and
 * the buffers they do not cover (rgn.h, "Aggregation totals").  Buffers
 * and slots that fail their checks, aggregation drops, entries left out
 * of the totals and intervals that are nowhere are reported on "err" as
 * "prog: input: ...".  0 when the numbers are complete, 1 when something
 * is missing (reported), -ENOMEM.
 */
int kc_aggs_region(struct kc_aggs *ka, const struct rgn_view *v,
    const char *prog, const char *input, FILE *err);

/*
 * printa(): print the aggregations "varids[0, nvarids)" together (joined
 * by key, reference 5.3) with format "fmt", or the default layout when fmt
 * is NULL; marks them printed so kc_aggs_print_all() skips them.  0, or
 * -EINVAL when the format is bad (a message naming the format and the
 * problem is printed on "out"'s error companion: stderr).
 */
int kc_aggs_printa(struct kc_aggs *ka, FILE *out, const char *fmt,
    const uint32_t *varids, uint32_t nvarids);

/*
 * At exit: every aggregation not printed by printa, in variable order
 * (reversed with aggsortrev), each sorted, with no separator.  The one
 * newline dtrace prints when tracing stops (with or without
 * aggregations, quiet or not) is the caller's, before this call.
 */
int kc_aggs_print_all(struct kc_aggs *ka, FILE *out);

/*
 * The consumer-side aggregation actions (common/dof_libact.h codes), with
 * dtrace's semantics: KDT_LIBACT_CLEAR zeroes every value keeping the keys
 * (min/max too, so later data merges with 0; l/llquantize keep their
 * parameters); KDT_LIBACT_TRUNC keeps the "arg" entries with the largest
 * values (negative: the smallest; no arg or 0: none); KDT_LIBACT_NORMALIZE
 * divides the displayed values of the entries that exist now by "arg"
 * (entries created later are not normalized); KDT_LIBACT_DENORMALIZE
 * undoes it.  0, or -EINVAL for an unknown code or variable id or a
 * normalization of 0 or less.
 */
int kc_aggs_libact(struct kc_aggs *ka, uint32_t libact, uint32_t varid,
    int64_t arg, int has_arg);

/*
 * setopt() at run time: the printing options (aggsortkey, aggsortrev,
 * aggsortpos, aggsortkeypos, aggzoom) start as den_opts and change here;
 * DTRACEOPT_UNSET turns one off.
 */
void kc_aggs_setopt(struct kc_aggs *ka, uint32_t opt, uint64_t val);
/*
 * setopt("name", "value") as recorded: 0 when "name" is one of the
 * aggregation options above (or aggpack, agghist) and was set, 1 when it
 * is not an aggregation option, -EINVAL for a value dtrace rejects.
 * Values: yes/true/on/enable(d)/set or omitted ("") set it, no/false/
 * off/disable(d)/unset clear it, a number sets that number.  The
 * consumer option "encoding" ("ascii" or "utf8"; a compiler-side option,
 * so not in den_opts: the program's setting comes through
 * kc_aggs_encoding() below) is taken here too: utf8 draws histogram bars in
 * eighths, and chooses the blocks of aggpack lines (unset: UTF-8 unless
 * $TERM is dumb, sun or sun-color).
 */
int kc_aggs_setopt_name(struct kc_aggs *ka, const char *name,
    const char *value);
/*
 * The program's option "encoding" (dc_out's dco_encoding: 0 unset, 1
 * ascii, 2 utf8), set once before printing; it applies to every kc_aggs
 * that no setopt("encoding") has changed.
 */
void kc_aggs_encoding(int enc);

#endif /* KDT_KC_AGG_H */
