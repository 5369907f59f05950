/*
 * kc_fmt.h -- the formatter: recorded values to dtrace(1)'s exact text.
 *
 * Every piece of text kdt shows for a recorded value is made here
 * (consumer/kc_fmt.c), so the live consumer, the userspace engine,
 * kdt-extract and the crash extension print byte-for-byte the same thing
 * (DESIGN.md, "One decoder").  Callers: consumer/kc_print.c (trace(),
 * printf(), stack(), sym() ... records, drop and error messages), the
 * aggregation printer (printa() formats, one conversion at a time through
 * kc_fmt_parse_spec() and kc_fmt_conv()).  Kernel symbols for %a, %k,
 * stack(), sym() and mod() come from consumer/kc_sym.h.
 *
 * Values arrive as raw record bytes (struct kc_val): an integer is taken
 * by its recorded size (1, 2, 4 or 8 bytes, native byte order); a string
 * is a NUL-padded record of strsize bytes; anything else is bytes.
 *
 * dtrace(1) behaviour reproduced on purpose (reference 5.2, 5.5 and
 * libdtrace's observable output), including its quirks:
 *   - a width or precision of 0 is "not given" ("%.0d" of 0 prints "0");
 *   - a '0' flag seen after '-' turns left-justification off again
 *     ("%-05d" of 42 prints "00042"); '-' after '0' turns zero-padding off;
 *   - %p is hexadecimal WITHOUT "0x" (dtrace maps %p to %llx); "%#p"
 *     adds the 0x;
 *   - %d and %i print the value sign-extended from its recorded size,
 *     %u %o %x %X zero-extended (dtrace's compiler turns %d into %u for
 *     unsigned arguments; ours must do the same in the stored format);
 *   - %e %E %f %g %G convert the integer value to double (D has no
 *     floating-point values; the conversion promotes);
 *   - %a: "module`symbol+0xoff", "module`symbol" at offset 0,
 *     "module`0xaddr" inside a module but no symbol, "0xaddr" otherwise;
 *   - %A: kdt never examines processes, so a user address prints as
 *     dtrace prints one of a process it cannot grab: "0x<hex>" (the pid
 *     of a 16-byte usym/uaddr value is not printed);
 *   - %S and %C escape as C source would (\n \t \" \\ ...), other
 *     non-printables as \ooo, and a string's terminating NUL as \0;
 *   - %Y is "YYYY Mon dd hh:mm:ss" (day space-padded) and %T is
 *     strftime "%a, %d %b %G %T %Z", both in local time, from ns since
 *     the epoch;
 *   - %I prints a 4-byte value (network byte order, as stored) as dotted
 *     IPv4 and a 16-byte one as IPv6 text; an 8-byte integer uses its low
 *     4 bytes; %P prints the low 16 bits converted from network order;
 *   - %k prints a stack record: a newline, then one frame per line; with
 *     the '-' flag the width is the frames' indentation, otherwise the
 *     width pads each frame (dtrace's pfprint_stack rule).
 */
#ifndef KDT_KC_FMT_H
#define KDT_KC_FMT_H

#include <stdio.h>
#include <stdint.h>
#include <stddef.h>

struct kc_symtab;

/* One recorded value: its bytes as stored in the record. */
struct kc_val {
	const uint8_t	*kv_data;
	uint32_t	kv_size;
	uint32_t	kv_isstr;	/* a NUL-padded string record */
};

/* ---- one printf conversion ---- */

/* ks_flags */
#define KC_SF_LEFT	0x01	/* '-' */
#define KC_SF_PLUS	0x02	/* '+' */
#define KC_SF_SPACE	0x04	/* ' ' */
#define KC_SF_ALT	0x08	/* '#' */
#define KC_SF_ZERO	0x10	/* '0' */
#define KC_SF_GROUP	0x20	/* '\'' (accepted; glibc groups in the C
				   locale as nothing) */

