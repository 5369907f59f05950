/*
 * kc_fmt.c -- the formatter: trace() and printf() output of recorded
 * values, exactly as dtrace(1) prints them (reference sections 5.2, 5.5).
 *
 * Called by kc_print.c for every recording action of a record; the values
 * arrive as raw record bytes (struct kc_val in kc.h), so this file is the
 * only place that turns bytes into text.  Integer values are taken by
 * their recorded size: 1 and 2 bytes unsigned for trace(), signed or
 * unsigned by conversion for printf(), sign-extended from the recorded
 * size (a D int recorded in 4 bytes prints -1 with %d, 4294967295 with %u).
 * printf() rebuilds each conversion with an "ll" length and hands one
 * 64-bit value to the C library, so flags, width and precision behave as
 * in C.
 */
#include <ctype.h>
#include <string.h>

#include "consumer/kc.h"

#define KC_TRACE_STRWIDTH	(-33)
/*
 * Widths and precisions are clamped here: the format comes from a DOF that
 * may come from a damaged dump, and a ten-digit width must not make us
 * print gigabytes of padding or overflow an int.
 */
#define KC_PF_MAXWIDTH		4096

/* dtrace(1)'s notion of printable for the byte rule. */
static int
kc_printable(uint8_t c)
{
	return isprint(c) || isspace(c) || c == '\b' || c == '\a';
}

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

static void
kc_hexdump(FILE *out, const uint8_t *p, uint32_t n)
{
	uint32_t i, j;

	fprintf(out, "\n%5s%6s", "", "");
	for (j = 0; j < 16; j++)
		fprintf(out, "  %x", j);
	fprintf(out, "  0123456789abcdef\n");
	for (i = 0; i < n; i += 16) {
		fprintf(out, "%5s%5x:", "", i);
		for (j = 0; j < 16; j++) {
			if (i + j < n)
				fprintf(out, " %02x", p[i + j]);
			else
				fprintf(out, "   ");
		}
		fprintf(out, "  ");
		for (j = 0; j < 16 && i + j < n; j++)
			fputc(isprint(p[i + j]) ? p[i + j] : '.', out);
		fputc('\n', out);
	}
}

/*
 * The byte rule of reference 5.2: a printable string followed only by
 * NULs prints as a string, all-printable bytes without a NUL print as
 * characters, anything else as a hex dump.
 */
static void
kc_fmt_bytes(FILE *out, const uint8_t *p, uint32_t n, int width, int quiet)
{
	uint32_t i, len;
	int w = width < 0 ? -width : width;

	for (len = 0; len < n && p[len] != '\0'; len++)
		if (!kc_printable(p[len]))
			break;
	if (len == n && n > 0) {
		fprintf(out, "  %-*.*s", w, (int)n, (const char *)p);
		return;
	}
	for (i = len; i < n && p[i] == '\0'; i++)
		;
	if (i != n || (len < n && p[len] != '\0')) {
		kc_hexdump(out, p, n);
		return;
	}
	if (quiet)
		fprintf(out, "%.*s", (int)len, (const char *)p);
	else if (width < 0)
		fprintf(out, "  %-*.*s", w, (int)len, (const char *)p);
	else
		fprintf(out, " %*.*s", w, (int)len, (const char *)p);
}

void
kc_fmt_trace(FILE *out, const struct kc_val *v, int quiet)
{
	uint64_t u = kc_val_raw(v);

	if (v->kv_isstr) {
		kc_fmt_bytes(out, v->kv_data, v->kv_size, KC_TRACE_STRWIDTH,
		    quiet);
		return;
	}
	switch (v->kv_size) {
	case 8:
		fprintf(out, quiet ? "%lld" : " %16lld", (long long)u);
		return;
	case 4:
		fprintf(out, quiet ? "%d" : " %8d", (int)(int32_t)u);
		return;
	case 2:
	case 1:
		fprintf(out, quiet ? "%d" : (v->kv_size == 2 ? " %5d" :
		    " %3d"), (int)u);
		return;
	}
	kc_fmt_bytes(out, v->kv_data, v->kv_size, KC_TRACE_STRWIDTH, quiet);
}

