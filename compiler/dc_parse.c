/*
 * dc_parse.c -- recursive-descent parser for D programs.
 *
 *	program    := { pragma | clause | declaration }
 *	declaration:= [ "self" | "this" ] type name [ "[" types "]" ] ";"
 *	              | "extern" type cdeclarator { "," cdeclarator } ";"
 *	              | type name "(" params ")" ";"    (a prototype)
 *	              | "inline" type name [ "[" type name { "," type name }
 *	                "]" ] "=" expr ";"     (with parameters: per use)
 *	              | "typedef" type name ";" | "translator" ... ";"
 *	              | ( "struct" | "union" | "enum" ) name "{" ... "}" ";"
 *	clause     := pdesc { "," pdesc } [ "/" expr "/" ] "{" stmts "}"
 *	stmts      := { [ expr ] ";" } [ expr ]
 *	expr       := cond [ assignop expr ]        (right-associative)
 *	cond       := binary [ "?" expr ":" cond ]
 *	binary     := unary { binop unary }    (precedence climbing, C levels)
 *	unary      := ( "-" | "+" | "!" | "~" | "*" | "&" | "++" | "--" ) unary
 *	              | "(" type ")" unary | "sizeof" unary
 *	              | "sizeof" "(" type ")" | "offsetof" "(" type "," ident ")"
 *	              | "xlate" "<" type ">" "(" expr ")"
 *	              | "stringof" unary | postfix
 *	postfix    := primary { "->" ident | "." ident | "[" args "]"
 *	              | "++" | "--" }
 *	primary    := int | char | string | ident [ "(" args ")" ]
 *	              | "(" expr ")"
 *	              | "self->" ident | "this->" ident | "@" name | "$" macro
 *
 * Each clause is finished as soon as its closing brace is read: its
 * statements are type-checked (dc_type.c), turned into actions (dc_act.c)
 * and DIF objects (dc_cg.c) and appended to the context's clause list,
 * which the DOF writer (dc_dof.c) walks.  The predicate is typed after the
 * actions, as dtrace cooks it (ps_body_pred).  Inside a predicate a top-level "/"
 * ends the predicate, so division there needs parentheses (as in dtrace).
 *
 * Map of the file, by banner: types in casts and declarations (ps_type,
 * the integer keywords and their invalid combinations); expressions
 * (primary, postfix, unary, binary by precedence climbing, assignment);
 * statements (ps_body, dc_add_action); top-level declarations (storage
 * classes, D variables and arrays); C declarators of extern declarations
 * and prototypes (ps_cdecl, ps_cparams: checked, not recorded); inlines
 * and typedefs; probe descriptions, clauses (ps_body_pred: the order in
 * which actions and predicate are typed) and pragmas ("#pragma D
 * attributes" of a name the program never defines is D_PRAGMA_UNUSED at
 * the end, ps_pragat_check).
 */
#include <string.h>
#include <stdlib.h>
#include "dc_impl.h"

#define TOK(cx)		((cx)->cx_tok.tk_kind)

static struct dc_node *ps_expr(struct dc_ctx *cx);
static struct dc_node *ps_unary(struct dc_ctx *cx);
static int ps_peek(const struct dc_ctx *cx);
static void ps_pragma(struct dc_ctx *cx);


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

/* ---- types in casts and declarations ---- */

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
	{ "id_t", 4, 1 }, { "dev_t", 8, 0 }, { "off_t", 8, 1 },
	{ "time_t", 8, 1 }, { "major_t", 4, 0 }, { "minor_t", 4, 0 },
	{ "processorid_t", 4, 1 }, { "ipaddr_t", 4, 0 }, { "zoneid_t", 4, 1 },
	{ "uchar_t", 1, 0 }, { "ushort_t", 2, 0 }, { "uint_t", 4, 0 },
	{ "ulong_t", 8, 0 }, { "longlong_t", 8, 1 }, { "u_longlong_t", 8, 0 },
	{ "ptrdiff_t", 8, 1 }, { "hrtime_t", 8, 1 },
};

static const struct ps_tname *
ps_tname(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof (ps_tnames) / sizeof (ps_tnames[0]); i++)
		if (strcmp(s, ps_tnames[i].tn_name) == 0)
			return &ps_tnames[i];
	return NULL;
}

int
dc_parse_is_type(struct dc_ctx *cx, const struct dc_token *t)
{
	static const char *const kw[] = { "char", "short", "int", "long",
	    "signed", "unsigned", "struct", "union", "enum", "void", "string",
	    "const", "volatile", "float", "double" };
	struct dc_inline *in;
	size_t i;

	if (t->tk_kind != DT_IDENT)
		return 0;
	for (i = 0; i < sizeof (kw) / sizeof (kw[0]); i++)
		if (strcmp(t->tk_text, kw[i]) == 0)
			return 1;
	if (ps_tname(t->tk_text) != NULL)
		return 1;
	in = dc_inline_lookup(cx, t->tk_text);
	return in != NULL && in->in_expr == NULL;
}

/*
 * What an integer keyword adds to the counts so far would make invalid,
 * with dtrace's tag for it: a second type name (char, int) or a repeated
 * attribute is D_DECL_COMBO, long with short an unknown type, char with
 * a size attribute D_DECL_CHARATTR.
 */
static const char *
ps_int_combo(const int *c, const char *s)
{
	enum { NLONG, NSHORT, NCHAR, NINT, NSIGN };

	if (strcmp(s, "char") == 0 || strcmp(s, "int") == 0) {
		if (c[NCHAR] + c[NINT] > 0)
			return "D_DECL_COMBO";
		if (s[0] == 'c' && c[NLONG] + c[NSHORT] > 0)
			return "D_DECL_CHARATTR";
	} else if (strcmp(s, "short") == 0 || strcmp(s, "long") == 0) {
		if (s[0] == 's' ? c[NLONG] > 0 : c[NSHORT] > 0)
			return "D_UNKNOWN";
		if (c[NSHORT] > 0 || c[NLONG] == 2)
			return "D_DECL_COMBO";
		if (c[NCHAR] > 0)
			return "D_DECL_CHARATTR";
	} else if (c[NSIGN] > 0) {
		return "D_DECL_COMBO";
	}
	return NULL;
}

/* The tag for an integer attribute applied to void, struct, union, enum. */
static const char *
ps_int_attr_on(const int *c, const char *s)
{
	if (strcmp(s, "void") == 0)
		return "D_DECL_VOIDATTR";
	if (strcmp(s, "struct") != 0 && strcmp(s, "union") != 0 &&
	    strcmp(s, "enum") != 0)
		return NULL;
	return c[0] > 0 ? "D_DECL_LONGINT" : c[1] > 0 ? "D_DECL_SHORTINT" :
	    c[4] > 0 ? "D_DECL_SIGNINT" : "D_DECL_COMBO";
}

/*
 * float, double, long double: D declares them (kernel data may hold
 * them) but has no floating-point arithmetic; kdt keeps their bytes as
 * an integer of their size, which printf's %e %f %g take.
 */
static void
ps_type_float(struct dc_type *ty, uint32_t size)
{
	dc_type_int(ty, size, 1);
	ty->ty_float = 1;
	ty->ty_name = size == 4 ? "float" : size == 8 ? "double" :
	    "long double";
}