/* ks_len: the size prefix as written (the value's size still rules). */
#define KC_LEN_NONE	0
#define KC_LEN_HH	1
#define KC_LEN_H	2
#define KC_LEN_L	3
#define KC_LEN_LL	4
#define KC_LEN_BIGL	5	/* L */
#define KC_LEN_W	6	/* w, as in %ws and %wc */

/*
 * A parsed conversion.  Width and precision are "given" only when
 * non-zero (dtrace's rule); a '*' sets ks_star_width / ks_star_prec and
 * the caller resolves it with kc_fmt_star() before kc_fmt_conv().
 */
struct kc_spec {
	uint32_t	ks_flags;	/* KC_SF_* */
	int32_t		ks_width;	/* valid when ks_has_width */
	int32_t		ks_prec;	/* valid when ks_has_prec */
	uint8_t		ks_has_width;
	uint8_t		ks_has_prec;
	uint8_t		ks_star_width;	/* width from an argument */
	uint8_t		ks_star_prec;	/* precision from an argument */
	uint8_t		ks_len;		/* KC_LEN_* */
	uint8_t		ks_agg;		/* '@': the aggregation value */
	char		ks_conv;	/* d i o u x X c C s S e E f g G a A
					   k p P I T Y %  */
	char		ks_text[24];	/* the conversion as written, with
					   its '%', for messages */
};

/*
 * Parse one conversion starting right after its '%' and advance *fmt past
 * it.  Returns 0, or -1 with why[0, whysz) saying what is wrong (unknown
 * conversion, end of format, two '*' or '.' in one conversion, '$').
 */
int kc_fmt_parse_spec(const char **fmt, struct kc_spec *s, char *why,
    size_t whysz);

/*
 * Resolve a '*' of "s" with the value the record gave: is_prec 0 for the
 * width (negative means left-justified), 1 for the precision (negative
 * means none).  Values are clamped to +-KC_FMT_MAXWIDTH.
 *
 * Widths and precisions, written or from '*', are clamped to 16 Mi: dtrace
 * honours ten-million-column widths (and scripts test it), but a format
 * from a damaged dump must not make us print gigabytes or overflow an int.
 */
#define KC_FMT_MAXWIDTH	(1 << 24)
void kc_fmt_star(struct kc_spec *s, int is_prec, int64_t v);

/*
 * Print one value by one conversion ('*' already resolved).  Returns 0, or
 * -1 with why[0, whysz) when the value cannot be shown by the conversion
 * (an integer conversion of a string or of a 3-byte object; a %% has no
 * value and always succeeds).  Kernel symbols come from kc_sym_default().
 */
int kc_fmt_conv(FILE *out, const struct kc_spec *s, const struct kc_val *v,
    char *why, size_t whysz);

/*
 * printf(): print "fmt" with the recorded arguments.  Returns how many
 * arguments the conversions consumed (so the caller knows how many
 * actions one printf() statement spans), or -1 after writing to
 * why[0, whysz) what was wrong (unknown conversion, missing argument,
 * type mismatch); the text up to the problem is printed.
 */
int kc_fmt_printf(FILE *out, const char *fmt, const struct kc_val *args,
    uint32_t nargs, char *why, size_t whysz);

/* ---- trace(), print(), tracemem() ---- */

#define KC_FMT_QUIET	0x1	/* the quiet option */
#define KC_FMT_RAWBYTES	0x2	/* the rawbytes option */
#define KC_FMT_BYREF	0x4	/* by-reference data (a struct): bytes
				   even when 1, 2, 4 or 8 long */

/*
 * trace(): one recorded value the way dtrace(1) prints it (reference
 * 5.2), by recorded size: 8 and 4 bytes signed, 2 and 1 bytes unsigned,
 * other sizes (strings, structs) and KC_FMT_BYREF data (a struct of
 * any size) by the byte rule with width -33 --
 * string, unterminated characters or hex dump.  print() records print the
 * same way.  kc_fmt_trace() is kc_fmt_trace_opts() with only KC_FMT_QUIET.
 */
