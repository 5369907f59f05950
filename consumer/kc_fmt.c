/*
 * kc_fmt.c -- the formatter: recorded values to dtrace(1)'s exact text.
 *
 * The contract, and the list of dtrace behaviours reproduced on purpose,
 * is in kc_fmt.h.  Called by consumer/kc_print.c for every record action,
 * by the aggregation printer for printa() conversions, and by the engines
 * for drop and error messages; this file is the only place that turns
 * recorded bytes into text.
 *
 * Map of this file:
 *   values      -- integers from record bytes by size
 *   bytes       -- trace()'s byte rule and hex dump, trace(), tracemem()
 *   parsing     -- one conversion specification (kc_fmt_parse_spec)
 *   conversions -- one value by one conversion (kc_fmt_conv): integers and
 *                  floats go to the C library through a rebuilt
 *                  specification; everything else becomes a string first
 *                  (symbol, escaped text, time, address) that is printed
 *                  with the conversion's flags, width and precision as %s
 *   printf      -- the whole format with its arguments
 *   symbols     -- %a/sym()/mod() strings, stack(), ustack(), usym()
 *   messages    -- drops and probe errors
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/dif.h"
#include "common/dof.h"
#include "common/dif_vm.h"
#include "consumer/kc_fmt.h"
#include "consumer/kc_sym.h"
#include "consumer/kc_uprobe.h"

#define KC_TRACE_STRWIDTH	(-33)
#define KC_SYMWIDTH		50	/* sym(), mod(), usym() columns */
#define KC_HEXMARGIN		5
#define KC_STRBUF		512	/* symbol, time and address text */

/* ================================================================
 * values
 * ================================================================ */

static uint64_t
kc_val_raw(const struct kc_val *v)
{
	uint64_t u64 = 0;
	uint32_t u32 = 0;
	uint16_t u16 = 0;

	switch (v->kv_size) {
	case 8:
		memcpy(&u64, v->kv_data, 8);
		return u64;
	case 4:
		memcpy(&u32, v->kv_data, 4);
		return u32;
	case 2:
		memcpy(&u16, v->kv_data, 2);
		return u16;
	case 1:
		return v->kv_data[0];
	}
	return 0;
}

/* The value sign-extended from its recorded size. */
static int64_t
kc_val_signed(const struct kc_val *v)
{
	uint64_t u = kc_val_raw(v);

	switch (v->kv_size) {
	case 4:
		return (int32_t)u;
	case 2:
		return (int16_t)u;
	case 1:
		return (int8_t)u;
	}
	return (int64_t)u;
}

static int
kc_val_isint(const struct kc_val *v)
{
	return v->kv_size == 1 || v->kv_size == 2 || v->kv_size == 4 ||
	    v->kv_size == 8;
}

/* ================================================================
 * bytes: trace(), tracemem()
 * ================================================================ */

/*
 * dtrace(1)'s notion of printable for the byte rule: isprint or isspace
 * in the C locale, plus backspace and bell.
 */
static int
kc_printable(uint8_t c)
{
	if (c >= 0x80)
		return 0;
	return isprint(c) || isspace(c) || c == '\b' || c == '\a';
}

static void
kc_hexdump(FILE *out, const uint8_t *p, uint32_t n)
{
	uint32_t i, j;

	fprintf(out, "\n%*s      ", KC_HEXMARGIN, "");
	for (j = 0; j < 16; j++)
		fprintf(out, "  %x", j);
	fprintf(out, "  0123456789abcdef\n");
	for (i = 0; i < n; i += 16) {
		fprintf(out, "%*s%5x:", KC_HEXMARGIN, "", i);
		for (j = i; j < i + 16; j++) {
			if (j < n)
				fprintf(out, " %02x", p[j]);
			else
				fputs("   ", out);
		}
		fputs("  ", out);
		for (j = i; j < i + 16 && j < n; j++)
			fputc(p[j] < ' ' || p[j] > '~' ? '.' : p[j], out);
		fputc('\n', out);
	}
}

/*
 * The byte rule of reference 5.2: printable characters up to a NUL (not
 * the first byte) followed only by NULs print as a string; printable
 * characters without a NUL print as characters; anything else -- an
 * empty string included, as in dtrace -- as a hex dump.
 */
static void
kc_fmt_bytes(FILE *out, const uint8_t *p, uint32_t n, int width,
    uint32_t flags)
{
	uint32_t i, j;
	int w = width < 0 ? -width : width;

	if (n == 0)
		return;
	if (!(flags & KC_FMT_RAWBYTES)) {
		for (i = 0; i < n && kc_printable(p[i]); i++)
			;
		if (i == n) {
			fprintf(out, "  %-*.*s", w, (int)n, (const char *)p);
			return;
		}
		for (j = i; j < n && p[j] == '\0'; j++)
			;
		if (i > 0 && p[i] == '\0' && j == n) {
			if (flags & KC_FMT_QUIET)
				fprintf(out, "%s", (const char *)p);
			else
				fprintf(out, " %s%*s", width < 0 ? " " : "",
				    width, (const char *)p);
			return;
		}
	}
	kc_hexdump(out, p, n);
}