/* "double double", "float int": a second type name after a float. */
static void
ps_float_combo(struct dc_ctx *cx)
{
	static const char *const kw[] = { "char", "short", "int", "long",
	    "signed", "unsigned", "float", "double" };
	size_t i;

	for (i = 0; TOK(cx) == DT_IDENT && i < sizeof (kw) / sizeof (kw[0]);
	    i++)
		if (strcmp(cx->cx_tok.tk_text, kw[i]) == 0)
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_COMBO", "invalid type combination: %s after a floating-point type", kw[i]);
}

/* C integer keywords: count them, then derive size and signedness. */
static void
ps_int_keywords(struct dc_ctx *cx, struct dc_type *ty)
{
	static const char *const kw[] = { "long", "short", "char", "int",
	    "unsigned", "signed" };
	int c[5] = { 0 }, uns = 0, k;
	const char *s, *bad;

	while (TOK(cx) == DT_IDENT) {
		s = cx->cx_tok.tk_text;
		for (k = 0; k < 6 && strcmp(s, kw[k]) != 0; k++)
			;
		if (k == 6 && strcmp(s, "const") != 0 &&
		    strcmp(s, "volatile") != 0)
			break;
		if (k < 6 && (bad = ps_int_combo(c, s)) != NULL)
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, bad, "invalid type combination: %s cannot be added here", s);
		if (k < 6) {
			c[k < 4 ? k : 4]++;
			uns |= k == 4;
		}
		dc_next(cx);
	}
	if (TOK(cx) == DT_IDENT && strcmp(cx->cx_tok.tk_text, "double") == 0 &&
	    c[0] == 1 && c[1] + c[2] + c[3] + c[4] == 0) {
		ps_type_float(ty, 16);		/* long double */
		dc_next(cx);
		ps_float_combo(cx);
		return;
	}
	if (TOK(cx) == DT_IDENT && c[0] + c[1] + c[2] + c[3] + c[4] > 0 &&
	    (strcmp(cx->cx_tok.tk_text, "float") == 0 ||
	    strcmp(cx->cx_tok.tk_text, "double") == 0))
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_COMBO", "invalid type combination: integer keywords before %s", cx->cx_tok.tk_text);
	if (TOK(cx) == DT_IDENT && c[0] + c[1] + c[2] + c[3] + c[4] > 0 &&
	    (bad = ps_int_attr_on(c, cx->cx_tok.tk_text)) != NULL)
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, bad, "invalid type combination: integer keywords before %s", cx->cx_tok.tk_text);
	dc_type_int(ty, c[2] ? 1 : c[1] ? 2 : c[0] ? 8 : 4, !uns);
}

/* "struct name" / "union name" / "enum name", defined here or in BTF. */
static void
ps_type_sou(struct dc_ctx *cx, struct dc_type *ty, int line, int col)
{
	const char *kw = cx->cx_tok.tk_text, *name, *scope = NULL;

	dc_next(cx);
	if (TOK(cx) == DT_LBRACE) {
		dc_decl_sou(cx, kw, "", ty, line, col);	/* anonymous */
		return;
	}
	/* "struct D`s", "struct vmlinux`task_struct" (D's own types come
	 * first), "struct ext4`ext4_sb_info": that module's kernel type */
	if (TOK(cx) == DT_IDENT && ps_peek(cx) == '`') {
		scope = cx->cx_tok.tk_text;
		dc_next(cx);
	}
	if (TOK(cx) == DT_BQUOTE)
		dc_next(cx);
	if (TOK(cx) != DT_IDENT)
		ps_syntax(cx);
	name = cx->cx_tok.tk_text;
	dc_next(cx);
	cx->cx_btfscope = scope;
	dc_decl_sou(cx, kw, name, ty, line, col);
	cx->cx_btfscope = NULL;
}

static void
ps_type_base(struct dc_ctx *cx, struct dc_type *ty)
{
	int line = cx->cx_tok.tk_line, col = cx->cx_tok.tk_col;
	const struct ps_tname *tn;
	struct dc_inline *in;
	const char *s;

	while (TOK(cx) == DT_IDENT &&
	    (strcmp(cx->cx_tok.tk_text, "const") == 0 ||
	    strcmp(cx->cx_tok.tk_text, "volatile") == 0))
		dc_next(cx);
	if (TOK(cx) != DT_IDENT)
		ps_syntax(cx);
	s = cx->cx_tok.tk_text;
	tn = ps_tname(s);
	in = dc_inline_lookup(cx, s);
	if (strcmp(s, "struct") == 0 || strcmp(s, "union") == 0 ||
	    strcmp(s, "enum") == 0) {
		ps_type_sou(cx, ty, line, col);
	} else if (strcmp(s, "void") == 0) {
		memset(ty, 0, sizeof (*ty));
		ty->ty_name = "void";
		dc_next(cx);
	} else if (strcmp(s, "string") == 0) {
		dc_type_string(ty);
		dc_next(cx);
	} else if (strcmp(s, "float") == 0 || strcmp(s, "double") == 0) {
		ps_type_float(ty, s[0] == 'f' ? 4 : 8);
		dc_next(cx);
		ps_float_combo(cx);
	} else if (tn != NULL) {
		dc_type_int(ty, tn->tn_size, tn->tn_signed);
		ty->ty_name = tn->tn_name;
		dc_next(cx);
	} else if (in != NULL && in->in_expr == NULL) {
		*ty = in->in_type;
		if (ty->ty_kind == DC_STRUCT || ty->ty_kind == DC_INT)
			ty->ty_name = in->in_name;	/* print() shows it */
		dc_next(cx);
	} else {
		ps_int_keywords(cx, ty);
	}
}

static void
ps_type(struct dc_ctx *cx, struct dc_type *ty)
{
	struct dc_type el;
	size_t len;
	char *nm;

	ps_type_base(cx, ty);
	while (TOK(cx) == DT_STAR) {
		el = *ty;
		dc_type_ptr_to(ty, &el);
		if ((el.ty_kind == DC_STRUCT || el.ty_kind == DC_PTR ||
		    el.ty_kind == DC_INT) && el.ty_name != NULL) {
			len = strlen(el.ty_name) + 3;
			nm = dc_alloc(cx, len);
			snprintf(nm, len, "%s *", el.ty_name);
			ty->ty_name = nm;
		}
		dc_next(cx);
	}
}

void
dc_parse_type(struct dc_ctx *cx, struct dc_type *ty)
{
	ps_type(cx, ty);
}

struct dc_node *
dc_parse_expr(struct dc_ctx *cx)
{
	return ps_expr(cx);
}

void
dc_parse_expect(struct dc_ctx *cx, enum dc_tok k)
{
	ps_expect(cx, k);
}

void
dc_parse_syntax(struct dc_ctx *cx)
{
	ps_syntax(cx);
}

/* ---- expressions ---- */