void kc_fmt_trace(FILE *out, const struct kc_val *v, int quiet);
void kc_fmt_trace_opts(FILE *out, const struct kc_val *v, uint32_t flags);

/* tracemem(): always the hex dump of the first n bytes of v. */
void kc_fmt_tracemem(FILE *out, const struct kc_val *v, uint32_t n);

/* ---- stack(), ustack(), sym(), mod(), usym(), umod(), uaddr() ---- */

#define KC_STACKINDENT	14	/* dtrace's default stackindent */

/*
 * stack(): "size" bytes of "depth" frames (4 or 8 bytes each): a newline,
 * then per frame up to the first zero one: "indent" spaces, the frame as
 * %a prints it, a newline.  Returns 0, or -1 when size is not depth
 * frames of 4 or 8 bytes (nothing printed).
 */
int kc_fmt_stack(FILE *out, const struct kc_symtab *t, const uint8_t *data,
    uint32_t size, uint32_t depth, int indent);

/*
 * ustack(nframes, strsize): pid word, nframes pc words, then strsize bytes
 * of helper strings.  Frames print as uaddr() prints an address (below:
 * "obj`func+0x<off>" in a live session whose process is still there,
 * "0x<pc>" otherwise); a helper string that starts with '@' prints beneath its frame
 * as "  [ text ]".  Returns 0, or -1 when size is too small.
 */
int kc_fmt_ustack(FILE *out, const uint8_t *data, uint32_t size,
    uint32_t nframes, uint32_t strsize, int indent);

/*
 * sym()/mod() (8-byte address) and usym()/uaddr()/umod() (16 bytes: pid,
 * address; "kind" is the DTRACEACT_U* action) records: "  " and the text
 * left-justified in 50 columns.  sym: "module`symbol"; mod: "module".
 * The user ones are named as dtrace names them, through the lookup that
 * kc_fmt_set_ulookup() installed (kc_uaddr_lookup() in a live session;
 * none for a dead image, whose processes are gone):
 *
 *	usym   "obj`func" (the address rounded down to its function)
 *	uaddr  "obj`func+0x<off>" ("obj`func" at offset 0)
 *	umod   "obj"
 *
 * with "obj`0x<addr>" (usym, uaddr) when the object has no function
 * there, and "0x<addr>" when nothing maps the address or there is no
 * lookup.  "obj" is the basename of the mapped file.  Returns 0, or -1
 * on a size that does not fit.
 */
struct kc_uaddr;
typedef int (*kc_ulookup_fn)(uint32_t pid, uint64_t addr,
    struct kc_uaddr *ua);
void kc_fmt_set_ulookup(kc_ulookup_fn fn);
int kc_fmt_sym(FILE *out, const struct kc_symtab *t, const struct kc_val *v);
int kc_fmt_mod(FILE *out, const struct kc_symtab *t, const struct kc_val *v);
int kc_fmt_usym(FILE *out, const struct kc_val *v, uint32_t kind);
void kc_fmt_usym2str(uint32_t kind, uint32_t pid, uint64_t addr, char *buf,
    size_t size);

/* The strings %a, sym() and mod() print, into buf[0, size). */
void kc_fmt_addr2str(const struct kc_symtab *t, uint64_t addr, char *buf,
    size_t size);
void kc_fmt_sym2str(const struct kc_symtab *t, uint64_t addr, char *buf,
    size_t size);
void kc_fmt_mod2str(const struct kc_symtab *t, uint64_t addr, char *buf,
    size_t size);

/* ---- drop and error messages (reference 5.1, 2.6) ---- */