void
kc_fmt_trace_opts(FILE *out, const struct kc_val *v, uint32_t flags)
{
	int quiet = (flags & KC_FMT_QUIET) != 0;
	uint64_t u = kc_val_raw(v);

	switch ((flags & KC_FMT_BYREF) != 0 ? 0 : v->kv_size) {
	case 8:
		fprintf(out, quiet ? "%lld" : " %16lld", (long long)u);
		return;
	case 4:
		fprintf(out, quiet ? "%d" : " %8d", (int)(int32_t)u);
		return;
	case 2:
		fprintf(out, quiet ? "%d" : " %5d", (int)u);
		return;
	case 1:
		fprintf(out, quiet ? "%d" : " %3d", (int)u);
		return;
	}
	kc_fmt_bytes(out, v->kv_data, v->kv_size, KC_TRACE_STRWIDTH, flags);
}

void
kc_fmt_trace(FILE *out, const struct kc_val *v, int quiet)
{
	kc_fmt_trace_opts(out, v, quiet ? KC_FMT_QUIET : 0);
}

void
kc_fmt_tracemem(FILE *out, const struct kc_val *v, uint32_t n)
{
	if (n == 0 || n > v->kv_size)
		n = v->kv_size;
	kc_fmt_bytes(out, v->kv_data, n, KC_TRACE_STRWIDTH, KC_FMT_RAWBYTES);
}

/* ================================================================
 * parsing one conversion
 * ================================================================ */

static int
kc_spec_fail(const char *start, const char *p, char *why, size_t whysz,
    const char *what)
{
	snprintf(why, whysz, "format conversion \"%%%.*s\": %s",
	    (int)(p - start + (*p != '\0')), start, what);
	return -1;
}

/* Digits at *p into a clamped number; leaves *p on the last digit. */
static int32_t
kc_spec_number(const char **p)
{
	int32_t n = 0;

	while (isdigit((unsigned char)**p)) {
		n = n * 10 + (**p - '0');
		if (n > KC_FMT_MAXWIDTH)
			n = KC_FMT_MAXWIDTH;
		(*p)++;
	}
	(*p)--;
	return n;
}

/* The size prefix as written ("", "h", "hh", "l", "ll", "L", "w"). */
static int
kc_spec_len(const char *lens)
{
	static const char *const names[] = { "", "hh", "h", "l", "ll", "L",
	    "w" };
	int i;

	for (i = 0; i < (int)(sizeof (names) / sizeof (names[0])); i++)
		if (strcmp(lens, names[i]) == 0)
			return i;
	return -1;
}

/* Is the conversion character known, and is the size prefix valid on it? */
static const char *
kc_spec_check(const struct kc_spec *s)
{
	if (strchr("aAcCdeEfgGiIkopPsSTuxXY%", s->ks_conv) == NULL ||
	    s->ks_conv == '\0')
		return "is undefined";
	if (s->ks_len == KC_LEN_NONE)
		return NULL;
	if (strchr("diouxX", s->ks_conv) != NULL && s->ks_len != KC_LEN_W &&
	    s->ks_len != KC_LEN_BIGL)
		return NULL;
	if (strchr("eEfgG", s->ks_conv) != NULL && (s->ks_len == KC_LEN_L ||
	    s->ks_len == KC_LEN_BIGL))
		return NULL;
	if ((s->ks_conv == 's' || s->ks_conv == 'c') &&
	    (s->ks_len == KC_LEN_L || s->ks_len == KC_LEN_W))
		return NULL;
	return "size prefix is not valid with this conversion";
}

/* One flag, '*', '.', '?' or size letter; 1 consumed, 0 not, -1 error. */
static int
kc_spec_flag(struct kc_spec *s, char c, int *dot, int *digits)
{
	switch (c) {
	case '#': s->ks_flags |= KC_SF_ALT; return 1;
	case '+': s->ks_flags |= KC_SF_PLUS; return 1;
	case ' ': s->ks_flags |= KC_SF_SPACE; return 1;
	case '\'': s->ks_flags |= KC_SF_GROUP; return 1;
	case '@': s->ks_agg = 1; return 1;
	case '?': s->ks_width = 16; return 1;
	case '-':
		s->ks_flags = (s->ks_flags | KC_SF_LEFT) & ~KC_SF_ZERO;
		return 1;
	case '*':
		if (*dot ? s->ks_star_prec : s->ks_star_width)
			return -1;
		if (*dot)
			s->ks_star_prec = 1;
		else
			s->ks_star_width = 1;
		return 1;
	case '.':
		if ((*dot)++ != 0)
			return -1;
		*digits = 0;
		return 1;
	}
	return 0;
}

