/*
 * kc_export.h -- --format=json|perfetto|html: what kdt recorded, for
 * machines, for ui.perfetto.dev and for a browser.
 *
 * kdt-extract --format=F and kdt -ae --format=F hand their region image
 * to kc_print_region_opts() with ko_format set; it passes the image here
 * (consumer/kc_export.c).  The writers are fed by the one decoder
 * (DESIGN.md): the region and its DOF are opened with rgn_open() and
 * dof_load(), every cpu's records are walked with rgn_walk_cpu(), and
 * each record's text is what kc_print.c prints for it, through
 * kc_dec_record() below.  Aggregations are read with agg_buf_check() and
 * agg_next() and merged across CPUs with agg_data_merge() (common/agg.h);
 * their dtrace text comes from kc_aggs_printa() (consumer/kc_agg.h).
 * The same drop, error and torn-record messages as in text mode go to
 * the error stream, and the exit status is the text mode's.
 *
 * ---- JSON lines (--format=json), schema "kdt-json/1" ----
 *
 * One JSON object per line, in this order: one "source", the records
 * (cpu after cpu, oldest first; with --merge all cpus in timestamp
 * order), then per cpu its "drop" and "errors" reports, the "torn"
 * reports where they were found, the aggregation entries, one "printa"
 * per aggregation, and one "end".  Every object has "type".  Integers
 * are JSON numbers (64-bit values as written, signed where dtrace prints
 * them signed); strings are escaped as JSON requires, bytes >= 0x80 as
 * \u00XX (a dump's strings need not be UTF-8), so any JSON parser reads
 * every line.  Timestamps are the recording kernel's monotonic clock in
 * ns (rgn.h rr_timestamp).
 *
 *   {"type":"source", "schema":"kdt-json/1", "prog":"kdt-extract",
 *    "input":"vmcore: region at phys 0x10000000", "release":"6.1.0-..",
 *    "boot_id":"<32 hex>", "region_phys":N|null, "region_size":N,
 *    "ncpu":N, "bufsize":N, "policy":"ring"|"fill"|"switch",
 *    "state":"empty"|"active"|"stopped", "created_ns":N (wall clock),
 *    "kaslr":N, "anonymous":true|false}
 *   {"type":"record", "cpu":N, "timestamp":N, "offset":N (logical offset
 *    in the cpu's stream), "epid":N, "probe_id":N,
 *    "probe":"prov:mod:func:name", "data":[ITEM...], "text":"what dtrace
 *    prints for this record (without the heading line)",
 *    "message":"..." (only when the decoder complained about it)}
 *   {"type":"fault", "cpu":N, "timestamp":N, "offset":N, "epid":N,
 *    "probe":"prov:mod:func:name", "fault":N (DTRACEFLT_*),
 *    "action":N (0 = predicate), "addr":N, "text":"dtrace's error
 *    message"}                          -- an ERROR record (rgn_errrec)
 *   {"type":"drop", "cpu":N, "kind":"principal"|"aggregation",
 *    "count":N, "text":"N drops on CPU n"}          -- only when N > 0
 *   {"type":"errors", "cpu":N, "count":N, "text":".."} -- only when N > 0
 *   {"type":"torn", "cpu":N, "offset":N|null, "what":"..", "text":".."}
 *   {"type":"aggregation", "id":N (variable id), "name":"@N",
 *    "function":"count"|"sum"|"min"|"max"|"avg"|"stddev"|"quantize"|
 *    "lquantize"|"llquantize", "keys":[ITEM...], and either
 *    "value":N (count, sum, min, max; avg and stddev add "count" and
 *    "sum") or "buckets":[{"lower":N|null, "label":"..", "count":N}...]
 *    (non-empty buckets; lower is null for an underflow bucket) with
 *    "total":N}.  The entries are the aggregations the text output
 *    prints at the end, the records' clear(), trunc(), normalize() and
 *    denormalize() carried out as there (kc_engine.h,
 *    kc_dec_apply_libacts; under bufpolicy=switch those of the records
 *    the consumer had not acted on, after its totals and their
 *    normalize() divisors: rgn.h "Aggregation totals", replay; what
 *    cannot be known is said and the status is partial): a cleared
 *    entry is listed
 *    with its values 0, a truncated one is not; an entry normalize()
 *    applies to has "normal":N right after "keys", and its "value",
 *    bucket "count"s and "total" are what dtrace prints, divided by N
 *    (integer division), while avg's and stddev's "count" and "sum" stay
 *    the raw data words
 *   {"type":"printa", "id":N, "text":"dtrace's default printa() text"}
 *   {"type":"end", "records":N, "faults":N, "torn":N, "drops":N,
 *    "aggregation_entries":N}
 *
 *   ITEM: {"action":"trace"|"printf"|"stack"|"sym"|"mod"|"ustack"|
 *    "uaddr"|"tracemem"|"exit"|..|"action-0xNNN", "size":N, then
 *    "type":"int" with "value":N | "type":"string" with "value":".." |
 *    "type":"symbol" with "value":"module`symbol" | "type":"stack" with
 *    "frames":["module`func+0x1f", ...] | "type":"bytes" with
 *    "value":"<hex>"}; a printf's first item also has "format".
 *    DOF carries no aggregation names, so aggregations are named by
 *    variable id, as printa() numbers them.
 *
 * ---- Chrome trace events (--format=perfetto) ----
 *
 * One JSON object {"traceEvents":[...], "displayTimeUnit":"ns",
 * "otherData":{..the source fields..}} that ui.perfetto.dev (and
 * chrome://tracing) opens.  ts and dur are in microseconds with ns
 * precision.  pid 1 is the traced kernel; each cpu is a thread track,
 * tid = cpu + 1, named "CPU n" (metadata events).  Events:
 *   - every record: an instant event (ph "i", scope "t") on its cpu,
 *     named by its probe description, args {"text", "data"};
 *   - slices (ph "X"), by this convention: a record of a probe whose
 *     name is "entry", "start" or "begin" (or ends in "_start",
 *     "-start", "_begin", "-begin", "_entry", "-entry") opens a slice
 *     keyed by prov:mod:func and the name without that suffix -- when
 *     the enabling has a probe that can close it (else it stays an
 *     instant); a later record of the same key with name "return",
 *     "done", "end", "finish" or "exit" (or that ending after "_" or
 *     "-") closes the most recent
 *     open slice of that key on its cpu -- or, when none is open there
 *     (the thread migrated), the most recent on any cpu; the slice is
 *     drawn on the cpu where it began.  So fbt::f:entry/fbt::f:return
 *     pairs give one slice per call of f, irq_handler_entry/exit and
 *     softirq_entry/exit one per handler run, lockstat's
 *     contention-begin/end one per wait, and the toolkit's
 *     do_one_initcall and do_init_module entry/return one per initcall
 *     and per module init.  The slice is named
 *     by the opening record's first string, sym() or mod() item (an
 *     initcall's symbol, a module's name), else the probe function,
 *     else the name without its suffix.  A slice still open at the
 *     newest record (the panic came first) ends there with args
 *     {"unfinished":true}.  A closing record without an opening one (a
 *     ring buffer overwrote it) is only an instant.  Complete events on
 *     one track must nest, and slices of different keys can cross (two
 *     threads' waits on one cpu), so a slice that would cross one still
 *     open on its cpu's track goes to an overlap track of that cpu:
 *     tid = k * 1000000 + cpu + 1, named "CPU n (overlap k)", k <= 15.
 *   - aggregations: a counter (ph "C") per aggregation of a scalar
 *     function, named "@N func()", with one series per key (the 16
 *     largest); histograms give one series "total".  A region holds one
 *     state of the aggregations (the one at stop or death), so each
 *     counter has two samples: 0 at the oldest record and the merged
 *     value at the newest.
 *   - records of uncommitted speculations (kc_vars.h): an instant event
 *     (ph "i", scope "t", cat "speculation") on their cpu at their time,
 *     named "speculation ID (uncommitted)" (or "(committing)": committed
 *     on another cpu, not yet copied), args {"id", "state", "probe",
 *     "text": what dtrace would have printed after commit()};
 *   - with --vars, every variable: a global instant event (scope "g",
 *     cat "variable") at the newest record's time, named by its
 *     kc_vars.h text line ("global g (int32) = 42"), args {"variable":
 *     its kc_vars.h JSON object};
 *   - drops, errors and torn records: global instant events (scope "g")
 *     at the newest record's time, named by their message.
 *
 * ---- HTML report (--format=html) ----
 *
 * One self-contained page (inline CSS and SVG, no script, no network):
 * the source; a timeline (element id "kdt-timeline", an SVG with one
 * lane per cpu, class "lane", the slices above as rect.slice with a
 * <title> giving name and duration, records as line.rec ticks, at most
 * KC_X_HTML_TICKS of them); the KC_X_HTML_SLOW longest slices
 * (table#kdt-slices: the slowest initcalls, module loads, probes); each
 * aggregation as a bar chart (div.agg,
 * svg.bars: the KC_X_HTML_BARS largest keys) or, per key, a histogram
 * (svg.hist); the uncommitted speculations (section "Speculations":
 * table#kdt-speculations, one row per record: id, state, cpu, time,
 * probe, text); with --vars the variables (section "Variables":
 * table#kdt-variables, one row per variable: scope global|array|thread
 * and its kc_vars.h text line); the problems (drops, faults, torn
 * records); and a table of the newest KC_X_HTML_ROWS records
 * (table#kdt-records).
 */
