/*
 * dc_printf.c -- compile-time checking of printf() formats.
 *
 * Walks a printf format the way the consumer's formatter will (flags,
 * width, precision, size prefix, conversion; reference 5.5) and checks
 * that each conversion has an argument of a fitting type: integers for
 * d i o u x X c C P T Y (and e E f g G, which D has no floating types
 * for), integers or pointers for p a A I, strings for s S (and %ws, %ls).
 * Called by dc_act.c for every printf-like statement, after the arguments
 * have been typed.  As dtrace, the whole format is parsed first (its
 * errors are D_SYNTAX), then the arguments are matched to it: a missing
 * or non-integer '*' argument is D_PRINTF_DYN_PROTO / D_PRINTF_DYN_TYPE,
 * %@ (printa()'s aggregation value) is D_PRINTF_AGG_CONV, and an
 * aggregation given as an argument is D_PRINTF_ARG_TYPE.
 */
#include <string.h>
#include "dc_impl.h"

enum pf_want { PF_INT, PF_XINT, PF_STR, PF_PTR, PF_STACK };

struct pf_conv {
	char		pc_text[32];	/* "%-8lx" for messages */
	char		pc_conv;	/* conversion character */
	int		pc_size;	/* 0 none, 'h', 'l', 'L' (ll) */
	int		pc_stars;	/* '*' width/precision arguments */
	int		pc_agg;		/* '@' flag: printa()'s value */
	int		pc_printa;	/* a printa() format: %k is valid */
	size_t		pc_at;		/* offset of the conversion char */
};

#define PF_MAXCONV	64	/* conversions of one format checked */

static int
pf_want(struct dc_ctx *cx, const struct dc_node *f, const struct pf_conv *pc)
{
	switch (pc->pc_conv) {
	case 'd': case 'i': case 'u': case 'c': case 'C': case 'P':
	case 'T': case 'Y':
		return PF_INT;
	case 'o': case 'x': case 'X': case 'e': case 'E': case 'f':
	case 'g': case 'G':
		return PF_XINT;
	case 'p': case 'a': case 'A': case 'I':
		return PF_PTR;
	case 's': case 'S':
		if (pc->pc_size != 0 && pc->pc_size != 'l' &&
		    pc->pc_size != 'w')
			dc_error(cx, f->n_line, f->n_col, "D_SYNTAX", "printf( ) format conversion %s: size prefixes other than l and w are not valid with %%%c", pc->pc_text, pc->pc_conv);
		return PF_STR;
	case 'k':	/* printa() of a stack key */
		if (pc->pc_printa)
			return PF_STACK;
		/* FALLTHROUGH */
	default:
		dc_error(cx, f->n_line, f->n_col, "D_SYNTAX", "printf( ) format conversion %s: '%c' is not a valid conversion (d i o u x X c s p a A C e E f g G I P S T Y %%)", pc->pc_text, pc->pc_conv);
	}
}

/* A key recorded by stack(), ustack() or jstack() (dc_agg_key_type). */
static int
pf_stackkey(const struct dc_type *ty)
{
	return ty->ty_name != NULL && (strcmp(ty->ty_name, "stack") == 0 ||
	    strcmp(ty->ty_name, "ustack") == 0 ||
	    strcmp(ty->ty_name, "jstack") == 0);
}

static int
pf_ok(int want, const struct dc_type *ty)
{
	if (want == PF_STACK || pf_stackkey(ty))
		return want == PF_STACK && pf_stackkey(ty);
	switch (want) {
	case PF_INT: return ty->ty_kind == DC_INT;
	case PF_STR: return ty->ty_kind == DC_STRING;
	default: return dc_type_is_scalar(ty);
	}
}

static const char *
pf_want_name(int want)
{
	switch (want) {
	case PF_INT: return "an integer";
	case PF_STR: return "a string (use stringof() for kernel char data)";
	case PF_STACK: return "a stack";
	default: return "an integer or pointer";
	}
}

/* Parse one conversion at fmt[*i] (just after its '%'). */
static void
pf_parse(struct dc_ctx *cx, const struct dc_node *f, size_t *i,
    struct pf_conv *pc)
{
	const char *s = f->n_str, *start = s + *i - 1;
	size_t j = *i;

	int dots = 0;

