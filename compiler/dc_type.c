/*
 * dc_type.c -- the D type system, as narrow as the skeleton needs.
 *
 * Types are D integers (char 1, short 2, int 4, long and long long 8, with
 * unsigned variants), pointers (8 bytes; pointers to kernel structs keep
 * their BTF id so "->" can find members, dc_btf.c), strings (by reference,
 * strsize bytes when recorded), and two kinds that exist only as member
 * types: arrays (char name[56] -- only stringof() can use them) and
 * structs.  dc_type_expr() computes every node's type bottom-up, applying
 * C's usual arithmetic conversions, so trace(pid) records 4 bytes and
 * trace(arg0) 8.  Called by dc_parse.c before code generation.
 */
#include <string.h>
#include "dc_impl.h"

struct dc_builtin {
	const char	*bi_name;
	uint16_t	bi_id;
	enum dc_tkind	bi_kind;
	uint8_t		bi_size;
	uint8_t		bi_signed;
};

/* Types per reference 2.4; cpu is kdt's DIF_VAR_CPU extension. */
static const struct dc_builtin dc_builtins[] = {
	{ "timestamp", DIF_VAR_TIMESTAMP, DC_INT, 8, 0 },
	{ "epid", DIF_VAR_EPID, DC_INT, 4, 0 },
	{ "id", DIF_VAR_ID, DC_INT, 4, 0 },
	{ "probeprov", DIF_VAR_PROBEPROV, DC_STRING, 0, 0 },
	{ "probemod", DIF_VAR_PROBEMOD, DC_STRING, 0, 0 },
	{ "probefunc", DIF_VAR_PROBEFUNC, DC_STRING, 0, 0 },
	{ "probename", DIF_VAR_PROBENAME, DC_STRING, 0, 0 },
	{ "pid", DIF_VAR_PID, DC_INT, 4, 1 },
	{ "tid", DIF_VAR_TID, DC_INT, 4, 1 },
	{ "execname", DIF_VAR_EXECNAME, DC_STRING, 0, 0 },
	{ "cpu", DIF_VAR_CPU, DC_INT, 4, 1 },
};

void
dc_type_int(struct dc_type *ty, uint32_t size, int sgn)
{
	static const char *const sname[9] = { [1] = "char", [2] = "short",
	    [4] = "int", [8] = "long" };
	static const char *const uname[9] = { [1] = "unsigned char",
	    [2] = "unsigned short", [4] = "unsigned int",
	    [8] = "unsigned long" };

	memset(ty, 0, sizeof (*ty));
	ty->ty_kind = DC_INT;
	ty->ty_size = size;
	ty->ty_signed = sgn;
	ty->ty_name = size <= 8 ? (sgn ? sname[size] : uname[size]) : NULL;
	if (ty->ty_name == NULL)
		ty->ty_name = "integer";
}

static void
dc_type_string(struct dc_type *ty)
{
	memset(ty, 0, sizeof (*ty));
	ty->ty_kind = DC_STRING;
	ty->ty_name = "string";
}

/* Fill "ty" for built-in variable "name"; returns its id or -1. */
int
dc_builtin_var(const char *name, struct dc_type *ty)
{
	size_t i;

	if (strncmp(name, "arg", 3) == 0 && name[3] >= '0' &&
	    name[3] <= '9' && name[4] == '\0') {
		dc_type_int(ty, 8, 1);
		return DIF_VAR_ARG0 + (name[3] - '0');
	}
	for (i = 0; i < sizeof (dc_builtins) / sizeof (dc_builtins[0]); i++) {
		const struct dc_builtin *b = &dc_builtins[i];

		if (strcmp(b->bi_name, name) != 0)
			continue;
		if (b->bi_kind == DC_STRING)
			dc_type_string(ty);
		else
			dc_type_int(ty, b->bi_size, b->bi_signed);
		return b->bi_id;
	}
	return -1;
}

/* Name of built-in variable "id", or NULL. */
const char *
dc_builtin_name(uint32_t id)
{
	static const char *const argn[10] = { "arg0", "arg1", "arg2", "arg3",
	    "arg4", "arg5", "arg6", "arg7", "arg8", "arg9" };
	size_t i;

	if (id >= DIF_VAR_ARG0 && id <= DIF_VAR_ARG9)
		return argn[id - DIF_VAR_ARG0];
	for (i = 0; i < sizeof (dc_builtins) / sizeof (dc_builtins[0]); i++)
		if (dc_builtins[i].bi_id == id)
			return dc_builtins[i].bi_name;
	return NULL;
}

int
dc_type_is_scalar(const struct dc_type *ty)
{
	return ty->ty_kind == DC_INT || ty->ty_kind == DC_PTR;
}

/* Integer promotion then C's usual arithmetic conversions. */
static void
dc_type_arith(struct dc_type *res, const struct dc_type *a,
    const struct dc_type *b)
{
	uint32_t sa = a->ty_size < 4 ? 4 : a->ty_size;
	uint32_t sb = b->ty_size < 4 ? 4 : b->ty_size;
	int ua = a->ty_size >= 4 && !a->ty_signed;
	int ub = b->ty_size >= 4 && !b->ty_signed;

	if (sa != sb)
		dc_type_int(res, sa > sb ? sa : sb, sa > sb ? !ua : !ub);
	else
		dc_type_int(res, sa, !(ua || ub));
}

static void __attribute__((noreturn))
dc_type_bad(struct dc_ctx *cx, const struct dc_node *n, const char *what,
    const struct dc_type *ty)
{
	dc_error(cx, n->n_line, n->n_col, "D_OP_INCOMPAT", "operator %s: operand of type %s is incompatible (%s)", dc_tok_name(n->n_op), ty->ty_name, what);
}

