/*
 * kc_print.c -- the decoder: records in, dtrace(1) text out.
 *
 * One decoder for every front end (DESIGN.md): kdt-extract and "kdt -a"
 * hand a dead region image to kc_print_region(); the userspace engine
 * (kc_engine.c) keeps a struct kc_dec over its live region and calls
 * kc_dec_consume() as records are committed (kc_engine.h has the theory
 * of the incremental decoder and its hooks).  For each record the ECB's
 * action list and layout come from the loaded DOF (dof_load.h); framing
 * is done here, values are formatted by kc_fmt.c.  Problems inside a
 * record stream (torn or corrupt records, drops, probe errors) are
 * reported on the error stream and do not stop the other cpus.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/rgn.h"
#include "common/dof_load.h"
#include "common/dof_libact.h"
#include "common/agg.h"
#include "consumer/kc_vars.h"	/* speculations, --vars */
#include "consumer/kc_agg.h"
#include "consumer/kc.h"
#include "consumer/kc_engine.h"
#include "consumer/kc_export.h"
#include "consumer/kc_sym.h"
#include "consumer/kc_uprobe.h"
#include "consumer/kc_ptype.h"

#define KC_MAXARGS	128	/* printf() arguments decoded */
#define KC_MAXPRINTA	32	/* aggregations of one printa() */

/*
 * One aggregation action of a dead image's record stream: clear(),
 * trunc(), normalize(), denormalize() (KDT_LIBACT_*, on variable
 * la_varid) or an aggregation option's setopt() (la_name, la_value),
 * kept while the records are decoded and carried out on the merged
 * aggregations afterwards (kc_dec_apply_libacts).
 */
struct kc_libact {
	uint32_t	la_code;
	uint32_t	la_varid;
	int64_t		la_val;
	int		la_has;
	char		*la_name;	/* setopt() only */
	char		*la_value;
	/* its record (CPU, logical offset), and which of the record's
	   aggregation actions it is (from 0): replay */
	uint32_t	la_cpu;
	uint64_t	la_loff;
	uint64_t	la_k;
	uint32_t	la_seq;		/* decode order */
};

struct kc_dec {
	struct kc_dec_opts kd_o;
	struct kc_dec_hooks kd_hooks;
	const struct rgn_view *kd_view;
	const struct dof_enabling *kd_den;
	FILE		*kd_out;	/* freopen() may change it */
	FILE		*kd_own;	/* a file freopen() opened */
	int		kd_live;	/* hooks given: a live session */
	uint32_t	kd_quiet;
	uint32_t	kd_fmtflags;	/* KC_FMT_RAWBYTES */
	int		kd_heading;	/* heading printed */
	uint32_t	kd_ncpu;
	uint64_t	*kd_next;	/* per cpu: consumed up to */
	uint32_t	kd_nrecs;	/* decoded in this consume */
	uint64_t	kd_nbad;	/* torn or corrupt spots reported */
	uint64_t	kd_dynsize;	/* tracemem() dynamic size, or -1 */
	/* a dead image's aggregation actions, in decode order (below) */
	struct kc_libact *kd_acts;
	uint32_t	kd_nacts, kd_capacts;
	uint32_t	kd_actlost;	/* not kept: out of memory */
	uint32_t	kd_applied;	/* kd_acts[0, it) carried out on kd_ka */
	int		kd_actbad;	/* one of them failed (said) */
	int		kd_keepacts;
	struct kc_aggs	*kd_ka;		/* a dead image's merged aggregations,
					   for printa() (kc_dec_set_aggs) */
	/* the record being decoded (kc_dec_acted: the replay position) */
	int		kd_incur;
	uint32_t	kd_cur_cpu;
	uint64_t	kd_cur_loff;
	uint64_t	kd_cur_done;	/* its aggregation actions done */
	/* replay of a dead image read under switch (kc_replay_init) */
	int		kd_rstate;	/* KC_RP_* */
	uint64_t	*kd_rpos;	/* [3 * ncpu]: at_pos, k, the record
					   at_pos fell inside (+1; 0: none) */
	char		kd_rmsg[KDT_ERR_MSGLEN];	/* KC_RP_BAD: why */
};

#define KC_RP_UNSET	0	/* not a switched image, or not asked */
#define KC_RP_OK	1	/* replay from kd_rpos */
#define KC_RP_OLD	2	/* no replay part: today's message */
#define KC_RP_BAD	3	/* unusable: kd_rmsg says why */

/* Say where a record problem is: the input for images, nothing live. */
static void
kc_where(struct kc_dec *d, uint32_t cpu, uint64_t loff)
{
	if (d->kd_o.do_engine)
		fprintf(d->kd_o.do_err, "%s: ", d->kd_o.do_prog);
	else
		fprintf(d->kd_o.do_err, "%s: %s: cpu %u: record at logical offset 0x%llx: ",
		    d->kd_o.do_prog, d->kd_o.do_input, cpu,
		    (unsigned long long)loff);
}

static void
kc_prefix(struct kc_dec *d, uint32_t cpu, const struct rgn_epid *ep,
    const struct dof_lecb *le)
{
	const struct rgn_probe *rp = rgn_find_probe(d->kd_view,
	    ep->re_probe);
	char fn[DOF_FUNCNAMELEN + DOF_NAMELEN + 2];

	if (rp != NULL)
		snprintf(fn, sizeof (fn), "%.*s:%.*s",
		    (int)sizeof (rp->rp_func), rp->rp_func,
		    (int)sizeof (rp->rp_name), rp->rp_name);
	else
		snprintf(fn, sizeof (fn), "%s:%s", le->le_pdesc.lp_func,
		    le->le_pdesc.lp_name);
	if (!d->kd_heading)
		fprintf(d->kd_out, "%3s %6s %32s\n", "CPU", "ID",
		    "FUNCTION:NAME");
	d->kd_heading = 1;
	fprintf(d->kd_out, "%3d %6d %32s ", (int)cpu, (int)ep->re_probe, fn);
}

static void
kc_val_of(const struct dof_laction *la, const uint8_t *payload,
    struct kc_val *v)
{
	v->kv_data = payload + la->la_rec_off;
	v->kv_size = la->la_rec_size;
	v->kv_isstr = la->la_rec_isstr;
}

static int64_t
kc_int_of(const struct dof_laction *la, const uint8_t *payload)
{
	const uint8_t *p = payload + la->la_rec_off;
	int32_t v4;
	int64_t v8;

	if (la->la_rec_size == 4) {
		memcpy(&v4, p, 4);
		return v4;
	}
	if (la->la_rec_size >= 8) {
		memcpy(&v8, p, 8);
		return v8;
	}
	return la->la_rec_size == 0 ? 0 : p[0];
}

/*
 * A printf-like statement (printf, system, freopen) is a run of actions
 * of one kind, the first carrying the format.  The statement spans as
 * many actions as its conversions consume, at least one -- the way
 * dtrace's consumer groups them.  The text goes to "out".  Returns how
 * many actions the statement used.
 */
