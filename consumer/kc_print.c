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

#define KC_MAXARGS	128	/* printf() arguments decoded */
#define KC_MAXPRINTA	32	/* aggregations of one printa() */

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
};

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
	}
	return j - i;
}

/*
 * setopt(): the decoder's own options take effect at once, in the middle
 * of the record being printed (dtrace(1) reads its quiet flag when it
 * starts a record and again when it ends one); the rest go to the engine.
 */
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
	if (code == KDT_LIBACT_NORMALIZE || code == KDT_LIBACT_TRUNC) {
		if (d->kd_hooks.dh_libact != NULL)
			d->kd_hooks.dh_libact(d->kd_hooks.dh_arg, code,
			    (uint32_t)kc_int_of(la, payload),
			    nx != NULL ? kc_int_of(nx, payload) : 0, 1);
		return nx != NULL ? 2 : 1;
	}
	if (d->kd_hooks.dh_libact != NULL)
		d->kd_hooks.dh_libact(d->kd_hooks.dh_arg, code,
		    (uint32_t)kc_int_of(la, payload), 0, 0);
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
 * print() of a struct, union or array: the action's format is the layout
 * string of compiler/dc.h ("@" T), walked over the recorded bytes to print
 * dtrace's nested form, e.g.
 *
 *	foo_t {
 *	    int [3] a = [ 0x1, 0x2, 0x3 ]
 *	    char [8] s = [ "ab" ]
 *	    int b :4 = 0x1
 *	    struct bar c = {
 *	        long x = 0
 *	    }
 *	}
 *
 * (a struct's closing brace ends without a newline, as dtrace prints it:
 * the next output, or the newline at exit, follows it directly).
 * The layout comes from a DOF that may be damaged (an image): every
 * number is bounds-checked against the record and the nesting is limited,
 * and a malformed layout prints nothing (the record is traced instead).
 */
#define KC_PL_DEPTH	16

struct kc_pl {
	const char	*pl_p;
	const char	*pl_end;
};

/* One parsed type header: NAME and KIND with its numbers. */
struct kc_pt {
	const char	*pt_name;
	uint32_t	pt_namelen;
	char		pt_kind;	/* i p z a s e */
	char		pt_flag;	/* i: s u c */
	uint64_t	pt_n1;		/* i,z,e: size; a: count; s: size */
	uint64_t	pt_n2;		/* s: members; e: enumerators */
	const char	*pt_elist;	/* e: the first (value, name) pair */
};

static int
kc_pl_num(struct kc_pl *c, uint64_t *v)
{
	uint64_t n = 0;
	int any = 0;

	while (c->pl_p < c->pl_end && *c->pl_p >= '0' && *c->pl_p <= '9') {
		if (n > 0xffffffffull)
			return -1;
		n = n * 10 + (uint64_t)(*c->pl_p++ - '0');
		any = 1;
	}
	if (!any || c->pl_p >= c->pl_end || *c->pl_p != ',')
		return -1;
	c->pl_p++;
	*v = n;
	return 0;
}

static int
kc_pl_name(struct kc_pl *c, const char **s, uint32_t *len)
{
	uint64_t n;

	if (kc_pl_num(c, &n) != 0 || n > (uint64_t)(c->pl_end - c->pl_p))
		return -1;
	*s = c->pl_p;
	*len = (uint32_t)n;
	c->pl_p += n;
	return 0;
}

