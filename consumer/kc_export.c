/*
 * kc_export.c -- the export writers: JSON lines, Chrome trace events for
 * Perfetto, a self-contained HTML report.
 *
 * The formats and the slice convention are documented in kc_export.h.
 * kc_print_region_opts() calls kc_export_region() when a --format other
 * than text is asked for.  The work is in three passes over one struct
 * kc_x:
 *
 *   collect   rgn_open + dof_load; every cpu's records (rgn_walk_cpu) into
 *             x_recs, torn/corrupt spots into x_bads; sorted by time when
 *             --merge or a timeline needs it (kc_print.c's --merge rule);
 *             each record decoded to its text by kc_dec_record() (the
 *             aggregation images merged once into one table, x_ka,
 *             before: a printa() record's text prints it); the
 *             records' clear/trunc/normalize carried out on x_ka, its
 *             entries into x_ents
 *   slices    entry/return-style pairs into x_slices (time order);
 *             for Perfetto and HTML also the uncommitted speculations'
 *             records (rgn_walk_spec, decoded like the principal ones)
 *             into x_specs and, with --vars, kc_vars.c's variable lines
 *             (text and JSON); the JSON writer has kc_vars.c print its
 *             own objects
 *   write     kc_x_json(), kc_x_perfetto() or kc_x_html()
 *
 * Memory: the records stay in the image; per record one struct kc_x_rec
 * plus its decoded text.  Function groups, in file order, each under a
 * banner: helpers (escaping, growing arrays), collect, aggregations,
 * typed items, slices, problems (drop and error counts), JSON lines
 * (with the speculation and variable collection before its last
 * functions), Perfetto, HTML, entry point.  Text from the image
 * (strings, probe names, the kernel release) is escaped for JSON or HTML
 * everywhere it is written: a dump is untrusted input.
 */
#define _GNU_SOURCE		/* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "common/rgn.h"
#include "common/dof_load.h"
#include "common/agg.h"
#include "consumer/kc_vars.h"	/* speculations, --vars */
#include "consumer/kc.h"
#include "consumer/kc_agg.h"
#include "consumer/kc_engine.h"
#include "consumer/kc_export.h"
#include "consumer/kc_sym.h"

#define KC_X_NAMELEN	160
#define KC_X_COUNTERS	16	/* series per aggregation counter */

struct kc_x_rec {
	uint64_t	xr_ts;		/* sort key (kc_print.c --merge rule) */
	uint64_t	xr_loff;
	uint64_t	xr_seq;
	const struct rgn_rec *xr_rec;
	const uint8_t	*xr_payload;
	uint32_t	xr_cpu;
	char		*xr_text;	/* what dtrace prints for it */
	char		*xr_msg;	/* the decoder's complaints, or "" */
};

struct kc_x_bad {
	uint32_t	xb_cpu;
	uint64_t	xb_loff;	/* (uint64_t)-1: the walk failed */
	char		*xb_what;
	char		*xb_text;
};

struct kc_x_slice {
	uint32_t	xs_cpu;
	uint64_t	xs_begin;
	uint64_t	xs_end;
	int		xs_open;
	uint64_t	xs_brec;	/* opening record, index in x_recs */
	uint64_t	xs_erec;	/* closing record, or (uint64_t)-1 */
	uint32_t	xs_lane;	/* Perfetto sub-track (kc_x_lanes) */
	char		xs_key[400];
	char		xs_name[KC_X_NAMELEN];
};

/* One record of an uncommitted speculation (Perfetto, HTML). */
struct kc_x_spec {
	uint32_t	xp_id;
	uint32_t	xp_cpu;
	uint32_t	xp_kind;	/* RGN_SPEC_* */
	uint32_t	xp_epid;
	uint64_t	xp_ts;
	char		*xp_text;	/* as printed after commit() */
};

/* One merged aggregation entry: variable, key, value. */
struct kc_x_ent {
	uint32_t	xe_varid;
	const struct dof_agg *xe_ag;	/* its key layout (kc_aggs_walk) */
	const uint8_t	*xe_key;	/* in x_ka's table */
	uint32_t	xe_keysize;
	uint64_t	*xe_data;	/* merged, xe_ag->ag_datasize bytes */
	int64_t		xe_normal;	/* normalize() divisor, 1: none */
};

struct kc_x {
	const char	*x_prog;
	const char	*x_input;
	FILE		*x_out;
	FILE		*x_err;
	uint32_t	x_fmt;
	uint32_t	x_flags;	/* KC_F_* */
	uint64_t	x_phys;
	struct rgn_view	x_v;
	struct dof_enabling *x_den;
	struct kc_dec	*x_dec;
	struct kc_x_rec	*x_recs;
	uint64_t	x_nrecs, x_caprecs;
	struct kc_x_bad	*x_bads;
	uint64_t	x_nbads, x_capbads;
	struct kc_x_slice *x_slices;
	uint64_t	x_nslices, x_capslices;
	struct kc_x_ent	*x_ents;
	uint64_t	x_nents, x_capents;
	struct kc_aggs	*x_ka;		/* the merged table (kc_x_aggs) */
	int		x_aggpartial;	/* kc_dec_apply_libacts() said so */
	struct kc_x_spec *x_specs;	/* Perfetto, HTML */
	uint64_t	x_nspecs, x_capspecs;
	uint32_t	x_speckind;	/* of the buffer being walked */
	char		*x_vtext;	/* --vars: kc_vars.h text lines */
	char		*x_vjson;	/* ... and its JSON objects, 1:1 */
	uint64_t	x_lastts;	/* of the cpu being walked */
	uint32_t	x_walkcpu;
	uint64_t	x_tsmin, x_tsmax;
	uint64_t	x_nfaults;
};

/* ---- helpers ---- */

int
kc_export_format(const char *name, uint32_t *fmt)
{
	static const char *const names[] = { "text", "json", "perfetto",
	    "html" };
	uint32_t i;

	for (i = 0; i < sizeof (names) / sizeof (names[0]); i++)
		if (strcmp(name, names[i]) == 0) {
			*fmt = i;	/* KC_FORMAT_* in this order */
			return 0;
		}
	return -1;
}

/* Make room for one more element of "sz" bytes; 0 or -1. */
static int
kc_x_grow(void **p, uint64_t *cap, uint64_t n, size_t sz)
{
	void *np;
	uint64_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 256;
	np = realloc(*p, nc * sz);
	if (np == NULL)
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}

/* A JSON string of s[0, n) (n = (size_t)-1: up to the NUL). */
static void
kc_x_jstrn(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	fputc('"', f);
	for (i = 0; i < n && p[i] != '\0'; i++) {
		if (p[i] == '"' || p[i] == '\\')
			fprintf(f, "\\%c", p[i]);
		else if (p[i] == '\n')
			fputs("\\n", f);
		else if (p[i] == '\t')
			fputs("\\t", f);
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			fprintf(f, "\\u%04x", p[i]);
		else
			fputc(p[i], f);
	}
	fputc('"', f);
}

static void
kc_x_jstr(FILE *f, const char *s)
{
	kc_x_jstrn(f, s, (size_t)-1);
}

/* HTML text of s[0, n): the five specials escaped, controls dropped. */
static void
kc_x_hstrn(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	for (i = 0; i < n && p[i] != '\0'; i++) {
		switch (p[i]) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (p[i] >= 0x20 && p[i] < 0x7f)
				fputc(p[i], f);
			else if (p[i] == '\n' || p[i] == '\t')
				fputc(' ', f);
			else
				fprintf(f, "&#%u;", p[i]);
		}
	}
}

static void
kc_x_hstr(FILE *f, const char *s)
{
	kc_x_hstrn(f, s, (size_t)-1);
}

/* ns to a trace-event time: microseconds with ns precision. */
static void
kc_x_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%llu.%03llu", (unsigned long long)(ns / 1000),
	    (unsigned long long)(ns % 1000));
}

static const struct rgn_probe *
kc_x_probe(const struct kc_x *x, uint32_t epid, const struct rgn_epid **epp)
{
	const struct rgn_epid *ep = rgn_find_epid(&x->x_v, epid);

	if (epp != NULL)
		*epp = ep;
	return ep != NULL ? rgn_find_probe(&x->x_v, ep->re_probe) : NULL;
}

/* "prov:mod:func:name" of a probe, or "?" parts. */
static void
kc_x_pdesc(const struct rgn_probe *rp, char *buf, size_t sz)
{
	if (rp == NULL) {
		snprintf(buf, sz, "?:?:?:?");
		return;
	}
	snprintf(buf, sz, "%.*s:%.*s:%.*s:%.*s",
	    (int)sizeof (rp->rp_prov), rp->rp_prov,
	    (int)sizeof (rp->rp_mod), rp->rp_mod,
	    (int)sizeof (rp->rp_func), rp->rp_func,
	    (int)sizeof (rp->rp_name), rp->rp_name);
}

/* ---- collect ---- */

static int
kc_x_onrec(void *arg, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff)
{
	struct kc_x *x = arg;
	struct kc_x_rec *r;

	if (kc_x_grow((void **)&x->x_recs, &x->x_caprecs, x->x_nrecs,
	    sizeof (*r)) != 0)
		return -1;
	r = &x->x_recs[x->x_nrecs];
	memset(r, 0, sizeof (*r));
	/* a stamp going backwards must not reorder its own cpu */
	if (x->x_walkcpu != cpu || x->x_nrecs == 0 ||
	    x->x_recs[x->x_nrecs - 1].xr_cpu != cpu ||
	    rec->rr_timestamp > x->x_lastts)
		x->x_lastts = rec->rr_timestamp;
	x->x_walkcpu = cpu;
	r->xr_ts = x->x_lastts;
	r->xr_loff = loff;
	r->xr_seq = x->x_nrecs++;
	r->xr_rec = rec;
	r->xr_payload = payload;
	r->xr_cpu = cpu;
	return 0;
}

static void
kc_x_addbad(struct kc_x *x, uint32_t cpu, uint64_t loff, const char *what)
{
	struct kc_x_bad *b;
	char *t = NULL;
	size_t tl = 0;
	FILE *m;

	if (kc_x_grow((void **)&x->x_bads, &x->x_capbads, x->x_nbads,
	    sizeof (*b)) != 0)
		return;
	b = &x->x_bads[x->x_nbads++];
	b->xb_cpu = cpu;
	b->xb_loff = loff;
	b->xb_what = strdup(what);
	if ((m = open_memstream(&t, &tl)) != NULL) {
		if (loff != (uint64_t)-1)
			fprintf(m, "%s: %s: cpu %u: logical offset 0x%llx: %s",
			    x->x_prog, x->x_input, cpu,
			    (unsigned long long)loff, what);
		else
			fprintf(m, "%s: %s: %s", x->x_prog, x->x_input, what);
		fclose(m);
	}
	b->xb_text = t;
	if (t != NULL)
		fprintf(x->x_err, "%s\n", t);
}

static int
kc_x_onbad(void *arg, uint32_t cpu, uint64_t loff, const char *what)
{
	kc_x_addbad(arg, cpu, loff, what);
	return 0;
}

static int
kc_x_reccmp(const void *a, const void *b)
{
	const struct kc_x_rec *x = a, *y = b;

	if (x->xr_ts != y->xr_ts)
		return x->xr_ts < y->xr_ts ? -1 : 1;
	if (x->xr_cpu != y->xr_cpu)
		return x->xr_cpu < y->xr_cpu ? -1 : 1;
	return x->xr_seq < y->xr_seq ? -1 : x->xr_seq > y->xr_seq;
}

/* Decode one record to its text and messages. */
static void
kc_x_decode(struct kc_x *x, struct kc_x_rec *r)
{
	char *t = NULL, *e = NULL;
	size_t tl = 0, el = 0;
	FILE *mt = open_memstream(&t, &tl);
	FILE *me = open_memstream(&e, &el);

	if (mt != NULL && me != NULL)
		kc_dec_record(x->x_dec, r->xr_cpu, r->xr_rec, r->xr_payload,
		    r->xr_loff, mt, me);
	if (mt != NULL)
		fclose(mt);
	if (me != NULL)
		fclose(me);
	r->xr_text = t;
	r->xr_msg = e;
	if (e != NULL && e[0] != '\0')
		fputs(e, x->x_err);
}