#ifndef KDT_KC_EXPORT_H
#define KDT_KC_EXPORT_H

#include <stdio.h>
#include <stdint.h>

struct kc_opts;
struct kc_dec;
struct rgn_rec;

#define KC_X_HTML_TICKS	20000	/* record ticks drawn on the timeline */
#define KC_X_HTML_BARS	30	/* keys per bar chart */
#define KC_X_HTML_ROWS	1000	/* newest records listed */
#define KC_X_HTML_SLOW	30	/* longest slices listed */

/*
 * "text", "json", "perfetto" or "html" to KC_FORMAT_* (kc.h): 0, or -1
 * when "name" is none of them.
 */
int kc_export_format(const char *name, uint32_t *fmt);

/* The --format= values, for usage texts. */
#define KC_EXPORT_FORMATS	"text|json|perfetto|html"

/*
 * kc_print_region_opts() for ko_format != KC_FORMAT_TEXT: the same
 * arguments and return value (0 decoded, 1 the image or its DOF is
 * unusable).
 */
int kc_export_region(const void *img, uint64_t len, uint64_t phys,
    const char *input, FILE *out, FILE *err, const struct kc_opts *opts);

/*
 * Defined in kc_print.c (the decoder): decode one record as
 * kc_dec_consume() would, its text to "out", its messages to "err",
 * without the heading line.  Records of one cpu must come in stream
 * order.
 */
void kc_dec_record(struct kc_dec *d, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff, FILE *out, FILE *err);

#endif /* KDT_KC_EXPORT_H */