static int
kc_pl_head(struct kc_pl *c, struct kc_pt *t)
{
	uint64_t i, v;
	const char *s;
	uint32_t n;

	memset(t, 0, sizeof (*t));
	if (kc_pl_name(c, &t->pt_name, &t->pt_namelen) != 0 ||
	    c->pl_p >= c->pl_end)
		return -1;
	t->pt_kind = *c->pl_p++;
	switch (t->pt_kind) {
	case 'i':
		if (kc_pl_num(c, &t->pt_n1) != 0 || c->pl_p >= c->pl_end ||
		    (t->pt_n1 != 1 && t->pt_n1 != 2 && t->pt_n1 != 4 &&
		    t->pt_n1 != 8))
			return -1;
		t->pt_flag = *c->pl_p++;
		return t->pt_flag == 's' || t->pt_flag == 'u' ||
		    t->pt_flag == 'c' ? 0 : -1;
	case 'p':
		t->pt_n1 = 8;
		return 0;
	case 'z':
	case 'a':
		return kc_pl_num(c, &t->pt_n1);
	case 's':
		return kc_pl_num(c, &t->pt_n1) != 0 ||
		    kc_pl_num(c, &t->pt_n2) != 0 ? -1 : 0;
	case 'e':
		if (kc_pl_num(c, &t->pt_n1) != 0 || t->pt_n1 != 4 ||
		    kc_pl_num(c, &t->pt_n2) != 0)
			return -1;
		t->pt_elist = c->pl_p;
		for (i = 0; i < t->pt_n2; i++)
			if (kc_pl_num(c, &v) != 0 ||
			    kc_pl_name(c, &s, &n) != 0)
				return -1;
		return 0;
	}
	return -1;
}

/*
 * An enum's value as dtrace prints it: the name of the first enumerator
 * with that value, else the value in decimal.
 */
static void
kc_pl_enum(FILE *f, const struct kc_pt *t, const uint8_t *data,
    const char *end)
{
	struct kc_pl c;
	int32_t v;
	uint64_t i, ev;
	const char *s;
	uint32_t n;

	memcpy(&v, data, sizeof (v));	/* little-endian */
	c.pl_p = t->pt_elist;
	c.pl_end = end;
	for (i = 0; i < t->pt_n2; i++) {
		if (kc_pl_num(&c, &ev) != 0 || kc_pl_name(&c, &s, &n) != 0)
			break;
		if ((int32_t)(uint32_t)ev == v) {
			fprintf(f, "%.*s", (int)n, s);
			return;
		}
	}
	fprintf(f, "%d", v);
}

/* Skip one T; *size gets its size in bytes. */
static int
kc_pl_skip(struct kc_pl *c, int depth, uint64_t *size)
{
	struct kc_pt t;
	uint64_t i, u, el;
	const char *s;
	uint32_t n;

	if (depth > KC_PL_DEPTH || kc_pl_head(c, &t) != 0)
		return -1;
	switch (t.pt_kind) {
	case 'a':
		if (kc_pl_skip(c, depth + 1, &el) != 0)
			return -1;
		*size = el * t.pt_n1;
		return *size > 0xffffffffull ? -1 : 0;
	case 's':
		for (i = 0; i < t.pt_n2; i++)
			if (kc_pl_num(c, &u) != 0 || kc_pl_num(c, &u) != 0 ||
			    kc_pl_num(c, &u) != 0 ||
			    kc_pl_name(c, &s, &n) != 0 ||
			    kc_pl_skip(c, depth + 1, &u) != 0)
				return -1;
		/* FALLTHROUGH */
	default:
		*size = t.pt_n1;
		return 0;
	}
}

static void
kc_pl_indent(FILE *f, int depth)
{
	fprintf(f, "%*s", depth * 4, "");
}

static uint64_t
kc_pl_int(const uint8_t *p, uint64_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, (size_t)size);	/* little-endian */
	return v;
}

static void
kc_pl_char(FILE *f, uint64_t v)
{
	if (v != 0 && isprint((int)v))
		fprintf(f, "'%c'", (int)v);
	else if (v == 0)
		fputs("'\\0'", f);
	else
		fprintf(f, "'\\%03o'", (unsigned)(uint8_t)v);
}

/* Is this char array a string: printable bytes, then a NUL inside it? */
static int
kc_pl_isstr(const uint8_t *p, uint64_t n, uint64_t *len)
{
	uint64_t i;

	for (i = 0; i < n && p[i] != '\0'; i++)
		if (!isprint(p[i]))
			return 0;
	*len = i;
	return i < n;
}

static int kc_pl_value(FILE *f, struct kc_pl *c, const uint8_t *data,
    uint64_t avail, int depth, int top);