	memset(pc, 0, sizeof (*pc));
	while (s[j] != '\0' && strchr("-+ #0'@", s[j]) != NULL)
		pc->pc_agg |= s[j++] == '@';
	for (; s[j] == '*' || (s[j] >= '0' && s[j] <= '9') || s[j] == '.' ||
	    s[j] == '?' || s[j] == '$' || s[j] == '@'; j++) {
		pc->pc_agg |= s[j] == '@';	/* "%8@d": anywhere before */
		pc->pc_stars += s[j] == '*';
		dots += s[j] == '.';
		if (s[j] == '$' || dots > 1 || pc->pc_stars > 2)
			dc_error(cx, f->n_line, f->n_col, "D_SYNTAX", "printf( ) format conversion %.*s: %s", (int)(s + j + 1 - start), start, s[j] == '$' ? "positional conversions (%n$) are not supported" : dots > 1 ? "more than one '.' specified" : "more than one '*' width or precision");
	}
	if (s[j] == 'h') {
		pc->pc_size = 'h';
		j += s[j + 1] == 'h' ? 2 : 1;
	} else if (s[j] == 'w' || s[j] == 'L' || s[j] == 'z' ||
	    s[j] == 'j' || s[j] == 't') {
		pc->pc_size = s[j] == 'w' ? 'w' : 'L';
		j++;
	} else if (s[j] == 'l') {
		pc->pc_size = s[j + 1] == 'l' ? 'L' : 'l';
		j += s[j + 1] == 'l' ? 2 : 1;
	}
	pc->pc_conv = s[j];
	pc->pc_at = j;
	snprintf(pc->pc_text, sizeof (pc->pc_text), "%.*s",
	    (int)(s + j - start + (s[j] != '\0')), start);
	if (s[j] == '\0')
		dc_error(cx, f->n_line, f->n_col, "D_SYNTAX", "printf( ) format ends inside conversion %s: a conversion name is expected", pc->pc_text);
	*i = j + 1;
}

/* The next argument, or NULL; an aggregation is never one. */
static const struct dc_node *
pf_next(struct dc_ctx *cx, const struct dc_node *call, int argi, int nconv,
    const struct pf_conv *pc)
{
	const struct dc_node *a;

	if (argi >= call->n_nargs)
		return NULL;
	a = call->n_args[argi];
	if (a->n_kind == DN_AGG)
		dc_error(cx, a->n_line, a->n_col, "D_PRINTF_ARG_TYPE", "printf( ) argument #%d is incompatible with conversion #%d prototype: conversion %s, argument @%s is an aggregation (use printa( ))", argi + 1, nconv, pc->pc_text, a->n_str);
	return a;
}

static void
pf_stars(struct dc_ctx *cx, const struct dc_node *call, int *argi,
    int nconv, const struct pf_conv *pc)
{
	const struct dc_node *a;
	int k;

	for (k = 0; k < pc->pc_stars; k++) {
		a = pf_next(cx, call, *argi, nconv, pc);
		if (a == NULL)
			dc_error(cx, call->n_args[0]->n_line, call->n_args[0]->n_col, "D_PRINTF_DYN_PROTO", "printf( ) prototype mismatch: conversion #%d (%s) is missing a corresponding \"*\" argument", nconv, pc->pc_text);
		if (a->n_type.ty_kind != DC_INT)
			dc_error(cx, a->n_line, a->n_col, "D_PRINTF_DYN_TYPE", "printf( ) argument #%d is incompatible with conversion #%d prototype: a '*' width or precision is an int, argument is %s", *argi + 1, nconv, a->n_type.ty_name);
		(*argi)++;
	}
}

static void
pf_arg(struct dc_ctx *cx, const struct dc_node *call, int *argi, int nconv,
    const struct pf_conv *pc, int want)
{
	const struct dc_node *a;

	if (pc->pc_agg)
		dc_error(cx, call->n_args[0]->n_line, call->n_args[0]->n_col, "D_PRINTF_AGG_CONV", "printf( ) format conversion #%d (%s): %%@ needs an aggregation and is only for printa( )", nconv, pc->pc_text);
	a = pf_next(cx, call, *argi, nconv, pc);
	if (a == NULL)
		dc_error(cx, call->n_args[0]->n_line, call->n_args[0]->n_col, "D_PRINTF_ARG_PROTO", "printf( ) prototype mismatch: conversion #%d (%s) is missing a corresponding value argument", nconv, pc->pc_text);
	if (!pf_ok(want, &a->n_type))
		dc_error(cx, a->n_line, a->n_col, "D_PRINTF_ARG_TYPE", "printf( ) argument #%d is incompatible with conversion #%d prototype: conversion %s expects %s, argument is %s", *argi + 1, nconv, pc->pc_text, pf_want_name(want), a->n_type.ty_name);
	(*argi)++;
}