/* One parsed conversion specification. */
struct kc_spec {
	char		ks_flags[8];
	int		ks_width;	/* -1: none */
	int		ks_prec;	/* -1: none */
	int		ks_len;		/* -2 hh, -1 h, 0 none, 1 l, 2 ll */
	char		ks_conv;
};

/* Per-call state of kc_fmt_printf. */
struct kc_pf {
	FILE		*pf_out;
	const struct kc_val *pf_args;
	uint32_t	pf_nargs;
	uint32_t	pf_next;
	char		*pf_why;
	size_t		pf_whysz;
};

static const struct kc_val *
kc_pf_arg(struct kc_pf *pf, char conv)
{
	if (pf->pf_next >= pf->pf_nargs) {
		snprintf(pf->pf_why, pf->pf_whysz, "conversion %%%c needs argument %u but the record holds %u",
		    conv, pf->pf_next + 1, pf->pf_nargs);
		return NULL;
	}
	return &pf->pf_args[pf->pf_next++];
}

/* Width or precision: digits, or '*' taking an integer argument. */
static int
kc_pf_number(struct kc_pf *pf, const char **fmt, int *out)
{
	const struct kc_val *a;

	if (**fmt == '*') {
		(*fmt)++;
		a = kc_pf_arg(pf, '*');
		if (a == NULL)
			return -1;
		*out = (int)kc_val_signed(a);
		if (*out > KC_PF_MAXWIDTH || *out < -KC_PF_MAXWIDTH)
			*out = *out < 0 ? -KC_PF_MAXWIDTH : KC_PF_MAXWIDTH;
		return 0;
	}
	*out = 0;
	while (isdigit((unsigned char)**fmt)) {
		*out = *out * 10 + (*(*fmt)++ - '0');
		if (*out > KC_PF_MAXWIDTH)
			*out = KC_PF_MAXWIDTH;
	}
	return 0;
}

/* Parse flags, width, precision and length after a '%'. */
static int
kc_pf_parse(struct kc_pf *pf, const char **fmt, struct kc_spec *s)
{
	size_t nf = 0;

	memset(s, 0, sizeof (*s));
	s->ks_width = s->ks_prec = -1;
	while (strchr("-+ #0'", **fmt) != NULL && **fmt != '\0') {
		if (nf + 1 < sizeof (s->ks_flags) && **fmt != '\'')
			s->ks_flags[nf++] = **fmt;
		(*fmt)++;
	}
	if (**fmt == '?') {
		s->ks_width = 16;	/* pointer width */
		(*fmt)++;
	} else if ((**fmt == '*' || isdigit((unsigned char)**fmt)) &&
	    kc_pf_number(pf, fmt, &s->ks_width) != 0)
		return -1;
	if (**fmt == '.') {
		(*fmt)++;
		if (kc_pf_number(pf, fmt, &s->ks_prec) != 0)
			return -1;
		if (s->ks_prec < 0)
			s->ks_prec = -1;	/* as C: a negative * precision */
	}
	for (; **fmt == 'h'; (*fmt)++)
		s->ks_len--;
	for (; **fmt == 'l' || **fmt == 'L'; (*fmt)++)
		s->ks_len++;
	s->ks_conv = **fmt;
	if (**fmt != '\0')
		(*fmt)++;
	return 0;
}

/* Build "%<flags><width>.<prec><len><conv>" for the C library. */
static void
kc_spec_str(const struct kc_spec *s, const char *len, char conv, char *buf,
    size_t size)
{
	int n;

	n = snprintf(buf, size, "%%%s", s->ks_flags);
	if (s->ks_width >= 0)
		n += snprintf(buf + n, size - n, "%d", s->ks_width);
	if (s->ks_prec >= 0)
		n += snprintf(buf + n, size - n, ".%d", s->ks_prec);
	snprintf(buf + n, size - n, "%s%c", len, conv);
}

