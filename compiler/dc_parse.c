/*
 * dc_parse.c -- recursive-descent parser for D programs.
 *
 *	program    := { pragma | clause }
 *	clause     := pdesc { "," pdesc } [ "/" expr "/" ] "{" stmts "}"
 *	stmts      := { [ expr ] ";" } [ expr ]
 *	expr       := cond
 *	cond       := binary [ "?" expr ":" cond ]
 *	binary     := unary { binop unary }    (precedence climbing, C levels)
 *	unary      := ( "-" | "+" | "!" | "~" ) unary | "(" type ")" unary
 *	              | "stringof" unary | postfix
 *	postfix    := primary { "->" ident }
 *	primary    := int | char | string | ident [ "(" args ")" ] | "(" expr ")"
 *
 * Each clause is finished as soon as its closing brace is read: its
 * statements are type-checked (dc_type.c), turned into actions and DIF
 * objects (dc_cg.c) and appended to the context's clause list, which the
 * DOF writer (dc_dof.c) walks.  Inside a predicate a top-level "/" ends the
 * predicate, so division there needs parentheses (as in dtrace).
 */
#include <string.h>
#include <stdlib.h>
#include "dc_impl.h"

#define TOK(cx)		((cx)->cx_tok.tk_kind)

static struct dc_node *ps_expr(struct dc_ctx *cx);
static struct dc_node *ps_unary(struct dc_ctx *cx);


static void __attribute__((noreturn))
ps_syntax(struct dc_ctx *cx)
{
	const struct dc_token *t = &cx->cx_tok;

	if (t->tk_kind == DT_EOF)
		dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "syntax error near end of input");
	if (t->tk_kind == DT_IDENT || t->tk_kind == DT_PDESC)
		dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "syntax error near \"%s\"", t->tk_text);
	if (t->tk_kind == DT_STRING || t->tk_kind == DT_INT ||
	    t->tk_kind == DT_CHAR || t->tk_kind == DT_PRAGMA)
		dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "syntax error near %s", dc_tok_name(t->tk_kind));
	dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "syntax error near \"%s\"", dc_tok_name(t->tk_kind));
}

static void
ps_expect(struct dc_ctx *cx, enum dc_tok k)
{
	if (TOK(cx) != k)
		ps_syntax(cx);
	dc_next(cx);
}

static struct dc_node *
ps_node(struct dc_ctx *cx, enum dc_nkind k)
{
	struct dc_node *n = dc_alloc(cx, sizeof (*n));

	memset(n, 0, sizeof (*n));
	n->n_kind = k;
	n->n_line = cx->cx_tok.tk_line;
	n->n_col = cx->cx_tok.tk_col;
	return n;
}

/* Record the height of a finished node; bounded so walks stay shallow. */
static struct dc_node *
ps_depth(struct dc_ctx *cx, struct dc_node *n)
{
	int d = 0;

	if (n->n_a != NULL && n->n_a->n_depth > d)
		d = n->n_a->n_depth;
	if (n->n_b != NULL && n->n_b->n_depth > d)
		d = n->n_b->n_depth;
	if (n->n_c != NULL && n->n_c->n_depth > d)
		d = n->n_c->n_depth;
	n->n_depth = d + 1;
	if (n->n_depth > DC_MAXDEPTH)
		dc_error(cx, n->n_line, n->n_col, "D_EXPR_DEPTH", "expression is nested %d levels deep, limit %d", n->n_depth, DC_MAXDEPTH);
	return n;
}

/* ---- types in casts ---- */

struct ps_tname {
	const char	*tn_name;
	uint32_t	tn_size;
	int		tn_signed;
};