static uint32_t
kc_do_printf(struct kc_dec *d, FILE *out, const struct dof_lecb *le,
    uint32_t i, const uint8_t *payload, uint32_t cpu, uint64_t loff)
{
	struct kc_val args[KC_MAXARGS];
	uint32_t kind = le->le_acts[i].la_kind, n = 0, j;
	char why[256];
	int rv;

	for (j = i; j < le->le_nacts && n < KC_MAXARGS &&
	    le->le_acts[j].la_kind == kind; j++) {
		if (le->le_acts[j].la_rec_size != 0)
			kc_val_of(&le->le_acts[j], payload, &args[n++]);
	}
	rv = kc_fmt_printf(out, le->le_acts[i].la_fmt, args, n, why,
	    sizeof (why));
	if (rv < 0) {
		kc_where(d, cpu, loff);
		fprintf(d->kd_o.do_err, "printf(\"%s\") action #%u: %s\n",
		    le->le_acts[i].la_fmt, i + 1, why);
		return j - i;
	}
	return rv > 1 ? (uint32_t)rv : 1;
}

/* system() and freopen(): format into memory, then act.  Returns span. */
static uint32_t
kc_do_cmd(struct kc_dec *d, const struct dof_lecb *le, uint32_t i,
    const uint8_t *payload, uint32_t cpu, uint64_t loff)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	uint32_t n;

	if (mem == NULL)
		return 1;
	n = kc_do_printf(d, mem, le, i, payload, cpu, loff);
	fclose(mem);
	fflush(d->kd_out);
	if (le->le_acts[i].la_kind == DTRACEACT_SYSTEM) {
		if (d->kd_hooks.dh_system != NULL)
			d->kd_hooks.dh_system(d->kd_hooks.dh_arg, buf);
	} else if (d->kd_live) {
		/*
		 * Only a live session acts on freopen(), like system().  A
		 * region image or dump is untrusted: its freopen() records
		 * made kdt-extract (and kdt.so) create and append to files
		 * of any name it chose (found by tests/fuzz/fuzz_dif and
		 * fuzz_region, bad-freopen-region).  There the output
		 * stays where it is.
		 */
		if (d->kd_own != NULL)
			fclose(d->kd_own);
		d->kd_own = NULL;
		d->kd_out = d->kd_o.do_out;
		if (buf[0] != '\0' && (d->kd_own = fopen(buf, "a")) != NULL)
			d->kd_out = d->kd_own;
		else if (buf[0] != '\0')
			fprintf(d->kd_o.do_err, "%s: failed to freopen '%s'\n",
			    d->kd_o.do_prog, buf);
	}
	free(buf);
	return n;
}

/*
 * Does PRINTA action "la" belong to the printa() statement that starts
 * at "first"?  With a statement id in the library argument, by that id;
 * otherwise a statement with a format is followed by its further
 * aggregations as PRINTA actions without one (compiler/dc_act.c), and
 * one without a format stands alone.
 */
static int
kc_printa_next(const struct dof_laction *first, const struct dof_laction *la)
{
	if (la->la_kind != DTRACEACT_PRINTA)
		return 0;
	if (first->la_uarg != 0)
		return la->la_uarg == first->la_uarg;
	return first->la_fmt != NULL && la->la_fmt == NULL;
}

static void kc_apply_kept(struct kc_dec *d);

/* printa(): the PRINTA actions of one statement. */
static uint32_t
kc_do_printa(struct kc_dec *d, const struct dof_lecb *le, uint32_t i,
    const uint8_t *payload)
{
	const struct dof_laction *first = &le->le_acts[i];
	uint32_t ids[KC_MAXPRINTA], n = 0, j = i;

	do {
		if (n < KC_MAXPRINTA)
			ids[n++] = (uint32_t)kc_int_of(&le->le_acts[j],
			    payload);
		j++;
	} while (j < le->le_nacts && kc_printa_next(first, &le->le_acts[j]));
	if (d->kd_hooks.dh_printa != NULL) {
		fflush(d->kd_out);
		d->kd_hooks.dh_printa(d->kd_hooks.dh_arg, first->la_fmt, ids,
		    n);
	} else if (d->kd_keepacts && d->kd_ka != NULL) {
		/* a dead image: the aggregations as the consumer had them
		   when it would have decoded this record */
		kc_apply_kept(d);
		fflush(d->kd_out);
		(void) kc_aggs_printa(d->kd_ka, d->kd_out, first->la_fmt, ids,
		    n);
	}
	return j - i;
}

/*
 * setopt(): the decoder's own options take effect at once, in the middle
 * of the record being printed (dtrace(1) reads its quiet flag when it
 * starts a record and again when it ends one); the rest go to the engine.
 */
/* Keep one aggregation action of a dead image (kd_keepacts). */
static void
kc_keep_libact(struct kc_dec *d, uint32_t code, uint32_t varid,
    int64_t val, int has, const char *name, const char *value)
{
	struct kc_libact *a;
	uint32_t ncap;

	if (!d->kd_keepacts)
		return;
	if (d->kd_nacts == d->kd_capacts) {
		ncap = d->kd_capacts ? 2 * d->kd_capacts : 16;
		a = realloc(d->kd_acts, (size_t)ncap * sizeof (*a));
		if (a == NULL) {
			d->kd_actlost++; /* kc_dec_apply_libacts says so */
			return;
		}
		d->kd_acts = a;
		d->kd_capacts = ncap;
	}
	a = &d->kd_acts[d->kd_nacts];
	memset(a, 0, sizeof (*a));
	a->la_code = code;
	a->la_varid = varid;
	a->la_val = val;
	a->la_has = has;
	a->la_cpu = d->kd_cur_cpu;
	a->la_loff = d->kd_cur_loff;
	a->la_k = d->kd_cur_done;
	a->la_seq = d->kd_nacts;
	if (name != NULL) {
		a->la_name = strdup(name);
		a->la_value = strdup(value);
		if (a->la_name == NULL || a->la_value == NULL) {
			free(a->la_name);
			free(a->la_value);
			d->kd_actlost++;
			return;
		}
	}
	d->kd_nacts++;
}

static void
kc_setopt(struct kc_dec *d, const char *name, const char *value)
{
	int on = strcmp(value, "0") != 0;

	if (strcmp(name, "quiet") == 0)
		d->kd_quiet = on;
	else if (strcmp(name, "rawbytes") == 0)
		d->kd_fmtflags = on ? d->kd_fmtflags | KC_FMT_RAWBYTES :
		    d->kd_fmtflags & ~(uint32_t)KC_FMT_RAWBYTES;
	else if (d->kd_hooks.dh_setopt != NULL)
		d->kd_hooks.dh_setopt(d->kd_hooks.dh_arg, name, value);
	else
		kc_keep_libact(d, KDT_LIBACT_SETOPT, 0, 0, 0, name, value);
}