/* Apply h/hh to a value already extended from its recorded size. */
static uint64_t
kc_spec_narrow(const struct kc_spec *s, uint64_t u, int issigned)
{
	if (s->ks_len == -1)
		return issigned ? (uint64_t)(int64_t)(int16_t)u :
		    (uint16_t)u;
	if (s->ks_len <= -2)
		return issigned ? (uint64_t)(int64_t)(int8_t)u : (uint8_t)u;
	return u;
}

static int
kc_pf_int(struct kc_pf *pf, const struct kc_spec *s)
{
	const struct kc_val *a = kc_pf_arg(pf, s->ks_conv);
	char spec[64];
	int issigned = s->ks_conv == 'd' || s->ks_conv == 'i';
	uint64_t u;

	if (a == NULL)
		return -1;
	if (a->kv_isstr || (a->kv_size != 1 && a->kv_size != 2 &&
	    a->kv_size != 4 && a->kv_size != 8)) {
		snprintf(pf->pf_why, pf->pf_whysz, "conversion %%%c needs an integer but argument %u is a %u-byte %s",
		    s->ks_conv, pf->pf_next, a->kv_size,
		    a->kv_isstr ? "string" : "object");
		return -1;
	}
	u = issigned ? (uint64_t)kc_val_signed(a) : kc_val_raw(a);
	u = kc_spec_narrow(s, u, issigned);
	if (s->ks_conv == 'c') {
		kc_spec_str(s, "", 'c', spec, sizeof (spec));
		fprintf(pf->pf_out, spec, (int)(unsigned char)u);
		return 0;
	}
	if (s->ks_conv == 'p') {
		struct kc_spec p = *s;

		strncat(p.ks_flags, "#", sizeof (p.ks_flags) -
		    strlen(p.ks_flags) - 1);
		kc_spec_str(&p, "ll", 'x', spec, sizeof (spec));
	} else {
		kc_spec_str(s, "ll", s->ks_conv, spec, sizeof (spec));
	}
	fprintf(pf->pf_out, spec, u);
	return 0;
}

static int
kc_pf_str(struct kc_pf *pf, const struct kc_spec *s)
{
	const struct kc_val *a = kc_pf_arg(pf, 's');
	char spec[64];
	uint32_t n;

	if (a == NULL)
		return -1;
	if (!a->kv_isstr) {
		snprintf(pf->pf_why, pf->pf_whysz, "conversion %%s needs a string but argument %u is a %u-byte integer",
		    pf->pf_next, a->kv_size);
		return -1;
	}
	n = (uint32_t)strnlen((const char *)a->kv_data, a->kv_size);
	if (s->ks_prec < 0 || (uint32_t)s->ks_prec > n) {
		struct kc_spec b = *s;

		b.ks_prec = (int)n;
		kc_spec_str(&b, "", 's', spec, sizeof (spec));
	} else {
		kc_spec_str(s, "", 's', spec, sizeof (spec));
	}
	fprintf(pf->pf_out, spec, (const char *)a->kv_data);
	return 0;
}

static int
kc_pf_conv(struct kc_pf *pf, const struct kc_spec *s)
{
	switch (s->ks_conv) {
	case '%':
		fputc('%', pf->pf_out);
		return 0;
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
	case 'c': case 'p':
		return kc_pf_int(pf, s);
	case 's':
		return kc_pf_str(pf, s);
	case '\0':
		snprintf(pf->pf_why, pf->pf_whysz, "format ends inside a conversion");
		return -1;
	}
	snprintf(pf->pf_why, pf->pf_whysz, "conversion %%%c is not supported by this consumer (supported: d i u o x X c s p %%)",
	    s->ks_conv);
	return -1;
}

int
kc_fmt_printf(FILE *out, const char *fmt, const struct kc_val *args,
    uint32_t nargs, char *why, size_t whysz)
{
	struct kc_pf pf = { out, args, nargs, 0, why, whysz };
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
		if (kc_pf_parse(&pf, &fmt, &s) != 0 ||
		    kc_pf_conv(&pf, &s) != 0)
			return -1;
	}
	return (int)pf.pf_next;
}