static const struct ps_tname ps_tnames[] = {
	{ "int8_t", 1, 1 }, { "int16_t", 2, 1 }, { "int32_t", 4, 1 },
	{ "int64_t", 8, 1 }, { "uint8_t", 1, 0 }, { "uint16_t", 2, 0 },
	{ "uint32_t", 4, 0 }, { "uint64_t", 8, 0 }, { "intptr_t", 8, 1 },
	{ "uintptr_t", 8, 0 }, { "size_t", 8, 0 }, { "ssize_t", 8, 1 },
	{ "pid_t", 4, 1 }, { "uid_t", 4, 0 }, { "gid_t", 4, 0 },
};

static int
ps_is_type_start(const struct dc_token *t)
{
	static const char *const kw[] = { "char", "short", "int", "long",
	    "signed", "unsigned", "struct", "void" };
	size_t i;

	if (t->tk_kind != DT_IDENT)
		return 0;
	for (i = 0; i < sizeof (kw) / sizeof (kw[0]); i++)
		if (strcmp(t->tk_text, kw[i]) == 0)
			return 1;
	for (i = 0; i < sizeof (ps_tnames) / sizeof (ps_tnames[0]); i++)
		if (strcmp(t->tk_text, ps_tnames[i].tn_name) == 0)
			return 1;
	return 0;
}

/* C integer keywords: count them, then derive size and signedness. */
static void
ps_int_keywords(struct dc_ctx *cx, struct dc_type *ty)
{
	int nlong = 0, nshort = 0, nchar = 0, uns = 0, sgn = 0, nint = 0;
	size_t i;

	for (i = 0; i < sizeof (ps_tnames) / sizeof (ps_tnames[0]); i++) {
		if (strcmp(cx->cx_tok.tk_text, ps_tnames[i].tn_name) == 0) {
			dc_type_int(ty, ps_tnames[i].tn_size,
			    ps_tnames[i].tn_signed);
			dc_next(cx);
			return;
		}
	}
	while (TOK(cx) == DT_IDENT) {
		const char *s = cx->cx_tok.tk_text;

		if (strcmp(s, "long") == 0) nlong++;
		else if (strcmp(s, "short") == 0) nshort++;
		else if (strcmp(s, "char") == 0) nchar++;
		else if (strcmp(s, "int") == 0) nint++;
		else if (strcmp(s, "unsigned") == 0) uns++;
		else if (strcmp(s, "signed") == 0) sgn++;
		else break;
		dc_next(cx);
	}
	if (nlong > 2 || nshort > 1 || nchar > 1 || nint > 1 || uns + sgn > 1 ||
	    (nchar + nshort + (nlong > 0)) > 1)
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_TYPE_ERR", "invalid combination of type keywords in cast");
	dc_type_int(ty, nchar ? 1 : nshort ? 2 : nlong ? 8 : 4, !uns);
}

static void
ps_type(struct dc_ctx *cx, struct dc_type *ty)
{
	int line = cx->cx_tok.tk_line, col = cx->cx_tok.tk_col;

	if (strcmp(cx->cx_tok.tk_text, "struct") == 0) {
		const char *name;

		dc_next(cx);
		if (TOK(cx) != DT_IDENT)
			ps_syntax(cx);
		name = cx->cx_tok.tk_text;
		dc_next(cx);
		if (TOK(cx) != DT_STAR)
			dc_error(cx, line, col, "D_CAST_STRUCT", "cast to struct %s is not supported; cast to a pointer (struct %s *)", name, name);
		dc_type_struct_ptr(cx, name, ty, line, col);
		dc_next(cx);
	} else if (strcmp(cx->cx_tok.tk_text, "void") == 0) {
		dc_next(cx);
		if (TOK(cx) != DT_STAR)
			dc_error(cx, line, col, "D_CAST_VOID", "cast to void is not supported");
		memset(ty, 0, sizeof (*ty));
		ty->ty_kind = DC_PTR;
		ty->ty_size = 8;
		ty->ty_name = "void *";
		dc_next(cx);
	} else {
		ps_int_keywords(cx, ty);
	}
	while (TOK(cx) == DT_STAR) {
		memset(ty, 0, sizeof (*ty));
		ty->ty_kind = DC_PTR;
		ty->ty_size = 8;
		ty->ty_name = "pointer";
		dc_next(cx);
	}
}

