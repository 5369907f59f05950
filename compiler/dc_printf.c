/*
 * dc_printf.c -- compile-time checking of printf() formats.
 *
 * Walks a printf format the way the consumer's formatter will (flags,
 * width, precision, size prefix, conversion; reference 5.5) and checks
 * that each conversion has an argument of a fitting type: integers for
 * d i o u x X c C P T Y (and e E f g G, which D has no floating types
 * for), integers or pointers for p a A I, strings for s S (and %ws, %ls).
 * Called by dc_act.c for every printf-like statement, after the arguments
 * have been typed.
 */
#include <string.h>
#include "dc_impl.h"

enum pf_want { PF_INT, PF_XINT, PF_STR, PF_PTR };

struct pf_conv {
	char		pc_text[32];	/* "%-8lx" for messages */
	char		pc_conv;	/* conversion character */
	int		pc_size;	/* 0 none, 'h', 'l', 'L' (ll) */
	int		pc_stars;	/* '*' width/precision arguments */
};

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
			dc_error(cx, f->n_line, f->n_col, "D_PRINTF_CONV", "printf( ) format conversion %s: size prefixes other than l and w are not valid with %%%c", pc->pc_text, pc->pc_conv);
		return PF_STR;
	default:
		dc_error(cx, f->n_line, f->n_col, "D_PRINTF_CONV", "printf( ) format conversion %s: '%c' is not a valid conversion (d i o u x X c s p a A C e E f g G I P S T Y %%)", pc->pc_text, pc->pc_conv);
	}
}

static int
pf_ok(int want, const struct dc_type *ty)
{
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

	memset(pc, 0, sizeof (*pc));
	while (s[j] != '\0' && strchr("-+ #0'", s[j]) != NULL)
		j++;
	for (; s[j] == '*' || (s[j] >= '0' && s[j] <= '9') || s[j] == '.' ||
	    s[j] == '?'; j++)
		pc->pc_stars += s[j] == '*';
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
	snprintf(pc->pc_text, sizeof (pc->pc_text), "%.*s",
	    (int)(s + j - start + (s[j] != '\0')), start);
	if (s[j] == '\0')
		dc_error(cx, f->n_line, f->n_col, "D_PRINTF_CONV", "printf( ) format ends inside conversion %s", pc->pc_text);
	*i = j + 1;
}

static void
pf_arg(struct dc_ctx *cx, const struct dc_node *call, int *argi, int nconv,
    const struct pf_conv *pc, int want)
{
	const struct dc_node *a;

	if (*argi >= call->n_nargs)
		dc_error(cx, call->n_args[0]->n_line, call->n_args[0]->n_col, "D_PRINTF_ARG_PROTO", "printf( ) prototype mismatch: conversion #%d (%s) is missing a corresponding value argument", nconv, pc->pc_text);
	a = call->n_args[*argi];
	if (!pf_ok(want, &a->n_type))
		dc_error(cx, a->n_line, a->n_col, "D_PRINTF_ARG_TYPE", "printf( ) argument #%d is incompatible with conversion #%d prototype: conversion %s expects %s, argument is %s", *argi + 1, nconv, pc->pc_text, pf_want_name(want), a->n_type.ty_name);
	(*argi)++;
}

void
dc_printf_check(struct dc_ctx *cx, struct dc_node *call)
{
	const struct dc_node *f = call->n_args[0];
	struct pf_conv pc;
	size_t i = 0;
	int argi = 1, nconv = 0, k;

	while (f->n_str[i] != '\0') {
		if (f->n_str[i++] != '%')
			continue;
		if (f->n_str[i] == '%') {
			i++;
			continue;
		}
		pf_parse(cx, f, &i, &pc);
		nconv++;
		for (k = 0; k < pc.pc_stars; k++)
			pf_arg(cx, call, &argi, nconv, &pc, PF_INT);
		pf_arg(cx, call, &argi, nconv, &pc, pf_want(cx, f, &pc));
	}
	if (argi < call->n_nargs)
		dc_error(cx, call->n_args[argi]->n_line, call->n_args[argi]->n_col, "D_PRINTF_ARG_EXTRA", "printf( ) prototype mismatch: only %d argument%s required by this format string, %d passed", argi - 1, argi - 1 == 1 ? "" : "s", call->n_nargs - 1);
}