int
kc_fmt_parse_spec(const char **fmt, struct kc_spec *s, char *why,
    size_t whysz)
{
	const char *start = *fmt, *p;
	char lens[4] = "";
	int dot = 0, digits = 0, nlen = 0, rv;
	const char *bad;

	memset(s, 0, sizeof (*s));
	for (p = start; ; p++) {
		if (isdigit((unsigned char)*p)) {
			if (!dot && !digits && *p == '0') {
				s->ks_flags = (s->ks_flags | KC_SF_ZERO) &
				    ~KC_SF_LEFT;
				continue;
			}
			*(dot ? &s->ks_prec : &s->ks_width) =
			    kc_spec_number(&p);
			digits++;
			continue;
		}
		if (*p == 'h' || *p == 'l' || *p == 'L' || *p == 'w') {
			if (nlen < 3)
				lens[nlen++] = *p;
			continue;
		}
		if (*p == '\0')
			return kc_spec_fail(start, p, why, whysz, "name expected before end of format string");
		if (*p == '$')
			return kc_spec_fail(start, p, why, whysz, "positional conversions (%n$) are not supported");
		rv = kc_spec_flag(s, *p, &dot, &digits);
		if (rv < 0)
			return kc_spec_fail(start, p, why, whysz, *p == '.' ? "more than one '.'" : "more than one '*' for the same field");
		if (rv == 0)
			break;
	}
	s->ks_conv = *p;
	lens[nlen] = '\0';
	snprintf(s->ks_text, sizeof (s->ks_text), "%%%.*s",
	    (int)(p - start + 1), start);
	if (*p == '%' && p != start)
		return kc_spec_fail(start, p, why, whysz, "%% cannot be combined with other format flags");
	rv = kc_spec_len(lens);
	s->ks_len = rv < 0 ? KC_LEN_NONE : (uint8_t)rv;
	bad = rv < 0 ? "size prefix is not valid" : kc_spec_check(s);
	if (bad != NULL)
		return kc_spec_fail(start, p, why, whysz, bad);
	s->ks_has_width = s->ks_width != 0;
	s->ks_has_prec = s->ks_prec != 0;
	*fmt = p + 1;
	return 0;
}

void
kc_fmt_star(struct kc_spec *s, int is_prec, int64_t v)
{
	if (v > KC_FMT_MAXWIDTH)
		v = KC_FMT_MAXWIDTH;
	if (v < -KC_FMT_MAXWIDTH)
		v = -KC_FMT_MAXWIDTH;
	if (is_prec) {
		s->ks_prec = v > 0 ? (int32_t)v : 0;
		s->ks_has_prec = v > 0;
		s->ks_star_prec = 0;
		return;
	}
	/* A negative width stays negative: "%-5s" once printed, as dtrace. */
	s->ks_width = (int32_t)v;
	s->ks_has_width = v != 0;
	s->ks_star_width = 0;
}

/* ================================================================
 * conversions
 * ================================================================ */

/*
 * Rebuild "%<flags><width>.<prec><len><conv>" for the C library, flags
 * in dtrace's order.  "nowidth" drops the width (for %-k).
 */
static void
kc_spec_cfmt(const struct kc_spec *s, const char *len, char conv,
    int nowidth, char *buf, size_t size)
{
	static const struct { uint32_t f; char c; } order[] = {
		{ KC_SF_ALT, '#' }, { KC_SF_ZERO, '0' }, { KC_SF_LEFT, '-' },
		{ KC_SF_PLUS, '+' }, { KC_SF_GROUP, '\'' },
		{ KC_SF_SPACE, ' ' },
	};
	size_t n = 0, i;

	buf[n++] = '%';
	for (i = 0; i < sizeof (order) / sizeof (order[0]); i++)
		if (s->ks_flags & order[i].f)
			buf[n++] = order[i].c;
	if (s->ks_has_width && !nowidth)
		n += (size_t)snprintf(buf + n, size - n, "%d",
		    (int)s->ks_width);
	if (s->ks_has_prec)
		n += (size_t)snprintf(buf + n, size - n, ".%d",
		    (int)s->ks_prec);
	snprintf(buf + n, size - n, "%s%c", len, conv);
}

/* Print a finished string with the conversion's flags, width, precision. */
static void
kc_conv_text(FILE *out, const struct kc_spec *s, const char *text)
{
	char cf[64];

	kc_spec_cfmt(s, "", 's', 0, cf, sizeof (cf));
	fprintf(out, cf, text);
}

/* Narrow by h or hh a value already extended from its recorded size. */
static uint64_t
kc_spec_narrow(const struct kc_spec *s, uint64_t u, int issigned)
{
	if (s->ks_len == KC_LEN_H)
		return issigned ? (uint64_t)(int64_t)(int16_t)u :
		    (uint16_t)u;
	if (s->ks_len == KC_LEN_HH)
		return issigned ? (uint64_t)(int64_t)(int8_t)u : (uint8_t)u;
	return u;
}

static int
kc_conv_notint(const struct kc_spec *s, const struct kc_val *v, char *why,
    size_t whysz)
{
	snprintf(why, whysz, "conversion %s needs an integer but the value is a %u-byte %s",
	    s->ks_text, v->kv_size, v->kv_isstr ? "string" : "object");
	return -1;
}

/* d i u o x X p c P: integers through the C library. */
static int
kc_conv_int(FILE *out, const struct kc_spec *s, const struct kc_val *v,
    char *why, size_t whysz)
{
	int issigned = s->ks_conv == 'd' || s->ks_conv == 'i' ||
	    s->ks_conv == 'c';
	char cf[64];
	uint64_t u;

	if (v->kv_isstr || !kc_val_isint(v))
		return kc_conv_notint(s, v, why, whysz);
	u = issigned ? (uint64_t)kc_val_signed(v) : kc_val_raw(v);
	u = kc_spec_narrow(s, u, issigned);
	switch (s->ks_conv) {
	case 'c':
		kc_spec_cfmt(s, "", 'c', 0, cf, sizeof (cf));
		fprintf(out, cf, (int)(unsigned char)u);
		return 0;
	case 'p':
		kc_spec_cfmt(s, "ll", 'x', 0, cf, sizeof (cf));
		break;
	case 'P':
		u = ntohs((uint16_t)u);
		kc_spec_cfmt(s, "ll", 'u', 0, cf, sizeof (cf));
		break;
	default:
		kc_spec_cfmt(s, "ll", s->ks_conv, 0, cf, sizeof (cf));
	}
	fprintf(out, cf, (unsigned long long)u);
	return 0;
}