/* clear/normalize/denormalize/trunc/setopt/ftruncate.  Returns span. */
static uint32_t
kc_do_libact(struct kc_dec *d, const struct dof_lecb *le, uint32_t i,
    const uint8_t *payload)
{
	const struct dof_laction *la = &le->le_acts[i];
	const struct dof_laction *nx = i + 1 < le->le_nacts &&
	    le->le_acts[i + 1].la_kind == DTRACEACT_LIBACT &&
	    le->le_acts[i + 1].la_arg == la->la_arg ? la + 1 : NULL;
	uint32_t code = (uint32_t)la->la_arg;

	if (code == KDT_LIBACT_SETOPT) {
		if (la->la_rec_isstr)
			kc_setopt(d, (const char *)payload + la->la_rec_off,
			    nx != NULL && nx->la_rec_isstr ?
			    (const char *)payload + nx->la_rec_off : "");
		return nx != NULL ? 2 : 1;
	}
	if (code == KDT_LIBACT_FTRUNCATE) {
		if (d->kd_out != d->kd_o.do_out)
			(void) ftruncate(fileno(d->kd_out), 0);
		return 1;
	}
	/*
	 * An aggregation action: the live session counts it done
	 * (kc_dec_libact_acted) once carried out; a dead image's is kept
	 * with its place (kd_cur_*) and counted here.
	 */
	if (code == KDT_LIBACT_NORMALIZE || code == KDT_LIBACT_TRUNC) {
		if (d->kd_hooks.dh_libact != NULL)
			d->kd_hooks.dh_libact(d->kd_hooks.dh_arg, code,
			    (uint32_t)kc_int_of(la, payload),
			    nx != NULL ? kc_int_of(nx, payload) : 0, 1);
		else {
			kc_keep_libact(d, code,
			    (uint32_t)kc_int_of(la, payload),
			    nx != NULL ? kc_int_of(nx, payload) : 0, 1, NULL,
			    NULL);
			d->kd_cur_done++;
		}
		return nx != NULL ? 2 : 1;
	}
	if (d->kd_hooks.dh_libact != NULL)
		d->kd_hooks.dh_libact(d->kd_hooks.dh_arg, code,
		    (uint32_t)kc_int_of(la, payload), 0, 0);
	else {
		kc_keep_libact(d, code, (uint32_t)kc_int_of(la, payload), 0,
		    0, NULL, NULL);
		d->kd_cur_done++;
	}
	return 1;
}

/* Kernel-data records: stack(), sym() and friends.  1 if handled. */
static int
kc_do_kdata(struct kc_dec *d, const struct dof_laction *la,
    const uint8_t *payload)
{
	const uint8_t *p = payload + la->la_rec_off;
	const struct kc_symtab *t = kc_sym_default();
	struct kc_val v;

	kc_val_of(la, payload, &v);
	switch (la->la_kind) {
	case DTRACEACT_STACK:
		(void) kc_fmt_stack(d->kd_out, t, p, la->la_rec_size,
		    (uint32_t)la->la_arg, KC_STACKINDENT);
		return 1;
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
		(void) kc_fmt_ustack(d->kd_out, p, la->la_rec_size,
		    (uint32_t)la->la_arg, (uint32_t)(la->la_arg >> 32),
		    KC_STACKINDENT);
		return 1;
	case DTRACEACT_SYM:
		(void) kc_fmt_sym(d->kd_out, t, &v);
		return 1;
	case DTRACEACT_MOD:
		(void) kc_fmt_mod(d->kd_out, t, &v);
		return 1;
	case DTRACEACT_USYM:
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
		(void) kc_fmt_usym(d->kd_out, &v, la->la_kind);
		return 1;
	default:
		return 0;
	}
}

/* Records with nothing to print, or printed elsewhere (aggregations). */
static int
kc_silent(const struct dof_laction *la)
{
	if (la->la_role != DOF_ROLE_REC)
		return 1;
	switch (la->la_kind) {
	case DTRACEACT_EXIT:
	case DTRACEACT_SPECULATE:
	case DTRACEACT_COMMIT:
	case DTRACEACT_DISCARD:
	case DTRACEACT_NONE:
	/* destructive actions act in the probe; dtrace prints nothing */
	case DTRACEACT_CHILL:
	case DTRACEACT_PANIC:
	case DTRACEACT_BREAKPOINT:
	case DTRACEACT_STOP:
	case DTRACEACT_RAISE:
		return 1;
	default:
		return DTRACEACT_ISAGG(la->la_kind);
	}
}

/*
 * Is this print() type name a signed character type?  dtrace prints only
 * those as characters (CTF's char test wants the signed flag): an
 * unsigned char or uint8_t prints as a number.
 */
static int
kc_print_ischar(const char *t)
{
	static const char *const names[] = { "char", "signed char",
	    "int8_t" };
	size_t i;

	for (i = 0; i < sizeof (names) / sizeof (names[0]); i++)
		if (strcmp(t, names[i]) == 0)
			return 1;
	return 0;
}

/*
 * print() of a scalar or string: the DIFEXPR carries the value's type name
 * as its format; dtrace prints "<type> 0x<hex>" with the value masked to
 * its size, a character type as 'c' (or an octal escape), a string quoted.
 * Returns 0 when the record is none of these (traced as trace()).
 */
static int
kc_print_int(struct kc_dec *d, const struct dof_laction *la,
    const uint8_t *payload)
{
	const struct dif_object *o = la->la_difo;
	const char *s;
	uint64_t v = 0;
	uint32_t n = la->la_rec_size, i;

	if (la->la_fmt == NULL || o == NULL)
		return 0;
	if (la->la_rec_isstr && strcmp(la->la_fmt, "string") == 0) {
		s = (const char *)payload + la->la_rec_off;
		for (i = 0; i < n && s[i] != '\0'; i++)
			;
		fprintf(d->kd_out, "string \"%.*s\"\n", (int)i, s);
		return 1;
	}
	if (la->la_rec_isstr || o->do_rtype.dtdt_kind != DIF_TYPE_CTF ||
	    (o->do_rtype.dtdt_ckind != DIF_CTF_INTEGER &&
	    o->do_rtype.dtdt_ckind != DIF_CTF_POINTER) ||
	    (n != 1 && n != 2 && n != 4 && n != 8))
		return 0;
	memcpy(&v, payload + la->la_rec_off, n);	/* little-endian */
	if (n == 1 && kc_print_ischar(la->la_fmt)) {
		if (isprint((int)v))
			fprintf(d->kd_out, "%s '%c'\n", la->la_fmt, (int)v);
		else if (v == 0)
			fprintf(d->kd_out, "%s '\\0'\n", la->la_fmt);
		else	/* a C char promoted to int, as dtrace prints it */
			fprintf(d->kd_out, "%s '\\%03o'\n", la->la_fmt,
			    (unsigned)(int)(int8_t)v);
		return 1;
	}
	fprintf(d->kd_out, "%s 0x%llx\n", la->la_fmt, (unsigned long long)v);
	return 1;
}

/*
 * print() of a struct, union, enum or array: the action's format is a type
 * layout (common/dof_ptype.h), printed by kc_ptype.c.  1 when printed, 0
 * when the record is no such (it is traced instead).
 */
static int
kc_print_sou(struct kc_dec *d, const struct dof_laction *la,
    const uint8_t *payload)
{
	if (la->la_fmt == NULL || la->la_fmt[0] != '@' || la->la_rec_isstr)
		return 0;
	return kc_ptype_print(d->kd_out, la->la_fmt, payload + la->la_rec_off,
	    la->la_rec_size);
}