/* ---- expressions ---- */

static struct dc_node *
ps_call_args(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *args[64];
	int na = 0;

	dc_next(cx);
	if (TOK(cx) != DT_RPAR) {
		for (;;) {
			if (na == 64)
				dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_PROTO_LEN", "%s( ) has more than the limit of 64 arguments", n->n_str);
			args[na++] = ps_expr(cx);
			if (TOK(cx) != DT_COMMA)
				break;
			dc_next(cx);
		}
	}
	ps_expect(cx, DT_RPAR);
	n->n_args = dc_alloc(cx, sizeof (args[0]) * (size_t)(na + 1));
	memcpy(n->n_args, args, sizeof (args[0]) * (size_t)na);
	n->n_nargs = na;
	return n;
}

static struct dc_node *
ps_primary(struct dc_ctx *cx)
{
	const struct dc_token *t = &cx->cx_tok;
	struct dc_node *n;

	switch (t->tk_kind) {
	case DT_INT:
	case DT_CHAR:
		n = ps_node(cx, DN_INT);
		n->n_ival = t->tk_ival;
		if (t->tk_kind == DT_CHAR)
			dc_type_int(&n->n_type, 1, 1);
		else
			dc_type_int(&n->n_type, t->tk_long ? 8 : 4,
			    !t->tk_unsigned);
		dc_next(cx);
		return n;
	case DT_STRING:
		n = ps_node(cx, DN_STR);
		n->n_str = t->tk_text;
		n->n_len = t->tk_len;
		dc_next(cx);
		return n;
	case DT_IDENT:
		n = ps_node(cx, DN_VAR);
		n->n_str = t->tk_text;
		dc_next(cx);
		if (TOK(cx) == DT_LPAR) {
			n->n_kind = DN_CALL;
			return ps_call_args(cx, n);
		}
		return n;
	case DT_LPAR:
		dc_next(cx);
		cx->cx_paren++;
		n = ps_expr(cx);
		cx->cx_paren--;
		ps_expect(cx, DT_RPAR);
		return n;
	default:
		ps_syntax(cx);
	}
}

static struct dc_node *
ps_postfix_tail(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *m;

	for (;;) {
		if (TOK(cx) == DT_ARROW) {
			m = ps_node(cx, DN_MEMBER);
			dc_next(cx);
			if (TOK(cx) != DT_IDENT)
				ps_syntax(cx);
			m->n_str = cx->cx_tok.tk_text;
			m->n_a = n;
			n = ps_depth(cx, m);
			dc_next(cx);
		} else if (TOK(cx) == DT_DOT || TOK(cx) == DT_LBRACK) {
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_OP_UNSUP", "operator %s is not supported yet (use -> on a struct pointer)", dc_tok_name(TOK(cx)));
		} else {
			return n;
		}
	}
}

static struct dc_node *
ps_postfix(struct dc_ctx *cx)
{
	return ps_postfix_tail(cx, ps_primary(cx));
}

static struct dc_node *
ps_cast(struct dc_ctx *cx, int line, int col)
{
	struct dc_node *n = ps_node(cx, DN_CAST);

	n->n_line = line;
	n->n_col = col;
	ps_type(cx, &n->n_type);
	ps_expect(cx, DT_RPAR);
	n->n_a = ps_unary(cx);
	return ps_depth(cx, n);
}