/* The members of a struct (the cursor is past its head), at depth. */
static int
kc_pl_members(FILE *f, struct kc_pl *c, const struct kc_pt *t,
    const uint8_t *data, uint64_t avail, int depth)
{
	uint64_t i, off, boff, bits, v;
	struct kc_pl peek;
	struct kc_pt mt;
	const char *mn;
	uint32_t mnl;

	for (i = 0; i < t->pt_n2; i++) {
		if (kc_pl_num(c, &off) != 0 || kc_pl_num(c, &boff) != 0 ||
		    kc_pl_num(c, &bits) != 0 || kc_pl_name(c, &mn, &mnl) != 0)
			return -1;
		peek = *c;
		if (kc_pl_head(&peek, &mt) != 0 || off > avail)
			return -1;
		kc_pl_indent(f, depth);
		fprintf(f, "%.*s%s%.*s", (int)mt.pt_namelen, mt.pt_name,
		    mt.pt_namelen > 0 && mt.pt_name[mt.pt_namelen - 1] == '*' ?
		    "" : " ", (int)mnl, mn);
		if (bits != 0) {
			if (mt.pt_kind != 'i' || bits > 64 || boff >= 64 ||
			    off + mt.pt_n1 > avail)
				return -1;
			*c = peek;
			v = kc_pl_int(data + off, mt.pt_n1) >> boff;
			if (bits < 64)
				v &= (1ull << bits) - 1;
			fprintf(f, " :%u = %#llx\n", (unsigned)bits,
			    (unsigned long long)v);
			continue;
		}
		fputs(" = ", f);
		if (kc_pl_value(f, c, data + off, avail - off, depth, 0) != 0)
			return -1;
		fputc('\n', f);
	}
	return 0;
}

/*
 * The value of the T at the cursor over data (avail bytes readable), as a
 * member at depth (top: the print() argument itself).
 */
static int
kc_pl_value(FILE *f, struct kc_pl *c, const uint8_t *data, uint64_t avail,
    int depth, int top)
{
	struct kc_pl el;
	struct kc_pt t, et;
	uint64_t i, esize, len, v;

	if (depth > KC_PL_DEPTH || kc_pl_head(c, &t) != 0)
		return -1;
	switch (t.pt_kind) {
	case 'i':
	case 'p':
		if (t.pt_n1 > avail)
			return -1;
		v = kc_pl_int(data, t.pt_n1);
		if (t.pt_flag == 'c')
			kc_pl_char(f, v);
		else
			fprintf(f, "%#llx", (unsigned long long)v);
		return 0;
	case 'e':
		if (t.pt_n1 > avail)
			return -1;
		kc_pl_enum(f, &t, data, c->pl_end);
		return 0;
	case 'z':
		if (t.pt_n1 > avail)
			return -1;
		for (len = 0; len < t.pt_n1 && data[len] != '\0'; len++)
			;
		fprintf(f, "[ \"%.*s\" ]", (int)len, (const char *)data);
		return 0;
	case 's':
		fputs("{\n", f);
		if (t.pt_n1 > avail ||
		    kc_pl_members(f, c, &t, data, avail, depth + 1) != 0)
			return -1;
		kc_pl_indent(f, depth);
		fputc('}', f);
		return 0;
	case 'a':
		break;
	default:
		return -1;
	}
	el = *c;
	if (kc_pl_skip(c, depth + 1, &esize) != 0 || esize * t.pt_n1 > avail)
		return -1;
	{
		struct kc_pl h = el;

		if (kc_pl_head(&h, &et) != 0)
			return -1;
	}
	if (et.pt_kind == 'i' && et.pt_flag == 'c' &&
	    kc_pl_isstr(data, t.pt_n1, &len)) {
		fprintf(f, top ? "\"%.*s\"" : "[ \"%.*s\" ]", (int)len,
		    (const char *)data);
		return 0;
	}
	if (et.pt_kind == 's') {
		fputs("[ \n", f);
		for (i = 0; i < t.pt_n1; i++) {
			struct kc_pl h = el;

			if (kc_pl_head(&h, &et) != 0)
				return -1;
			kc_pl_indent(f, depth + 1);
			fprintf(f, "%.*s {\n", (int)et.pt_namelen, et.pt_name);
			if (kc_pl_members(f, &h, &et, data + i * esize,
			    avail - i * esize, depth + 2) != 0)
				return -1;
			kc_pl_indent(f, depth + 1);
			fputs(i + 1 < t.pt_n1 ? "}, \n" : "}\n", f);
		}
		kc_pl_indent(f, depth);
		fputc(']', f);
		return 0;
	}
	fputs("[ ", f);
	for (i = 0; i < t.pt_n1; i++) {
		struct kc_pl h = el;

		if (i > 0)
			fputs(", ", f);
		if (kc_pl_value(f, &h, data + i * esize, avail - i * esize,
		    depth + 1, 0) != 0)
			return -1;
	}
	fputs(" ]", f);
	return 0;
}