/* One plain action (not a statement spanning several).  Probe-free. */
static void
kc_do_one(struct kc_dec *d, const struct dof_laction *la,
    const uint8_t *payload, uint32_t i, uint32_t cpu, uint64_t loff)
{
	struct kc_val v;
	uint32_t n;

	kc_val_of(la, payload, &v);
	if (la->la_kind == DTRACEACT_DIFEXPR) {
		if (la->la_rec_size != 0 && !kc_print_sou(d, la, payload) &&
		    !kc_print_int(d, la, payload))
			kc_fmt_trace_opts(d->kd_out, &v, d->kd_fmtflags |
			    (d->kd_quiet ? KC_FMT_QUIET : 0) |
			    (la->la_difo != NULL && !la->la_rec_isstr &&
			    (la->la_difo->do_rtype.dtdt_flags & DIF_TF_BYREF) ?
			    KC_FMT_BYREF : 0));
	} else if (la->la_kind == DTRACEACT_TRACEMEM_DYNSIZE) {
		d->kd_dynsize = (uint64_t)kc_int_of(la, payload);
	} else if (la->la_kind == DTRACEACT_TRACEMEM) {
		n = d->kd_dynsize < la->la_rec_size ?
		    (uint32_t)d->kd_dynsize : la->la_rec_size;
		kc_fmt_tracemem(d->kd_out, &v, n);
		d->kd_dynsize = (uint64_t)-1;
	} else if (!kc_silent(la) && !kc_do_kdata(d, la, payload)) {
		kc_where(d, cpu, loff);
		fprintf(d->kd_o.do_err, "action #%u of kind 0x%x is not decoded by this consumer\n",
		    i + 1, la->la_kind);
	}
}

static void
kc_do_actions(struct kc_dec *d, const struct dof_lecb *le,
    const uint8_t *payload, uint32_t cpu, uint64_t loff)
{
	const struct dof_laction *la;
	uint32_t i = 0;

	d->kd_dynsize = (uint64_t)-1;
	while (i < le->le_nacts) {
		la = &le->le_acts[i];
		if (la->la_role != DOF_ROLE_REC) {
			i++;
		} else if (la->la_kind == DTRACEACT_PRINTF &&
		    la->la_fmt != NULL) {
			i += kc_do_printf(d, d->kd_out, le, i, payload, cpu,
			    loff);
		} else if ((la->la_kind == DTRACEACT_SYSTEM ||
		    la->la_kind == DTRACEACT_FREOPEN) && la->la_fmt != NULL) {
			i += kc_do_cmd(d, le, i, payload, cpu, loff);
		} else if (la->la_kind == DTRACEACT_PRINTA) {
			i += kc_do_printa(d, le, i, payload);
		} else if (la->la_kind == DTRACEACT_LIBACT) {
			i += kc_do_libact(d, le, i, payload);
		} else {
			kc_do_one(d, la, payload, i, cpu, loff);
			i++;
		}
	}
}

/* An error record: dtrace's "error on enabled probe ID" message. */
static void
kc_on_error(struct kc_dec *d, const uint8_t *payload)
{
	const struct rgn_epid *ep;
	const struct rgn_probe *rp = NULL;
	struct rgn_errrec ee;
	struct kc_fault f;

	memcpy(&ee, payload, sizeof (ee));
	ep = rgn_find_epid(d->kd_view, ee.ee_epid);
	if (ep != NULL)
		rp = rgn_find_probe(d->kd_view, ep->re_probe);
	memset(&f, 0, sizeof (f));
	f.kf_epid = ee.ee_epid;
	f.kf_probe = ep != NULL ? ep->re_probe : 0;
	f.kf_prov = rp != NULL ? rp->rp_prov : "?";
	f.kf_mod = rp != NULL ? rp->rp_mod : "?";
	f.kf_func = rp != NULL ? rp->rp_func : "?";
	f.kf_name = rp != NULL ? rp->rp_name : "?";
	f.kf_action = (int32_t)ee.ee_act;
	f.kf_offset = ee.ee_pc == (uint32_t)-1 ? -1 : (int32_t)(ee.ee_pc * 4);
	f.kf_fault = ee.ee_fault;
	f.kf_addr = ee.ee_addr;
	fflush(d->kd_out);
	kc_fmt_error(d->kd_o.do_err, d->kd_o.do_prog, &f);
}

/* rgn_walk_cpu callback: one committed record. */
static int
kc_on_rec(void *arg, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff)
{
	struct kc_dec *d = arg;
	const struct rgn_epid *ep;
	const struct dof_lecb *le;

	if (loff < d->kd_next[cpu])
		return 0;	/* consumed by an earlier call */
	d->kd_next[cpu] = loff + rec->rr_size;
	d->kd_nrecs++;
	if (d->kd_rstate == KC_RP_OK && d->kd_keepacts &&
	    loff < d->kd_rpos[3 * cpu] &&
	    d->kd_rpos[3 * cpu] < loff + rec->rr_size)
		d->kd_rpos[3 * cpu + 2] = loff + 1; /* not a record start */
	if (rec->rr_epid == RGN_EPID_ERROR) {
		kc_on_error(d, payload);
		return 0;
	}
	ep = rgn_find_epid(d->kd_view, rec->rr_epid);
	if (ep == NULL || ep->re_ecb >= d->kd_den->den_necbs ||
	    d->kd_den->den_ecbs[ep->re_ecb].le_size != ep->re_size) {
		kc_where(d, cpu, loff);
		fprintf(d->kd_o.do_err, "EPID %u names ECB %u of %u payload bytes, but the DOF has %u ECBs%s\n",
		    rec->rr_epid, ep != NULL ? ep->re_ecb : 0,
		    ep != NULL ? ep->re_size : 0, d->kd_den->den_necbs,
		    ep != NULL && ep->re_ecb < d->kd_den->den_necbs ?
		    " with another record size" : "");
		return 0;
	}
	le = &d->kd_den->den_ecbs[ep->re_ecb];
	if (!d->kd_quiet)
		kc_prefix(d, cpu, ep, le);
	d->kd_incur = 1;
	d->kd_cur_cpu = cpu;
	d->kd_cur_loff = loff;
	d->kd_cur_done = 0;
	kc_do_actions(d, le, payload, cpu, loff);
	d->kd_incur = 0;
	if (!d->kd_quiet)
		fputc('\n', d->kd_out);
	return 0;
}

/* rgn_walk_cpu callback: a torn or corrupt spot. */
static int
kc_on_bad(void *arg, uint32_t cpu, uint64_t loff, const char *what)
{
	struct kc_dec *d = arg;

	d->kd_nbad++;
	fprintf(d->kd_o.do_err, "%s: %s: cpu %u: logical offset 0x%llx: %s\n",
	    d->kd_o.do_prog, d->kd_o.do_input, cpu, (unsigned long long)loff,
	    what);
	return 0;
}

struct kc_dec *
kc_dec_new(const struct rgn_view *v, const struct dof_enabling *den,
    const struct kc_dec_opts *o)
{
	struct kc_dec *d = calloc(1, sizeof (*d));

	if (d == NULL)
		return NULL;
	d->kd_o = *o;
	if (o->do_hooks != NULL) {
		d->kd_hooks = *o->do_hooks;
		d->kd_live = 1;
		/* a live session's processes can be asked for names */
		kc_fmt_set_ulookup(kc_uaddr_lookup);
	}
	d->kd_view = v;
	d->kd_den = den;
	d->kd_out = o->do_out;
	d->kd_quiet = o->do_quiet;
	if (den->den_opts[DTRACEOPT_RAWBYTES] != DTRACEOPT_UNSET &&
	    den->den_opts[DTRACEOPT_RAWBYTES] != 0)
		d->kd_fmtflags |= KC_FMT_RAWBYTES;
	d->kd_ncpu = v->rv_hdr->rh_ncpu;
	d->kd_next = calloc(d->kd_ncpu ? d->kd_ncpu : 1, sizeof (uint64_t));
	if (d->kd_next == NULL) {
		free(d);
		return NULL;
	}
	return d;
}