/* Parse every conversion of format f (its errors first, as dtrace). */
static int
pf_parse_all(struct dc_ctx *cx, const struct dc_node *f, int printa,
    struct pf_conv **pcp, int **wantp)
{
	struct pf_conv *pc;
	int *want, nconv = 0;
	size_t i = 0;

	pc = dc_alloc(cx, sizeof (*pc) * PF_MAXCONV);
	want = dc_alloc(cx, sizeof (*want) * PF_MAXCONV);
	memset(pc, 0, sizeof (*pc) * PF_MAXCONV);
	while (f->n_str[i] != '\0') {
		if (f->n_str[i++] != '%')
			continue;
		if (f->n_str[i] == '%') {
			i++;
			continue;
		}
		if (nconv == PF_MAXCONV)
			dc_error(cx, f->n_line, f->n_col, "D_PRINTF_CONV", "printf( ) format has more than the limit of %d conversions", PF_MAXCONV);
		pf_parse(cx, f, &i, &pc[nconv]);
		pc[nconv].pc_printa = printa;
		want[nconv] = pf_want(cx, f, &pc[nconv]);
		nconv++;
	}
	*pcp = pc;
	*wantp = want;
	return nconv;
}

/*
 * printa(fmt, @a, ...): the conversions without '@' take the keys of the
 * first aggregation in order ('*' ones too), those with '@' its value; a
 * stack key fits %k only.
 */
void
dc_printa_check(struct dc_ctx *cx, const struct dc_node *f,
    const struct dc_type *keys, int nkeys)
{
	struct pf_conv *pc;
	int *want, nconv, k, s, key = 0;

	nconv = pf_parse_all(cx, f, 1, &pc, &want);
	for (k = 0; k < nconv; k++) {
		if (pc[k].pc_agg)
			continue;
		for (s = 0; s <= pc[k].pc_stars; s++, key++) {
			if (key >= nkeys)
				dc_error(cx, f->n_line, f->n_col, s < pc[k].pc_stars ? "D_PRINTF_DYN_PROTO" : "D_PRINTF_ARG_PROTO", "printa( ) prototype mismatch: conversion #%d (%s) is missing a corresponding key (the aggregation has %d)", k + 1, pc[k].pc_text, nkeys);
			if (s < pc[k].pc_stars && keys[key].ty_kind != DC_INT)
				dc_error(cx, f->n_line, f->n_col, "D_PRINTF_DYN_TYPE", "printa( ) key #%d is incompatible with conversion #%d prototype: a '*' width or precision is an int, the key is %s", key + 1, k + 1, keys[key].ty_name);
			if (s == pc[k].pc_stars && !pf_ok(want[k], &keys[key]))
				dc_error(cx, f->n_line, f->n_col, "D_PRINTF_ARG_TYPE", "printa( ) key #%d is incompatible with conversion #%d prototype: conversion %s expects %s, the key is %s", key + 1, k + 1, pc[k].pc_text, pf_want_name(want[k]), keys[key].ty_name);
		}
	}
}

void
dc_printf_check(struct dc_ctx *cx, struct dc_node *call)
{
	const struct dc_node *f = call->n_args[0];
	struct pf_conv *pc;
	int *want;
	int argi = 1, nconv, k;

	char *fmt = NULL;

	nconv = pf_parse_all(cx, f, 0, &pc, &want);
	for (k = 0; k < nconv; k++) {
		pf_stars(cx, call, &argi, k + 1, &pc[k]);
		pf_arg(cx, call, &argi, k + 1, &pc[k], want[k]);
		/*
		 * As dtrace, %d of an unsigned value prints it unsigned (%i
		 * does not: it takes the value as signed of its size).
		 */
		if (pc[k].pc_conv == 'd' &&
		    (call->n_args[argi - 1]->n_type.ty_kind == DC_PTR ||
		    !call->n_args[argi - 1]->n_type.ty_signed)) {
			if (fmt == NULL)
				fmt = dc_strndup(cx, f->n_str, strlen(f->n_str));
			fmt[pc[k].pc_at] = 'u';
		}
	}
	if (fmt != NULL)
		call->n_args[0]->n_str = fmt;
	for (k = argi; k < call->n_nargs; k++)
		(void) pf_next(cx, call, k, nconv, &pc[nconv > 0 ? nconv - 1 : 0]);
	if (argi < call->n_nargs)
		dc_error(cx, call->n_args[argi]->n_line, call->n_args[argi]->n_col, "D_PRINTF_ARG_EXTRA", "printf( ) prototype mismatch: only %d argument%s required by this format string, %d passed", argi - 1, argi - 1 == 1 ? "" : "s", call->n_nargs - 1);
}