static int
dc_is_cmp(enum dc_tok op)
{
	return op == DT_EQ || op == DT_NE || op == DT_LT || op == DT_LE ||
	    op == DT_GT || op == DT_GE;
}

static void
dc_type_binary(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type, *b = &n->n_b->n_type;

	if (dc_is_cmp(n->n_op) && a->ty_kind == DC_STRING &&
	    b->ty_kind == DC_STRING) {
		dc_type_int(&n->n_type, 4, 1);
		return;
	}
	if (!dc_type_is_scalar(a))
		dc_type_bad(cx, n, "left operand must be a scalar", a);
	if (!dc_type_is_scalar(b))
		dc_type_bad(cx, n, "right operand must be a scalar", b);
	if (dc_is_cmp(n->n_op) || n->n_op == DT_LAND || n->n_op == DT_LOR ||
	    n->n_op == DT_LXOR) {
		dc_type_int(&n->n_type, 4, 1);
		return;
	}
	if (a->ty_kind != DC_INT)
		dc_type_bad(cx, n, "arithmetic needs integer operands", a);
	if (b->ty_kind != DC_INT)
		dc_type_bad(cx, n, "arithmetic needs integer operands", b);
	if (n->n_op == DT_SHL || n->n_op == DT_SHR)
		dc_type_arith(&n->n_type, a, a);
	else
		dc_type_arith(&n->n_type, a, b);
}

static void
dc_type_unary(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type;

	if (n->n_op == DT_NOT) {
		if (!dc_type_is_scalar(a))
			dc_type_bad(cx, n, "operand must be a scalar", a);
		dc_type_int(&n->n_type, 4, 1);
		return;
	}
	if (a->ty_kind != DC_INT)
		dc_type_bad(cx, n, "operand must be an integer", a);
	dc_type_arith(&n->n_type, a, a);
}

static void
dc_type_cond(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *b = &n->n_b->n_type, *c = &n->n_c->n_type;

	if (!dc_type_is_scalar(&n->n_a->n_type))
		dc_error(cx, n->n_line, n->n_col, "D_OP_SCALAR", "operator ?: condition must be a scalar, not %s", n->n_a->n_type.ty_name);
	if (b->ty_kind == DC_STRING && c->ty_kind == DC_STRING)
		dc_type_string(&n->n_type);
	else if (b->ty_kind == DC_INT && c->ty_kind == DC_INT)
		dc_type_arith(&n->n_type, b, c);
	else if (b->ty_kind == DC_PTR && c->ty_kind == DC_PTR)
		n->n_type = *b;
	else
		dc_error(cx, n->n_line, n->n_col, "D_OP_INCOMPAT", "operator ?: operands of type %s and %s are incompatible", b->ty_name, c->ty_name);
}

static void
dc_type_stringof(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type;

	if (a->ty_kind == DC_STRUCT || a->ty_kind == DC_VOID ||
	    (a->ty_kind == DC_ARRAY && a->ty_elsize != 1))
		dc_error(cx, n->n_line, n->n_col, "D_STRINGOF_TYPE", "stringof( ) operand of type %s cannot be converted to a string (needs a string, integer, pointer or char array)", a->ty_name);
	dc_type_string(&n->n_type);
}

static void
dc_type_var(struct dc_ctx *cx, struct dc_node *n)
{
	int id = dc_builtin_var(n->n_str, &n->n_type);

	if (id < 0)
		dc_error(cx, n->n_line, n->n_col, "D_IDENT_UNDEF", "failed to resolve %s: Unknown variable name", n->n_str);
	n->n_ival = (uint64_t)id;
}

static void
dc_type_cast(struct dc_ctx *cx, struct dc_node *n)
{
	if (!dc_type_is_scalar(&n->n_a->n_type))
		dc_error(cx, n->n_line, n->n_col, "D_CAST_INVAL", "invalid cast of %s to %s: only scalars can be cast", n->n_a->n_type.ty_name, n->n_type.ty_name);
}

void
dc_type_expr(struct dc_ctx *cx, struct dc_node *n)
{
	if (n->n_a != NULL)
		dc_type_expr(cx, n->n_a);
	if (n->n_b != NULL)
		dc_type_expr(cx, n->n_b);
	if (n->n_c != NULL)
		dc_type_expr(cx, n->n_c);
	switch (n->n_kind) {
	case DN_INT: break;
	case DN_STR: dc_type_string(&n->n_type); break;
	case DN_VAR: dc_type_var(cx, n); break;
	case DN_UNARY: dc_type_unary(cx, n); break;
	case DN_BINARY: dc_type_binary(cx, n); break;
	case DN_COND: dc_type_cond(cx, n); break;
	case DN_CAST: dc_type_cast(cx, n); break;
	case DN_MEMBER: dc_btf_member(cx, n); break;
	case DN_STRINGOF: dc_type_stringof(cx, n); break;
	case DN_CALL:
		if (strcmp(n->n_str, "trace") == 0 ||
		    strcmp(n->n_str, "printf") == 0 ||
		    strcmp(n->n_str, "exit") == 0)
			dc_error(cx, n->n_line, n->n_col, "D_ACT_EXPR", "%s( ) is an action and cannot be used inside an expression", n->n_str);
		dc_error(cx, n->n_line, n->n_col, "D_IDENT_UNDEF", "failed to resolve %s: Unknown function name", n->n_str);
	}
}