void
kc_dec_free(struct kc_dec *d)
{
	if (d == NULL)
		return;
	if (d->kd_own != NULL)
		fclose(d->kd_own);
	free(d->kd_next);
	free(d->kd_rpos);
	while (d->kd_nacts > 0) {
		d->kd_nacts--;
		free(d->kd_acts[d->kd_nacts].la_name);
		free(d->kd_acts[d->kd_nacts].la_value);
	}
	free(d->kd_acts);
	free(d);
}

void
kc_dec_keep_libacts(struct kc_dec *d, int on)
{
	d->kd_keepacts = on && !d->kd_live;
}

static void kc_replay_init(struct kc_dec *d);

void
kc_dec_set_aggs(struct kc_dec *d, struct kc_aggs *ka)
{
	d->kd_ka = ka;
	if (ka != NULL && d->kd_rstate == KC_RP_UNSET)
		kc_replay_init(d);
}

void
kc_dec_acted(const struct kc_dec *d, uint32_t cpu, uint64_t *pos,
    uint64_t *k)
{
	*pos = 0;
	*k = 0;
	if (cpu >= d->kd_ncpu)
		return;
	if (d->kd_incur && cpu == d->kd_cur_cpu) {
		*pos = d->kd_cur_loff;
		*k = d->kd_cur_done;
	} else {
		*pos = d->kd_next[cpu];
	}
}

void
kc_dec_libact_acted(struct kc_dec *d)
{
	if (d->kd_incur)
		d->kd_cur_done++;
}

/* Does the enabling use clear(), trunc(), normalize() or denormalize()? */
int
kc_den_aggacts(const struct dof_enabling *den)
{
	const struct dof_laction *la;
	uint32_t e, i;

	for (e = 0; e < den->den_necbs; e++)
		for (i = 0; i < den->den_ecbs[e].le_nacts; i++) {
			la = &den->den_ecbs[e].le_acts[i];
			if (la->la_kind == DTRACEACT_LIBACT &&
			    la->la_arg >= KDT_LIBACT_CLEAR &&
			    la->la_arg <= KDT_LIBACT_TRUNC)
				return 1;
		}
	return 0;
}

/*
 * Did a live consumer read these records under bufpolicy=switch?  kdt.ko
 * writes such a state's buffers with the fill writer (rh_policy fill,
 * never switch: rgn.h) and picks switch for a live state whose program
 * asked for neither ring nor fill (kmod/kd_cs.c kd_pick_policy; a live
 * state in the reserved region gets ring then, and refuses switch).
 * The anonymous state once "kdt -a" claimed it reads alike: its consumer
 * takes the records as they are committed and acts on them then, and
 * writes totals into the region (kmod/kd_cs.c kd_anon_aggrgn) -- a slot
 * written (valid or damaged) says it was claimed; before that, or in a
 * region without totals, every record is replayed.
 */
static int
kc_region_switched(const struct rgn_view *v, const struct dof_enabling *den)
{
	uint64_t p = den->den_opts[DTRACEOPT_BUFPOLICY];
	struct rgn_aggtot_view tv;
	struct kdt_err note;

	if (v->rv_hdr->rh_flags & RGN_F_ANON)
		return rgn_view_aggtot(v, &tv, &note) == 0 &&
		    (tv.tv_img != NULL || note.ke_msg[0] != '\0');
	return v->rv_hdr->rh_policy == DTRACEOPT_BUFPOLICY_FILL &&
	    p != DTRACEOPT_BUFPOLICY_RING && p != DTRACEOPT_BUFPOLICY_FILL;
}

static const char *
kc_libact_name(uint32_t code)
{
	switch (code) {
	case KDT_LIBACT_CLEAR: return "clear()";
	case KDT_LIBACT_NORMALIZE: return "normalize()";
	case KDT_LIBACT_DENORMALIZE: return "denormalize()";
	case KDT_LIBACT_TRUNC: return "trunc()";
	}
	return "aggregation action";
}

/*
 * Replay (rgn.h, "Aggregation totals": a live state read under switch):
 * the totals' replay part -- where each CPU's consumer had got to and the
 * normalize() divisors -- checked (rules R1-R6) and the divisors given to
 * the merged table kd_ka, or why not in kd_rmsg.  A region that has a
 * totals area in which no slot was ever written (none damaged either):
 * the consumer had acted on no aggregation action (each one is followed
 * by a totals write), so every record is replayed.
 */
static void
kc_replay_init(struct kc_dec *d)
{
	const struct rgn_view *v = d->kd_view;
	struct rgn_aggtot_replay tr;
	struct rgn_aggtot_view tv;
	struct kdt_err ke, note;
	uint64_t c;
	int rv;

	if (d->kd_live || !kc_region_switched(v, d->kd_den))
		return;
	d->kd_rstate = KC_RP_OLD;
	if (!RGN_META_HAS_AGGTOT(v->rv_meta) ||
	    v->rv_meta->rm_aggtot_off == 0)
		return;
	d->kd_rpos = calloc(3ULL * d->kd_ncpu + 1, sizeof (uint64_t));
	if (d->kd_rpos == NULL) {
		d->kd_rstate = KC_RP_BAD;
		snprintf(d->kd_rmsg, sizeof (d->kd_rmsg),
		    "out of memory for the replay positions");
		return;
	}
	(void) rgn_view_aggtot(v, &tv, &note);
	if (tv.tv_img == NULL) {
		if (note.ke_msg[0] == '\0')	/* never written */
			d->kd_rstate = KC_RP_OK;
		else {
			d->kd_rstate = KC_RP_BAD;
			snprintf(d->kd_rmsg, sizeof (d->kd_rmsg), "%s",
			    note.ke_msg);
		}
		return;
	}
	if (agg_buf_check(tv.tv_img, tv.tv_len, d->kd_den, &ke) != 0) {
		d->kd_rstate = KC_RP_BAD;	/* the merge said why */
		snprintf(d->kd_rmsg, sizeof (d->kd_rmsg),
		    "the totals image of slot %u was left out (above)",
		    tv.tv_slot);
		return;
	}
	rv = rgn_view_aggtot_replay(v, &tv, &tr, &ke);
	if (rv == 0)
		return;		/* KC_RP_OLD: written without one */
	d->kd_rstate = KC_RP_BAD;
	if (rv < 0) {
		snprintf(d->kd_rmsg, sizeof (d->kd_rmsg), "%s", ke.ke_msg);
		return;
	}
	if (tr.tr_nnorm != tv.tv_img->ab_nents) {		/* R6 */
		snprintf(d->kd_rmsg, sizeof (d->kd_rmsg),
		    "aggregation totals slot %u: at_norm holds %llu divisors, the totals image has %u entries",
		    tv.tv_slot, (unsigned long long)tr.tr_nnorm,
		    tv.tv_img->ab_nents);
		return;
	}
	if (kc_aggs_set_normals(d->kd_ka, tv.tv_img, tr.tr_norm,
	    tr.tr_nnorm) != 0) {
		snprintf(d->kd_rmsg, sizeof (d->kd_rmsg),
		    "aggregation totals slot %u: at_norm does not match the totals image",
		    tv.tv_slot);
		return;
	}
	for (c = 0; c < d->kd_ncpu; c++) {
		d->kd_rpos[3 * c] = rgn_aggtot_word(tr.tr_pos, 2 * c);
		d->kd_rpos[3 * c + 1] = rgn_aggtot_word(tr.tr_pos, 2 * c + 1);
	}
	d->kd_rstate = KC_RP_OK;
}