static int
kc_x_collect(struct kc_x *x)
{
	struct rgn_walk_cb cb = { kc_x_onrec, kc_x_onbad, x };
	struct kdt_err ke;
	uint64_t i;
	uint32_t cpu;

	for (cpu = 0; cpu < x->x_v.rv_hdr->rh_ncpu; cpu++)
		if (rgn_walk_cpu(&x->x_v, cpu, &cb, &ke) < 0)
			kc_x_addbad(x, cpu, (uint64_t)-1, ke.ke_msg);
	if (((x->x_flags & KC_F_MERGE) || x->x_fmt != KC_FORMAT_JSON) &&
	    x->x_nrecs > 1)
		qsort(x->x_recs, x->x_nrecs, sizeof (*x->x_recs),
		    kc_x_reccmp);
	x->x_tsmin = x->x_nrecs ? (uint64_t)-1 : 0;
	for (i = 0; i < x->x_nrecs; i++) {
		kc_x_decode(x, &x->x_recs[i]);
		if (x->x_recs[i].xr_rec->rr_epid == RGN_EPID_ERROR)
			x->x_nfaults++;
		if (x->x_recs[i].xr_ts < x->x_tsmin)
			x->x_tsmin = x->x_recs[i].xr_ts;
		if (x->x_recs[i].xr_ts > x->x_tsmax)
			x->x_tsmax = x->x_recs[i].xr_ts;
	}
	return 0;
}

/* ---- aggregations ---- */

static int
kc_x_entcmp(const void *a, const void *b)
{
	const struct kc_x_ent *x = a, *y = b;

	if (x->xe_varid != y->xe_varid)
		return x->xe_varid < y->xe_varid ? -1 : 1;
	if (x->xe_keysize != y->xe_keysize)
		return x->xe_keysize < y->xe_keysize ? -1 : 1;
	return memcmp(x->xe_key, y->xe_key, x->xe_keysize);
}

/* kc_aggs_walk() callback: one entry of the table into x_ents. */
static void
kc_x_addent(void *arg, uint32_t varid, const struct dof_agg *ag,
    const uint8_t *key, const uint64_t *data, int64_t normal)
{
	struct kc_x *x = arg;
	struct kc_x_ent *e;

	if (kc_x_grow((void **)&x->x_ents, &x->x_capents, x->x_nents,
	    sizeof (*e)) != 0)
		return;
	e = &x->x_ents[x->x_nents];
	e->xe_data = malloc(ag->ag_datasize);
	if (e->xe_data == NULL)
		return;
	memcpy(e->xe_data, data, ag->ag_datasize);
	e->xe_varid = varid;
	e->xe_ag = ag;
	e->xe_key = key;
	e->xe_keysize = ag->ag_keysize;
	e->xe_normal = normal;
	x->x_nents++;
}

/*
 * Call fn for every aggregation image to merge: for a live state's
 * region the consumer's totals (when a valid slot passes agg_buf_check)
 * and then the buffers they do not cover, otherwise every CPU's buffer
 * (rgn.h, "Aggregation totals"; text mode's kc_aggs_region() also
 * reports what is missing).  "i" numbers the images for messages.
 */
static void
kc_x_aggsrcs(const struct kc_x *x, void (*fn)(const struct kc_x *,
    void *, const struct agg_buf *, uint64_t, uint32_t), void *arg)
{
	struct rgn_aggtot_view tv;
	const struct agg_buf *ab;
	struct kdt_err note;
	uint64_t len;
	uint32_t b, i = 0;

	(void) rgn_view_aggtot(&x->x_v, &tv, &note);
	if (tv.tv_img != NULL &&
	    agg_buf_check(tv.tv_img, tv.tv_len, x->x_den, &note) != 0)
		tv.tv_img = NULL, tv.tv_ival = NULL;
	if (tv.tv_img != NULL)
		fn(x, arg, tv.tv_img, tv.tv_len, i++);
	for (b = 0; b < rgn_view_nagg(&x->x_v); b++)
		if (rgn_agg_take(&x->x_v, &tv, b)) {
			/* len is set by the call: not in the argument list */
			ab = rgn_view_aggbuf(&x->x_v, b, &len);
			fn(x, arg, ab, len, i++);
		}
}

/* kc_x_aggsrcs() callback: one image into the table "arg". */
static void
kc_x_aggsnap(const struct kc_x *x, void *arg, const struct agg_buf *ab,
    uint64_t len, uint32_t i)
{
	struct kdt_err ke;

	if (agg_buf_check(ab, len, x->x_den, &ke) != 0) {
		fprintf(x->x_err, "%s: %s: aggregation buffer %u left out: %s\n",
		    x->x_prog, x->x_input, i, ke.ke_msg);
		return;
	}
	(void) kc_aggs_snap(arg, ab);
}

/*
 * The aggregations, merged once for the whole export, before the records
 * are decoded: every image kc_x_aggsrcs() names into one table (x_ka,
 * kc_agg.h), which printa() records (kc_dec_set_aggs) and the printa
 * objects print from.
 */
static void
kc_x_aggs_merge(struct kc_x *x)
{
	uint64_t len;

	if (x->x_den->den_naggs == 0 || rgn_view_agg(&x->x_v, 0, &len) == NULL)
		return;
	if ((x->x_ka = kc_aggs_new(x->x_den)) == NULL) {
		fprintf(x->x_err, "%s: %s: out of memory for the aggregations\n",
		    x->x_prog, x->x_input);
		return;
	}
	kc_x_aggsrcs(x, kc_x_aggsnap, x->x_ka);
	kc_dec_set_aggs(x->x_dec, x->x_ka);
}

/*
 * Once the records are decoded: their clear(), trunc(), normalize() and
 * denormalize() carried out on x_ka as the text output does
 * (kc_dec_apply_libacts), then its entries into x_ents sorted by
 * (variable, key).
 */
static void
kc_x_aggs(struct kc_x *x)
{
	if (x->x_ka == NULL)
		return;
	x->x_aggpartial = kc_dec_apply_libacts(x->x_dec, x->x_ka, x->x_err);
	(void) kc_aggs_walk(x->x_ka, kc_x_addent, x);
	if (x->x_nents > 1)
		qsort(x->x_ents, x->x_nents, sizeof (*x->x_ents), kc_x_entcmp);
}

static const char *
kc_x_aggfunc(uint32_t kind)
{
	static const char *const names[] = { "count", "min", "max", "avg",
	    "sum", "stddev", "quantize", "lquantize", "llquantize" };

	if (kind >= DTRACEAGG_COUNT && kind <= DTRACEAGG_LLQUANTIZE)
		return names[kind - DTRACEAGG_COUNT];
	return "?";
}

static int
kc_x_ishist(uint32_t kind)
{
	return kind == DTRACEAGG_QUANTIZE || kind == DTRACEAGG_LQUANTIZE ||
	    kind == DTRACEAGG_LLQUANTIZE;
}

/* The scalar value dtrace prints (avg and stddev as it computes them). */
static int64_t
kc_x_aggval(const struct kc_x_ent *e)
{
	switch (e->xe_ag->ag_kind) {
	case DTRACEAGG_AVG:
		return kc_agg_avg(e->xe_data, e->xe_normal);
	case DTRACEAGG_STDDEV:
		return (int64_t)kc_agg_stddev(e->xe_data, e->xe_normal);
	default:
		return (int64_t)e->xe_data[0] / e->xe_normal;
	}
}

/* Histogram geometry: count words, the first one, bucket labels. */
static uint32_t
kc_x_nbuckets(const struct dof_agg *ag)
{
	return kc_agg_nbuckets(ag);
}

static const int64_t *
kc_x_buckets(const struct kc_x_ent *e)
{
	return kc_agg_buckets(e->xe_ag, e->xe_data);
}

/* Lower edge of bucket i (0 and *under = 1 for an underflow bucket) and
 * its label as dtrace prints it. */
static int64_t
kc_x_bucket(const struct dof_agg *ag, uint32_t i, int *under, char *buf,
    size_t sz)
{
	uint32_t n = kc_x_nbuckets(ag);
	int64_t base, step, lim, v;

	*under = 0;
	if (ag->ag_kind == DTRACEAGG_QUANTIZE) {
		v = agg_quantize_label(i);
		snprintf(buf, sz, "%lld", (long long)v);
		return v;
	}
	if (ag->ag_kind == DTRACEAGG_LLQUANTIZE) {
		v = agg_llquantize_label(ag->ag_arg, i);
		*under = i == 0;
		snprintf(buf, sz, i == 0 ? "< %lld" : i == n - 1 ? ">= %lld" :
		    "%lld", (long long)v);
		return *under ? 0 : v;
	}
	base = agg_lquantize_base(ag->ag_arg);
	step = agg_lquantize_step(ag->ag_arg);
	lim = base + (int64_t)agg_lquantize_levels(ag->ag_arg) * step;
	if (i == 0) {
		*under = 1;
		snprintf(buf, sz, "< %lld", (long long)base);
		return 0;
	}
	v = i == n - 1 ? lim : base + (int64_t)(i - 1) * step;
	snprintf(buf, sz, i == n - 1 ? ">= %lld" : "%lld", (long long)v);
	return v;
}

static int64_t
kc_x_histtotal(const struct kc_x_ent *e)
{
	const int64_t *b = kc_x_buckets(e);
	uint32_t i, n = kc_x_nbuckets(e->xe_ag);
	int64_t t = 0;

	for (i = 0; i < n; i++)
		t += b[i];
	return t / e->xe_normal;
}

/* ---- typed items ---- */

static const char *
kc_x_actname(uint32_t kind, char *buf, size_t sz)
{
	switch (kind) {
	case DTRACEACT_DIFEXPR: return "trace";
	case DTRACEACT_EXIT: return "exit";
	case DTRACEACT_PRINTF: return "printf";
	case DTRACEACT_PRINTA: return "printa";
	case DTRACEACT_LIBACT: return "libact";
	case DTRACEACT_TRACEMEM: return "tracemem";
	case DTRACEACT_TRACEMEM_DYNSIZE: return "tracemem-size";
	case DTRACEACT_USTACK: return "ustack";
	case DTRACEACT_JSTACK: return "jstack";
	case DTRACEACT_USYM: return "usym";
	case DTRACEACT_UMOD: return "umod";
	case DTRACEACT_UADDR: return "uaddr";
	case DTRACEACT_SYSTEM: return "system";
	case DTRACEACT_FREOPEN: return "freopen";
	case DTRACEACT_STACK: return "stack";
	case DTRACEACT_SYM: return "sym";
	case DTRACEACT_MOD: return "mod";
	case DTRACEACT_SPECULATE: return "speculate";
	case DTRACEACT_COMMIT: return "commit";
	case DTRACEACT_DISCARD: return "discard";
	case DTRACEACT_RAISE: return "raise";
	}
	snprintf(buf, sz, "action-0x%x", kind);
	return buf;
}

static uint64_t
kc_x_word(const uint8_t *p, uint32_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size < 8 ? size : 8);	/* little-endian */
	return v;
}

/* An integer as trace() prints it: 8 and 4 bytes signed, 2 and 1 not. */
static void
kc_x_int(FILE *f, const uint8_t *p, uint32_t size)
{
	int32_t v4;
	int64_t v8;

	if (size == 8) {
		memcpy(&v8, p, 8);
		fprintf(f, "%lld", (long long)v8);
	} else if (size == 4) {
		memcpy(&v4, p, 4);
		fprintf(f, "%d", v4);
	} else {
		fprintf(f, "%llu", (unsigned long long)kc_x_word(p, size));
	}
}