static struct dc_node *
ps_call_args(struct dc_ctx *cx, struct dc_node *n, enum dc_tok close)
{
	struct dc_node *args[64];
	int na = 0;

	dc_next(cx);
	cx->cx_paren++;
	if (TOK(cx) != close) {
		for (;;) {
			if (na == 64)
				dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_PROTO_LEN", "%s( ) has more than the limit of 64 arguments", n->n_str != NULL ? n->n_str : "[");
			args[na++] = ps_expr(cx);
			if (TOK(cx) != DT_COMMA)
				break;
			dc_next(cx);
		}
	}
	cx->cx_paren--;
	ps_expect(cx, close);
	n->n_args = dc_alloc(cx, sizeof (args[0]) * (size_t)(na + 1));
	memcpy(n->n_args, args, sizeof (args[0]) * (size_t)na);
	n->n_nargs = na;
	return n;
}

/* Is macro text v an identifier (or a number, which strtoull judges)? */
static int
ps_macro_isident(const char *v)
{
	const char *p;

	if (*v >= '0' && *v <= '9')
		return 1;
	if (*v == '-' || *v == '+')
		return v[1] >= '0' && v[1] <= '9';
	if (*v == '\0')
		return 0;
	for (p = v; *p != '\0'; p++)
		if (!(*p == '_' || *p == '`' || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || (p > v && *p >= '0' &&
		    *p <= '9')))
			return 0;
	return 1;
}

/*
 * $1, $$1, $pid ...: an integer, a string or (text) an identifier.  As
 * dtrace, a $n whose text is neither an identifier nor a number is a
 * string ($0 "script.d", $1 "a b"), without its quotes if it has them.
 */
static struct dc_node *
ps_macro(struct dc_ctx *cx)
{
	const struct dc_token *t = &cx->cx_tok;
	struct dc_node *n = ps_node(cx, DN_INT);
	const char *v;
	char *end;
	size_t len;
	int isstr;

	v = dc_macro(cx, t->tk_text, &isstr, t->tk_line, t->tk_col);
	dc_next(cx);
	if (!isstr && !ps_macro_isident(v)) {
		len = strlen(v);
		if (len >= 2 && v[0] == '"' && v[len - 1] == '"')
			v = dc_strndup(cx, v + 1, len - 2);
		isstr = 1;
	}
	if (isstr) {
		n->n_kind = DN_STR;
		n->n_str = v;
		n->n_len = strlen(v);
		return n;
	}
	n->n_ival = strtoull(v, &end, 0);
	if (*v != '\0' && *end == '\0') {
		dc_type_int(&n->n_type, n->n_ival > 0x7fffffffull ? 8 : 4, 1);
		return n;
	}
	n->n_kind = DN_VAR;
	n->n_str = v;
	return n;
}

/* self->x, this->x */
static struct dc_node *
ps_scoped(struct dc_ctx *cx, enum dc_scope scope)
{
	struct dc_node *n = ps_node(cx, DN_VAR);

	dc_next(cx);
	if (TOK(cx) != DT_ARROW)
		ps_syntax(cx);
	dc_next(cx);
	if (TOK(cx) != DT_IDENT)
		ps_syntax(cx);
	n->n_str = cx->cx_tok.tk_text;
	n->n_scope = scope;
	dc_next(cx);
	return n;
}

static struct dc_node *
ps_ident(struct dc_ctx *cx)
{
	const struct dc_token *t = &cx->cx_tok;
	struct dc_node *n;

	if (strcmp(t->tk_text, "self") == 0)
		return ps_scoped(cx, DS_THREAD);
	if (strcmp(t->tk_text, "this") == 0)
		return ps_scoped(cx, DS_LOCAL);
	n = ps_node(cx, DN_VAR);
	n->n_str = t->tk_text;
	dc_next(cx);
	if (TOK(cx) == DT_LPAR) {
		n->n_kind = DN_CALL;
		return ps_call_args(cx, n, DT_RPAR);
	}
	return n;
}

/* `symbol: kernel symbol addresses are not resolvable at compile time. */
static void __attribute__((noreturn))
ps_bquote(struct dc_ctx *cx)
{
	const struct dc_token *t = &cx->cx_tok;
	int line = t->tk_line, col = t->tk_col;

	dc_next(cx);
	if (TOK(cx) != DT_IDENT)	/* "`" alone names nothing */
		dc_error(cx, line, col, "D_IDENT_UNDEF", "failed to resolve `: a kernel symbol name must follow the scoping operator");
	dc_error(cx, line, col, "D_SYM_NOSUPP", "kernel symbol `%s cannot be resolved at compile time: kdt has no symbol table for the target kernel", cx->cx_tok.tk_text);
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
		if (t->tk_kind == DT_CHAR)	/* an int, as in C and dtrace */
			dc_type_int(&n->n_type, t->tk_ival > 0x7fffffffull ?
			    8 : 4, 1);
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
		return ps_ident(cx);
	case DT_AGG:
		n = ps_node(cx, DN_AGG);
		n->n_str = t->tk_text;
		dc_next(cx);
		return n;
	case DT_MACRO:
		return ps_macro(cx);
	case DT_BQUOTE:
		ps_bquote(cx);
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
ps_member(struct dc_ctx *cx, struct dc_node *n, int dot)
{
	struct dc_node *m = ps_node(cx, DN_MEMBER);

	dc_next(cx);
	if (TOK(cx) != DT_IDENT)
		ps_syntax(cx);
	m->n_str = cx->cx_tok.tk_text;
	m->n_a = n;
	m->n_dot = dot;
	dc_next(cx);
	return ps_depth(cx, m);
}

static struct dc_node *
ps_postfix_tail(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *m;

	for (;;) {
		switch (TOK(cx)) {
		case DT_ARROW:
		case DT_DOT:
			n = ps_member(cx, n, TOK(cx) == DT_DOT);
			break;
		case DT_LBRACK:
			m = ps_node(cx, DN_INDEX);
			m->n_a = n;
			ps_call_args(cx, m, DT_RBRACK);
			n = ps_depth(cx, m);
			break;
		case DT_LPAR:	/* "1()", "(f)()": only names are called */
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_FUNC_IDENT", "function designator is not of function type: only a function name can be called");
		case DT_INC:
		case DT_DEC:
			m = ps_node(cx, DN_INCDEC);
			m->n_op = TOK(cx);
			m->n_ival = 1;
			m->n_a = n;
			dc_next(cx);
			n = ps_depth(cx, m);
			break;
		default:
			return n;
		}
	}
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

/* sizeof (type) folds here; sizeof expr is folded by dc_type.c. */
static struct dc_node *
ps_sizeof(struct dc_ctx *cx)
{
	struct dc_node *n = ps_node(cx, DN_CALL);
	struct dc_type ty;

	n->n_str = "sizeof";
	dc_next(cx);
	if (TOK(cx) == DT_LPAR) {
		dc_next(cx);
		if (dc_parse_is_type(cx, &cx->cx_tok)) {
			ps_type(cx, &ty);
			ps_expect(cx, DT_RPAR);
			n->n_kind = DN_INT;
			n->n_ival = ty.ty_kind == DC_STRING ? dc_strsize(cx) :
			    ty.ty_size;
			if (n->n_ival == 0)	/* void, an undefined struct */
				dc_error(cx, n->n_line, n->n_col, "D_SIZEOF_TYPE", "sizeof cannot be applied to %s: its size is unknown", ty.ty_name != NULL ? ty.ty_name : "this type");
			dc_type_int(&n->n_type, 8, 0);
			return n;
		}
		cx->cx_paren++;
		n->n_a = ps_expr(cx);
		cx->cx_paren--;
		ps_expect(cx, DT_RPAR);
		n->n_a = ps_postfix_tail(cx, n->n_a);
	} else {
		n->n_a = ps_unary(cx);
	}
	return ps_depth(cx, n);
}

/* offsetof(type, member): a constant of type size_t. */
static struct dc_node *
ps_offsetof(struct dc_ctx *cx)
{
	struct dc_node *n = ps_node(cx, DN_INT);
	struct dc_type ty;

	dc_next(cx);
	ps_expect(cx, DT_LPAR);
	if (!dc_parse_is_type(cx, &cx->cx_tok))
		ps_syntax(cx);
	cx->cx_undef_tag = "D_OFFSETOF_TYPE";	/* an incomplete type */
	ps_type(cx, &ty);
	cx->cx_undef_tag = NULL;
	ps_expect(cx, DT_COMMA);
	if (TOK(cx) != DT_IDENT)
		ps_syntax(cx);
	n->n_ival = dc_decl_offsetof(cx, &ty, cx->cx_tok.tk_text,
	    cx->cx_tok.tk_line, cx->cx_tok.tk_col);
	dc_next(cx);
	ps_expect(cx, DT_RPAR);
	dc_type_int(&n->n_type, 8, 0);
	return n;
}

/* xlate <type> (expr): member access on it is resolved by dc_decl.c. */
static struct dc_node *
ps_xlate(struct dc_ctx *cx)
{
	struct dc_node *n = ps_node(cx, DN_XLATE);

	dc_next(cx);
	ps_expect(cx, DT_LT);
	if (!dc_parse_is_type(cx, &cx->cx_tok))
		ps_syntax(cx);
	ps_type(cx, &n->n_type);
	ps_expect(cx, DT_GT);
	ps_expect(cx, DT_LPAR);
	cx->cx_paren++;
	n->n_a = ps_expr(cx);
	cx->cx_paren--;
	ps_expect(cx, DT_RPAR);
	return ps_depth(cx, n);
}

static struct dc_node *
ps_prefix(struct dc_ctx *cx, enum dc_nkind k)
{
	struct dc_node *n = ps_node(cx, k);

	n->n_op = TOK(cx);
	dc_next(cx);
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
		return ps_prefix(cx, DN_UNARY);
	case DT_STAR:
		return ps_prefix(cx, DN_DEREF);
	case DT_BAND:
		return ps_prefix(cx, DN_ADDR);
	case DT_INC: case DT_DEC:
		return ps_prefix(cx, DN_INCDEC);
	case DT_LPAR:
		dc_next(cx);
		if (dc_parse_is_type(cx, &cx->cx_tok))
			return ps_cast(cx, line, col);
		cx->cx_paren++;
		n = ps_expr(cx);
		cx->cx_paren--;
		ps_expect(cx, DT_RPAR);
		return ps_postfix_tail(cx, n);
	case DT_IDENT:
		if (strcmp(t->tk_text, "sizeof") == 0)
			return ps_sizeof(cx);
		if (strcmp(t->tk_text, "offsetof") == 0)
			return ps_offsetof(cx);
		if (strcmp(t->tk_text, "xlate") == 0)
			return ps_postfix_tail(cx, ps_xlate(cx));
		if (strcmp(t->tk_text, "stringof") != 0)
			return ps_postfix_tail(cx, ps_primary(cx));
		n = ps_node(cx, DN_STRINGOF);
		dc_next(cx);
		n->n_a = ps_unary(cx);
		return ps_depth(cx, n);
	default:
		return ps_postfix_tail(cx, ps_primary(cx));
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
ps_cond(struct dc_ctx *cx)
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
	n->n_c = ps_cond(cx);
	ps_nest(cx, -1);
	return ps_depth(cx, n);
}

/* The binary operator of a compound assignment, or DT_ASSIGN. */
static int
ps_assign_op(enum dc_tok k, enum dc_tok *op)
{
	switch (k) {
	case DT_ASSIGN: *op = DT_ASSIGN; return 1;
	case DT_ADDEQ: *op = DT_PLUS; return 1;
	case DT_SUBEQ: *op = DT_MINUS; return 1;
	case DT_MULEQ: *op = DT_STAR; return 1;
	case DT_DIVEQ: *op = DT_SLASH; return 1;
	case DT_MODEQ: *op = DT_PERCENT; return 1;
	case DT_ANDEQ: *op = DT_BAND; return 1;
	case DT_OREQ: *op = DT_BOR; return 1;
	case DT_XOREQ: *op = DT_XOR; return 1;
	case DT_SHLEQ: *op = DT_SHL; return 1;
	case DT_SHREQ: *op = DT_SHR; return 1;
	default: return 0;
	}
}

/* Assignments are right-associative and bind loosest. */
static struct dc_node *
ps_expr(struct dc_ctx *cx)
{
	struct dc_node *lhs, *n;
	enum dc_tok op;

	ps_nest(cx, 1);
	lhs = ps_cond(cx);
	if (ps_assign_op(TOK(cx), &op)) {
		n = ps_node(cx, DN_ASSIGN);
		n->n_op = op;
		dc_next(cx);
		n->n_a = lhs;
		n->n_b = ps_expr(cx);
		lhs = ps_depth(cx, n);
	}
	ps_nest(cx, -1);
	return lhs;
}

/* ---- statements ---- */

void
dc_add_action(struct dc_ctx *cx, struct dc_clause *cl, uint32_t kind,
    const char *fmt, struct dc_difo *df)
{
	struct dc_action *na;

	if (cl->cl_nacts >= DOF_MAX_ACTIONS)
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_ACT_MAX", "clause has more than the limit of %d actions", DOF_MAX_ACTIONS);
	na = dc_alloc(cx, sizeof (*na) * (size_t)(cl->cl_nacts + 1));
	if (cl->cl_nacts > 0)
		memcpy(na, cl->cl_acts, sizeof (*na) * (size_t)cl->cl_nacts);
	memset(&na[cl->cl_nacts], 0, sizeof (na[0]));
	na[cl->cl_nacts].ac_kind = kind;
	na[cl->cl_nacts].ac_fmt = fmt;
	na[cl->cl_nacts].ac_difo = df;
	na[cl->cl_nacts].ac_stmt = cx->cx_stmt;
	cl->cl_acts = na;
	cl->cl_nacts++;
}

/* A word that starts a declaration (never a statement). */
static int
ps_decl_word(const struct dc_ctx *cx)
{
	static const char *const words[] = { "typedef", "inline",
	    "translator", "extern", "static", "register", "auto", "provider" };
	size_t i;

	for (i = 0; TOK(cx) == DT_IDENT && i < sizeof (words) / sizeof (words[0]);
	    i++)
		if (strcmp(cx->cx_tok.tk_text, words[i]) == 0)
			return 1;
	return 0;
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
		if (TOK(cx) == DT_PRAGMA) {	/* a #pragma line in a clause */
			ps_pragma(cx);
			continue;
		}
		cx->cx_stmt++;
		/* declarations belong outside clauses: "int x = 1;" here */
		if (dc_parse_is_type(cx, &cx->cx_tok) || ps_decl_word(cx))
			ps_syntax(cx);
		dc_act_statement(cx, cl, ps_expr(cx));
		if (TOK(cx) == DT_SEMI)
			dc_next(cx);
		else if (TOK(cx) != DT_RBRACE)
			ps_syntax(cx);
	}
	dc_next(cx);
}

/* ---- top-level declarations ---- */

/*
 * Storage classes before a declaration: self or this (at most one of
 * them, D_DECL_CLASS), extern, static, register.  *any says whether one
 * was given (then the type may be omitted: "self x;" is an int); bit 2
 * of *any says it was extern, bit 4 static, register or auto (which D
 * refuses for variables: D_DECL_BADCLASS; a function is taken as extern).
 */
static enum dc_scope
ps_decl_scope(struct dc_ctx *cx, int *any)
{
	enum dc_scope sc = DS_GLOBAL;

	*any = 0;
	for (;;) {
		const char *s = cx->cx_tok.tk_text;

		if (TOK(cx) != DT_IDENT)
			return sc;
		if ((strcmp(s, "self") == 0 || strcmp(s, "this") == 0) &&
		    sc != DS_GLOBAL)
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_CLASS", "only one of self and this may be given in a declaration (%s after %s)", s, sc == DS_THREAD ? "self" : "this");
		if (strcmp(s, "self") == 0)
			sc = DS_THREAD;
		else if (strcmp(s, "this") == 0)
			sc = DS_LOCAL;
		else if (strcmp(s, "extern") != 0 && strcmp(s, "static") != 0 &&
		    strcmp(s, "register") != 0 && strcmp(s, "auto") != 0)
			return sc;
		*any |= strcmp(s, "extern") == 0 ? 3 :
		    strcmp(s, "self") == 0 || strcmp(s, "this") == 0 ? 1 : 5;
		dc_next(cx);
	}
}

/* "[type, ...]" of an associative array declaration. */
static void
ps_decl_keys(struct dc_ctx *cx, struct dc_var *v)
{
	dc_next(cx);
	v->va_array = 1;
	while (TOK(cx) != DT_RBRACK) {
		if (TOK(cx) == DT_DOT)	/* "int a[...]" */
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_PROTO_VARARGS", "array prototype of %s may not use a variable-length argument list", v->va_name);
		if (v->va_nkeys == DC_MAXKEYS)
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_ARR_LONG", "associative array %s has more than the limit of %d keys", v->va_name, DC_MAXKEYS);
		if (dc_parse_is_type(cx, &cx->cx_tok))
			ps_type(cx, &v->va_keys[v->va_nkeys++]);
		else
			ps_syntax(cx);
		if (v->va_keys[v->va_nkeys - 1].ty_kind == DC_VOID)
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_PROTO_TYPE", "array prototype of %s may not use a key of type void: key #%d", v->va_name, v->va_nkeys);
		if (TOK(cx) == DT_COMMA)
			dc_next(cx);
		else if (TOK(cx) != DT_RBRACK)
			ps_syntax(cx);
	}
	dc_next(cx);
}

/* "int a[5]": a D array variable (by reference); 0 if not "[ N ]". */
static int
ps_decl_dim(struct dc_ctx *cx, struct dc_var *v)
{
	const char *p = cx->cx_src + cx->cx_pos;
	const char *end = cx->cx_src + cx->cx_len;
	struct dc_type el = v->va_type;

	/*
	 * The source is cx_len bytes, not a C string: peek no further
	 * (found by tests/fuzz/fuzz_dparse, bad-decl-dim-eof: "int a[" at
	 * the end of the text read past it).
	 */
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end)
		return 0;
	if (*p == ']')
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_ARRNULL", "array %s needs a dimension (or key types for an associative array)", v->va_name);
	if (*p == '-')
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_ARRSUB", "array %s has a negative dimension", v->va_name);
	if (*p < '0' || *p > '9')
		return 0;
	dc_next(cx);
	if (TOK(cx) == DT_INT && cx->cx_tok.tk_ival > INT32_MAX)
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_ARRBIG", "array %s dimension %llu is larger than the limit %d", v->va_name, (unsigned long long)cx->cx_tok.tk_ival, INT32_MAX);
	if (TOK(cx) != DT_INT || cx->cx_tok.tk_ival == 0 ||
	    cx->cx_tok.tk_ival * el.ty_size > (16u << 10) ||
	    (el.ty_kind != DC_INT && (el.ty_kind != DC_STRUCT ||
	    el.ty_sou == NULL || el.ty_size == 0)))
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_ARRDIM", "array %s needs a positive constant dimension, integer or D struct/union elements and at most 16 KiB", v->va_name);
	memset(&v->va_type, 0, sizeof (v->va_type));
	v->va_type.ty_kind = DC_ARRAY;
	v->va_type.ty_elsize = el.ty_size;
	v->va_type.ty_elsigned = el.ty_signed;
	v->va_type.ty_elname = el.ty_name;
	if (el.ty_kind == DC_STRUCT)	/* elements as in dc_sou_arraydim() */
		v->va_type.ty_elsou = el.ty_sou;
	v->va_type.ty_nelems = (uint32_t)cx->cx_tok.tk_ival;
	v->va_type.ty_size = el.ty_size * v->va_type.ty_nelems;
	v->va_type.ty_name = "array";
	dc_next(cx);
	ps_expect(cx, DT_RBRACK);
	return 1;
}

static void
ps_decl_var(struct dc_ctx *cx, enum dc_scope sc, const struct dc_type *ty)
{
	const struct dc_token *t = &cx->cx_tok;
	struct dc_var *v;

	if (TOK(cx) != DT_IDENT)
		ps_syntax(cx);
	if (dc_var_lookup(cx, t->tk_text, sc) != NULL)
		dc_error(cx, t->tk_line, t->tk_col, "D_DECL_IDRED", "identifier redeclared: %s", t->tk_text);
	v = dc_var_get(cx, t->tk_text, sc, t->tk_line, t->tk_col);
	v->va_type = *ty;
	v->va_typed = 1;
	dc_next(cx);
	if (TOK(cx) == DT_LBRACK && ps_decl_dim(cx, v))
		return;
	if (TOK(cx) == DT_LBRACK) {
		if (sc == DS_LOCAL)
			dc_error(cx, t->tk_line, t->tk_col, "D_DECL_LOCASSC", "associative arrays may not be declared as clause-local: this->%s", v->va_name);
		ps_decl_keys(cx, v);
	}
}

/* ---- C declarators of extern declarations and function prototypes ---- */

/* The next character of the source after blanks (0 at the end). */
static int
ps_peek(const struct dc_ctx *cx)
{
	size_t i = cx->cx_pos;

	while (i < cx->cx_len && (cx->cx_src[i] == ' ' ||
	    cx->cx_src[i] == '\t' || cx->cx_src[i] == '\n'))
		i++;
	return i < cx->cx_len ? (unsigned char)cx->cx_src[i] : 0;
}

/* "...": three "." tokens; 1 when consumed. */
static int
ps_ellipsis(struct dc_ctx *cx)
{
	int i;

	if (TOK(cx) != DT_DOT)
		return 0;
	for (i = 0; i < 3; i++)
		ps_expect(cx, DT_DOT);
	return 1;
}

static void ps_cdecl(struct dc_ctx *cx, int abstract, const char **name,
    int *dyn);

/*
 * "( parameters )" of a function declarator, checked as dtrace checks
 * prototypes: no storage class but register (D_DECL_PARMCLASS), no
 * associative array parameter (D_DECL_PROTO_TYPE), an unnamed void that
 * must be the sole parameter (D_DECL_PROTO_NAME, D_DECL_PROTO_VOID).
 */
static void
ps_cparams(struct dc_ctx *cx)
{
	const struct dc_token *t = &cx->cx_tok;
	int n = 0, nvoid = 0, isvoid, dyn, line = t->tk_line, col = t->tk_col;
	const char *name;
	struct dc_type ty;

	dc_next(cx);
	while (TOK(cx) != DT_RPAR) {
		if (n > 0)
			ps_expect(cx, DT_COMMA);
		n++;
		if (ps_ellipsis(cx))
			continue;
		while (TOK(cx) == DT_IDENT && strcmp(t->tk_text, "register") == 0)
			dc_next(cx);
		if (TOK(cx) == DT_IDENT && (strcmp(t->tk_text, "static") == 0 ||
		    strcmp(t->tk_text, "extern") == 0 ||
		    strcmp(t->tk_text, "self") == 0 ||
		    strcmp(t->tk_text, "this") == 0 ||
		    strcmp(t->tk_text, "auto") == 0))
			dc_error(cx, t->tk_line, t->tk_col, "D_DECL_PARMCLASS", "inappropriate storage class for a function parameter: %s", t->tk_text);
		if (!dc_parse_is_type(cx, t))
			ps_syntax(cx);
		ps_type(cx, &ty);
		isvoid = ty.ty_kind == DC_VOID;
		name = NULL;
		dyn = 0;
		ps_cdecl(cx, 1, &name, &dyn);
		if (dyn)
			dc_error(cx, line, col, "D_DECL_PROTO_TYPE", "function prototype may not use an associative array parameter: %s, parameter #%d", name != NULL ? name : "(anonymous)", n);
		if (isvoid && name != NULL)
			dc_error(cx, line, col, "D_DECL_PROTO_NAME", "void parameter may not have a name: %s", name);
		nvoid += isvoid;
	}
	dc_next(cx);
	if (nvoid > 0 && n > 1)
		dc_error(cx, line, col, "D_DECL_PROTO_VOID", "void must be the sole parameter");
}

/*
 * One C declarator, parsed and checked but not recorded: kdt takes the
 * types of kernel symbols from BTF, so "extern int *f(void);" and D's
 * function prototypes only have to be valid.  '*'s, a name (optional when
 * abstract) or "( declarator )", then "[ dim ]", "[ types ]" (an
 * associative array: *dyn) and "( parameters )" suffixes.
 */
static void
ps_cdecl(struct dc_ctx *cx, int abstract, const char **name, int *dyn)
{
	const struct dc_token *t = &cx->cx_tok;

	ps_nest(cx, 1);
	while (TOK(cx) == DT_STAR || (TOK(cx) == DT_IDENT &&
	    (strcmp(t->tk_text, "const") == 0 ||
	    strcmp(t->tk_text, "volatile") == 0)))
		dc_next(cx);
	if (TOK(cx) == DT_LPAR && (ps_peek(cx) == '*' || ps_peek(cx) == '(')) {
		dc_next(cx);
		ps_cdecl(cx, abstract, name, dyn);
		ps_expect(cx, DT_RPAR);
	} else if (TOK(cx) == DT_IDENT && !dc_parse_is_type(cx, t)) {
		*name = t->tk_text;
		dc_next(cx);
	} else if (!abstract) {
		ps_syntax(cx);
	}
	for (;;) {
		if (TOK(cx) == DT_LBRACK) {
			dc_next(cx);
			if (TOK(cx) == DT_DOT)
				dc_error(cx, t->tk_line, t->tk_col, "D_DECL_PROTO_VARARGS", "array prototype may not use a variable-length argument list");
			if (dc_parse_is_type(cx, t)) {
				struct dc_type kt;

				*dyn = 1;
				for (;;) {
					ps_type(cx, &kt);
					if (TOK(cx) != DT_COMMA)
						break;
					dc_next(cx);
				}
			} else if (TOK(cx) != DT_RBRACK) {
				dc_type_expr(cx, ps_expr(cx));
			}
			ps_expect(cx, DT_RBRACK);
		} else if (TOK(cx) == DT_LPAR) {
			ps_cparams(cx);
		} else {
			break;
		}
	}
	ps_nest(cx, -1);
}

/* "[type name, ...]" of an inline with parameters (at most DC_MAXKEYS). */
static void
ps_inline_params(struct dc_ctx *cx, struct dc_inline *in)
{
	const struct dc_token *t = &cx->cx_tok;

	in->in_pnames = dc_alloc(cx, sizeof (in->in_pnames[0]) * DC_MAXKEYS);
	in->in_ptypes = dc_alloc(cx, sizeof (in->in_ptypes[0]) * DC_MAXKEYS);
	dc_next(cx);
	while (TOK(cx) != DT_RBRACK) {
		if (in->in_nparams >= DC_MAXKEYS)
			dc_error(cx, t->tk_line, t->tk_col, "D_ARR_LONG", "inline %s has more than the limit of %d parameters", in->in_name, DC_MAXKEYS);
		if (!dc_parse_is_type(cx, t))
			ps_syntax(cx);
		ps_type(cx, &in->in_ptypes[in->in_nparams]);
		if (TOK(cx) != DT_IDENT)
			ps_syntax(cx);
		in->in_pnames[in->in_nparams++] = t->tk_text;
		dc_next(cx);
		if (TOK(cx) == DT_COMMA)
			dc_next(cx);
		else if (TOK(cx) != DT_RBRACK)
			ps_syntax(cx);
	}
	if (in->in_nparams == 0)
		ps_syntax(cx);
	dc_next(cx);
}

/* "inline type name = expr;" and "typedef type name;" */
static void
ps_decl_inline(struct dc_ctx *cx, int istypedef)
{
	struct dc_inline *in = dc_alloc(cx, sizeof (*in));
	const struct dc_token *t = &cx->cx_tok;

	memset(in, 0, sizeof (*in));
	dc_next(cx);
	cx->cx_intypedef = istypedef;	/* "typedef struct fwd fwd_t;" */
	ps_type(cx, &in->in_type);
	cx->cx_intypedef = 0;
	if (TOK(cx) != DT_IDENT)
		ps_syntax(cx);
	if (dc_inline_lookup(cx, t->tk_text) != NULL)
		dc_error(cx, t->tk_line, t->tk_col, "D_DECL_IDRED", "identifier redeclared: %s", t->tk_text);
	in->in_name = t->tk_text;
	dc_next(cx);
	if (!istypedef && TOK(cx) == DT_LBRACK)
		ps_inline_params(cx, in);
	if (!istypedef && in->in_nparams > 0) {
		ps_expect(cx, DT_ASSIGN);
		in->in_expr = ps_expr(cx);	/* typed per use */
	} else if (!istypedef) {
		ps_expect(cx, DT_ASSIGN);
		in->in_expr = ps_expr(cx);
		if (in->in_expr->n_kind != DN_XLATE)	/* xlate: per use */
			dc_type_expr(cx, in->in_expr);
		if (!dc_type_compat(&in->in_type, &in->in_expr->n_type))
			dc_error(cx, in->in_expr->n_line, in->in_expr->n_col, "D_OP_INCOMPAT", "inline %s: expression of type %s is incompatible with declared type %s", in->in_name, in->in_expr->n_type.ty_name, in->in_type.ty_name);
	}
	in->in_next = cx->cx_inlines;
	cx->cx_inlines = in;
}

static void
ps_declaration(struct dc_ctx *cx)
{
	enum dc_scope sc;
	struct dc_type ty;
	int any, sou;

	if (strcmp(cx->cx_tok.tk_text, "inline") == 0 ||
	    strcmp(cx->cx_tok.tk_text, "typedef") == 0) {
		ps_decl_inline(cx, strcmp(cx->cx_tok.tk_text, "typedef") == 0);
		ps_expect(cx, DT_SEMI);
		return;
	}
	if (strcmp(cx->cx_tok.tk_text, "translator") == 0) {
		dc_decl_translator(cx);
		ps_expect(cx, DT_SEMI);
		return;
	}
	if (strcmp(cx->cx_tok.tk_text, "provider") == 0)
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_UNSUP", "provider declarations (USDT) are not supported");
	sc = ps_decl_scope(cx, &any);
	sou = TOK(cx) == DT_IDENT && (strcmp(cx->cx_tok.tk_text, "struct") == 0 ||
	    strcmp(cx->cx_tok.tk_text, "union") == 0 ||
	    strcmp(cx->cx_tok.tk_text, "enum") == 0);
	if (any && TOK(cx) == DT_IDENT && !dc_parse_is_type(cx, &cx->cx_tok))
		dc_type_int(&ty, 4, 1);		/* "self x;": int, as in C */
	else if (!dc_parse_is_type(cx, &cx->cx_tok))
		ps_syntax(cx);
	else
		ps_type(cx, &ty);
	/* "struct a { ... } struct b ...": the ";" is missing */
	if (dc_parse_is_type(cx, &cx->cx_tok))
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_COMBO", "invalid type combination: %s follows a complete type (missing \";\"?)", cx->cx_tok.tk_text);
	if (TOK(cx) == DT_SEMI) {
		if (!sou)
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_USELESS", "useless declaration: %s declares nothing", ty.ty_name != NULL ? ty.ty_name : "the type");
		dc_next(cx);
		return;
	}
	if (TOK(cx) == DT_BQUOTE)
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_SCOPE", "D scoping operator ` may not be used in a declaration");
	if ((any & 4) && !(any & 2) && !(TOK(cx) == DT_IDENT &&
	    ps_peek(cx) == '('))
		dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_DECL_BADCLASS", "storage classes static, register and auto are not appropriate in D");
	/*
	 * extern declarations (of kernel symbols) and function prototypes
	 * are checked and accepted; they declare no D variable.
	 */
	if ((any & 2) || TOK(cx) != DT_IDENT || ps_peek(cx) == '(') {
		for (;;) {
			const char *name = NULL;
			int dyn = 0;

			ps_cdecl(cx, 0, &name, &dyn);
			if (TOK(cx) != DT_COMMA)
				break;
			dc_next(cx);
		}
		ps_expect(cx, DT_SEMI);
		return;
	}
	for (;;) {
		ps_decl_var(cx, sc, &ty);
		if (TOK(cx) != DT_COMMA)
			break;
		dc_next(cx);
	}
	ps_expect(cx, DT_SEMI);
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

/*
 * Macro variables inside a probe description ("pid$target::work:entry",
 * "syscall::$1:entry") are replaced by their text, as dtrace does; "$$1"
 * inserts the argument's text too.  Returns "s" itself when it has none.
 */
static const char *
ps_pdesc_macros(struct dc_ctx *cx, const struct dc_token *t, const char *s)
{
	char *buf, name[64];
	const char *v;
	size_t len = 0, cap, n;
	int isstr;

	if (strchr(s, '$') == NULL)
		return s;
	cap = strlen(s) + 1;
	buf = dc_alloc(cx, cap);
	while (*s != '\0') {
		v = NULL;
		if (*s == '$') {
			n = s[1] == '$' ? 2 : 1;
			n += strspn(s + n, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (n >= sizeof (name) || n == (s[1] == '$' ? 2u : 1u))
				dc_error(cx, t->tk_line, t->tk_col, "D_MACRO_UNDEF", "probe description %s: bad macro variable after '$'", t->tk_text);
			memcpy(name, s + 1, n - 1);
			name[n - 1] = '\0';
			v = dc_macro(cx, name, &isstr, t->tk_line, t->tk_col);
			s += n;
		}
		n = v != NULL ? strlen(v) : 1;
		if (len + n + 1 > cap) {
			char *nb = dc_alloc(cx, 2 * (len + n + 1));

			memcpy(nb, buf, len);
			buf = nb;
			cap = 2 * (len + n + 1);
		}
		memcpy(buf + len, v != NULL ? v : s, n);
		len += n;
		if (v == NULL)
			s++;
	}
	buf[len] = '\0';
	return buf;
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
	const char *f[4] = { "", "", "", "" }, *s, *c;
	int n = 1, i;

	s = ps_pdesc_macros(cx, t, t->tk_text);

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
	if (n == 1 && (strncmp(f[3], "profile-", 8) == 0 ||
	    strncmp(f[3], "tick-", 5) == 0))
		f[0] = "profile";
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

/* Parse "/ expr /"; it is typed after the clause's actions (ps_clause). */
static struct dc_node *
ps_predicate(struct dc_ctx *cx)
{
	struct dc_node *e;

	cx->cx_inpred = 1;
	cx->cx_paren = 0;
	dc_next(cx);
	e = ps_expr(cx);
	cx->cx_inpred = 0;
	ps_expect(cx, DT_SLASH);
	return e;
}

static void
ps_predicate_finish(struct dc_ctx *cx, struct dc_clause *cl,
    struct dc_node *e)
{
	dc_type_expr(cx, e);
	if (!dc_type_is_scalar(&e->n_type))
		dc_error(cx, e->n_line, e->n_col, "D_PRED_SCALAR", "predicate result must be of scalar type, not %s", e->n_type.ty_name);
	cl->cl_pred = dc_cg_object(cx, e, -1);
}

/*
 * The actions and the predicate of a clause, in dtrace's order: the
 * actions are typed first, so that the predicate may read a variable
 * they create ("/x == 0/ { x++; }"); when they read one that only the
 * predicate creates ("/i++ < 9/ { trace(i); }") they fail with
 * D_IDENT_UNDEF or D_VAR_UNDEF, and then, as dtrace retries, the
 * predicate is typed first and the actions are parsed again from a
 * snapshot of the compiler taken before them (only the arena and the BTF
 * handles, which hold what was allocated meanwhile, are kept).
 */
static void
ps_body_pred(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *pred)
{
	struct dc_ctx *snap = dc_alloc(cx, sizeof (*snap));
	struct dc_out *osnap = dc_alloc(cx, sizeof (*osnap));
	struct dc_chunk *arena;
	struct btf *btf, *btfbase;
	struct dc_btf_mods *btfmods;
	const char *tag;
	jmp_buf outer;

	*snap = *cx;
	*osnap = *cx->cx_out;
	memcpy(outer, cx->cx_jmp, sizeof (outer));
	if (setjmp(cx->cx_jmp) == 0) {
		ps_body(cx, cl);
		memcpy(cx->cx_jmp, outer, sizeof (outer));
		ps_predicate_finish(cx, cl, pred);
		return;
	}
	memcpy(cx->cx_jmp, outer, sizeof (outer));
	tag = cx->cx_out->dco_tag;
	if (tag == NULL || (strcmp(tag, "D_IDENT_UNDEF") != 0 &&
	    strcmp(tag, "D_VAR_UNDEF") != 0))
		longjmp(cx->cx_jmp, 1);
	arena = cx->cx_arena;
	btf = cx->cx_btf;
	btfbase = cx->cx_btf_base;
	btfmods = cx->cx_btfmods;
	*cx = *snap;
	*cx->cx_out = *osnap;
	cx->cx_arena = arena;
	cx->cx_btf = btf;
	cx->cx_btf_base = btfbase;
	cx->cx_btfmods = btfmods;
	cl->cl_acts = NULL;
	cl->cl_nacts = 0;
	cl->cl_state = 0;
	ps_predicate_finish(cx, cl, pred);
	ps_body(cx, cl);
}

static void
ps_clause(struct dc_ctx *cx)
{
	struct dc_clause *cl = dc_alloc(cx, sizeof (*cl));
	struct dc_node *pred = NULL;

	memset(cl, 0, sizeof (*cl));
	ps_pdescs(cx, cl);
	cx->cx_clause = cl;
	cx->cx_inluses = 0;	/* dc_type_inline_call()'s bound, per clause */
	if (TOK(cx) == DT_SLASH)
		pred = ps_predicate(cx);
	if (pred == NULL)
		ps_body(cx, cl);
	else
		ps_body_pred(cx, cl, pred);
	cx->cx_clause = NULL;
	*cx->cx_tail = cl;
	cx->cx_tail = &cl->cl_next;
}

/*
 * "#pragma D attributes <attrs> name" of a name the program has not
 * defined (yet): dtrace keeps it and applies it when the name is defined;
 * one still unused when the program ends is D_PRAGMA_UNUSED
 * (ps_pragat_check()).  A provider's attributes are not checked.
 */
static void
ps_pragat_add(struct dc_ctx *cx, const char *word, int line)
{
	struct dc_pragat *pa = dc_alloc(cx, sizeof (*pa));

	/* the whole word, as dtrace's pragma lexer: "x;" is not x */
	pa->pa_name = dc_strndup(cx, word, strlen(word));
	pa->pa_line = line;
	pa->pa_next = cx->cx_pragats;
	cx->cx_pragats = pa;
}

static void
ps_pragat_check(struct dc_ctx *cx)
{
	const struct dc_pragat *pa;
	struct dc_type t;

	for (pa = cx->cx_pragats; pa != NULL; pa = pa->pa_next)
		if (dc_builtin_var(pa->pa_name, &t) < 0 &&
		    strcmp(pa->pa_name, "args") != 0 &&
		    strcmp(pa->pa_name, "uregs") != 0 &&
		    dc_inline_lookup(cx, pa->pa_name) == NULL &&
		    dc_var_lookup(cx, pa->pa_name, DS_GLOBAL) == NULL &&
		    !dc_subr_known(pa->pa_name) &&
		    !dc_act_is_action(pa->pa_name))
			dc_error(cx, pa->pa_line, 1, "D_PRAGMA_UNUSED", "unused #pragma attributes: %s is never defined", pa->pa_name);
}

/*
 * "#pragma D option name[=value]"; "#pragma D depends_on", "attributes"
 * and "binding" are accepted and have no effect (kdt has one library
 * level and no stability checks); "#line"-style cpp output and a "#!"
 * first line are ignored.
 */
static void
ps_pragma(struct dc_ctx *cx)
{
	const struct dc_token *t = &cx->cx_tok;
	char word[3][64], attr[2][64];
	int n;

	if ((t->tk_line == 1 && strncmp(t->tk_text, "#!", 2) == 0) ||
	    (t->tk_text[1] == ' ' && t->tk_text[2] >= '0' &&
	    t->tk_text[2] <= '9') || strncmp(t->tk_text, "#line", 5) == 0 ||
	    strncmp(t->tk_text, "#ident", 6) == 0) {
		dc_next(cx);
		return;
	}
	n = sscanf(t->tk_text, "#%63s %63s %63s", word[0], word[1], word[2]);
	/* #error, #pragma error, #pragma D error: dtrace's D_PRAGERR */
	if ((n >= 1 && strcmp(word[0], "error") == 0) ||
	    (n >= 2 && strcmp(word[0], "pragma") == 0 &&
	    strcmp(word[1], "error") == 0) ||
	    (n >= 3 && strcmp(word[0], "pragma") == 0 &&
	    strcmp(word[1], "D") == 0 && strcmp(word[2], "error") == 0))
		dc_error(cx, t->tk_line, t->tk_col, "D_PRAGERR", "%s", t->tk_text + 1);
	if (n < 1 || strcmp(word[0], "pragma") != 0)
		dc_error(cx, t->tk_line, t->tk_col, "D_PRAGMA_INVAL", "unsupported directive \"%s\": use -C to run the C preprocessor", t->tk_text);
	/* "#pragma D attributes <attrs> <name>": two words, else malformed */
	if (n >= 3 && strcmp(word[1], "D") == 0 &&
	    strcmp(word[2], "attributes") == 0 &&
	    sscanf(t->tk_text, "#%*s %*s %*s %63s %63s", attr[0], attr[1]) != 2)
		dc_error(cx, t->tk_line, t->tk_col, "D_PRAGMA_MALFORM", "malformed #pragma D attributes <attributes> <ident>: \"%s\"", t->tk_text);
	if (n >= 3 && strcmp(word[1], "D") == 0 &&
	    strcmp(word[2], "attributes") == 0 &&
	    strcmp(attr[1], "provider") != 0)
		ps_pragat_add(cx, attr[1], t->tk_line);
	if (n >= 3 && strcmp(word[1], "D") == 0 &&
	    (strcmp(word[2], "depends_on") == 0 ||
	    strcmp(word[2], "attributes") == 0 ||
	    strcmp(word[2], "binding") == 0)) {
		dc_next(cx);
		return;
	}
	if (n < 3 || strcmp(word[1], "D") != 0 ||
	    strcmp(word[2], "option") != 0)
		dc_error(cx, t->tk_line, t->tk_col, "D_PRAGMA_INVAL", "unsupported pragma \"%s\": only #pragma D option, depends_on, attributes and binding are supported", t->tk_text);
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
			ps_pragat_check(cx);
			return;
		case DT_PRAGMA:
			ps_pragma(cx);
			break;
		case DT_PDESC:
			ps_clause(cx);
			break;
		case DT_IDENT:
			ps_declaration(cx);
			break;
		default:
			ps_syntax(cx);
		}
	}
}