static struct dc_node *
ps_unary1(struct dc_ctx *cx)
{
	const struct dc_token *t = &cx->cx_tok;
	struct dc_node *n;
	int line = t->tk_line, col = t->tk_col;

	switch (t->tk_kind) {
	case DT_MINUS: case DT_PLUS: case DT_NOT: case DT_TILDE:
		n = ps_node(cx, DN_UNARY);
		n->n_op = t->tk_kind;
		dc_next(cx);
		n->n_a = ps_unary(cx);
		return ps_depth(cx, n);
	case DT_STAR: case DT_BAND:
		dc_error(cx, line, col, "D_OP_UNSUP", "unary operator %s is not supported yet", dc_tok_name(t->tk_kind));
	case DT_LPAR:
		dc_next(cx);
		if (ps_is_type_start(&cx->cx_tok))
			return ps_cast(cx, line, col);
		cx->cx_paren++;
		n = ps_expr(cx);
		cx->cx_paren--;
		ps_expect(cx, DT_RPAR);
		return ps_postfix_tail(cx, n);
	case DT_IDENT:
		if (strcmp(t->tk_text, "stringof") != 0)
			return ps_postfix(cx);
		n = ps_node(cx, DN_STRINGOF);
		dc_next(cx);
		n->n_a = ps_unary(cx);
		return ps_depth(cx, n);
	default:
		return ps_postfix(cx);
	}
}

/* Every recursion of the parser passes here or ps_expr(): bound it. */
static void
ps_nest(struct dc_ctx *cx, int delta)
{
	cx->cx_nest += delta;
	if (cx->cx_nest > DC_MAXNEST)
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_EXPR_DEPTH", "expression is nested more than the limit of %d levels", DC_MAXNEST);
}

static struct dc_node *
ps_unary(struct dc_ctx *cx)
{
	struct dc_node *n;

	ps_nest(cx, 1);
	n = ps_unary1(cx);
	ps_nest(cx, -1);
	return n;
}

/* Binary operator precedence, C levels; 0: not a binary operator. */
static int
ps_prec(struct dc_ctx *cx, enum dc_tok k)
{
	switch (k) {
	case DT_LOR: return 1;
	case DT_LXOR: return 2;
	case DT_LAND: return 3;
	case DT_BOR: return 4;
	case DT_XOR: return 5;
	case DT_BAND: return 6;
	case DT_EQ: case DT_NE: return 7;
	case DT_LT: case DT_LE: case DT_GT: case DT_GE: return 8;
	case DT_SHL: case DT_SHR: return 9;
	case DT_PLUS: case DT_MINUS: return 10;
	case DT_SLASH:
		return cx->cx_inpred && cx->cx_paren == 0 ? 0 : 11;
	case DT_STAR: case DT_PERCENT: return 11;
	default: return 0;
	}
}

/* Precedence climbing: all binary operators are left-associative. */
static struct dc_node *
ps_binary(struct dc_ctx *cx, int minprec)
{
	struct dc_node *lhs = ps_unary(cx), *n;
	int p;

	while ((p = ps_prec(cx, TOK(cx))) >= minprec && p > 0) {
		n = ps_node(cx, DN_BINARY);
		n->n_op = TOK(cx);
		dc_next(cx);
		n->n_a = lhs;
		n->n_b = ps_binary(cx, p + 1);
		lhs = ps_depth(cx, n);
	}
	return lhs;
}

static struct dc_node *
ps_expr(struct dc_ctx *cx)
{
	struct dc_node *c, *n;

	ps_nest(cx, 1);
	c = ps_binary(cx, 1);
	if (TOK(cx) != DT_QUEST) {
		ps_nest(cx, -1);
		return c;
	}
	n = ps_node(cx, DN_COND);
	dc_next(cx);
	n->n_a = c;
	cx->cx_paren++;
	n->n_b = ps_expr(cx);
	cx->cx_paren--;
	ps_expect(cx, DT_COLON);
	n->n_c = ps_expr(cx);
	ps_nest(cx, -1);
	return ps_depth(cx, n);
}

/* ---- statements and actions ---- */