/* Replay: had the consumer not yet carried out action "a"? */
static int
kc_replay_take(const struct kc_dec *d, const struct kc_libact *a)
{
	const uint64_t *p;

	if (d->kd_rstate != KC_RP_OK || a->la_cpu >= d->kd_ncpu)
		return 0;
	p = &d->kd_rpos[3 * a->la_cpu];
	return a->la_loff > p[0] || (a->la_loff == p[0] && a->la_k >= p[1]);
}

/* Carry out the kept actions not carried out yet on kd_ka. */
static void
kc_apply_kept(struct kc_dec *d)
{
	const struct kc_libact *a;
	int sw;

	if (d->kd_ka == NULL || d->kd_applied >= d->kd_nacts)
		return;	/* nothing new: spare the totals' CRC (anonymous) */
	sw = kc_region_switched(d->kd_view, d->kd_den);
	for (; d->kd_ka != NULL && d->kd_applied < d->kd_nacts;
	    d->kd_applied++) {
		a = &d->kd_acts[d->kd_applied];
		if (a->la_code == KDT_LIBACT_SETOPT) {
			/* the last value of an option wins, consumed or not */
			(void) kc_aggs_setopt_name(d->kd_ka, a->la_name,
			    a->la_value);
			continue;
		}
		if (sw && !kc_replay_take(d, a))
			continue;	/* acted on live, or unknown (said) */
		if (kc_aggs_libact(d->kd_ka, a->la_code, a->la_varid,
		    a->la_val, a->la_has) != 0) {
			fprintf(d->kd_o.do_err, "%s: %s: %s on aggregation variable %u with value %lld left out: no such aggregation or a bad value\n",
			    d->kd_o.do_prog, d->kd_o.do_input,
			    kc_libact_name(a->la_code), a->la_varid,
			    (long long)a->la_val);
			d->kd_actbad = 1;
		}
	}
}

/* Replay: what it could not cover, each CPU named.  1 when anything. */
static int
kc_replay_gaps(struct kc_dec *d, FILE *err)
{
	const char *prog = d->kd_o.do_prog, *input = d->kd_o.do_input;
	const struct rgn_cpu *rc;
	const uint64_t *p;
	uint32_t c;
	int rv = 0;

	for (c = 0; c < d->kd_ncpu; c++) {
		p = &d->kd_rpos[3 * c];
		if (rgn_view_gap_cpu(d->kd_view, c, NULL))
			continue;	/* its records are left out (said) */
		rc = rgn_view_cpu(d->kd_view, c);
		if (p[0] < rc->rc_tail) {
			fprintf(err, "%s: %s: aggregations partial: CPU %u: the consumer had taken the records at logical offsets 0x%llx-0x%llx without acting on them, and the dump's buffer of that CPU starts at 0x%llx: their clear(), trunc(), normalize() and denormalize() are not applied\n",
			    prog, input, c, (unsigned long long)p[0],
			    (unsigned long long)rc->rc_tail,
			    (unsigned long long)rc->rc_tail);
			rv = 1;
		}
		if (p[2] != 0) {
			fprintf(err, "%s: %s: aggregations partial: CPU %u: the totals' at_pos 0x%llx falls inside the record at logical offset 0x%llx: actions of the records after it are applied, none of that record's\n",
			    prog, input, c, (unsigned long long)p[0],
			    (unsigned long long)(p[2] - 1));
			rv = 1;
		}
	}
	return rv;
}

/* CPU, then record, then decode order (a live round's: replay). */
static int
kc_libact_cmp(const void *pa, const void *pb)
{
	const struct kc_libact *a = pa, *b = pb;

	if (a->la_cpu != b->la_cpu)
		return a->la_cpu < b->la_cpu ? -1 : 1;
	if (a->la_loff != b->la_loff)
		return a->la_loff < b->la_loff ? -1 : 1;
	return a->la_seq < b->la_seq ? -1 : a->la_seq > b->la_seq;
}

int
kc_dec_apply_libacts(struct kc_dec *d, struct kc_aggs *ka, FILE *err)
{
	const char *prog = d->kd_o.do_prog, *input = d->kd_o.do_input;
	int rv;

	d->kd_ka = ka;
	if (ka != NULL && d->kd_rstate == KC_RP_UNSET)
		kc_replay_init(d);
	/* --merge decoded by timestamp: the consumer's round goes by CPU */
	if (d->kd_rstate == KC_RP_OK && d->kd_nacts - d->kd_applied > 1)
		qsort(d->kd_acts + d->kd_applied, d->kd_nacts - d->kd_applied,
		    sizeof (*d->kd_acts), kc_libact_cmp);
	kc_apply_kept(d);
	rv = d->kd_actbad;
	if (kc_region_switched(d->kd_view, d->kd_den) &&
	    kc_den_aggacts(d->kd_den)) {
		if (d->kd_rstate == KC_RP_OK) {
			if (kc_replay_gaps(d, err))
				rv = 1;
		} else if (d->kd_rstate == KC_RP_BAD) {
			fprintf(err, "%s: %s: aggregations partial: the program uses clear(), trunc(), normalize() or denormalize() and its consumer read the buffers under bufpolicy=switch, but the totals cannot tell which records it had acted on: %s; the numbers printed are the consumer's totals and the buffers they do not cover, with no such action of the records applied\n",
			    prog, input, d->kd_rmsg);
			rv = 1;
		} else {
			fprintf(err, "%s: %s: aggregations partial: the program uses clear(), trunc(), normalize() or denormalize() and its consumer read the buffers under bufpolicy=switch: the numbers printed are the consumer's totals (which hold every such action it took before its last totals write, none it took after it, and no normalize()) and the buffers they do not cover, with no action applied, because the dump cannot tell which of the records the consumer had acted on\n",
			    prog, input);
			rv = 1;
		}
	}
	if (d->kd_actlost != 0) {
		fprintf(err, "%s: %s: aggregations partial: out of memory keeping %u aggregation action(s) of the records: not applied\n",
		    prog, input, d->kd_actlost);
		rv = 1;
	}
	return rv;
}

int
kc_dec_consume(struct kc_dec *d, uint32_t cpu)
{
	struct rgn_walk_cb cb = { kc_on_rec, kc_on_bad, d };
	struct kdt_err ke;

	if (cpu >= d->kd_ncpu)
		return -1;
	d->kd_nrecs = 0;
	if (rgn_walk_cpu(d->kd_view, cpu, &cb, &ke) < 0) {
		fprintf(d->kd_o.do_err, "%s: %s: %s\n", d->kd_o.do_prog,
		    d->kd_o.do_input, ke.ke_msg);
		return -1;
	}
	fflush(d->kd_out);
	return (int)d->kd_nrecs;
}

uint64_t
kc_dec_consumed(const struct kc_dec *d, uint32_t cpu)
{
	return cpu < d->kd_ncpu ? d->kd_next[cpu] : 0;
}