static void
kc_x_hex(FILE *f, const uint8_t *p, uint32_t size)
{
	uint32_t i;

	fputc('"', f);
	for (i = 0; i < size; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

/* The JSON frames array of a stack() record. */
static void
kc_x_stack(FILE *f, const uint8_t *p, uint32_t size, uint32_t depth)
{
	uint32_t w = depth != 0 && size / depth == 4 ? 4 : 8, i;
	char buf[256];
	uint64_t pc;

	fputs(",\"type\":\"stack\",\"frames\":[", f);
	for (i = 0; i + w <= size; i += w) {
		pc = kc_x_word(p + i, w);
		if (pc == 0)
			break;
		kc_fmt_addr2str(kc_sym_default(), pc, buf, sizeof (buf));
		if (i != 0)
			fputc(',', f);
		kc_x_jstr(f, buf);
	}
	fputc(']', f);
}

/* The string-like text of an item for naming a slice, or NULL. */
static const char *
kc_x_itemname(const struct dof_laction *la, const uint8_t *base, char *buf,
    size_t sz)
{
	const uint8_t *p = base + la->la_rec_off;

	if (la->la_rec_isstr) {
		snprintf(buf, sz, "%.*s", (int)la->la_rec_size, p);
		return buf[0] != '\0' ? buf : NULL;
	}
	if ((la->la_kind == DTRACEACT_SYM || la->la_kind == DTRACEACT_MOD) &&
	    la->la_rec_size == 8) {
		if (la->la_kind == DTRACEACT_SYM)
			kc_fmt_sym2str(kc_sym_default(), kc_x_word(p, 8), buf,
			    sz);
		else
			kc_fmt_mod2str(kc_sym_default(), kc_x_word(p, 8), buf,
			    sz);
		return buf;
	}
	return NULL;
}

/* One ITEM object (kc_export.h) of action "la" over base[]. */
static void
kc_x_item(FILE *f, const struct dof_laction *la, const uint8_t *base,
    int with_fmt)
{
	const uint8_t *p = base + la->la_rec_off;
	uint32_t n = la->la_rec_size;
	char nb[32], buf[256];

	fputs("{\"action\":", f);
	kc_x_jstr(f, kc_x_actname(la->la_kind, nb, sizeof (nb)));
	fprintf(f, ",\"size\":%u", n);
	if (with_fmt && la->la_fmt != NULL) {
		fputs(",\"format\":", f);
		kc_x_jstr(f, la->la_fmt);
	}
	if (la->la_rec_isstr) {
		fputs(",\"type\":\"string\",\"value\":", f);
		kc_x_jstrn(f, (const char *)p, n);
	} else if (la->la_kind == DTRACEACT_STACK) {
		kc_x_stack(f, p, n, (uint32_t)la->la_arg);
	} else if (kc_x_itemname(la, base, buf, sizeof (buf)) != NULL) {
		fputs(",\"type\":\"symbol\",\"value\":", f);
		kc_x_jstr(f, buf);
	} else if ((n == 1 || n == 2 || n == 4 || n == 8) &&
	    la->la_kind != DTRACEACT_TRACEMEM) {
		fputs(",\"type\":\"int\",\"value\":", f);
		kc_x_int(f, p, n);
	} else {
		fputs(",\"type\":\"bytes\",\"value\":", f);
		kc_x_hex(f, p, n);
	}
	fputc('}', f);
}

/* The ITEMs of a record's payload: its recording actions. */
static void
kc_x_items(FILE *f, const struct dof_lecb *le, const uint8_t *payload)
{
	const struct dof_laction *la;
	uint32_t i, n = 0;

	fputc('[', f);
	for (i = 0; i < le->le_nacts; i++) {
		la = &le->le_acts[i];
		if (la->la_role != DOF_ROLE_REC || la->la_rec_size == 0)
			continue;
		if (n++ != 0)
			fputc(',', f);
		kc_x_item(f, la, payload, i == 0 ||
		    le->le_acts[i - 1].la_kind != la->la_kind ||
		    le->le_acts[i - 1].la_fmt == NULL);
	}
	fputc(']', f);
}

/* The loaded ECB of a record, or NULL (unknown EPID, other size). */
static const struct dof_lecb *
kc_x_lecb(const struct kc_x *x, const struct kc_x_rec *r)
{
	const struct rgn_epid *ep = rgn_find_epid(&x->x_v,
	    r->xr_rec->rr_epid);

	if (ep == NULL || ep->re_ecb >= x->x_den->den_necbs ||
	    x->x_den->den_ecbs[ep->re_ecb].le_size != ep->re_size)
		return NULL;
	return &x->x_den->den_ecbs[ep->re_ecb];
}

/* ---- slices (kc_export.h: the convention) ---- */

static const char *const kc_x_opens[] = { "entry", "start", "begin" };
static const char *const kc_x_closes[] = { "return", "done", "end",
    "finish", "exit" };
#define KC_X_NOPENS	3
#define KC_X_NCLOSES	5

/*
 * Does probe name "name" end in one of words[] (the whole name, or after
 * '_' or '-')?  The length of the name without it, or -1.
 */
static int
kc_x_suffix(const char *name, const char *const *words, uint32_t nw)
{
	size_t n = strlen(name), w;
	uint32_t i;

	for (i = 0; i < nw; i++) {
		w = strlen(words[i]);
		if (n < w || strcmp(name + n - w, words[i]) != 0)
			continue;
		if (n == w)
			return 0;
		if (name[n - w - 1] == '_' || name[n - w - 1] == '-')
			return (int)(n - w - 1);
	}
	return -1;
}

/* Name a new slice from its opening record. */
static void
kc_x_slicename(const struct kc_x *x, const struct kc_x_rec *r,
    const struct rgn_probe *rp, int baselen, char *buf, size_t sz)
{
	const struct dof_lecb *le = kc_x_lecb(x, r);
	const struct dof_laction *la;
	char pd[512];
	uint32_t i;

	for (i = 0; le != NULL && i < le->le_nacts; i++) {
		la = &le->le_acts[i];
		if (la->la_role == DOF_ROLE_REC && la->la_rec_size != 0 &&
		    kc_x_itemname(la, r->xr_payload, buf, sz) != NULL)
			return;
	}
	if (rp->rp_func[0] != '\0')
		snprintf(buf, sz, "%.*s", (int)sizeof (rp->rp_func),
		    rp->rp_func);
	else if (baselen > 0)
		snprintf(buf, sz, "%.*s", baselen, rp->rp_name);
	else {
		kc_x_pdesc(rp, pd, sizeof (pd));
		pd[sz - 1 < sizeof (pd) ? sz - 1 : sizeof (pd) - 1] = '\0';
		memcpy(buf, pd, strlen(pd) + 1);
	}
}

/*
 * Does the enabling have a probe that would close a slice opened by "rp"
 * (same provider, module and function; a closing name with the same
 * stem)?  Without one an opening record stays an instant: a slice could
 * only end at the last record, which would say nothing.
 */
static int
kc_x_hascloser(const struct kc_x *x, const struct rgn_probe *rp, int stem)
{
	const struct rgn_probe *cp;
	uint32_t i;
	int cs;

	for (i = 0; i < x->x_v.rv_meta->rm_nprobes; i++) {
		cp = &x->x_v.rv_probes[i];
		if (strncmp(cp->rp_prov, rp->rp_prov, sizeof (cp->rp_prov)) ||
		    strncmp(cp->rp_mod, rp->rp_mod, sizeof (cp->rp_mod)) ||
		    strncmp(cp->rp_func, rp->rp_func, sizeof (cp->rp_func)) ||
		    memchr(cp->rp_name, '\0', sizeof (cp->rp_name)) == NULL)
			continue;
		cs = kc_x_suffix(cp->rp_name, kc_x_closes, KC_X_NCLOSES);
		if (cs == stem && strncmp(cp->rp_name, rp->rp_name,
		    (size_t)stem) == 0)
			return 1;
	}
	return 0;
}

/* The most recent open slice of "key", on "cpu" first; -1 if none. */
static int64_t
kc_x_findopen(const struct kc_x *x, const char *key, uint32_t cpu)
{
	int64_t i, any = -1;

	for (i = (int64_t)x->x_nslices - 1; i >= 0; i--) {
		if (!x->x_slices[i].xs_open ||
		    strcmp(x->x_slices[i].xs_key, key) != 0)
			continue;
		if (x->x_slices[i].xs_cpu == cpu)
			return i;
		if (any < 0)
			any = i;
	}
	return any;
}

static void
kc_x_slice_rec(struct kc_x *x, uint64_t ri)
{
	const struct kc_x_rec *r = &x->x_recs[ri];
	const struct rgn_probe *rp;
	struct kc_x_slice *s;
	char key[400];
	int ob, cb;
	int64_t si;

	if (r->xr_rec->rr_epid == RGN_EPID_ERROR ||
	    (rp = kc_x_probe(x, r->xr_rec->rr_epid, NULL)) == NULL)
		return;
	if (memchr(rp->rp_name, '\0', sizeof (rp->rp_name)) == NULL)
		return;
	ob = kc_x_suffix(rp->rp_name, kc_x_opens, KC_X_NOPENS);
	cb = ob < 0 ? kc_x_suffix(rp->rp_name, kc_x_closes, KC_X_NCLOSES) :
	    -1;
	if ((ob < 0 && cb < 0) || (ob >= 0 && !kc_x_hascloser(x, rp, ob)))
		return;
	snprintf(key, sizeof (key), "%.*s:%.*s:%.*s:%.*s",
	    (int)sizeof (rp->rp_prov), rp->rp_prov,
	    (int)sizeof (rp->rp_mod), rp->rp_mod,
	    (int)sizeof (rp->rp_func), rp->rp_func,
	    ob >= 0 ? ob : cb, rp->rp_name);
	if (cb >= 0) {
		if ((si = kc_x_findopen(x, key, r->xr_cpu)) >= 0) {
			x->x_slices[si].xs_open = 0;
			x->x_slices[si].xs_end = r->xr_ts;
			x->x_slices[si].xs_erec = ri;
		}
		return;
	}
	if (kc_x_grow((void **)&x->x_slices, &x->x_capslices, x->x_nslices,
	    sizeof (*s)) != 0)
		return;
	s = &x->x_slices[x->x_nslices++];
	memset(s, 0, sizeof (*s));
	s->xs_cpu = r->xr_cpu;
	s->xs_begin = s->xs_end = r->xr_ts;
	s->xs_open = 1;
	s->xs_brec = ri;
	s->xs_erec = (uint64_t)-1;
	memcpy(s->xs_key, key, sizeof (key));
	kc_x_slicename(x, r, rp, ob, s->xs_name, sizeof (s->xs_name));
}

/* Records are in time order here (kc_x_collect sorts for timelines). */
static void
kc_x_slices(struct kc_x *x)
{
	uint64_t i;

	for (i = 0; i < x->x_nrecs; i++)
		kc_x_slice_rec(x, i);
	for (i = 0; i < x->x_nslices; i++)
		if (x->x_slices[i].xs_open)
			x->x_slices[i].xs_end = x->x_tsmax;
}

/* ---- problems: drops and error counts, as text mode reports them ---- */

/* The drop message kc_fmt_drops() prints, into buf; "" when n is 0. */
static void
kc_x_dropmsg(const struct kc_x *x, uint32_t kind, uint64_t n, uint32_t cpu,
    char *buf, size_t sz)
{
	FILE *m = fmemopen(buf, sz, "w");

	buf[0] = '\0';
	if (m == NULL)
		return;
	kc_fmt_drops(m, x->x_prog, kind, n, cpu);
	fclose(m);
	buf[sz - 1] = '\0';
	if (buf[0] != '\0' && buf[strlen(buf) - 1] == '\n')
		buf[strlen(buf) - 1] = '\0';
}

/* Aggregation drops of a cpu (0 when its buffer is absent or bad). */
static uint64_t
kc_x_aggdrops(const struct kc_x *x, uint32_t cpu)
{
	const struct agg_buf *ab;
	struct kdt_err ke;
	uint64_t len;

	if (x->x_den->den_naggs == 0 ||
	    (ab = rgn_view_agg(&x->x_v, cpu, &len)) == NULL ||
	    agg_buf_check(ab, len, x->x_den, &ke) != 0)
		return 0;
	return ab->ab_drops;
}

/* Report the counts on the error stream as text mode does. */
static void
kc_x_counts_err(const struct kc_x *x)
{
	const struct rgn_cpu *rc;
	uint32_t cpu;

	for (cpu = 0; cpu < x->x_v.rv_hdr->rh_ncpu; cpu++) {
		rc = rgn_view_cpu(&x->x_v, cpu);
		kc_fmt_drops(x->x_err, x->x_prog, KC_DROP_PRINCIPAL,
		    rc->rc_drops, cpu);
		if (rc->rc_errors != 0)
			fprintf(x->x_err, "%s: %llu error%s on CPU %u\n",
			    x->x_prog, (unsigned long long)rc->rc_errors,
			    rc->rc_errors == 1 ? "" : "s", cpu);
		kc_fmt_drops(x->x_err, x->x_prog, KC_DROP_AGGREGATION,
		    kc_x_aggdrops(x, cpu), cpu);
	}
}

/* ---- JSON lines ---- */

static const char *
kc_x_policy(uint32_t p)
{
	return p == DTRACEOPT_BUFPOLICY_RING ? "ring" :
	    p == DTRACEOPT_BUFPOLICY_FILL ? "fill" :
	    p == DTRACEOPT_BUFPOLICY_SWITCH ? "switch" : "?";
}

static const char *
kc_x_state(uint32_t s)
{
	return s == RGN_STATE_EMPTY ? "empty" : s == RGN_STATE_ACTIVE ?
	    "active" : s == RGN_STATE_STOPPED ? "stopped" : "?";
}

/* The source's fields, without braces (shared by JSON and Perfetto). */
static void
kc_x_srcfields(FILE *f, const struct kc_x *x)
{
	const struct rgn_hdr *h = x->x_v.rv_hdr;
	char id[33];
	int i;

	for (i = 0; i < 16; i++)
		snprintf(id + 2 * i, 3, "%02x", h->rh_bootid[i]);
	fputs("\"schema\":\"kdt-json/1\",\"prog\":", f);
	kc_x_jstr(f, x->x_prog);
	fputs(",\"input\":", f);
	kc_x_jstr(f, x->x_input);
	fputs(",\"release\":", f);
	kc_x_jstrn(f, h->rh_release, sizeof (h->rh_release));
	fprintf(f, ",\"boot_id\":\"%s\",\"region_phys\":", id);
	if (x->x_phys == RGN_PHYS_ANY)
		fprintf(f, "null");
	else
		fprintf(f, "%llu", (unsigned long long)x->x_phys);
	fprintf(f, ",\"region_size\":%llu,\"ncpu\":%u,\"bufsize\":%llu,"
	    "\"policy\":\"%s\",\"state\":\"%s\",\"created_ns\":%llu,"
	    "\"kaslr\":%llu,\"anonymous\":%s",
	    (unsigned long long)h->rh_size, h->rh_ncpu,
	    (unsigned long long)h->rh_bufsize, kc_x_policy(h->rh_policy),
	    kc_x_state(x->x_v.rv_meta->rm_state),
	    (unsigned long long)h->rh_created,
	    (unsigned long long)h->rh_kaslr,
	    (h->rh_flags & RGN_F_ANON) ? "true" : "false");
}

static void
kc_x_json_fault(FILE *f, const struct kc_x *x, const struct kc_x_rec *r)
{
	struct rgn_errrec ee;
	char pd[512];

	memcpy(&ee, r->xr_payload, sizeof (ee));
	kc_x_pdesc(kc_x_probe(x, ee.ee_epid, NULL), pd, sizeof (pd));
	fprintf(f, "{\"type\":\"fault\",\"cpu\":%u,\"timestamp\":%llu,"
	    "\"offset\":%llu,\"epid\":%u,\"probe\":", r->xr_cpu,
	    (unsigned long long)r->xr_rec->rr_timestamp,
	    (unsigned long long)r->xr_loff, ee.ee_epid);
	kc_x_jstr(f, pd);
	fprintf(f, ",\"fault\":%u,\"action\":%u,\"addr\":%llu,\"text\":",
	    ee.ee_fault, ee.ee_act, (unsigned long long)ee.ee_addr);
	kc_x_jstr(f, r->xr_msg != NULL ? r->xr_msg : "");
	fputs("}\n", f);
}

static void
kc_x_json_rec(FILE *f, const struct kc_x *x, const struct kc_x_rec *r)
{
	const struct rgn_epid *ep;
	const struct rgn_probe *rp;
	const struct dof_lecb *le;
	char pd[512];

	if (r->xr_rec->rr_epid == RGN_EPID_ERROR) {
		kc_x_json_fault(f, x, r);
		return;
	}
	rp = kc_x_probe(x, r->xr_rec->rr_epid, &ep);
	kc_x_pdesc(rp, pd, sizeof (pd));
	fprintf(f, "{\"type\":\"record\",\"cpu\":%u,\"timestamp\":%llu,"
	    "\"offset\":%llu,\"epid\":%u,\"probe_id\":%u,\"probe\":",
	    r->xr_cpu, (unsigned long long)r->xr_rec->rr_timestamp,
	    (unsigned long long)r->xr_loff, r->xr_rec->rr_epid,
	    ep != NULL ? ep->re_probe : 0);
	kc_x_jstr(f, pd);
	fputs(",\"data\":", f);
	if ((le = kc_x_lecb(x, r)) != NULL)
		kc_x_items(f, le, r->xr_payload);
	else
		fputs("[]", f);
	fputs(",\"text\":", f);
	kc_x_jstr(f, r->xr_text != NULL ? r->xr_text : "");
	if (r->xr_msg != NULL && r->xr_msg[0] != '\0') {
		fputs(",\"message\":", f);
		kc_x_jstr(f, r->xr_msg);
	}
	fputs("}\n", f);
}

static uint64_t
kc_x_json_counts(FILE *f, const struct kc_x *x)
{
	const struct rgn_cpu *rc;
	uint64_t total = 0, n;
	uint32_t cpu;
	char msg[256];

	for (cpu = 0; cpu < x->x_v.rv_hdr->rh_ncpu; cpu++) {
		rc = rgn_view_cpu(&x->x_v, cpu);
		if (rc->rc_drops != 0) {
			kc_x_dropmsg(x, KC_DROP_PRINCIPAL, rc->rc_drops, cpu,
			    msg, sizeof (msg));
			fprintf(f, "{\"type\":\"drop\",\"cpu\":%u,\"kind\":\"principal\",\"count\":%llu,\"text\":",
			    cpu, (unsigned long long)rc->rc_drops);
			kc_x_jstr(f, msg);
			fputs("}\n", f);
			total += rc->rc_drops;
		}
		if ((n = kc_x_aggdrops(x, cpu)) != 0) {
			kc_x_dropmsg(x, KC_DROP_AGGREGATION, n, cpu, msg,
			    sizeof (msg));
			fprintf(f, "{\"type\":\"drop\",\"cpu\":%u,\"kind\":\"aggregation\",\"count\":%llu,\"text\":",
			    cpu, (unsigned long long)n);
			kc_x_jstr(f, msg);
			fputs("}\n", f);
			total += n;
		}
		if (rc->rc_errors != 0) {
			snprintf(msg, sizeof (msg), "%s: %llu error%s on CPU %u",
			    x->x_prog, (unsigned long long)rc->rc_errors,
			    rc->rc_errors == 1 ? "" : "s", cpu);
			fprintf(f, "{\"type\":\"errors\",\"cpu\":%u,\"count\":%llu,\"text\":",
			    cpu, (unsigned long long)rc->rc_errors);
			kc_x_jstr(f, msg);
			fputs("}\n", f);
		}
	}
	return total;
}

static void
kc_x_json_bad(FILE *f, const struct kc_x_bad *b)
{
	fprintf(f, "{\"type\":\"torn\",\"cpu\":%u,\"offset\":", b->xb_cpu);
	if (b->xb_loff == (uint64_t)-1)
		fputs("null", f);
	else
		fprintf(f, "%llu", (unsigned long long)b->xb_loff);
	fputs(",\"what\":", f);
	kc_x_jstr(f, b->xb_what != NULL ? b->xb_what : "");
	fputs(",\"text\":", f);
	kc_x_jstr(f, b->xb_text != NULL ? b->xb_text : "");
	fputs("}\n", f);
}

static void
kc_x_json_ent(FILE *f, const struct kc_x *x, const struct kc_x_ent *e)
{
	const struct dof_agg *ag = e->xe_ag;
	const struct dof_lecb *le = &x->x_den->den_ecbs[ag->ag_ecb];
	const int64_t *b;
	uint32_t i, n, first = 1;
	char lab[64];
	int64_t lo;
	int under;

	fprintf(f, "{\"type\":\"aggregation\",\"id\":%u,\"name\":\"@%u\","
	    "\"function\":\"%s\",\"keys\":[", e->xe_varid, e->xe_varid,
	    kc_x_aggfunc(ag->ag_kind));
	for (i = 0; i < ag->ag_nkeys; i++) {
		if (i != 0)
			fputc(',', f);
		kc_x_item(f, &le->le_acts[ag->ag_firstkey + i], e->xe_key, 0);
	}
	fputc(']', f);
	if (e->xe_normal != 1)
		fprintf(f, ",\"normal\":%lld", (long long)e->xe_normal);
	if (!kc_x_ishist(ag->ag_kind)) {
		fprintf(f, ",\"value\":%lld", (long long)kc_x_aggval(e));
		if (ag->ag_kind == DTRACEAGG_AVG ||
		    ag->ag_kind == DTRACEAGG_STDDEV)
			fprintf(f, ",\"count\":%llu,\"sum\":%lld",
			    (unsigned long long)e->xe_data[0],
			    (long long)e->xe_data[1]);
		fputs("}\n", f);
		return;
	}
	b = kc_x_buckets(e);
	n = kc_x_nbuckets(ag);
	fputs(",\"buckets\":[", f);
	for (i = 0; i < n; i++) {
		if (b[i] == 0)
			continue;
		lo = kc_x_bucket(ag, i, &under, lab, sizeof (lab));
		fprintf(f, "%s{\"lower\":", first ? "" : ",");
		if (under)
			fputs("null", f);
		else
			fprintf(f, "%lld", (long long)lo);
		fprintf(f, ",\"label\":\"%s\",\"count\":%lld}", lab,
		    (long long)(b[i] / e->xe_normal));
		first = 0;
	}
	fprintf(f, "],\"total\":%lld}\n", (long long)kc_x_histtotal(e));
}

/* A key tuple as short text, for counter series and bar labels. */
static void
kc_x_keytext(const struct kc_x *x, const struct kc_x_ent *e, char *buf,
    size_t sz)
{
	const struct dof_agg *ag = e->xe_ag;
	const struct dof_laction *la;
	size_t o = 0;
	uint32_t i, n;
	char t[256];
	const uint8_t *p;

	buf[0] = '\0';
	for (i = 0; i < ag->ag_nkeys && o + 1 < sz; i++) {
		la = &x->x_den->den_ecbs[ag->ag_ecb].le_acts[ag->ag_firstkey +
		    i];
		p = e->xe_key + la->la_rec_off;
		n = la->la_rec_size;
		if (kc_x_itemname(la, e->xe_key, t, sizeof (t)) == NULL) {
			if (la->la_kind == DTRACEACT_STACK && n >= 8)
				kc_fmt_addr2str(kc_sym_default(),
				    kc_x_word(p, 8), t, sizeof (t));
			else if (n == 8 || n == 4)
				snprintf(t, sizeof (t), "%lld", n == 8 ?
				    (long long)kc_x_word(p, 8) :
				    (long long)(int32_t)kc_x_word(p, 4));
			else if (n == 1 || n == 2)
				snprintf(t, sizeof (t), "%llu",
				    (unsigned long long)kc_x_word(p, n));
			else
				snprintf(t, sizeof (t), "<%u bytes>", n);
		}
		o += (size_t)snprintf(buf + o, sz - o, "%s%s", i ? ", " : "",
		    t);
	}
	if (ag->ag_nkeys == 0)
		snprintf(buf, sz, "@%u", e->xe_varid);
}

/* dtrace's default printa() text of variable "varid", malloc'ed. */
static char *
kc_x_printa(const struct kc_x *x, uint32_t varid)
{
	char *t = NULL;
	size_t tl = 0;
	FILE *m;

	if (x->x_ka == NULL)
		return NULL;
	if ((m = open_memstream(&t, &tl)) != NULL) {
		(void) kc_aggs_printa(x->x_ka, m, NULL, &varid, 1);
		fclose(m);
	}
	return t;
}

/* ---- speculations and variables for Perfetto and HTML ---- */

static int
kc_x_spbuf(void *arg, uint32_t id, uint32_t cpu, uint32_t kind,
    uint64_t used)
{
	((struct kc_x *)arg)->x_speckind = kind;
	return 0;
}

/* One speculative record: decoded as the principal records are. */
static int
kc_x_sprec(void *arg, uint32_t id, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t off)
{
	struct kc_x *x = arg;
	struct kc_x_spec *sp;
	size_t tl;
	FILE *m;

	if (kc_x_grow((void **)&x->x_specs, &x->x_capspecs, x->x_nspecs,
	    sizeof (*x->x_specs)) != 0)
		return 0;
	sp = &x->x_specs[x->x_nspecs];
	memset(sp, 0, sizeof (*sp));
	if ((m = open_memstream(&sp->xp_text, &tl)) == NULL)
		return 0;
	kc_dec_record(x->x_dec, cpu, rec, payload,
	    kc_dec_consumed(x->x_dec, cpu), m, x->x_err);
	fclose(m);
	sp->xp_id = id;
	sp->xp_cpu = cpu;
	sp->xp_kind = x->x_speckind;
	sp->xp_epid = rec->rr_epid;
	sp->xp_ts = rec->rr_timestamp;
	x->x_nspecs++;
	return 0;
}

/* Damage: the messages kc_vars.c gives in text and JSON mode. */
static int
kc_x_spbad(void *arg, uint32_t id, uint32_t cpu, uint64_t off,
    const char *what)
{
	struct kc_x *x = arg;

	if (id == 0)
		fprintf(x->x_err, "%s: %s: speculation area left out: %s\n",
		    x->x_prog, x->x_input, what);
	else
		fprintf(x->x_err, "%s: %s: speculation %u, cpu %u: buffer offset 0x%llx: %s\n",
		    x->x_prog, x->x_input, id, cpu,
		    (unsigned long long)off, what);
	return 0;
}

/*
 * The speculations into x_specs and, with --vars, the variables as
 * kc_vars.c prints them: its text lines (x_vtext) and its JSON objects
 * (x_vjson), both sorted the same way, so line i of one is line i of the
 * other.  Damage is reported once, by the text pass.
 */
static void
kc_x_specvars(struct kc_x *x)
{
	struct rgn_spec_cb cb = { kc_x_spbuf, kc_x_sprec, kc_x_spbad, x };
	struct kc_vars_io vio = { x->x_prog, x->x_input, NULL, x->x_err, 0 };
	struct kdt_err ke;
	char *junk = NULL;
	size_t tl, jl;
	FILE *m, *e;

	(void) rgn_walk_spec(&x->x_v, &cb, &ke);
	if ((x->x_flags & KC_F_VARS) == 0)
		return;
	if ((m = open_memstream(&x->x_vtext, &tl)) == NULL)
		return;
	vio.vi_out = m;
	(void) kc_region_vars(&x->x_v, x->x_den, &vio);
	fclose(m);
	if ((m = open_memstream(&x->x_vjson, &jl)) == NULL)
		return;
	if ((e = open_memstream(&junk, &jl)) == NULL) {
		fclose(m);
		return;
	}
	vio.vi_out = m;
	vio.vi_err = e;
	vio.vi_json = 1;
	(void) kc_region_vars(&x->x_v, x->x_den, &vio);
	fclose(m);
	fclose(e);
	free(junk);
}

/* The next line of *p (without its newline), or NULL at the end. */
static char *
kc_x_line(char **p)
{
	char *l = *p, *nl;

	while (l != NULL && *l == '\n')	/* the text form's blank line */
		l++;
	if (l == NULL || *l == '\0')
		return NULL;
	if ((nl = strchr(l, '\n')) != NULL) {
		*nl = '\0';
		*p = nl + 1;
	} else
		*p = l + strlen(l);
	return l;
}

static const char *
kc_x_specstate(uint32_t kind)
{
	return kind == RGN_SPEC_UNCOMMITTED ? "uncommitted" : "committing";
}

/* Uncommitted speculations and, with --vars, the variables (kc_vars.c). */
static void
kc_x_json_specvars(struct kc_x *x)
{
	struct kc_vars_io vio = { x->x_prog, x->x_input, x->x_out, x->x_err,
	    1 };

	/* damage is reported on the error stream by kc_vars.c itself */
	(void) kc_region_specs(x->x_dec, &x->x_v, &vio);
	if (x->x_flags & KC_F_VARS)
		(void) kc_region_vars(&x->x_v, x->x_den, &vio);
}

static void
kc_x_json(struct kc_x *x)
{
	FILE *f = x->x_out;
	uint64_t i, drops;
	uint32_t last = 0;
	char *t;

	fputs("{\"type\":\"source\",", f);
	kc_x_srcfields(f, x);
	fputs("}\n", f);
	for (i = 0; i < x->x_nrecs; i++)
		kc_x_json_rec(f, x, &x->x_recs[i]);
	drops = kc_x_json_counts(f, x);
	for (i = 0; i < x->x_nbads; i++)
		kc_x_json_bad(f, &x->x_bads[i]);
	for (i = 0; i < x->x_nents; i++)
		kc_x_json_ent(f, x, &x->x_ents[i]);
	for (i = 0; i < x->x_nents; i++) {
		if (x->x_ents[i].xe_varid == last)
			continue;
		last = x->x_ents[i].xe_varid;
		t = kc_x_printa(x, last);
		fprintf(f, "{\"type\":\"printa\",\"id\":%u,\"text\":", last);
		kc_x_jstr(f, t != NULL ? t : "");
		fputs("}\n", f);
		free(t);
	}
	kc_x_json_specvars(x);	/* speculations, --vars (kc_vars.h) */
	fprintf(f, "{\"type\":\"end\",\"records\":%llu,\"faults\":%llu,"
	    "\"torn\":%llu,\"drops\":%llu,\"aggregation_entries\":%llu}\n",
	    (unsigned long long)(x->x_nrecs - x->x_nfaults),
	    (unsigned long long)x->x_nfaults,
	    (unsigned long long)x->x_nbads, (unsigned long long)drops,
	    (unsigned long long)x->x_nents);
}

/* ---- Perfetto (Chrome trace events) ---- */

#define KC_X_LANES	16	/* sub-tracks per cpu */
#define KC_X_LANEDEPTH	64	/* nesting kept per sub-track */
#define KC_X_LANETID	1000000	/* tid of lane k of cpu c: k * this + c + 1 */

static int
kc_x_slicecmp(const void *a, const void *b, void *arg)
{
	const struct kc_x_slice *sl = arg;
	uint64_t i = *(const uint64_t *)a, j = *(const uint64_t *)b;

	if (sl[i].xs_cpu != sl[j].xs_cpu)
		return sl[i].xs_cpu < sl[j].xs_cpu ? -1 : 1;
	if (sl[i].xs_begin != sl[j].xs_begin)
		return sl[i].xs_begin < sl[j].xs_begin ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * Complete events on one track must nest.  Slices of different keys (an
 * irq inside a probe, two threads' waits on one cpu) may cross, so each
 * cpu's slices, in begin order, go to the first sub-track ("lane") where
 * they nest inside what is still open there; lane 0 is the cpu's own
 * track, lanes 1.. are extra tracks "CPU n (overlap k)".  Past
 * KC_X_LANES lanes or KC_X_LANEDEPTH levels a slice goes to the last
 * lane as it is.  Returns the largest lane used, per cpu, in nl[].
 */
static void
kc_x_lanes(struct kc_x *x, uint8_t *nl)
{
	uint64_t ends[KC_X_LANES][KC_X_LANEDEPTH];
	uint32_t top[KC_X_LANES], k, cpu = (uint32_t)-1;
	struct kc_x_slice *s;
	uint64_t *idx, i;

	if (x->x_nslices == 0 ||
	    (idx = calloc(x->x_nslices, sizeof (*idx))) == NULL)
		return;
	for (i = 0; i < x->x_nslices; i++)
		idx[i] = i;
	qsort_r(idx, x->x_nslices, sizeof (*idx), kc_x_slicecmp, x->x_slices);
	for (i = 0; i < x->x_nslices; i++) {
		s = &x->x_slices[idx[i]];
		if (s->xs_cpu != cpu) {
			cpu = s->xs_cpu;
			memset(top, 0, sizeof (top));
		}
		for (k = 0; k < KC_X_LANES; k++) {
			while (top[k] > 0 && ends[k][top[k] - 1] <= s->xs_begin)
				top[k]--;
			if (top[k] == 0 || (ends[k][top[k] - 1] >= s->xs_end &&
			    top[k] < KC_X_LANEDEPTH))
				break;
		}
		s->xs_lane = k < KC_X_LANES ? k : KC_X_LANES - 1;
		if (k < KC_X_LANES)
			ends[k][top[k]++] = s->xs_end;
		if (cpu < x->x_v.rv_hdr->rh_ncpu && s->xs_lane > nl[cpu])
			nl[cpu] = (uint8_t)s->xs_lane;
	}
	free(idx);
}

static void kc_x_ev(FILE *f, int *first, const char *ph);

/* Name the extra lanes of every cpu (lane 0 is named with the cpu). */
static void
kc_x_pf_lanes(FILE *f, const struct kc_x *x, const uint8_t *nl,
    int *first)
{
	uint32_t cpu, k;

	for (cpu = 0; cpu < x->x_v.rv_hdr->rh_ncpu; cpu++)
		for (k = 1; k <= nl[cpu]; k++) {
			kc_x_ev(f, first, "M");
			fprintf(f, ",\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"CPU %u (overlap %u)\"}}",
			    k * KC_X_LANETID + cpu + 1, cpu, k);
			kc_x_ev(f, first, "M");
			fprintf(f, ",\"tid\":%u,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}}",
			    k * KC_X_LANETID + cpu + 1, cpu * KC_X_LANES + k);
		}
}

/* Start one event object: a separator, then {"ph":..,"pid":1. */
static void
kc_x_ev(FILE *f, int *first, const char *ph)
{
	fprintf(f, "%s\n{\"ph\":\"%s\",\"pid\":1", *first ? "" : ",", ph);
	*first = 0;
}

static void
kc_x_pf_meta(FILE *f, const struct kc_x *x, int *first)
{
	const struct rgn_hdr *h = x->x_v.rv_hdr;
	char name[512];
	uint32_t cpu;

	snprintf(name, sizeof (name), "kdt: kernel %.*s (%s)",
	    (int)sizeof (h->rh_release), h->rh_release, x->x_input);
	kc_x_ev(f, first, "M");
	fputs(",\"name\":\"process_name\",\"args\":{\"name\":", f);
	kc_x_jstr(f, name);
	fputs("}}", f);
	for (cpu = 0; cpu < h->rh_ncpu; cpu++) {
		kc_x_ev(f, first, "M");
		fprintf(f, ",\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"CPU %u\"}}",
		    cpu + 1, cpu);
		kc_x_ev(f, first, "M");
		fprintf(f, ",\"tid\":%u,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}}",
		    cpu + 1, cpu * KC_X_LANES);
	}
}

static void
kc_x_pf_recs(FILE *f, const struct kc_x *x, int *first)
{
	const struct kc_x_rec *r;
	const struct dof_lecb *le;
	char pd[512];
	uint64_t i;

	for (i = 0; i < x->x_nrecs; i++) {
		r = &x->x_recs[i];
		if (r->xr_rec->rr_epid == RGN_EPID_ERROR)
			snprintf(pd, sizeof (pd), "ERROR");
		else
			kc_x_pdesc(kc_x_probe(x, r->xr_rec->rr_epid, NULL),
			    pd, sizeof (pd));
		kc_x_ev(f, first, "i");
		fprintf(f, ",\"s\":\"t\",\"tid\":%u,\"cat\":\"%s\",\"ts\":",
		    r->xr_cpu + 1, r->xr_rec->rr_epid == RGN_EPID_ERROR ?
		    "fault" : "record");
		kc_x_us(f, r->xr_ts);
		fputs(",\"name\":", f);
		kc_x_jstr(f, pd);
		fputs(",\"args\":{\"text\":", f);
		kc_x_jstr(f, r->xr_rec->rr_epid == RGN_EPID_ERROR &&
		    r->xr_msg != NULL ? r->xr_msg :
		    r->xr_text != NULL ? r->xr_text : "");
		if ((le = kc_x_lecb(x, r)) != NULL) {
			fputs(",\"data\":", f);
			kc_x_items(f, le, r->xr_payload);
		}
		fputs("}}", f);
	}
}

static void
kc_x_pf_slices(FILE *f, const struct kc_x *x, int *first)
{
	const struct kc_x_slice *s;
	const struct kc_x_rec *e;
	uint64_t i;

	for (i = 0; i < x->x_nslices; i++) {
		s = &x->x_slices[i];
		kc_x_ev(f, first, "X");
		fprintf(f, ",\"tid\":%u,\"cat\":\"slice\",\"ts\":",
		    s->xs_lane * KC_X_LANETID + s->xs_cpu + 1);
		kc_x_us(f, s->xs_begin);
		fputs(",\"dur\":", f);
		kc_x_us(f, s->xs_end - s->xs_begin);
		fputs(",\"name\":", f);
		kc_x_jstr(f, s->xs_name);
		fputs(",\"args\":{\"probe\":", f);
		kc_x_jstr(f, s->xs_key);
		fputs(",\"begin\":", f);
		kc_x_jstr(f, x->x_recs[s->xs_brec].xr_text != NULL ?
		    x->x_recs[s->xs_brec].xr_text : "");
		if (s->xs_erec != (uint64_t)-1) {
			e = &x->x_recs[s->xs_erec];
			fputs(",\"end\":", f);
			kc_x_jstr(f, e->xr_text != NULL ? e->xr_text : "");
			if (e->xr_cpu != s->xs_cpu)
				fprintf(f, ",\"end_cpu\":%u", e->xr_cpu);
		} else {
			fputs(",\"unfinished\":true", f);
		}
		fputs("}}", f);
	}
}

static int
kc_x_entvalcmp(const void *a, const void *b)
{
	const struct kc_x_ent *const *x = a, *const *y = b;
	int64_t va = kc_x_ishist((*x)->xe_ag->ag_kind) ?
	    kc_x_histtotal(*x) : kc_x_aggval(*x);
	int64_t vb = kc_x_ishist((*y)->xe_ag->ag_kind) ?
	    kc_x_histtotal(*y) : kc_x_aggval(*y);

	return va > vb ? -1 : va < vb;
}

/*
 * The entries of variable "varid" (x_ents is sorted by variable), largest
 * value first, into a new array; *n entries.
 */
static const struct kc_x_ent **
kc_x_byvalue(const struct kc_x *x, uint32_t varid, uint64_t *n)
{
	const struct kc_x_ent **v;
	uint64_t i;

	*n = 0;
	v = calloc(x->x_nents + 1, sizeof (*v));
	if (v == NULL)
		return NULL;
	for (i = 0; i < x->x_nents; i++)
		if (x->x_ents[i].xe_varid == varid)
			v[(*n)++] = &x->x_ents[i];
	qsort(v, *n, sizeof (*v), kc_x_entvalcmp);
	return v;
}

/* One counter sample of variable "varid" at "ts"; zero: all 0. */
static void
kc_x_pf_counter(FILE *f, const struct kc_x *x, uint32_t varid, uint64_t ts,
    int zero, int *first)
{
	const struct kc_x_ent **v;
	uint64_t n, i;
	char name[64], key[256];
	int hist;

	if ((v = kc_x_byvalue(x, varid, &n)) == NULL || n == 0) {
		free(v);
		return;
	}
	hist = kc_x_ishist(v[0]->xe_ag->ag_kind);
	snprintf(name, sizeof (name), "@%u %s()", varid,
	    kc_x_aggfunc(v[0]->xe_ag->ag_kind));
	kc_x_ev(f, first, "C");
	fputs(",\"name\":", f);
	kc_x_jstr(f, name);
	fputs(",\"ts\":", f);
	kc_x_us(f, ts);
	fputs(",\"args\":{", f);
	if (hist) {
		int64_t t = 0;

		for (i = 0; i < n; i++)
			t += kc_x_histtotal(v[i]);
		fprintf(f, "\"total\":%lld", zero ? 0LL : (long long)t);
	}
	for (i = 0; !hist && i < n && i < KC_X_COUNTERS; i++) {
		kc_x_keytext(x, v[i], key, sizeof (key));
		if (i != 0)
			fputc(',', f);
		kc_x_jstr(f, key);
		fprintf(f, ":%lld", zero ? 0LL : (long long)kc_x_aggval(v[i]));
	}
	fputs("}}", f);
	free(v);
}

/*
 * Uncommitted speculations: an instant per record on its cpu's track
 * (category "speculation"), named "speculation ID (STATE)", args {"id",
 * "state", "probe", "text"}.
 */
static void
kc_x_pf_specs(FILE *f, const struct kc_x *x, int *first)
{
	const struct kc_x_spec *sp;
	char pd[512], name[64];
	uint64_t i;

	for (i = 0; i < x->x_nspecs; i++) {
		sp = &x->x_specs[i];
		kc_x_pdesc(kc_x_probe(x, sp->xp_epid, NULL), pd, sizeof (pd));
		snprintf(name, sizeof (name), "speculation %u (%s)", sp->xp_id,
		    kc_x_specstate(sp->xp_kind));
		kc_x_ev(f, first, "i");
		fprintf(f, ",\"s\":\"t\",\"tid\":%u,\"cat\":\"speculation\",\"ts\":",
		    sp->xp_cpu + 1);
		kc_x_us(f, sp->xp_ts);
		fputs(",\"name\":", f);
		kc_x_jstr(f, name);
		fprintf(f, ",\"args\":{\"id\":%u,\"state\":\"%s\",\"probe\":",
		    sp->xp_id, kc_x_specstate(sp->xp_kind));
		kc_x_jstr(f, pd);
		fputs(",\"text\":", f);
		kc_x_jstr(f, sp->xp_text != NULL ? sp->xp_text : "");
		fputs("}}", f);
	}
}

/*
 * --vars: a global instant per variable at the newest record's time
 * (category "variable"), named by its text line (kc_vars.h), args
 * {"variable": its JSON object}.
 */
static void
kc_x_pf_vars(FILE *f, struct kc_x *x, int *first)
{
	char *tp = x->x_vtext, *jp = x->x_vjson, *t, *j;

	while ((t = kc_x_line(&tp)) != NULL && (j = kc_x_line(&jp)) != NULL) {
		kc_x_ev(f, first, "i");
		fputs(",\"s\":\"g\",\"cat\":\"variable\",\"ts\":", f);
		kc_x_us(f, x->x_tsmax);
		fputs(",\"name\":", f);
		kc_x_jstr(f, t);
		fprintf(f, ",\"args\":{\"variable\":%s}}", j);
	}
}

/* Global instants for drops, error counts and torn records. */
static void
kc_x_pf_problems(FILE *f, const struct kc_x *x, int *first)
{
	const struct rgn_cpu *rc;
	uint64_t i, n;
	uint32_t cpu;
	char msg[256];

	for (cpu = 0; cpu < x->x_v.rv_hdr->rh_ncpu; cpu++) {
		rc = rgn_view_cpu(&x->x_v, cpu);
		for (i = 0; i < 3; i++) {
			if (i == 0)
				kc_x_dropmsg(x, KC_DROP_PRINCIPAL,
				    rc->rc_drops, cpu, msg, sizeof (msg));
			else if (i == 1)
				kc_x_dropmsg(x, KC_DROP_AGGREGATION,
				    (n = kc_x_aggdrops(x, cpu)), cpu, msg,
				    sizeof (msg));
			else if (rc->rc_errors != 0)
				snprintf(msg, sizeof (msg), "%llu error(s) on CPU %u",
				    (unsigned long long)rc->rc_errors, cpu);
			else
				msg[0] = '\0';
			if (msg[0] == '\0')
				continue;
			kc_x_ev(f, first, "i");
			fputs(",\"s\":\"g\",\"cat\":\"problem\",\"ts\":", f);
			kc_x_us(f, x->x_tsmax);
			fputs(",\"name\":", f);
			kc_x_jstr(f, msg);
			fputs("}", f);
		}
	}
	for (i = 0; i < x->x_nbads; i++) {
		kc_x_ev(f, first, "i");
		fputs(",\"s\":\"g\",\"cat\":\"problem\",\"ts\":", f);
		kc_x_us(f, x->x_tsmax);
		fputs(",\"name\":", f);
		kc_x_jstr(f, x->x_bads[i].xb_text != NULL ?
		    x->x_bads[i].xb_text : "torn record");
		fputs("}", f);
	}
}

static void
kc_x_perfetto(struct kc_x *x)
{
	FILE *f = x->x_out;
	uint8_t *nl;
	uint32_t last = 0;
	uint64_t i;
	int first = 1;

	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{", f);
	kc_x_srcfields(f, x);
	fputs("},\"traceEvents\":[", f);
	kc_x_pf_meta(f, x, &first);
	if ((nl = calloc(x->x_v.rv_hdr->rh_ncpu + 1, 1)) != NULL) {
		kc_x_lanes(x, nl);
		kc_x_pf_lanes(f, x, nl, &first);
		free(nl);
	}
	kc_x_pf_slices(f, x, &first);
	kc_x_pf_recs(f, x, &first);
	kc_x_pf_specs(f, x, &first);
	for (i = 0; i < x->x_nents; i++) {
		if (x->x_ents[i].xe_varid == last)
			continue;
		last = x->x_ents[i].xe_varid;
		kc_x_pf_counter(f, x, last, x->x_tsmin, 1, &first);
		kc_x_pf_counter(f, x, last, x->x_tsmax, 0, &first);
	}
	kc_x_pf_vars(f, x, &first);
	kc_x_pf_problems(f, x, &first);
	fputs("\n]}\n", f);
}

/* ---- HTML ---- */

#define KC_X_W		1100	/* timeline plot width, px */
#define KC_X_LEFT	70	/* lane labels */
#define KC_X_ROWH	16	/* one nesting level of slices */
#define KC_X_MAXDEPTH	8

static const char kc_x_css[] =
    "body{font:13px sans-serif;margin:16px;color:#222}"
    "h1{font-size:20px}h2{font-size:16px;margin-top:24px}"
    "table.src td{padding:1px 8px}"
    "svg text{font:10px sans-serif}"
    ".lane{fill:#f4f4f4}.rec{stroke:#555;stroke-width:1}"
    ".slice{stroke:#333;stroke-width:.5}.unfinished{stroke:#c00;stroke-width:1.5}"
    ".axis{stroke:#999}.bar{fill:#4a7fc1}.hbar{fill:#5a9e5a}"
    "div.agg{margin:12px 0;padding:8px;border:1px solid #ddd}"
    "table#kdt-records,table#kdt-slices,table#kdt-speculations,table#kdt-variables{border-collapse:collapse;font:12px monospace}"
    "table#kdt-records td,table#kdt-slices td,table#kdt-speculations td,table#kdt-variables td{border-bottom:1px solid #eee;padding:1px 6px;white-space:pre}"
    "pre{background:#f8f8f8;padding:6px;overflow:auto}";

static double
kc_x_px(const struct kc_x *x, uint64_t ts)
{
	uint64_t span = x->x_tsmax > x->x_tsmin ? x->x_tsmax - x->x_tsmin : 1;

	return KC_X_LEFT + (double)(ts - x->x_tsmin) * KC_X_W / (double)span;
}

static uint32_t
kc_x_hue(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h % 360;
}

/*
 * Nesting depth of each slice on its cpu (a sweep with a stack of end
 * times per cpu; cpus past 64 share stacks modulo 64, which only makes
 * their lanes deeper than needed).
 */
static void
kc_x_depths(const struct kc_x *x, uint8_t *depth, uint32_t *lanedepth)
{
	uint64_t stack[KC_X_MAXDEPTH + 1][64];
	uint32_t top[64] = { 0 }, c, cpu;
	uint64_t i;

	for (c = 0; c < x->x_v.rv_hdr->rh_ncpu; c++)
		lanedepth[c] = 1;
	for (i = 0; i < x->x_nslices; i++) {
		cpu = x->x_slices[i].xs_cpu % 64;
		while (top[cpu] > 0 &&
		    stack[top[cpu] - 1][cpu] <= x->x_slices[i].xs_begin)
			top[cpu]--;
		depth[i] = (uint8_t)top[cpu];
		if (top[cpu] < KC_X_MAXDEPTH)
			stack[top[cpu]++][cpu] = x->x_slices[i].xs_end;
		if (x->x_slices[i].xs_cpu < x->x_v.rv_hdr->rh_ncpu &&
		    depth[i] + 1u > lanedepth[x->x_slices[i].xs_cpu])
			lanedepth[x->x_slices[i].xs_cpu] = depth[i] + 1u;
	}
}

/* Ten ticks, labelled with the time since the first record. */
static void
kc_x_html_axis(FILE *f, const struct kc_x *x, uint32_t height)
{
	double span = (double)(x->x_tsmax - x->x_tsmin), t, px;
	const char *unit = "ms";
	double div = 1e6;
	int i;

	if (span < 1e4) {
		unit = "us";
		div = 1e3;
	} else if (span >= 1e10) {
		unit = "s";
		div = 1e9;
	}
	for (i = 0; i <= 10; i++) {
		t = span * i / 10;
		px = kc_x_px(x, x->x_tsmin + (uint64_t)t);
		fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"14\" x2=\"%.1f\" y2=\"%u\"/>"
		    "<text x=\"%.1f\" y=\"10\" text-anchor=\"middle\">+%.*f %s</text>\n",
		    px, px, height, px, span / div < 10 ? 3 : 1, t / div, unit);
	}
}

static void
kc_x_html_slice(FILE *f, const struct kc_x *x, uint64_t i, double y)
{
	const struct kc_x_slice *s = &x->x_slices[i];
	double x0 = kc_x_px(x, s->xs_begin), x1 = kc_x_px(x, s->xs_end);
	double w = x1 - x0 < 1 ? 1 : x1 - x0;

	fprintf(f, "<g><rect class=\"slice%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%u\" fill=\"hsl(%u,55%%,70%%)\" data-name=\"",
	    s->xs_open ? " unfinished" : "", x0, y, w, KC_X_ROWH - 2,
	    kc_x_hue(s->xs_name));
	kc_x_hstr(f, s->xs_name);
	fputs("\"><title>", f);
	kc_x_hstr(f, s->xs_name);
	fprintf(f, " (CPU %u): %.3f ms%s</title></rect>", s->xs_cpu,
	    (double)(s->xs_end - s->xs_begin) / 1e6,
	    s->xs_open ? ", unfinished" : "");
	if (w > 40) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x0 + 2, y + 10);
		kc_x_hstrn(f, s->xs_name, (size_t)(w / 6));
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

static void
kc_x_html_timeline(FILE *f, const struct kc_x *x)
{
	uint32_t ncpu = x->x_v.rv_hdr->rh_ncpu, cpu, *ld, h = 20;
	uint8_t *depth = calloc(x->x_nslices + 1, 1);
	double *top;
	uint64_t i, step;

	ld = calloc(ncpu + 1, sizeof (*ld));
	top = calloc(ncpu + 1, sizeof (*top));
	if (depth == NULL || ld == NULL || top == NULL)
		goto out;
	kc_x_depths(x, depth, ld);
	for (cpu = 0; cpu < ncpu; cpu++) {
		top[cpu] = h;
		h += 8 + ld[cpu] * KC_X_ROWH + 4;
	}
	fprintf(f, "<h2>Timeline</h2>\n<p>%llu slices, %llu records, from %.9f s to %.9f s of the recording kernel's monotonic clock; the axis counts from the first record</p>\n",
	    (unsigned long long)x->x_nslices, (unsigned long long)x->x_nrecs,
	    (double)x->x_tsmin / 1e9, (double)x->x_tsmax / 1e9);
	fprintf(f, "<svg id=\"kdt-timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\">\n",
	    KC_X_LEFT + KC_X_W + 50, h);
	for (cpu = 0; cpu < ncpu; cpu++)
		fprintf(f, "<rect class=\"lane\" data-cpu=\"%u\" x=\"%u\" y=\"%.1f\" width=\"%u\" height=\"%u\"/>"
		    "<text x=\"4\" y=\"%.1f\">CPU %u</text>\n", cpu, KC_X_LEFT,
		    top[cpu], KC_X_W, 8 + ld[cpu] * KC_X_ROWH, top[cpu] + 12,
		    cpu);
	kc_x_html_axis(f, x, h);
	step = x->x_nrecs > KC_X_HTML_TICKS ?
	    (x->x_nrecs + KC_X_HTML_TICKS - 1) / KC_X_HTML_TICKS : 1;
	for (i = 0; i < x->x_nrecs; i += step) {
		cpu = x->x_recs[i].xr_cpu;
		if (cpu >= ncpu)
			continue;
		fprintf(f, "<line class=\"rec\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		    kc_x_px(x, x->x_recs[i].xr_ts), top[cpu],
		    kc_x_px(x, x->x_recs[i].xr_ts), top[cpu] + 6);
	}
	for (i = 0; i < x->x_nslices; i++)
		if (x->x_slices[i].xs_cpu < ncpu)
			kc_x_html_slice(f, x, i, top[x->x_slices[i].xs_cpu] +
			    8 + depth[i] * KC_X_ROWH);
	fputs("</svg>\n", f);
	if (step > 1)
		fprintf(f, "<p>(one record tick in %llu drawn)</p>\n",
		    (unsigned long long)step);
out:
	free(depth);
	free(ld);
	free(top);
}

static int
kc_x_durcmp(const void *a, const void *b, void *arg)
{
	const struct kc_x_slice *sl = arg;
	uint64_t i = *(const uint64_t *)a, j = *(const uint64_t *)b;
	uint64_t di = sl[i].xs_end - sl[i].xs_begin;
	uint64_t dj = sl[j].xs_end - sl[j].xs_begin;

	if (di != dj)
		return di > dj ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* The KC_X_HTML_SLOW longest slices: the slowest initcalls, probes... */
static void
kc_x_html_slowest(FILE *f, const struct kc_x *x)
{
	const struct kc_x_slice *s;
	uint64_t *idx, i, n;

	if (x->x_nslices == 0 ||
	    (idx = calloc(x->x_nslices, sizeof (*idx))) == NULL)
		return;
	for (i = 0; i < x->x_nslices; i++)
		idx[i] = i;
	qsort_r(idx, x->x_nslices, sizeof (*idx), kc_x_durcmp, x->x_slices);
	n = x->x_nslices < KC_X_HTML_SLOW ? x->x_nslices : KC_X_HTML_SLOW;
	fprintf(f, "<h3>The %llu longest slices</h3>\n<table id=\"kdt-slices\">"
	    "<tr><th>name</th><th>CPU</th><th>start (s)</th><th>ms</th><th>probe</th></tr>\n",
	    (unsigned long long)n);
	for (i = 0; i < n; i++) {
		s = &x->x_slices[idx[i]];
		fputs("<tr><td>", f);
		kc_x_hstr(f, s->xs_name);
		fprintf(f, "</td><td>%u</td><td>%.9f</td><td>%.3f%s</td><td>",
		    s->xs_cpu, (double)s->xs_begin / 1e9,
		    (double)(s->xs_end - s->xs_begin) / 1e6,
		    s->xs_open ? " (unfinished)" : "");
		kc_x_hstr(f, s->xs_key);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	free(idx);
}

/* Scalar aggregation: horizontal bars of the largest keys. */
static void
kc_x_html_bars(FILE *f, const struct kc_x *x, const struct kc_x_ent **v,
    uint64_t n)
{
	uint64_t i, shown = n < KC_X_HTML_BARS ? n : KC_X_HTML_BARS;
	int64_t max = 1, val;
	char key[256];

	for (i = 0; i < shown; i++) {
		val = kc_x_aggval(v[i]);
		val = val < 0 ? -val : val;
		if (val > max)
			max = val;
	}
	fprintf(f, "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"%llu\">\n",
	    (unsigned long long)(shown * 18 + 4));
	for (i = 0; i < shown; i++) {
		val = kc_x_aggval(v[i]);
		kc_x_keytext(x, v[i], key, sizeof (key));
		fprintf(f, "<text x=\"0\" y=\"%llu\">", (unsigned long long)(i * 18 + 13));
		kc_x_hstrn(f, key, 48);
		fprintf(f, "</text><rect class=\"bar\" x=\"300\" y=\"%llu\" width=\"%.1f\" height=\"14\"><title>",
		    (unsigned long long)(i * 18 + 2),
		    1 + 500.0 * (double)(val < 0 ? -val : val) / (double)max);
		kc_x_hstr(f, key);
		fprintf(f, ": %lld</title></rect><text x=\"%.1f\" y=\"%llu\">%lld</text>\n",
		    (long long)val,
		    306 + 500.0 * (double)(val < 0 ? -val : val) / (double)max,
		    (unsigned long long)(i * 18 + 13), (long long)val);
	}
	fputs("</svg>\n", f);
	if (n > shown)
		fprintf(f, "<p>(%llu more keys)</p>\n",
		    (unsigned long long)(n - shown));
}

/* A histogram entry: vertical bars from the first to the last bucket. */
static void
kc_x_html_hist(FILE *f, const struct kc_x *x, const struct kc_x_ent *e)
{
	const int64_t *b = kc_x_buckets(e);
	uint32_t n = kc_x_nbuckets(e->xe_ag), lo = n, hi = 0, i, k;
	int64_t max = 1;
	char key[256], lab[64];
	int under;
	double bh;

	for (i = 0; i < n; i++)
		if (b[i] != 0) {
			lo = lo == n ? i : lo;
			hi = i;
			max = b[i] > max ? b[i] : max;
		}
	if (lo == n)
		return;
	kc_x_keytext(x, e, key, sizeof (key));
	fputs("<h4>", f);
	kc_x_hstr(f, key);
	fprintf(f, "</h4>\n<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"150\">\n",
	    (hi - lo + 1) * 44 + 10);
	for (i = lo, k = 0; i <= hi; i++, k++) {
		bh = 110.0 * (double)(b[i] < 0 ? 0 : b[i]) / (double)max;
		(void) kc_x_bucket(e->xe_ag, i, &under, lab, sizeof (lab));
		fprintf(f, "<rect class=\"hbar\" x=\"%u\" y=\"%.1f\" width=\"40\" height=\"%.1f\"><title>%s: %lld</title></rect>"
		    "<text x=\"%u\" y=\"145\">%s</text><text x=\"%u\" y=\"%.1f\">%lld</text>\n",
		    5 + k * 44, 120 - bh, bh, lab,
		    (long long)(b[i] / e->xe_normal), 5 + k * 44, lab,
		    5 + k * 44, 118 - bh, (long long)(b[i] / e->xe_normal));
	}
	fputs("</svg>\n", f);
}

static void
kc_x_html_aggs(FILE *f, const struct kc_x *x)
{
	const struct kc_x_ent **v;
	uint64_t i, n, k;
	uint32_t last = 0;
	char *t;

	fputs("<h2>Aggregations</h2>\n", f);
	if (x->x_nents == 0)
		fputs("<p>None recorded.</p>\n", f);
	for (i = 0; i < x->x_nents; i++) {
		if (x->x_ents[i].xe_varid == last)
			continue;
		last = x->x_ents[i].xe_varid;
		if ((v = kc_x_byvalue(x, last, &n)) == NULL)
			continue;
		fprintf(f, "<div class=\"agg\" id=\"agg-%u\"><h3>@%u %s() &mdash; %llu key%s</h3>\n",
		    last, last, kc_x_aggfunc(v[0]->xe_ag->ag_kind),
		    (unsigned long long)n, n == 1 ? "" : "s");
		if (kc_x_ishist(v[0]->xe_ag->ag_kind))
			for (k = 0; k < n && k < 10; k++)
				kc_x_html_hist(f, x, v[k]);
		else
			kc_x_html_bars(f, x, v, n);
		if ((t = kc_x_printa(x, last)) != NULL) {
			fputs("<details><summary>as dtrace prints it</summary><pre>", f);
			kc_x_hstrn(f, t, (size_t)-1);
			fputs("</pre></details>\n", f);
			free(t);
		}
		fputs("</div>\n", f);
		free(v);
	}
}

/* Uncommitted speculations: one row per record (table#kdt-speculations). */
static void
kc_x_html_specs(FILE *f, const struct kc_x *x)
{
	const struct kc_x_spec *sp;
	char pd[512];
	uint64_t i;

	fputs("<h2>Speculations</h2>\n", f);
	if (x->x_nspecs == 0) {
		fputs("<p>None uncommitted.</p>\n", f);
		return;
	}
	fputs("<p>Records of speculations never committed (or committed on another CPU and not yet copied there), as they would print after commit().</p>\n"
	    "<table id=\"kdt-speculations\"><tr><th>speculation</th><th>state</th><th>CPU</th><th>time (s)</th><th>probe</th><th>text</th></tr>\n",
	    f);
	for (i = 0; i < x->x_nspecs; i++) {
		sp = &x->x_specs[i];
		kc_x_pdesc(kc_x_probe(x, sp->xp_epid, NULL), pd, sizeof (pd));
		fprintf(f, "<tr><td>%u</td><td>%s</td><td>%u</td><td>%.9f</td><td>",
		    sp->xp_id, kc_x_specstate(sp->xp_kind), sp->xp_cpu,
		    (double)sp->xp_ts / 1e9);
		kc_x_hstr(f, pd);
		fputs("</td><td>", f);
		kc_x_hstr(f, sp->xp_text != NULL ? sp->xp_text : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/*
 * --vars: one row per variable (table#kdt-variables): its scope and its
 * kc_vars.h text line.
 */
static void
kc_x_html_vars(FILE *f, struct kc_x *x)
{
	char *tp = x->x_vtext, *t;
	const char *scope;
	uint64_t n = 0;

	fputs("<h2>Variables</h2>\n", f);
	while ((t = kc_x_line(&tp)) != NULL) {
		if (n++ == 0)
			fputs("<table id=\"kdt-variables\"><tr><th>scope</th><th>variable (type) = value</th></tr>\n",
			    f);
		scope = strncmp(t, "global ", 7) == 0 ? "global" :
		    strncmp(t, "array ", 6) == 0 ? "array" : "thread";
		if (strcmp(scope, "thread") != 0)
			t += strlen(scope) + 1;
		fprintf(f, "<tr><td>%s</td><td>", scope);
		kc_x_hstr(f, t);
		fputs("</td></tr>\n", f);
	}
	if (n != 0)
		fputs("</table>\n", f);
	else
		fputs("<p>None in the region (see the messages on the error stream).</p>\n", f);
}

static uint64_t
kc_x_nproblems(const struct kc_x *x)
{
	const struct rgn_cpu *rc;
	uint64_t n = x->x_nbads + x->x_nfaults;
	uint32_t cpu;

	for (cpu = 0; cpu < x->x_v.rv_hdr->rh_ncpu; cpu++) {
		rc = rgn_view_cpu(&x->x_v, cpu);
		n += rc->rc_drops + rc->rc_errors + kc_x_aggdrops(x, cpu);
	}
	return n;
}

static void
kc_x_html_problems(FILE *f, const struct kc_x *x)
{
	const struct rgn_cpu *rc;
	char msg[256];
	uint64_t i;
	uint32_t cpu;

	fputs("<h2>Problems</h2>\n<ul id=\"kdt-problems\">\n", f);
	for (cpu = 0; cpu < x->x_v.rv_hdr->rh_ncpu; cpu++) {
		rc = rgn_view_cpu(&x->x_v, cpu);
		kc_x_dropmsg(x, KC_DROP_PRINCIPAL, rc->rc_drops, cpu, msg,
		    sizeof (msg));
		if (msg[0] != '\0')
			fprintf(f, "<li>%s</li>\n", msg);
		kc_x_dropmsg(x, KC_DROP_AGGREGATION, kc_x_aggdrops(x, cpu), cpu,
		    msg, sizeof (msg));
		if (msg[0] != '\0')
			fprintf(f, "<li>%s</li>\n", msg);
		if (rc->rc_errors != 0)
			fprintf(f, "<li>%llu error(s) on CPU %u</li>\n",
			    (unsigned long long)rc->rc_errors, cpu);
	}
	for (i = 0; i < x->x_nrecs; i++)
		if (x->x_recs[i].xr_msg != NULL &&
		    x->x_recs[i].xr_msg[0] != '\0') {
			fputs("<li>", f);
			kc_x_hstr(f, x->x_recs[i].xr_msg);
			fputs("</li>\n", f);
		}
	for (i = 0; i < x->x_nbads; i++) {
		fputs("<li>", f);
		kc_x_hstr(f, x->x_bads[i].xb_text != NULL ?
		    x->x_bads[i].xb_text : "");
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
	if (kc_x_nproblems(x) == 0)
		fputs("<p>None: no drops, no errors, no torn records.</p>\n", f);
}

static void
kc_x_html_records(FILE *f, const struct kc_x *x)
{
	uint64_t i = x->x_nrecs > KC_X_HTML_ROWS ?
	    x->x_nrecs - KC_X_HTML_ROWS : 0;
	char pd[512];

	fprintf(f, "<h2>Records</h2>\n<p>The newest %llu of %llu, oldest first.</p>\n"
	    "<table id=\"kdt-records\"><tr><th>CPU</th><th>time (s)</th><th>probe</th><th>text</th></tr>\n",
	    (unsigned long long)(x->x_nrecs - i),
	    (unsigned long long)x->x_nrecs);
	for (; i < x->x_nrecs; i++) {
		if (x->x_recs[i].xr_rec->rr_epid == RGN_EPID_ERROR)
			snprintf(pd, sizeof (pd), "ERROR");
		else
			kc_x_pdesc(kc_x_probe(x, x->x_recs[i].xr_rec->rr_epid,
			    NULL), pd, sizeof (pd));
		fprintf(f, "<tr><td>%u</td><td>%.9f</td><td>",
		    x->x_recs[i].xr_cpu, (double)x->x_recs[i].xr_ts / 1e9);
		kc_x_hstr(f, pd);
		fputs("</td><td>", f);
		kc_x_hstr(f, x->x_recs[i].xr_text != NULL &&
		    x->x_recs[i].xr_text[0] != '\0' ? x->x_recs[i].xr_text :
		    x->x_recs[i].xr_msg != NULL ? x->x_recs[i].xr_msg : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void
kc_x_html(struct kc_x *x)
{
	const struct rgn_hdr *h = x->x_v.rv_hdr;
	FILE *f = x->x_out;
	char id[33];
	int i;

	for (i = 0; i < 16; i++)
		snprintf(id + 2 * i, 3, "%02x", h->rh_bootid[i]);
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kdt: ", f);
	kc_x_hstrn(f, h->rh_release, sizeof (h->rh_release));
	fprintf(f, "</title>\n<style>%s</style></head><body>\n"
	    "<h1>kdt trace report</h1>\n<table class=\"src\" id=\"kdt-source\">\n<tr><td>input</td><td>",
	    kc_x_css);
	kc_x_hstr(f, x->x_input);
	fputs("</td></tr>\n<tr><td>kernel</td><td>", f);
	kc_x_hstrn(f, h->rh_release, sizeof (h->rh_release));
	fprintf(f, "</td></tr>\n<tr><td>boot id</td><td>%s</td></tr>\n"
	    "<tr><td>CPUs</td><td>%u</td></tr>\n<tr><td>buffers</td><td>%llu bytes per CPU, %s policy</td></tr>\n"
	    "<tr><td>enabling</td><td>%s%s</td></tr>\n</table>\n",
	    id, h->rh_ncpu, (unsigned long long)h->rh_bufsize,
	    kc_x_policy(h->rh_policy), kc_x_state(x->x_v.rv_meta->rm_state),
	    (h->rh_flags & RGN_F_ANON) ? ", anonymous" : "");
	kc_x_html_timeline(f, x);
	kc_x_html_slowest(f, x);
	kc_x_html_aggs(f, x);
	kc_x_html_specs(f, x);
	if (x->x_flags & KC_F_VARS)
		kc_x_html_vars(f, x);
	kc_x_html_problems(f, x);
	kc_x_html_records(f, x);
	fputs("</body></html>\n", f);
}

/* ---- entry point ---- */

static void
kc_x_free(struct kc_x *x)
{
	uint64_t i;

	for (i = 0; i < x->x_nrecs; i++) {
		free(x->x_recs[i].xr_text);
		free(x->x_recs[i].xr_msg);
	}
	for (i = 0; i < x->x_nbads; i++) {
		free(x->x_bads[i].xb_what);
		free(x->x_bads[i].xb_text);
	}
	for (i = 0; i < x->x_nents; i++)
		free(x->x_ents[i].xe_data);
	for (i = 0; i < x->x_nspecs; i++)
		free(x->x_specs[i].xp_text);
	free(x->x_specs);
	free(x->x_vtext);
	free(x->x_vjson);
	free(x->x_recs);
	free(x->x_bads);
	free(x->x_slices);
	free(x->x_ents);
	if (x->x_ka != NULL)
		kc_aggs_free(x->x_ka);
	kc_dec_free(x->x_dec);
	dof_free(x->x_den);
}

/* Open the image and load its enabling; 0, or 1 after saying why. */
static int
kc_x_load(struct kc_x *x, const void *img, uint64_t len,
    const struct kc_opts *opts)
{
	struct kdt_err ke;

	/*
	 * Parts the dump lacks (opts->ko_gaps, rgn.h) are left out: a CPU
	 * buffer among them is reported by kc_x_collect() as a bad spot.
	 */
	if (rgn_open_gaps(&x->x_v, img, len, x->x_phys, opts->ko_gaps,
	    opts->ko_ngaps, &ke) != 0) {
		fprintf(x->x_err, "%s: %s: %s\n", x->x_prog, x->x_input,
		    ke.ke_msg);
		return 1;
	}
	if (x->x_v.rv_meta->rm_dof_size == 0) {
		fprintf(x->x_err, "%s: %s: the region holds no enabling (metadata state %u, DOF size 0)\n",
		    x->x_prog, x->x_input, x->x_v.rv_meta->rm_state);
		return 1;
	}
	if (dof_load(x->x_v.rv_dof, x->x_v.rv_meta->rm_dof_size, &x->x_den,
	    &ke) != 0) {
		fprintf(x->x_err, "%s: %s: DOF stored in the region metadata: %s\n",
		    x->x_prog, x->x_input, ke.ke_msg);
		return 1;
	}
	return 0;
}

/*
 * Parts of the region the dump lacks (each already reported where it was
 * left out): the partial status and its summary, as the text printer
 * (kc_print.c) gives them; 0 when nothing is missing.
 */
static int
kc_x_lost(const struct kc_x *x, const struct kc_opts *opts)
{
	uint32_t lost = kc_region_gaps(&x->x_v, x->x_prog, x->x_input, NULL);

	if (lost == 0 || !(opts->ko_flags & KC_F_PARTIAL))
		return 0;
	fprintf(x->x_err, "%s: %s: partial: %u part%s of the region not in the dump (above) left out; everything else is exported\n",
	    x->x_prog, x->x_input, lost, lost == 1 ? "" : "s");
	return KC_PARTIAL;
}

int
kc_export_region(const void *img, uint64_t len, uint64_t phys,
    const char *input, FILE *out, FILE *err, const struct kc_opts *opts)
{
	struct kc_dec_opts o;
	struct kc_x x;
	uint64_t q;
	int rv;

	memset(&x, 0, sizeof (x));
	x.x_prog = opts->ko_prog != NULL ? opts->ko_prog : "kdt";
	x.x_input = input;
	x.x_out = out;
	x.x_err = err;
	x.x_fmt = opts->ko_format;
	x.x_flags = opts->ko_flags;
	x.x_phys = phys;
	if (kc_x_load(&x, img, len, opts) != 0)
		return 1;
	memset(&o, 0, sizeof (o));
	o.do_prog = x.x_prog;
	o.do_input = input;
	o.do_out = out;
	o.do_err = err;
	q = x.x_den->den_opts[DTRACEOPT_QUIET];
	o.do_quiet = (q != DTRACEOPT_UNSET && q != 0) ||
	    (x.x_flags & KC_F_QUIET);
	if ((x.x_dec = kc_dec_new(&x.x_v, x.x_den, &o)) == NULL) {
		fprintf(err, "%s: %s: out of memory\n", x.x_prog, input);
		kc_x_free(&x);
		return 1;
	}
	kc_x_aggs_merge(&x);
	kc_dec_keep_libacts(x.x_dec, 1);	/* carried out on x_ka */
	kc_x_collect(&x);
	kc_dec_keep_libacts(x.x_dec, 0);	/* not a speculation's */
	kc_x_counts_err(&x);
	kc_x_aggs(&x);
	if (x.x_fmt != KC_FORMAT_JSON) {
		kc_x_slices(&x);
		kc_x_specvars(&x);
	}
	if (x.x_fmt == KC_FORMAT_JSON)
		kc_x_json(&x);
	else if (x.x_fmt == KC_FORMAT_PERFETTO)
		kc_x_perfetto(&x);
	else
		kc_x_html(&x);
	fflush(out);
	rv = kc_x_lost(&x, opts);
	if (x.x_aggpartial && (opts->ko_flags & KC_F_PARTIAL))
		rv = KC_PARTIAL;
	kc_x_free(&x);
	return rv;
}