static void
ps_add_action(struct dc_ctx *cx, struct dc_clause *cl, uint32_t kind,
    const char *fmt, struct dc_difo *df)
{
	struct dc_action *na;

	if (cl->cl_nacts >= DOF_MAX_ACTIONS)
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_ACT_MAX", "clause has more than the limit of %d actions", DOF_MAX_ACTIONS);
	na = dc_alloc(cx, sizeof (*na) * (size_t)(cl->cl_nacts + 1));
	if (cl->cl_nacts > 0)
		memcpy(na, cl->cl_acts, sizeof (*na) * (size_t)cl->cl_nacts);
	na[cl->cl_nacts].ac_kind = kind;
	na[cl->cl_nacts].ac_fmt = fmt;
	na[cl->cl_nacts].ac_difo = df;
	cl->cl_acts = na;
	cl->cl_nacts++;
}

static void
ps_nargs(struct dc_ctx *cx, struct dc_node *call, int want)
{
	if (call->n_nargs != want)
		dc_error(cx, call->n_line, call->n_col, "D_PROTO_LEN", "%s( ) prototype mismatch: %d arg%s passed, %d expected", call->n_str, call->n_nargs, call->n_nargs == 1 ? "" : "s", want);
}

/*
 * Type argument i of trace()/printf().  A char array (a kernel member such
 * as module->name) is taken as the string it holds, as if written
 * stringof(...).
 */
static void
ps_value_arg(struct dc_ctx *cx, struct dc_node *call, int i)
{
	struct dc_node *a = call->n_args[i], *s;

	dc_type_expr(cx, a);
	if (a->n_type.ty_kind == DC_ARRAY && a->n_type.ty_elsize == 1) {
		s = ps_node(cx, DN_STRINGOF);
		s->n_line = a->n_line;
		s->n_col = a->n_col;
		s->n_a = a;
		dc_type_expr(cx, s);
		call->n_args[i] = a = s;
	}
	if (!dc_type_is_scalar(&a->n_type) && a->n_type.ty_kind != DC_STRING)
		dc_error(cx, a->n_line, a->n_col, "D_PROTO_ARG", "%s( ) argument #%d is incompatible with prototype: %s is not a scalar or string (use stringof() for char arrays)", call->n_str, i + 1, a->n_type.ty_name);
}

/*
 * printf(fmt, a, b): one PRINTF action per argument.  Every action carries
 * the format, as libdtrace writes it and as the loader's rule A3
 * (dof_load.c) demands of each printf-like action.  With no arguments the
 * one action's object is "ret %r0" typed as an 8-byte integer, as
 * libdtrace types it: the ECB then records something, so a record exists
 * for the consumer to print the format from (kdt.ko writes no record for
 * an ECB whose actions record 0 bytes).
 */
static void
ps_act_printf(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	struct dc_node *f;
	int i;

	if (call->n_nargs < 1)
		dc_error(cx, call->n_line, call->n_col, "D_PROTO_LEN", "printf( ) prototype mismatch: 0 args passed, at least 1 expected");
	f = call->n_args[0];
	if (f->n_kind != DN_STR)
		dc_error(cx, f->n_line, f->n_col, "D_PRINTF_ARG_FMT", "printf( ) argument #1 must be a string literal format");
	if (f->n_len != strlen(f->n_str) || f->n_len == 0)
		dc_error(cx, f->n_line, f->n_col, "D_PRINTF_FMT_EMPTY", "printf( ) format string is empty or contains a NUL byte");
	for (i = 1; i < call->n_nargs; i++)
		ps_value_arg(cx, call, i);
	dc_printf_check(cx, call);
	if (call->n_nargs == 1)
		ps_add_action(cx, cl, DTRACEACT_PRINTF, f->n_str,
		    dc_cg_object(cx, NULL, 8));
	for (i = 1; i < call->n_nargs; i++)
		ps_add_action(cx, cl, DTRACEACT_PRINTF, f->n_str,
		    dc_cg_object(cx, call->n_args[i], -1));
}