uint32_t
kc_dec_quiet(const struct kc_dec *d)
{
	return d->kd_quiet;
}

FILE *
kc_dec_out(const struct kc_dec *d)
{
	return d->kd_out;
}

/*
 * The export writers' hook (kc_export.c): decode one record exactly as
 * kc_dec_consume() would, its text to "out" and its messages to "err"
 * for this record only, without the heading (dtrace prints that once,
 * before the first record; an export keeps each record's own text).
 */
void
kc_dec_record(struct kc_dec *d, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff, FILE *out, FILE *err)
{
	FILE *o = d->kd_out, *e = d->kd_o.do_err;

	d->kd_out = out;
	d->kd_o.do_err = err;
	d->kd_heading = 1;
	(void) kc_on_rec(d, cpu, rec, payload, loff);
	d->kd_out = o;
	d->kd_o.do_err = e;
}

/* ---- dead region images (kdt-extract, kdt -a) ---- */

static void
kc_cpu_counts(const struct rgn_view *v, const char *prog, FILE *err,
    uint32_t cpu)
{
	const struct rgn_cpu *rc = rgn_view_cpu(v, cpu);

	kc_fmt_drops(err, prog, KC_DROP_PRINCIPAL, rc->rc_drops, cpu);
	if (rc->rc_errors != 0)
		fprintf(err, "%s: %llu error%s on CPU %u\n", prog,
		    (unsigned long long)rc->rc_errors,
		    rc->rc_errors == 1 ? "" : "s", cpu);
}

/*
 * --merge (KC_F_MERGE): walk every cpu first, collecting where each
 * record is (records of a dead image stay put), sort by timestamp (then
 * cpu, then walk order, so equal stamps keep each cpu's order) and decode
 * them through the same kc_on_rec(), which needs each cpu's records in
 * walk order: a stamp lower than its predecessor's on the same cpu is
 * sorted as that predecessor's.  Torn and corrupt spots are reported
 * while walking.  Memory: one struct kc_mrec (48 bytes) per record.
 */
struct kc_mrec {
	uint64_t	mr_ts;
	uint64_t	mr_loff;
	uint64_t	mr_seq;
	const struct rgn_rec *mr_rec;
	const uint8_t	*mr_payload;
	uint32_t	mr_cpu;
};

struct kc_merge {
	struct kc_dec	*mg_dec;
	struct kc_mrec	*mg_recs;
	uint64_t	mg_n;
	uint64_t	mg_cap;
	uint64_t	mg_lastts;	/* of the cpu being walked */
};

static int
kc_merge_rec(void *arg, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff)
{
	struct kc_merge *mg = arg;
	struct kc_mrec *m;

	if (mg->mg_n == mg->mg_cap) {
		mg->mg_cap = mg->mg_cap ? mg->mg_cap * 2 : 1024;
		m = realloc(mg->mg_recs, mg->mg_cap * sizeof (*m));
		if (m == NULL)
			return -1;
		mg->mg_recs = m;
	}
	m = &mg->mg_recs[mg->mg_n];
	/* a stamp going backwards must not reorder its own cpu */
	if (mg->mg_n == 0 || m[-1].mr_cpu != cpu ||
	    rec->rr_timestamp > mg->mg_lastts)
		mg->mg_lastts = rec->rr_timestamp;
	m->mr_ts = mg->mg_lastts;
	m->mr_loff = loff;
	m->mr_seq = mg->mg_n++;
	m->mr_rec = rec;
	m->mr_payload = payload;
	m->mr_cpu = cpu;
	return 0;
}

static int
kc_merge_bad(void *arg, uint32_t cpu, uint64_t loff, const char *what)
{
	return kc_on_bad(((struct kc_merge *)arg)->mg_dec, cpu, loff, what);
}

static int
kc_mrec_cmp(const void *a, const void *b)
{
	const struct kc_mrec *x = a, *y = b;

	if (x->mr_ts != y->mr_ts)
		return x->mr_ts < y->mr_ts ? -1 : 1;
	if (x->mr_cpu != y->mr_cpu)
		return x->mr_cpu < y->mr_cpu ? -1 : 1;
	return x->mr_seq < y->mr_seq ? -1 : x->mr_seq > y->mr_seq;
}

static void
kc_print_merged(struct kc_dec *d, const struct rgn_view *v)
{
	struct kc_merge mg = { d, NULL, 0, 0, 0 };
	struct rgn_walk_cb cb = { kc_merge_rec, kc_merge_bad, &mg };
	struct kdt_err ke;
	uint64_t i;
	uint32_t cpu;

	for (cpu = 0; cpu < v->rv_hdr->rh_ncpu; cpu++)
		if (!rgn_view_gap_cpu(v, cpu, NULL) &&
		    rgn_walk_cpu(v, cpu, &cb, &ke) < 0)
			fprintf(d->kd_o.do_err, "%s: %s: %s\n",
			    d->kd_o.do_prog, d->kd_o.do_input, ke.ke_msg);
	if (mg.mg_n > 1)
		qsort(mg.mg_recs, mg.mg_n, sizeof (*mg.mg_recs),
		    kc_mrec_cmp);
	for (i = 0; i < mg.mg_n; i++)
		(void) kc_on_rec(d, mg.mg_recs[i].mr_cpu, mg.mg_recs[i].mr_rec,
		    mg.mg_recs[i].mr_payload, mg.mg_recs[i].mr_loff);
	fflush(d->kd_out);
	free(mg.mg_recs);
	for (cpu = 0; cpu < v->rv_hdr->rh_ncpu; cpu++)
		if (!rgn_view_gap_cpu(v, cpu, NULL))
			kc_cpu_counts(v, d->kd_o.do_prog, d->kd_o.do_err,
			    cpu);
}

/* One lost part: "what" (its name), the missing range and why. */
static void
kc_region_gap(FILE *err, const char *prog, const char *input,
    const char *what, const struct rgn_gap *g, const char *tail)
{
	if (err == NULL)
		return;
	fprintf(err, "%s: %s: %s: bytes 0x%llx-0x%llx not in the dump (%s); %s\n",
	    prog, input, what, (unsigned long long)g->rg_off,
	    (unsigned long long)(g->rg_off + g->rg_len),
	    g->rg_why != NULL ? g->rg_why : "missing", tail);
}

uint32_t
kc_region_gaps(const struct rgn_view *v, const char *prog,
    const char *input, FILE *err)
{
	struct rgn_gap g;
	const char *name;
	char what[32];
	uint32_t cpu, part, n = 0;

	for (cpu = 0; cpu < v->rv_hdr->rh_ncpu; cpu++) {
		if (!rgn_view_gap_cpu(v, cpu, &g))
			continue;
		snprintf(what, sizeof (what), "CPU %u's buffer", cpu);
		kc_region_gap(err, prog, input, what, &g,
		    "its records are left out");
		n++;
	}
	for (part = 0; part < RGN_NPARTS; part++) {
		if (!rgn_view_gap_area(v, part, &name, &g))
			continue;
		kc_region_gap(err, prog, input, name, &g, "left out");
		n++;
	}
	return n;
}