/* Drop kinds, numbered as dtrace's; OR in KC_DROP_TAGGED for -xdroptags. */
#define KC_DROP_PRINCIPAL	0	/* "N drop(s) on CPU n" */
#define KC_DROP_AGGREGATION	1	/* "N aggregation drop(s) on CPU n" */
#define KC_DROP_DYNAMIC		2	/* "N dynamic variable drop(s)" */
#define KC_DROP_DYNRINSE	3	/* ... with non-empty rinsing list */
#define KC_DROP_DYNDIRTY	4	/* ... with non-empty dirty list */
#define KC_DROP_SPEC		5	/* "N speculative drop(s)" */
#define KC_DROP_SPECBUSY	6	/* failed speculation(s), busy */
#define KC_DROP_SPECUNAVAIL	7	/* failed speculation(s), none */
#define KC_DROP_STKSTROVERFLOW	8	/* ustack() string table overflow */
#define KC_DROP_DBLERROR	9	/* error(s) in ERROR probe enabling */
#define KC_DROP_SIGNAL		10	/* kdt's own: "N signal drop(s)",
					   raise()/stop() kdt.ko had no
					   room to queue (kmod/kd_signal.c) */
#define KC_DROP_NKINDS		11
#define KC_DROP_TAGGED		0x100	/* prefix "[DTRACEDROP_<KIND>] " */

/*
 * One drop message on "err": "<prog>: [tag ]N <what>[s][ on CPU n]\n".
 * "cpu" is used by the two per-CPU kinds only.  Nothing is printed when
 * n is 0.  An unknown kind prints "N drop(s) of unknown kind K".
 * Principal drops with cpu KC_DROP_NOCPU are firings the kernel lost
 * before any buffer saw them (kretprobe instances exhausted, re-entry):
 * "N drop(s) of firings kdt.ko missed" -- dtrace has no such counter.
 */
#define KC_DROP_NOCPU		0xffffffffu
void kc_fmt_drops(FILE *err, const char *prog, uint32_t kind, uint64_t n,
    uint32_t cpu);

/*
 * Option droptags: from now on every drop message carries its tag, as if
 * each kind passed to kc_fmt_drops() had KC_DROP_TAGGED (kdt_main.c sets
 * it from the compiled program's options, before tracing starts).
 */
void kc_fmt_droptags(int on);

/*
 * Option noerror: probe faults are not reported (kc_fmt_error() prints
 * nothing); the faulting clause still stops there, an ERROR clause of the
 * program still runs and the exit status is unchanged.  kdt_main.c sets
 * it like droptags.
 */
void kc_fmt_noerror(int on);

/* One probe fault, as the ERROR probe recorded it (rgn.h rgn_errrec). */
struct kc_fault {
	uint32_t	kf_epid;	/* EPID of the ECB that faulted */
	uint32_t	kf_probe;	/* its probe id */
	const char	*kf_prov;	/* probe description */
	const char	*kf_mod;
	const char	*kf_func;
	const char	*kf_name;
	int32_t		kf_action;	/* 0 predicate, n action #n */
	int32_t		kf_offset;	/* DIF offset, -1 unknown */
	uint32_t	kf_fault;	/* DTRACEFLT_* */
	uint64_t	kf_addr;	/* offending address */
	const char	*kf_libmsg;	/* DTRACEFLT_LIBRARY: the text, or
					   NULL */
};

/*
 * "<prog>: error on enabled probe ID E (ID P: prov:mod:func:name): <fault
 * text>[ (0xaddr)] in <predicate|action #N>[ at DIF offset O]\n" -- the
 * address for BADADDR, BADALIGN and BADSTACK only.  A LIBRARY fault with
 * kf_libmsg prints "...:name): <libmsg>\n" as libdtrace's own errors do.
 */
void kc_fmt_error(FILE *err, const char *prog, const struct kc_fault *f);

/*
 * "4m": a byte count as dtrace prints option sizes -- the largest of
 * k, m, g, t that divides it exactly, else plain bytes ("buffer size
 * lowered to 2m").
 */
void kc_size_str(uint64_t v, char *buf, size_t len);

#endif /* KDT_KC_FMT_H */