static void
ps_act_call(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	if (strcmp(call->n_str, "trace") == 0) {
		ps_nargs(cx, call, 1);
		ps_value_arg(cx, call, 0);
		ps_add_action(cx, cl, DTRACEACT_DIFEXPR, NULL,
		    dc_cg_object(cx, call->n_args[0], -1));
	} else if (strcmp(call->n_str, "printf") == 0) {
		ps_act_printf(cx, cl, call);
	} else if (strcmp(call->n_str, "exit") == 0) {
		ps_nargs(cx, call, 1);
		dc_type_expr(cx, call->n_args[0]);
		if (call->n_args[0]->n_type.ty_kind != DC_INT)
			dc_error(cx, call->n_args[0]->n_line, call->n_args[0]->n_col, "D_PROTO_ARG", "exit( ) argument #1 is incompatible with prototype: %s is not an integer", call->n_args[0]->n_type.ty_name);
		ps_add_action(cx, cl, DTRACEACT_EXIT, NULL,
		    dc_cg_object(cx, call->n_args[0], 4));
	} else {
		dc_error(cx, call->n_line, call->n_col, "D_IDENT_UNDEF", "failed to resolve %s: Unknown function name", call->n_str);
	}
}

static void
ps_statement(struct dc_ctx *cx, struct dc_clause *cl)
{
	struct dc_node *e = ps_expr(cx);

	if (e->n_kind == DN_CALL) {
		ps_act_call(cx, cl, e);
		return;
	}
	dc_type_expr(cx, e);
	ps_add_action(cx, cl, DTRACEACT_DIFEXPR, NULL, dc_cg_object(cx, e, 0));
}

static void
ps_body(struct dc_ctx *cx, struct dc_clause *cl)
{
	ps_expect(cx, DT_LBRACE);
	while (TOK(cx) != DT_RBRACE) {
		if (TOK(cx) == DT_SEMI) {
			dc_next(cx);
			continue;
		}
		ps_statement(cx, cl);
		if (TOK(cx) == DT_SEMI)
			dc_next(cx);
		else if (TOK(cx) != DT_RBRACE)
			ps_syntax(cx);
	}
	dc_next(cx);
}

/* ---- probe descriptions, clauses, pragmas ---- */

static const char *
ps_pdesc_field(struct dc_ctx *cx, const struct dc_token *t, const char *s,
    size_t len, size_t limit, const char *what)
{
	if (len >= limit)
		dc_error(cx, t->tk_line, t->tk_col, "D_PDESC_INVAL", "probe description %s: %s name is %zu characters, limit %zu", t->tk_text, what, len, limit - 1);
	return dc_strndup(cx, s, len);
}

/* "a:b:c:d" with missing leading fields; globs are kept verbatim. */
static void
ps_pdesc(struct dc_ctx *cx, struct dc_pdesc *pd)
{
	static const char *const what[4] = { "provider", "module",
	    "function", "probe" };
	static const size_t lim[4] = { DOF_PROVNAMELEN, DOF_MODNAMELEN,
	    DOF_FUNCNAMELEN, DOF_NAMELEN };
	const struct dc_token *t = &cx->cx_tok;
	const char *f[4] = { "", "", "", "" }, *s = t->tk_text, *c;
	int n = 1, i;

	for (c = s; *c != '\0'; c++)
		n += *c == ':';
	if (n > 4)
		dc_error(cx, t->tk_line, t->tk_col, "D_PDESC_INVAL", "probe description %s has %d fields, limit 4", s, n);
	for (i = 4 - n; i < 4; i++) {
		c = strchr(s, ':');
		if (c == NULL)
			c = s + strlen(s);
		f[i] = ps_pdesc_field(cx, t, s, (size_t)(c - s), lim[i],
		    what[i]);
		s = *c == ':' ? c + 1 : c;
	}
	pd->pd_prov = f[0];
	pd->pd_mod = f[1];
	pd->pd_func = f[2];
	pd->pd_name = f[3];
	pd->pd_line = t->tk_line;
	pd->pd_col = t->tk_col;
	dc_next(cx);
}