/* e E f g G: the integer value promoted to double. */
static int
kc_conv_float(FILE *out, const struct kc_spec *s, const struct kc_val *v,
    char *why, size_t whysz)
{
	char cf[64];

	if (v->kv_isstr || !kc_val_isint(v))
		return kc_conv_notint(s, v, why, whysz);
	kc_spec_cfmt(s, "", s->ks_conv, 0, cf, sizeof (cf));
	fprintf(out, cf, (double)kc_val_signed(v));
	return 0;
}

/* s: the bytes up to the first NUL or the end of the record. */
static int
kc_conv_str(FILE *out, const struct kc_spec *s, const struct kc_val *v)
{
	char *buf = malloc((size_t)v->kv_size + 1);

	if (buf == NULL)
		return -1;
	memcpy(buf, v->kv_data, v->kv_size);
	buf[v->kv_size] = '\0';
	kc_conv_text(out, s, buf);
	free(buf);
	return 0;
}

/* One byte as %S shows it, into q (at least 5 bytes); returns the length. */
static size_t
kc_esc_char(uint8_t c, char *q)
{
	static const char from[] = "\a\b\f\n\r\t\v\"\\";
	static const char to[] = "abfnrtv\"\\";
	const char *e;

	if (c == '\0')
		return (size_t)snprintf(q, 5, "\\0");
	e = strchr(from, c);
	if (e != NULL)
		return (size_t)snprintf(q, 5, "\\%c", to[e - from]);
	if (c == ' ' || (c >= '!' && c <= '~')) {
		q[0] = (char)c;
		q[1] = '\0';
		return 1;
	}
	return (size_t)snprintf(q, 5, "\\%o%o%o", (c >> 6) & 3,
	    (c >> 3) & 7, c & 7);
}

/*
 * S: every byte of the string's record escaped, the NULs after the
 * string included (each shown as \0), as dtrace's %S escapes the whole
 * record it is given: printf("%S", "ab") under strsize 256 prints "ab"
 * and 254 "\0"s.
 */
static int
kc_conv_estr(FILE *out, const struct kc_spec *s, const uint8_t *p,
    uint32_t n)
{
	char *buf = malloc((size_t)n * 4 + 1);
	size_t len = 0;
	uint32_t i;

	if (buf == NULL)
		return -1;
	buf[0] = '\0';
	for (i = 0; i < n; i++)
		len += kc_esc_char(p[i], buf + len);
	kc_conv_text(out, s, buf);
	free(buf);
	return 0;
}