/* Open the image and load its enabling; 0 or 1 after saying why. */
static int
kc_load(const char *prog, const char *input, FILE *err, struct rgn_view *v,
    const void *img, uint64_t len, uint64_t phys, const struct kc_opts *ko,
    struct dof_enabling **den)
{
	const struct rgn_meta *rm;
	struct kdt_err ke;

	if (rgn_open_gaps(v, img, len, phys, ko != NULL ? ko->ko_gaps : NULL,
	    ko != NULL ? ko->ko_ngaps : 0, &ke) != 0) {
		fprintf(err, "%s: %s: %s\n", prog, input, ke.ke_msg);
		return 1;
	}
	rm = v->rv_meta;
	if (rm->rm_dof_size == 0) {
		fprintf(err, "%s: %s: the region holds no enabling (metadata state %u, DOF size 0)\n",
		    prog, input, rm->rm_state);
		return 1;
	}
	if (dof_load(v->rv_dof, rm->rm_dof_size, den, &ke) != 0) {
		fprintf(err, "%s: %s: DOF stored in the region metadata: %s\n",
		    prog, input, ke.ke_msg);
		return 1;
	}
	return 0;
}

/*
 * The aggregations an image holds (rgn.h: the anonymous enabling keeps
 * them in the region), merged across CPUs -- a live state's region holds
 * the consumer's totals too (kc_aggs_region()) -- before the records are
 * decoded, so printa() records print them as the consumer would have
 * (kc_dec_set_aggs).  What the merge reports (a buffer that fails
 * agg_buf_check() is left out, aggregation drops per CPU, missing
 * intervals) is kept in *msgs and said after the records, where it
 * always was.  NULL when there are none; *rv 1 when something was left
 * out or is missing (counted as partial).
 */
static struct kc_aggs *
kc_region_aggs_merge(const struct rgn_view *v,
    const struct dof_enabling *den, const char *prog, const char *input,
    char **msgs, int *rv)
{
	struct kc_aggs *ka;
	uint64_t len;
	size_t ml = 0;
	FILE *m;

	*msgs = NULL;
	*rv = 0;
	if (den->den_naggs == 0 || rgn_view_agg(v, 0, &len) == NULL)
		return NULL;
	if ((m = open_memstream(msgs, &ml)) == NULL)
		return NULL;
	if ((ka = kc_aggs_new(den)) == NULL) {
		fprintf(m, "%s: %s: out of memory for the aggregations\n",
		    prog, input);
		*rv = 1;
	} else if ((*rv = kc_aggs_region(ka, v, prog, input, m)) < 0) {
		/* a live state's totals and buffers: rgn.h, "Aggregation
		   totals" */
		fprintf(m, "%s: %s: out of memory merging the aggregations\n",
		    prog, input);
		*rv = 1;
	}
	fclose(m);
	return ka;
}

/*
 * The aggregations printed as dtrace prints them when tracing stops --
 * after the final newline, each not yet printed by printa() sorted --
 * once the records' clear/trunc/normalize are carried out, as the
 * consumer would (kc_dec_apply_libacts).  The merge's messages first.
 * 1 when something was left out or is missing.
 */
static uint64_t
kc_region_aggs(struct kc_dec *d, struct kc_aggs *ka, char *msgs, int rv,
    FILE *out, FILE *err)
{
	if (msgs != NULL)
		fputs(msgs, err);
	free(msgs);
	if (ka == NULL)
		return rv != 0;
	if (kc_dec_apply_libacts(d, ka, err) != 0)
		rv = 1;
	(void) kc_aggs_print_all(ka, out);
	kc_aggs_free(ka);
	return rv != 0;
}

int
kc_print_region_opts(const void *img, uint64_t len, uint64_t phys,
    const char *input, FILE *out, FILE *err, const struct kc_opts *opts)
{
	struct dof_enabling *den;
	struct kc_dec_opts o;
	struct kc_vars_io vio;
	struct rgn_view v;
	struct kc_dec *d;
	struct kc_aggs *ka;
	uint32_t cpu, lost;
	char *msgs;
	uint64_t q;
	int rv, arv;

	if (opts != NULL && opts->ko_format != KC_FORMAT_TEXT)
		return kc_export_region(img, len, phys, input, out, err, opts);
	memset(&o, 0, sizeof (o));
	o.do_prog = opts != NULL && opts->ko_prog != NULL ?
	    opts->ko_prog : "kdt";
	o.do_input = input;
	o.do_out = out;
	o.do_err = err;
	if (kc_load(o.do_prog, input, err, &v, img, len, phys, opts,
	    &den) != 0)
		return 1;
	lost = kc_region_gaps(&v, o.do_prog, input, err);
	q = den->den_opts[DTRACEOPT_QUIET];
	o.do_quiet = (q != DTRACEOPT_UNSET && q != 0) ||
	    (opts != NULL && (opts->ko_flags & KC_F_QUIET));
	if ((d = kc_dec_new(&v, den, &o)) == NULL) {
		fprintf(err, "%s: %s: out of memory\n", o.do_prog, input);
		dof_free(den);
		return 1;
	}
	ka = kc_region_aggs_merge(&v, den, o.do_prog, input, &msgs, &arv);
	kc_dec_set_aggs(d, ka);		/* printa() */
	kc_dec_keep_libacts(d, 1);	/* carried out on ka */
	if (opts != NULL && (opts->ko_flags & KC_F_MERGE))
		kc_print_merged(d, &v);
	else
		for (cpu = 0; cpu < v.rv_hdr->rh_ncpu; cpu++) {
			if (rgn_view_gap_cpu(&v, cpu, NULL))
				continue;	/* kc_region_gaps said so */
			(void) kc_dec_consume(d, cpu);
			kc_cpu_counts(&v, o.do_prog, err, cpu);
		}
	kc_dec_keep_libacts(d, 0);	/* not a speculation's */
	/* uncommitted speculations, then --vars (kc_vars.h) */
	vio.vi_prog = o.do_prog;
	vio.vi_input = input;
	vio.vi_out = out;
	vio.vi_err = err;
	vio.vi_json = 0;
	d->kd_nbad += kc_region_specs(d, &v, &vio);
	fputc('\n', out);
	d->kd_nbad += kc_region_aggs(d, ka, msgs, arv, out, err);
	if (opts != NULL && (opts->ko_flags & KC_F_VARS))
		d->kd_nbad += kc_region_vars(&v, den, &vio);
	rv = 0;
	if (d->kd_nbad != 0 && opts != NULL &&
	    (opts->ko_flags & KC_F_PARTIAL)) {
		fprintf(err, "%s: %s: partial: %llu torn or corrupt record spot%s (above); every other record is printed\n",
		    o.do_prog, input, (unsigned long long)d->kd_nbad,
		    d->kd_nbad == 1 ? "" : "s");
		rv = KC_PARTIAL;
	}
	if (lost != 0 && opts != NULL && (opts->ko_flags & KC_F_PARTIAL)) {
		fprintf(err, "%s: %s: partial: %u part%s of the region not in the dump (above) left out; everything else is printed\n",
		    o.do_prog, input, lost, lost == 1 ? "" : "s");
		rv = KC_PARTIAL;
	}
	kc_dec_free(d);
	dof_free(den);
	fflush(out);
	return rv;
}

int
kc_print_region(const void *img, uint64_t len, uint64_t phys,
    const char *input, FILE *out, FILE *err)
{
	return kc_print_region_opts(img, len, phys, input, out, err, NULL);
}