static void
ps_pdescs(struct dc_ctx *cx, struct dc_clause *cl)
{
	struct dc_pdesc pds[64];
	int n = 0;

	for (;;) {
		if (TOK(cx) != DT_PDESC)
			ps_syntax(cx);
		if (n == 64)
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_PDESC_INVAL", "clause has more than the limit of 64 probe descriptions");
		ps_pdesc(cx, &pds[n++]);
		if (TOK(cx) != DT_COMMA)
			break;
		dc_next(cx);
	}
	cl->cl_pdescs = dc_alloc(cx, sizeof (pds[0]) * (size_t)n);
	memcpy(cl->cl_pdescs, pds, sizeof (pds[0]) * (size_t)n);
	cl->cl_npdescs = n;
}

static void
ps_predicate(struct dc_ctx *cx, struct dc_clause *cl)
{
	struct dc_node *e;

	cx->cx_inpred = 1;
	cx->cx_paren = 0;
	dc_next(cx);
	e = ps_expr(cx);
	cx->cx_inpred = 0;
	ps_expect(cx, DT_SLASH);
	dc_type_expr(cx, e);
	if (!dc_type_is_scalar(&e->n_type))
		dc_error(cx, e->n_line, e->n_col, "D_PRED_SCALAR", "predicate result must be of scalar type, not %s", e->n_type.ty_name);
	cl->cl_pred = dc_cg_object(cx, e, -1);
}

static void
ps_clause(struct dc_ctx *cx)
{
	struct dc_clause *cl = dc_alloc(cx, sizeof (*cl));

	memset(cl, 0, sizeof (*cl));
	ps_pdescs(cx, cl);
	if (TOK(cx) == DT_SLASH)
		ps_predicate(cx, cl);
	ps_body(cx, cl);
	*cx->cx_tail = cl;
	cx->cx_tail = &cl->cl_next;
}

/* "#pragma D option name[=value]"; a "#!" first line is ignored. */
static void
ps_pragma(struct dc_ctx *cx)
{
	const struct dc_token *t = &cx->cx_tok;
	char word[3][64];
	int n;

	if (t->tk_line == 1 && strncmp(t->tk_text, "#!", 2) == 0) {
		dc_next(cx);
		return;
	}
	n = sscanf(t->tk_text, "#%63s %63s %63s", word[0], word[1], word[2]);
	if (n < 1 || strcmp(word[0], "pragma") != 0)
		dc_error(cx, t->tk_line, t->tk_col, "D_PRAGMA_INVAL", "unsupported directive \"%s\": only #pragma D option is supported", t->tk_text);
	if (n < 3 || strcmp(word[1], "D") != 0 || strcmp(word[2], "option") != 0)
		dc_error(cx, t->tk_line, t->tk_col, "D_PRAGMA_INVAL", "unsupported pragma \"%s\": only #pragma D option name=value is supported", t->tk_text);
	if (sscanf(t->tk_text, "#%*s %*s %*s %63s %63s", word[0], word[1]) != 1)
		dc_error(cx, t->tk_line, t->tk_col, "D_PRAGMA_MALFORM", "malformed #pragma D option: expected exactly one name[=value] in \"%s\"", t->tk_text);
	dc_opt_set(cx, word[0], t->tk_line, t->tk_col);
	dc_next(cx);
}

void
dc_parse_program(struct dc_ctx *cx)
{
	cx->cx_inpred = 0;
	cx->cx_paren = 0;
	dc_next(cx);
	for (;;) {
		switch (TOK(cx)) {
		case DT_EOF:
			return;
		case DT_PRAGMA:
			ps_pragma(cx);
			break;
		case DT_PDESC:
			ps_clause(cx);
			break;
		default:
			ps_syntax(cx);
		}
	}
}