/* print() with a layout: 1 when printed, 0 when the record is no such. */
static int
kc_print_sou(struct kc_dec *d, const struct dof_laction *la,
    const uint8_t *payload)
{
	struct kc_pl c;
	struct kc_pt t;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int rc;

	if (la->la_fmt == NULL || la->la_fmt[0] != '@' || la->la_rec_isstr)
		return 0;
	c.pl_p = la->la_fmt + 1;
	c.pl_end = c.pl_p + strlen(c.pl_p);
	{
		struct kc_pl h = c;

		if (kc_pl_head(&h, &t) != 0)
			return 0;
	}
	/* into memory first: a malformed layout prints nothing */
	f = open_memstream(&buf, &size);
	if (f == NULL)
		return 0;
	fprintf(f, "%.*s ", (int)t.pt_namelen, t.pt_name);
	rc = kc_pl_value(f, &c, payload + la->la_rec_off, la->la_rec_size, 0,
	    1);
	if (t.pt_kind != 's')	/* as dtrace: no newline after the last } */
		fputc('\n', f);
	fclose(f);
	if (rc == 0)
		fwrite(buf, 1, size, d->kd_out);
	free(buf);
	return rc == 0;
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
	kc_do_actions(d, le, payload, cpu, loff);
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
	free(d);
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
 * them in the region), merged across CPUs and printed as dtrace prints
 * them when tracing stops -- after the final newline, each not yet
 * printed aggregation sorted.  A buffer that fails agg_buf_check() is
 * reported and left out; aggregation drops are reported per CPU.  A live
 * state's region holds the consumer's totals too (kc_aggs_region()).
 * 1 when something was left out or is missing (counted as partial).
 */
static uint64_t
kc_region_aggs(const struct rgn_view *v, const struct dof_enabling *den,
    const char *prog, const char *input, FILE *out, FILE *err)
{
	struct kc_aggs *ka;
	uint64_t len;
	int rv;

	if (den->den_naggs == 0 || rgn_view_agg(v, 0, &len) == NULL)
		return 0;
	if ((ka = kc_aggs_new(den)) == NULL) {
		fprintf(err, "%s: %s: out of memory for the aggregations\n",
		    prog, input);
		return 1;
	}
	/* a live state's totals and buffers: rgn.h, "Aggregation totals" */
	if ((rv = kc_aggs_region(ka, v, prog, input, err)) < 0)
		fprintf(err, "%s: %s: out of memory merging the aggregations\n",
		    prog, input);
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
	uint32_t cpu, lost;
	uint64_t q;
	int rv;

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
	if (opts != NULL && (opts->ko_flags & KC_F_MERGE))
		kc_print_merged(d, &v);
	else
		for (cpu = 0; cpu < v.rv_hdr->rh_ncpu; cpu++) {
			if (rgn_view_gap_cpu(&v, cpu, NULL))
				continue;	/* kc_region_gaps said so */
			(void) kc_dec_consume(d, cpu);
			kc_cpu_counts(&v, o.do_prog, err, cpu);
		}
	/* uncommitted speculations, then --vars (kc_vars.h) */
	vio.vi_prog = o.do_prog;
	vio.vi_input = input;
	vio.vi_out = out;
	vio.vi_err = err;
	vio.vi_json = 0;
	d->kd_nbad += kc_region_specs(d, &v, &vio);
	fputc('\n', out);
	d->kd_nbad += kc_region_aggs(&v, den, o.do_prog, input, out, err);
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