/* UTF-8 of one wide character into q (at least 5 bytes). */
static size_t
kc_utf8(uint32_t c, char *q)
{
	if (c > 0x10ffff)
		c = '?';
	if (c < 0x80) {
		q[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		q[0] = (char)(0xc0 | (c >> 6));
		q[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		q[0] = (char)(0xe0 | (c >> 12));
		q[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		q[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	q[0] = (char)(0xf0 | (c >> 18));
	q[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	q[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	q[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/*
 * ws, ls: 32-bit wide characters up to a zero one, as UTF-8 (no locale
 * is consulted, so the output does not depend on the environment).  wc,
 * lc: one wide character.
 */
static int
kc_conv_wide(FILE *out, const struct kc_spec *s, const struct kc_val *v)
{
	uint32_t n = s->ks_conv == 'c' ? 1 : v->kv_size / 4, i, c;
	char *buf = malloc((size_t)n * 4 + 1);
	size_t len = 0;

	if (buf == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (s->ks_conv == 'c')
			c = (uint32_t)kc_val_raw(v);
		else
			memcpy(&c, v->kv_data + 4 * i, 4);
		if (c == 0)
			break;
		len += kc_utf8(c, buf + len);
	}
	buf[len] = '\0';
	kc_conv_text(out, s, buf);
	free(buf);
	return 0;
}

/* T and Y: ns since the epoch, in local time. */
static int
kc_conv_time(FILE *out, const struct kc_spec *s, const struct kc_val *v,
    char *why, size_t whysz)
{
	char buf[KC_STRBUF];
	time_t sec;
	struct tm tm;

	if (v->kv_isstr || !kc_val_isint(v))
		return kc_conv_notint(s, v, why, whysz);
	sec = (time_t)(kc_val_signed(v) / 1000000000LL);
	if (localtime_r(&sec, &tm) == NULL) {
		snprintf(why, whysz, "conversion %s: time %" PRId64 " ns is outside the calendar", s->ks_text, kc_val_signed(v));
		return -1;
	}
	strftime(buf, sizeof (buf), s->ks_conv == 'T' ?
	    "%a, %d %b %G %T %Z" : "%Y %b %e %T", &tm);
	kc_conv_text(out, s, buf);
	return 0;
}

/* I: 4 bytes (or an integer's low 4) as IPv4, 16 bytes as IPv6. */
static int
kc_conv_inet(FILE *out, const struct kc_spec *s, const struct kc_val *v,
    char *why, size_t whysz)
{
	char buf[INET6_ADDRSTRLEN];
	uint8_t a4[4];
	uint32_t u32;

	if (v->kv_size == 16) {
		inet_ntop(AF_INET6, v->kv_data, buf, sizeof (buf));
	} else if (v->kv_size == 4 || v->kv_size == 8) {
		u32 = (uint32_t)kc_val_raw(v);
		memcpy(a4, &u32, 4);
		snprintf(buf, sizeof (buf), "%u.%u.%u.%u", a4[0], a4[1],
		    a4[2], a4[3]);
	} else {
		snprintf(why, whysz, "conversion %s needs a 4-byte IPv4 or 16-byte IPv6 address but the value has %u bytes", s->ks_text, v->kv_size);
		return -1;
	}
	kc_conv_text(out, s, buf);
	return 0;
}

/* a and A: 4 or 8 bytes of address; A also takes (pid, address). */
static int
kc_conv_addr(FILE *out, const struct kc_spec *s, const struct kc_val *v,
    char *why, size_t whysz)
{
	char buf[KC_STRBUF];
	uint64_t addr;

	if (v->kv_size == 16 && s->ks_conv == 'A') {
		memcpy(&addr, v->kv_data + 8, 8);
	} else if (!v->kv_isstr && (v->kv_size == 4 || v->kv_size == 8)) {
		addr = kc_val_raw(v);
	} else {
		snprintf(why, whysz, "conversion %s needs a 4- or 8-byte address but the value is a %u-byte %s", s->ks_text, v->kv_size, v->kv_isstr ? "string" : "object");
		return -1;
	}
	if (s->ks_conv == 'a')
		kc_fmt_addr2str(kc_sym_default(), addr, buf, sizeof (buf));
	else
		snprintf(buf, sizeof (buf), "0x%" PRIx64, addr);
	kc_conv_text(out, s, buf);
	return 0;
}

/* C: one character (of a 1-, 2-, 4- or 8-byte value) escaped as %S. */
static int
kc_conv_echr(FILE *out, const struct kc_spec *s, const struct kc_val *v,
    char *why, size_t whysz)
{
	uint8_t c;

	if (v->kv_isstr || !kc_val_isint(v))
		return kc_conv_notint(s, v, why, whysz);
	c = (uint8_t)kc_val_raw(v);
	return kc_conv_estr(out, s, &c, 1);
}

/* One stack frame as stack() and %k show it. */
static void
kc_stack_frame(FILE *out, const struct kc_symtab *t, uint64_t pc,
    int indent, const char *cf)
{
	char buf[KC_STRBUF];

	kc_fmt_addr2str(t, pc, buf, sizeof (buf));
	fprintf(out, "%*s", indent, "");
	fprintf(out, cf, buf);
	/* with line tables (kdt-extract --vmlinux): " [FILE:LINE]" */
	if (kc_sym_srcline(t, pc, buf, sizeof (buf)))
		fprintf(out, " [%s]", buf);
	fputc('\n', out);
}

/*
 * k: a kernel stack record.  With '-' the width is the indentation and
 * frames are not padded; a negative '*' width indents by its size and
 * pads too; otherwise frames are not indented and are padded to the width.
 */
static int
kc_conv_stack(FILE *out, const struct kc_spec *s, const struct kc_val *v,
    char *why, size_t whysz)
{
	int left = (s->ks_flags & KC_SF_LEFT) != 0, indent = 0;
	uint32_t fsz = v->kv_size % 8 == 0 ? 8 : 4, i;
	char cf[64];
	uint64_t pc;

	if (v->kv_size == 0 || v->kv_size % 4 != 0) {
		snprintf(why, whysz, "conversion %s needs a stack of 4- or 8-byte frames but the value has %u bytes", s->ks_text, v->kv_size);
		return -1;
	}
	if (s->ks_has_width && s->ks_width < 0)
		indent = -s->ks_width;
	else if (left && s->ks_has_width)
		indent = s->ks_width;
	kc_spec_cfmt(s, "", 's', left, cf, sizeof (cf));
	fputc('\n', out);
	for (i = 0; i + fsz <= v->kv_size; i += fsz) {
		struct kc_val f = { v->kv_data + i, fsz, 0 };

		pc = kc_val_raw(&f);
		if (pc == 0)
			break;
		kc_stack_frame(out, kc_sym_default(), pc, indent, cf);
	}
	return 0;
}

int
kc_fmt_conv(FILE *out, const struct kc_spec *s, const struct kc_val *v,
    char *why, size_t whysz)
{
	int wide = s->ks_len == KC_LEN_L || s->ks_len == KC_LEN_W;

	switch (s->ks_conv) {
	case '%':
		fputc('%', out);
		return 0;
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
	case 'p': case 'P':
		return kc_conv_int(out, s, v, why, whysz);
	case 'c':
		return wide ? kc_conv_wide(out, s, v) :
		    kc_conv_int(out, s, v, why, whysz);
	case 'e': case 'E': case 'f': case 'g': case 'G':
		return kc_conv_float(out, s, v, why, whysz);
	case 's':
		return wide ? kc_conv_wide(out, s, v) :
		    kc_conv_str(out, s, v);
	case 'S':
		return kc_conv_estr(out, s, v->kv_data, v->kv_size);
	case 'C':
		return kc_conv_echr(out, s, v, why, whysz);
	case 'T': case 'Y':
		return kc_conv_time(out, s, v, why, whysz);
	case 'I':
		return kc_conv_inet(out, s, v, why, whysz);
	case 'a': case 'A':
		return kc_conv_addr(out, s, v, why, whysz);
	case 'k':
		return kc_conv_stack(out, s, v, why, whysz);
	}
	snprintf(why, whysz, "conversion %s is undefined", s->ks_text);
	return -1;
}

/* ================================================================
 * printf
 * ================================================================ */

/* Per-call state of kc_fmt_printf. */
struct kc_pf {
	const struct kc_val *pf_args;
	uint32_t	pf_nargs;
	uint32_t	pf_next;
	char		*pf_why;
	size_t		pf_whysz;
};

static const struct kc_val *
kc_pf_arg(struct kc_pf *pf, const struct kc_spec *s, const char *what)
{
	if (pf->pf_next >= pf->pf_nargs) {
		snprintf(pf->pf_why, pf->pf_whysz, "conversion %s needs %s argument %u but the record holds %u",
		    s->ks_text, what, pf->pf_next + 1, pf->pf_nargs);
		return NULL;
	}
	return &pf->pf_args[pf->pf_next++];
}

/* Resolve the '*' width, then the '*' precision, from the arguments. */
static int
kc_pf_stars(struct kc_pf *pf, struct kc_spec *s)
{
	const struct kc_val *a;

	if (s->ks_star_width) {
		a = kc_pf_arg(pf, s, "a '*' width as");
		if (a == NULL)
			return -1;
		kc_fmt_star(s, 0, kc_val_isint(a) ? kc_val_signed(a) : 0);
	}
	if (s->ks_star_prec) {
		a = kc_pf_arg(pf, s, "a '.*' precision as");
		if (a == NULL)
			return -1;
		kc_fmt_star(s, 1, kc_val_isint(a) ? kc_val_signed(a) : 0);
	}
	return 0;
}

static int
kc_pf_one(FILE *out, struct kc_pf *pf, struct kc_spec *s)
{
	const struct kc_val *a;

	if (s->ks_conv == '%') {
		fputc('%', out);
		return 0;
	}
	if (s->ks_agg) {
		snprintf(pf->pf_why, pf->pf_whysz, "conversion %s: %%@ prints an aggregation value and is valid only in printa()", s->ks_text);
		return -1;
	}
	if (kc_pf_stars(pf, s) != 0)
		return -1;
	a = kc_pf_arg(pf, s, "a value as");
	if (a == NULL)
		return -1;
	return kc_fmt_conv(out, s, a, pf->pf_why, pf->pf_whysz);
}

int
kc_fmt_printf(FILE *out, const char *fmt, const struct kc_val *args,
    uint32_t nargs, char *why, size_t whysz)
{
	struct kc_pf pf = { args, nargs, 0, why, whysz };
	struct kc_spec s;
	const char *pct;

	while (*fmt != '\0') {
		pct = strchr(fmt, '%');
		if (pct == NULL) {
			fputs(fmt, out);
			break;
		}
		fwrite(fmt, 1, (size_t)(pct - fmt), out);
		fmt = pct + 1;
		if (kc_fmt_parse_spec(&fmt, &s, why, whysz) != 0 ||
		    kc_pf_one(out, &pf, &s) != 0)
			return -1;
	}
	return (int)pf.pf_next;
}

/* ================================================================
 * symbols: %a, sym(), mod(), stack(), ustack(), usym()
 * ================================================================ */

#define KC_SYMSTR_ADDR	0	/* module`symbol+0xoff (%a, stack frames) */
#define KC_SYMSTR_SYM	1	/* module`symbol (sym()) */
#define KC_SYMSTR_MOD	2	/* module (mod()) */

/*
 * The three ways an address is named, from one lookup; an address no
 * module claims is always printed in hex.
 */
static void
kc_fmt_symstr(const struct kc_symtab *t, uint64_t addr, char *buf,
    size_t size, int how)
{
	const struct kc_sym *sym = NULL;
	const char *mod = NULL;

	switch (kc_sym_lookup(t, addr, &sym, &mod)) {
	case KC_SYM_FOUND:
		if (how == KC_SYMSTR_MOD)
			snprintf(buf, size, "%s", sym->sy_mod);
		else if (how == KC_SYMSTR_ADDR && addr > sym->sy_addr)
			snprintf(buf, size, "%s`%s+0x%" PRIx64, sym->sy_mod,
			    sym->sy_name, addr - sym->sy_addr);
		else
			snprintf(buf, size, "%s`%s", sym->sy_mod,
			    sym->sy_name);
		return;
	case KC_SYM_MODULE:
		if (how == KC_SYMSTR_MOD)
			snprintf(buf, size, "%s", mod);
		else
			snprintf(buf, size, "%s`0x%" PRIx64, mod, addr);
		return;
	}
	snprintf(buf, size, "0x%" PRIx64, addr);
}

void
kc_fmt_addr2str(const struct kc_symtab *t, uint64_t addr, char *buf,
    size_t size)
{
	kc_fmt_symstr(t, addr, buf, size, KC_SYMSTR_ADDR);
}

void
kc_fmt_sym2str(const struct kc_symtab *t, uint64_t addr, char *buf,
    size_t size)
{
	kc_fmt_symstr(t, addr, buf, size, KC_SYMSTR_SYM);
}

void
kc_fmt_mod2str(const struct kc_symtab *t, uint64_t addr, char *buf,
    size_t size)
{
	kc_fmt_symstr(t, addr, buf, size, KC_SYMSTR_MOD);
}

int
kc_fmt_stack(FILE *out, const struct kc_symtab *t, const uint8_t *data,
    uint32_t size, uint32_t depth, int indent)
{
	uint32_t fsz, i;
	uint64_t pc;

	if (depth == 0 || size % depth != 0)
		return -1;
	fsz = size / depth;
	if (fsz != 4 && fsz != 8)
		return -1;
	fputc('\n', out);
	for (i = 0; i < depth; i++) {
		struct kc_val f = { data + (size_t)i * fsz, fsz, 0 };

		pc = kc_val_raw(&f);
		if (pc == 0)
			break;
		kc_stack_frame(out, t, pc, indent, "%s");
	}
	return 0;
}

/* ustack()'s helper strings: the one for the frame after "str", or NULL. */
static const char *
kc_ustack_nextstr(const char *str, const char *base, uint32_t strsize)
{
	size_t left = strsize - (size_t)(str - base);
	size_t len = strnlen(str, left);

	if (len + 1 >= left)
		return NULL;
	return str + len + 1;
}

int
kc_fmt_ustack(FILE *out, const uint8_t *data, uint32_t size,
    uint32_t nframes, uint32_t strsize, int indent)
{
	const char *base = (const char *)data + ((size_t)nframes + 1) * 8;
	const char *str = strsize ? base : NULL;
	char name[KC_STRBUF];
	uint64_t pc, pid;
	uint32_t i;

	if (((uint64_t)nframes + 1) * 8 + strsize > size)
		return -1;
	if (nframes == 0)
		return 0;
	memcpy(&pid, data, 8);
	fputc('\n', out);
	for (i = 0; i < nframes; i++) {
		memcpy(&pc, data + ((size_t)i + 1) * 8, 8);
		if (pc == 0)
			break;
		/* named as uaddr() names it: obj`func+0xoff, or hex */
		kc_fmt_usym2str(DTRACEACT_UADDR, (uint32_t)pid, pc, name,
		    sizeof (name));
		fprintf(out, "%*s%s\n", indent, "", name);
		if (str != NULL && str[0] == '@')
			fprintf(out, "%*s  [ %.*s ]\n", indent, "",
			    (int)strnlen(str + 1, strsize - 1 -
			    (size_t)(str - base)), str + 1);
		if (str != NULL)
			str = kc_ustack_nextstr(str, base, strsize);
	}
	return 0;
}

int
kc_fmt_sym(FILE *out, const struct kc_symtab *t, const struct kc_val *v)
{
	char buf[KC_STRBUF];

	if (v->kv_size != 8 && v->kv_size != 4)
		return -1;
	kc_fmt_sym2str(t, kc_val_raw(v), buf, sizeof (buf));
	fprintf(out, "  %-*s", KC_SYMWIDTH, buf);
	return 0;
}

int
kc_fmt_mod(FILE *out, const struct kc_symtab *t, const struct kc_val *v)
{
	char buf[KC_STRBUF];

	if (v->kv_size != 8 && v->kv_size != 4)
		return -1;
	kc_fmt_mod2str(t, kc_val_raw(v), buf, sizeof (buf));
	fprintf(out, "  %-*s", KC_SYMWIDTH, buf);
	return 0;
}

static kc_ulookup_fn kc_fmt_ulookup;	/* none: addresses in hex */

void
kc_fmt_set_ulookup(kc_ulookup_fn fn)
{
	kc_fmt_ulookup = fn;
}

void
kc_fmt_usym2str(uint32_t kind, uint32_t pid, uint64_t addr, char *buf,
    size_t size)
{
	struct kc_uaddr ua;

	if (kc_fmt_ulookup == NULL || kc_fmt_ulookup(pid, addr, &ua) != 0)
		snprintf(buf, size, "0x%" PRIx64, addr);
	else if (kind == DTRACEACT_UMOD)
		snprintf(buf, size, "%s", ua.ua_obj);
	else if (!ua.ua_hassym)
		snprintf(buf, size, "%s`0x%" PRIx64, ua.ua_obj, addr);
	else if (kind == DTRACEACT_USYM || ua.ua_off == 0)
		snprintf(buf, size, "%s`%s", ua.ua_obj, ua.ua_sym);
	else
		snprintf(buf, size, "%s`%s+0x%" PRIx64, ua.ua_obj, ua.ua_sym,
		    ua.ua_off);
}

int
kc_fmt_usym(FILE *out, const struct kc_val *v, uint32_t kind)
{
	char buf[KC_STRBUF];
	uint64_t pid, addr;

	if (v->kv_size != 16)
		return -1;
	memcpy(&pid, v->kv_data, 8);
	memcpy(&addr, v->kv_data + 8, 8);
	kc_fmt_usym2str(kind, (uint32_t)pid, addr, buf, sizeof (buf));
	fprintf(out, "  %-*s", KC_SYMWIDTH, buf);
	return 0;
}

/* ================================================================
 * messages: drops and probe errors
 * ================================================================ */

/* What each KC_DROP_* kind says, in dtrace's words. */
static const struct {
	const char	*dk_tag;
	const char	*dk_what;	/* pluralised with "s" */
	const char	*dk_tail;
} kc_drop_kinds[KC_DROP_NKINDS] = {
	[KC_DROP_PRINCIPAL] = { "DTRACEDROP_PRINCIPAL", "drop", "" },
	[KC_DROP_AGGREGATION] = { "DTRACEDROP_AGGREGATION",
	    "aggregation drop", "" },
	[KC_DROP_DYNAMIC] = { "DTRACEDROP_DYNAMIC",
	    "dynamic variable drop", "" },
	[KC_DROP_DYNRINSE] = { "DTRACEDROP_DYNRINSE",
	    "dynamic variable drop", " with non-empty rinsing list" },
	[KC_DROP_DYNDIRTY] = { "DTRACEDROP_DYNDIRTY",
	    "dynamic variable drop", " with non-empty dirty list" },
	[KC_DROP_SPEC] = { "DTRACEDROP_SPEC", "speculative drop", "" },
	[KC_DROP_SPECBUSY] = { "DTRACEDROP_SPECBUSY",
	    "failed speculation", " (available buffer(s) still busy)" },
	[KC_DROP_SPECUNAVAIL] = { "DTRACEDROP_SPECUNAVAIL",
	    "failed speculation", " (no speculative buffer available)" },
	[KC_DROP_STKSTROVERFLOW] = { "DTRACEDROP_STKSTROVERFLOW",
	    "jstack()/ustack() string table overflow", "" },
	[KC_DROP_DBLERROR] = { "DTRACEDROP_DBLERROR", "error",
	    " in ERROR probe enabling" },
	[KC_DROP_SIGNAL] = { "DTRACEDROP_SIGNAL",
	    "raise()/stop() signal drop", " (kdt.ko's per-CPU queue full)" },
};

static uint32_t kc_fmt_droptag;	/* KC_DROP_TAGGED under -xdroptags */

void
kc_fmt_droptags(int on)
{
	kc_fmt_droptag = on ? KC_DROP_TAGGED : 0;
}

void
kc_fmt_drops(FILE *err, const char *prog, uint32_t kind, uint64_t n,
    uint32_t cpu)
{
	uint32_t k = (kind | kc_fmt_droptag) & ~(uint32_t)KC_DROP_TAGGED;
	const char *pl = n > 1 ? "s" : "";

	kind |= kc_fmt_droptag;

	if (n == 0)
		return;
	if (k >= KC_DROP_NKINDS) {
		fprintf(err, "%s: %s%" PRIu64 " drop%s of unknown kind %u\n",
		    prog, kind & KC_DROP_TAGGED ? "[DTRACEDROP_UNKNOWN] " :
		    "", n, pl, k);
		return;
	}
	fprintf(err, "%s: ", prog);
	if (kind & KC_DROP_TAGGED)
		fprintf(err, "[%s] ", kc_drop_kinds[k].dk_tag);
	fprintf(err, "%" PRIu64 " %s%s%s", n, kc_drop_kinds[k].dk_what, pl,
	    kc_drop_kinds[k].dk_tail);
	if (k == KC_DROP_PRINCIPAL && cpu == KC_DROP_NOCPU)
		fputs(" of firings kdt.ko missed", err);
	else if (k == KC_DROP_PRINCIPAL || k == KC_DROP_AGGREGATION)
		fprintf(err, " on CPU %u", cpu);
	fputc('\n', err);
}

static int kc_fmt_quieterr;	/* option noerror */

void
kc_fmt_noerror(int on)
{
	kc_fmt_quieterr = on;
}

void
kc_fmt_error(FILE *err, const char *prog, const struct kc_fault *f)
{
	if (kc_fmt_quieterr)
		return;
	fprintf(err, "%s: error on enabled probe ID %u (ID %u: %s:%s:%s:%s): ",
	    prog, f->kf_epid, f->kf_probe, f->kf_prov, f->kf_mod,
	    f->kf_func, f->kf_name);
	if (f->kf_fault == DTRACEFLT_LIBRARY && f->kf_libmsg != NULL) {
		fprintf(err, "%s\n", f->kf_libmsg);
		return;
	}
	fputs(dif_fault_str(f->kf_fault), err);
	if (f->kf_fault == DTRACEFLT_BADADDR ||
	    f->kf_fault == DTRACEFLT_BADALIGN ||
	    f->kf_fault == DTRACEFLT_BADSTACK)
		fprintf(err, " (0x%" PRIx64 ")", f->kf_addr);
	if (f->kf_action == 0)
		fputs(" in predicate", err);
	else
		fprintf(err, " in action #%d", (int)f->kf_action);
	if (f->kf_offset != -1)
		fprintf(err, " at DIF offset %d", (int)f->kf_offset);
	fputc('\n', err);
}

void
kc_size_str(uint64_t v, char *buf, size_t len)
{
	static const char sfx[] = "kmgt";
	int i = -1;

	while (i < 3 && v != 0 && (v & 1023) == 0) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, sfx[i]);
}
