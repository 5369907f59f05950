/*
 * dc_type.c -- the D type system.
 *
 * Types are D integers (char 1, short 2, int 4, long and long long 8, with
 * unsigned variants), pointers (8 bytes; pointers to kernel structs keep
 * their BTF id so "->" can find members, dc_btf.c; pointers to integers
 * keep the element size so "*p", "p[i]" and "p + n" scale by it),
 * strings (by reference, strsize bytes when recorded or stored), and two
 * kinds that exist only as member types: arrays (char name[56] -- only
 * stringof() and indexing can use them) and structs.  dc_type_expr()
 * computes every node's type bottom-up, applying C's usual arithmetic
 * conversions, so trace(pid) records 4 bytes and trace(arg0) 8.
 *
 * Variables: built-ins come from the table below (reference 2.4); user
 * variables (dc_var.c) take the type of the first value assigned to them
 * (or their declaration), and every later assignment must be compatible;
 * reading a self-> or this-> variable that nothing assigned or declared yet
 * is D_VAR_UNDEF, as in dtrace (a clause retries with its predicate typed
 * first, dc_parse.c).  Inlines with parameters ("inline int f[int a] =
 * ...") are expanded per use, bitfield ++/-- become stores of the unit.
 * Associative arrays fix their key signature at first use; a mismatch is
 * D_PROTO_LEN / D_PROTO_ARG as for a function prototype.  Called by
 * dc_parse.c and dc_act.c before code generation.
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

/* Types per reference 2.4; cpu and curcpu use kdt's DIF_VAR_CPU. */
static const struct dc_builtin dc_builtins[] = {
	{ "curthread", DIF_VAR_CURTHREAD, DC_PTR, 8, 0 },
	{ "timestamp", DIF_VAR_TIMESTAMP, DC_INT, 8, 0 },
	{ "vtimestamp", DIF_VAR_VTIMESTAMP, DC_INT, 8, 0 },
	{ "ipl", DIF_VAR_IPL, DC_INT, 4, 0 },
	{ "epid", DIF_VAR_EPID, DC_INT, 4, 0 },
	{ "id", DIF_VAR_ID, DC_INT, 4, 0 },
	{ "stackdepth", DIF_VAR_STACKDEPTH, DC_INT, 4, 0 },
	{ "caller", DIF_VAR_CALLER, DC_INT, 8, 0 },
	{ "probeprov", DIF_VAR_PROBEPROV, DC_STRING, 0, 0 },
	{ "probemod", DIF_VAR_PROBEMOD, DC_STRING, 0, 0 },
	{ "probefunc", DIF_VAR_PROBEFUNC, DC_STRING, 0, 0 },
	{ "probename", DIF_VAR_PROBENAME, DC_STRING, 0, 0 },
	{ "pid", DIF_VAR_PID, DC_INT, 4, 1 },
	{ "tid", DIF_VAR_TID, DC_INT, 4, 1 },
	{ "execname", DIF_VAR_EXECNAME, DC_STRING, 0, 0 },
	{ "zonename", DIF_VAR_ZONENAME, DC_STRING, 0, 0 },
	{ "walltimestamp", DIF_VAR_WALLTIMESTAMP, DC_INT, 8, 1 },
	{ "ustackdepth", DIF_VAR_USTACKDEPTH, DC_INT, 4, 0 },
	{ "ucaller", DIF_VAR_UCALLER, DC_INT, 8, 0 },
	{ "ppid", DIF_VAR_PPID, DC_INT, 4, 1 },
	{ "uid", DIF_VAR_UID, DC_INT, 4, 0 },
	{ "gid", DIF_VAR_GID, DC_INT, 4, 0 },
	{ "errno", DIF_VAR_ERRNO, DC_INT, 4, 1 },
	{ "cpu", DIF_VAR_CPU, DC_INT, 4, 1 },
	{ "curcpu", DIF_VAR_CPU, DC_INT, 4, 1 },
	/* for dc_lib.c's translators (dif.h): ids and the thread state */
	{ "__kdt_euid", DIF_VAR_KDT_EUID, DC_INT, 4, 0 },
	{ "__kdt_egid", DIF_VAR_KDT_EGID, DC_INT, 4, 0 },
	{ "__kdt_pgid", DIF_VAR_KDT_PGID, DC_INT, 4, 1 },
	{ "__kdt_sid", DIF_VAR_KDT_SID, DC_INT, 4, 1 },
	{ "__kdt_nlwp", DIF_VAR_KDT_NLWP, DC_INT, 4, 1 },
	{ "__kdt_lwpstate", DIF_VAR_KDT_LWPSTATE, DC_INT, 4, 1 },
};

/* Built-in arrays: args[], regs[], uregs[] (ldga). */
struct dc_barray {
	const char	*ba_name;
	uint16_t	ba_id;
};

static const struct dc_barray dc_barrays[] = {
	{ "args", DIF_VAR_ARGS }, { "regs", DIF_VAR_REGS },
	{ "uregs", DIF_VAR_UREGS },
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

void
dc_type_string(struct dc_type *ty)
{
	memset(ty, 0, sizeof (*ty));
	ty->ty_kind = DC_STRING;
	ty->ty_name = "string";
}

/* ty = pointer to el.  Names are fixed strings: messages only. */
void
dc_type_ptr_to(struct dc_type *ty, const struct dc_type *el)
{
	struct dc_type e = *el;

	memset(ty, 0, sizeof (*ty));
	ty->ty_kind = DC_PTR;
	ty->ty_size = 8;
	if (e.ty_kind == DC_INT) {
		ty->ty_elsize = e.ty_size;
		ty->ty_elsigned = e.ty_signed;
		ty->ty_name = e.ty_size == 1 ? "char *" : "integer pointer";
	} else if (e.ty_kind == DC_PTR || e.ty_kind == DC_STRING) {
		ty->ty_elsize = 8;
		ty->ty_name = "pointer to pointer";
	} else if (e.ty_kind == DC_STRUCT) {
		ty->ty_btf = e.ty_btf;
		ty->ty_sou = e.ty_sou;
		ty->ty_elsize = e.ty_size;
		ty->ty_name = "struct pointer";
	} else {
		ty->ty_name = "void *";
	}
}

static int
dc_builtin_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof (dc_builtins) / sizeof (dc_builtins[0]); i++)
		if (strcmp(dc_builtins[i].bi_name, name) == 0)
			return (int)i;
	return -1;
}

/* Fill "ty" for built-in variable "name"; returns its id or -1. */
int
dc_builtin_var(const char *name, struct dc_type *ty)
{
	const struct dc_builtin *b;
	int i;

	if (strncmp(name, "arg", 3) == 0 && name[3] >= '0' &&
	    name[3] <= '9' && name[4] == '\0') {
		dc_type_int(ty, 8, 1);
		return DIF_VAR_ARG0 + (name[3] - '0');
	}
	i = dc_builtin_find(name);
	if (i < 0)
		return -1;
	b = &dc_builtins[i];
	if (b->bi_kind == DC_STRING) {
		dc_type_string(ty);
	} else if (b->bi_kind == DC_PTR) {
		memset(ty, 0, sizeof (*ty));
		ty->ty_kind = DC_PTR;
		ty->ty_size = 8;
		ty->ty_name = "struct task_struct *";
	} else {
		dc_type_int(ty, b->bi_size, b->bi_signed);
	}
	return b->bi_id;
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
	for (i = 0; i < sizeof (dc_barrays) / sizeof (dc_barrays[0]); i++)
		if (dc_barrays[i].ba_id == id)
			return dc_barrays[i].ba_name;
	for (i = 0; i < sizeof (dc_builtins) / sizeof (dc_builtins[0]); i++)
		if (dc_builtins[i].bi_id == id)
			return dc_builtins[i].bi_name;
	return NULL;
}

static int
dc_barray_id(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof (dc_barrays) / sizeof (dc_barrays[0]); i++)
		if (strcmp(dc_barrays[i].ba_name, name) == 0)
			return dc_barrays[i].ba_id;
	return -1;
}

int
dc_type_is_scalar(const struct dc_type *ty)
{
	return ty->ty_kind == DC_INT || ty->ty_kind == DC_PTR;
}

/* May a value of type b be stored where type a lives? */
/*
 * A string and a pointer to void or char: dtrace lets them be compared
 * (as strings: NULL reads as "") and a string variable be assigned one
 * (NULL empties it), since a string is a char array to its type rules.
 */
static int
dc_type_strptr(const struct dc_type *s, const struct dc_type *p)
{
	return s->ty_kind == DC_STRING && p->ty_kind == DC_PTR &&
	    p->ty_btf == 0 && p->ty_sou == NULL && p->ty_elsize <= 1;
}

int
dc_type_compat(const struct dc_type *a, const struct dc_type *b)
{
	if (a->ty_kind == DC_STRUCT || b->ty_kind == DC_STRUCT)
		return a->ty_kind == b->ty_kind && a->ty_sou == b->ty_sou &&
		    a->ty_btf == b->ty_btf;
	if (a->ty_kind == DC_STRING || b->ty_kind == DC_STRING)
		return a->ty_kind == b->ty_kind;
	return dc_type_is_scalar(a) && dc_type_is_scalar(b);
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
	enum dc_tok op = n->n_op;
	const char *tag = op == DT_LAND || op == DT_LOR || op == DT_LXOR ||
	    op == DT_NOT ? "D_OP_SCALAR" : op == DT_PLUS || op == DT_MINUS ||
	    op == DT_STAR || op == DT_SLASH ? "D_OP_ARITH" : "D_OP_INCOMPAT";

	/* dtrace's tag says what the operator needed: scalar, arithmetic */
	dc_error(cx, n->n_line, n->n_col, tag, "operator %s: operand of type %s is incompatible (%s)", dc_tok_name(op), ty->ty_name, what);
}

static int
dc_is_cmp(enum dc_tok op)
{
	return op == DT_EQ || op == DT_NE || op == DT_LT || op == DT_LE ||
	    op == DT_GT || op == DT_GE;
}

/*
 * An arithmetic operator on a non-integer: + - * / need arithmetic
 * operands (D_OP_ARITH), % and the bitwise and shift operators integral
 * ones (D_OP_INT), as dtrace words it.
 */
static void __attribute__((noreturn))
dc_type_opint(struct dc_ctx *cx, const struct dc_node *n,
    const struct dc_type *bad)
{
	int arith = n->n_op == DT_PLUS || n->n_op == DT_MINUS ||
	    n->n_op == DT_STAR || n->n_op == DT_SLASH;

	dc_error(cx, n->n_line, n->n_col, arith ? "D_OP_ARITH" : "D_OP_INT", "operator %s requires operands of %s type, not %s", dc_tok_name(n->n_op), arith ? "arithmetic" : "integral", bad->ty_name);
}

/*
 * x / 0 and x % 0 with a constant zero divisor (also a folded one such
 * as (7-7)) are rejected at compile time.
 */
static void
dc_type_divzero(struct dc_ctx *cx, const struct dc_node *n)
{
	int64_t v;

	if ((n->n_op == DT_SLASH || n->n_op == DT_PERCENT) &&
	    dc_const(n->n_b, &v) && v == 0)
		dc_error(cx, n->n_line, n->n_col, "D_DIV_ZERO", "expression contains division by zero");
}

static int
dc_type_voidptr(const struct dc_type *t)
{
	return t->ty_kind == DC_PTR && t->ty_elsize == 0 && t->ty_btf == 0 &&
	    t->ty_sou == NULL;
}

/* ptr + int, int + ptr, ptr - int, ptr - ptr: 1 when handled. */
static int
dc_type_ptrarith(struct dc_node *n, const struct dc_type *a,
    const struct dc_type *b)
{
	if (n->n_op != DT_PLUS && n->n_op != DT_MINUS)
		return 0;
	if (a->ty_kind == DC_PTR && b->ty_kind == DC_INT) {
		n->n_type = *a;
		return 1;
	}
	if (n->n_op == DT_PLUS && a->ty_kind == DC_INT &&
	    b->ty_kind == DC_PTR) {
		n->n_type = *b;
		return 1;
	}
	if (n->n_op == DT_MINUS && a->ty_kind == DC_PTR &&
	    b->ty_kind == DC_PTR) {
		dc_type_int(&n->n_type, 8, 1);
		return 1;
	}
	return 0;
}

static void
dc_type_binary(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type, *b = &n->n_b->n_type;

	if (dc_is_cmp(n->n_op) && ((a->ty_kind == DC_STRING &&
	    b->ty_kind == DC_STRING) || dc_type_strptr(a, b) ||
	    dc_type_strptr(b, a))) {
		dc_type_int(&n->n_type, 4, 1);
		return;
	}
	if (!dc_is_cmp(n->n_op) && n->n_op != DT_LAND && n->n_op != DT_LOR &&
	    n->n_op != DT_LXOR && (!dc_type_is_scalar(a) ||
	    !dc_type_is_scalar(b)))
		dc_type_opint(cx, n, !dc_type_is_scalar(a) ? a : b);
	if (!dc_type_is_scalar(a))
		dc_type_bad(cx, n, "left operand must be a scalar", a);
	if (!dc_type_is_scalar(b))
		dc_type_bad(cx, n, "right operand must be a scalar", b);
	if (dc_is_cmp(n->n_op) || n->n_op == DT_LAND || n->n_op == DT_LOR ||
	    n->n_op == DT_LXOR) {
		dc_type_int(&n->n_type, 4, 1);
		return;
	}
	/* no arithmetic on void * (the elements have no size), as dtrace */
	if ((n->n_op == DT_PLUS || n->n_op == DT_MINUS) &&
	    (dc_type_voidptr(a) || dc_type_voidptr(b)))
		dc_error(cx, n->n_line, n->n_col, "D_OP_INCOMPAT", "operator %s cannot be applied to a void pointer (its elements have no size); cast it first", dc_tok_name(n->n_op));
	if (dc_type_ptrarith(n, a, b))
		return;
	if (a->ty_kind != DC_INT || b->ty_kind != DC_INT)
		dc_type_opint(cx, n, a->ty_kind != DC_INT ? a : b);
	dc_type_divzero(cx, n);
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
	if (b->ty_kind == DC_VOID || c->ty_kind == DC_VOID)
		dc_error(cx, n->n_line, n->n_col, "D_OP_ACT", "operator ?: operands cannot be actions or void expressions");
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

/*
 * Is "n" the this->/self-> variable whose assignment is being typed
 * ("self->n = self->n + 1")?  dtrace creates the variable from the left
 * side before it looks at the right, so that read is no D_VAR_UNDEF; it
 * is typed as an int64_t, as a first assignment of an integer types it.
 */
static int
dc_type_asgself(const struct dc_ctx *cx, const struct dc_node *n)
{
	const struct dc_node *a = cx->cx_asgvar;

	return a != NULL && a->n_scope == n->n_scope &&
	    strcmp(a->n_str, n->n_str) == 0;
}

/* A user variable (or inline) read as an rvalue. */
static void
dc_type_uservar(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_var *v = dc_var_lookup(cx, n->n_str, n->n_scope);

	if (v == NULL && n->n_scope == DS_GLOBAL)
		dc_error(cx, n->n_line, n->n_col, "D_IDENT_UNDEF", "failed to resolve %s: Unknown variable name", n->n_str);
	/*
	 * A clause-local or thread-local variable read before any
	 * assignment or declaration has no type yet: dtrace's D_VAR_UNDEF,
	 * which also makes ps_body_pred() retry with the predicate typed
	 * first, so that "/(this->s = "x") != NULL/ { trace(this->s); }"
	 * gives this->s the predicate's type.
	 */
	if ((n->n_scope == DS_LOCAL || n->n_scope == DS_THREAD) &&
	    (v == NULL || !v->va_typed) && !dc_type_asgself(cx, n))
		dc_error(cx, n->n_line, n->n_col, "D_VAR_UNDEF", "%s%s has not yet been declared or assigned", n->n_scope == DS_LOCAL ? "this->" : "self->", n->n_str);
	if (v == NULL)
		v = dc_var_get(cx, n->n_str, n->n_scope, n->n_line, n->n_col);
	if (v->va_array)	/* dtrace: a global array is no scalar */
		dc_error(cx, n->n_line, n->n_col, n->n_scope == DS_GLOBAL ? "D_IDENT_BADREF" : "D_ARR_BADREF", "%s is an associative array and must be indexed: %s[...]", n->n_str, n->n_str);
	if (!v->va_typed) {
		dc_type_int(&v->va_type, 8, 1);
		v->va_typed = 1;
	}
	n->n_var = v;
	n->n_ival = v->va_id;
	n->n_type = v->va_type;
}

static void
dc_type_var(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_inline *in;
	int id;

	if (n->n_scope == DS_BUILTIN)
		n->n_scope = DS_GLOBAL;
	if (n->n_scope == DS_GLOBAL && strcmp(n->n_str, "NULL") == 0 &&
	    dc_var_lookup(cx, "NULL", DS_GLOBAL) == NULL) {
		struct dc_type v;

		memset(&v, 0, sizeof (v));
		n->n_kind = DN_INT;
		n->n_ival = 0;
		dc_type_ptr_to(&n->n_type, &v);
		return;
	}
	if (n->n_scope == DS_GLOBAL) {
		id = dc_builtin_var(n->n_str, &n->n_type);
		if (id == DIF_VAR_CURTHREAD)
			n->n_type.ty_btf = dc_btf_struct_id(cx, "task_struct");
		if (id >= 0) {
			n->n_scope = DS_BUILTIN;
			n->n_ival = (uint64_t)id;
			return;
		}
		in = dc_inline_lookup(cx, n->n_str);
		if (in != NULL && in->in_expr != NULL &&
		    in->in_expr->n_kind == DN_XLATE)
			dc_error(cx, n->n_line, n->n_col, "D_CG_DYN", "expression cannot evaluate to result of dynamic type: %s is a translation (xlate) and needs a member, as in %s->m", n->n_str, n->n_str);
		if (in != NULL && in->in_expr != NULL) {
			*n = *in->in_expr;
			n->n_type = in->in_type.ty_kind == DC_INT &&
			    in->in_expr->n_type.ty_kind == DC_INT ?
			    in->in_type : in->in_expr->n_type;
			return;
		}
		if (dc_barray_id(n->n_str) >= 0)
			dc_error(cx, n->n_line, n->n_col, "D_ARR_BADREF", "%s[ ] is an array and must be indexed", n->n_str);
	}
	dc_type_uservar(cx, n);
}

/*
 * The name of what pointer type a points to, for print(): a cast or
 * declaration named it "T *" (dc_parse.c); else "struct".
 */
static const char *
dc_type_pointee_name(struct dc_ctx *cx, const struct dc_type *a)
{
	size_t len = a->ty_name != NULL ? strlen(a->ty_name) : 0;

	if (len < 3 || strcmp(a->ty_name + len - 2, " *") != 0 ||
	    strcmp(a->ty_name, "struct pointer") == 0)
		return a->ty_sou != NULL && a->ty_sou->so_union ? "union" :
		    "struct";
	return dc_strndup(cx, a->ty_name, len - 2);
}

static void
dc_type_cast(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type;

	if (n->n_type.ty_kind == DC_STRING && a->ty_kind == DC_STRING)
		return;
	if (n->n_type.ty_kind == DC_VOID)
		return;		/* (void)e discards e, as in C */
	if (n->n_type.ty_kind == DC_STRUCT && dc_type_compat(&n->n_type, a)) {
		*n = *n->n_a;	/* (struct s)v of a struct s: v itself */
		return;
	}
	if (!dc_type_is_scalar(a) || !dc_type_is_scalar(&n->n_type))
		dc_error(cx, n->n_line, n->n_col, "D_CAST_INVAL", "invalid cast of %s to %s: only scalars can be cast", a->ty_name, n->n_type.ty_name);
}

/* Check the keys of a[k...] against (or fix) the array's signature. */
static void
dc_type_keys(struct dc_ctx *cx, struct dc_node *n, struct dc_var *v)
{
	int i;

	for (i = 0; i < n->n_nargs; i++) {
		struct dc_node *k = n->n_args[i];

		dc_type_expr(cx, k);
		if (!dc_type_is_scalar(&k->n_type) &&
		    k->n_type.ty_kind != DC_STRING &&
		    (k->n_type.ty_kind != DC_STRUCT || k->n_type.ty_size == 0))
			dc_error(cx, k->n_line, k->n_col, "D_ARR_KEYTYPE", "%s[ ] key #%d of type %s is not a scalar, string, struct or union", v->va_name, i + 1, k->n_type.ty_name);
	}
	if (n->n_nargs > DC_MAXKEYS)
		dc_error(cx, n->n_line, n->n_col, "D_ARR_LONG", "%s[ ] has %d keys, limit %d", v->va_name, n->n_nargs, DC_MAXKEYS);
	if (v->va_nkeys == 0 && !v->va_typed) {
		v->va_nkeys = n->n_nargs;
		for (i = 0; i < n->n_nargs; i++)
			v->va_keys[i] = n->n_args[i]->n_type;
		return;
	}
	if (v->va_nkeys != n->n_nargs)
		dc_error(cx, n->n_line, n->n_col, "D_PROTO_LEN", "%s[ ] prototype mismatch: %d key%s passed, %d expected", v->va_name, n->n_nargs, n->n_nargs == 1 ? "" : "s", v->va_nkeys);
	for (i = 0; i < n->n_nargs; i++)
		if (!dc_type_compat(&v->va_keys[i], &n->n_args[i]->n_type))
			dc_error(cx, n->n_args[i]->n_line, n->n_args[i]->n_col, "D_PROTO_ARG", "%s[ ] key #%d is incompatible with prototype: %s is not %s", v->va_name, i + 1, n->n_args[i]->n_type.ty_name, v->va_keys[i].ty_name);
}

/* The associative array named by n->n_a (creating it for a store). */
static struct dc_var *
dc_type_assoc(struct dc_ctx *cx, struct dc_node *n, int store)
{
	struct dc_node *b = n->n_a;
	enum dc_scope sc = b->n_scope == DS_THREAD ? DS_THREAD : DS_GLOBAL;
	struct dc_var *v = dc_var_lookup(cx, b->n_str, sc);

	if (b->n_scope == DS_LOCAL)
		dc_error(cx, n->n_line, n->n_col, "D_ARR_LOCAL", "associative arrays may not be clause-local: this->%s", b->n_str);
	if (v == NULL && !store && sc == DS_GLOBAL)
		dc_error(cx, b->n_line, b->n_col, "D_IDENT_UNDEF", "failed to resolve %s: Unknown variable name", b->n_str);
	if (v == NULL) {
		v = dc_var_get(cx, b->n_str, sc, b->n_line, b->n_col);
		v->va_array = 1;
	}
	if (!v->va_array)
		dc_error(cx, n->n_line, n->n_col, "D_IDX_SCALAR", "%s is a scalar variable and cannot be indexed", b->n_str);
	dc_type_keys(cx, n, v);
	n->n_var = v;
	n->n_scope = sc;
	n->n_ival = v->va_id;
	if (!v->va_typed && !store) {
		dc_type_int(&v->va_type, 8, 1);
		v->va_typed = 1;
	}
	n->n_type = v->va_type;
	return v;
}

/*
 * A copy of an inline's untyped expression with each parameter (a global
 * identifier named as one, not under a member name) replaced by a cast of
 * the argument to the parameter's type.
 */
static struct dc_node *
dc_type_inline_subst(struct dc_ctx *cx, const struct dc_inline *in,
    const struct dc_node *e, struct dc_node **args)
{
	struct dc_node *c;
	int i;

	if (e == NULL)
		return NULL;
	if (e->n_kind == DN_VAR && (e->n_scope == DS_GLOBAL ||
	    e->n_scope == DS_BUILTIN))
		for (i = 0; i < in->in_nparams; i++)
			if (strcmp(e->n_str, in->in_pnames[i]) == 0) {
				c = dc_alloc(cx, sizeof (*c));
				memset(c, 0, sizeof (*c));
				c->n_kind = DN_CAST;
				c->n_line = args[i]->n_line;
				c->n_col = args[i]->n_col;
				c->n_type = in->in_ptypes[i];
				c->n_a = args[i];
				c->n_depth = args[i]->n_depth + 1;
				return c;
			}
	c = dc_alloc(cx, sizeof (*c));
	*c = *e;
	c->n_a = dc_type_inline_subst(cx, in, e->n_a, args);
	c->n_b = dc_type_inline_subst(cx, in, e->n_b, args);
	c->n_c = dc_type_inline_subst(cx, in, e->n_c, args);
	if (e->n_nargs > 0) {
		c->n_args = dc_alloc(cx, sizeof (c->n_args[0]) *
		    (size_t)e->n_nargs);
		for (i = 0; i < e->n_nargs; i++)
			c->n_args[i] = dc_type_inline_subst(cx, in,
			    e->n_args[i], args);
	}
	return c;
}

/* f[a, ...] of an inline with parameters: its expression, typed; 1 if so. */
static int
dc_type_inline_call(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_inline *in = dc_inline_lookup(cx, n->n_a->n_str);
	struct dc_node *e;
	struct dc_type t;
	int i;

	if (in == NULL || in->in_nparams == 0)
		return 0;
	if (n->n_nargs != in->in_nparams)
		dc_error(cx, n->n_line, n->n_col, "D_PROTO_LEN", "%s[ ] prototype mismatch: %d arg%s passed, %d expected", in->in_name, n->n_nargs, n->n_nargs == 1 ? "" : "s", in->in_nparams);
	for (i = 0; i < n->n_nargs; i++) {
		dc_type_expr(cx, n->n_args[i]);
		t = in->in_ptypes[i];
		if (!dc_type_compat(&t, &n->n_args[i]->n_type) &&
		    !(dc_type_is_scalar(&t) &&
		    dc_type_is_scalar(&n->n_args[i]->n_type)))
			dc_error(cx, n->n_args[i]->n_line, n->n_args[i]->n_col, "D_PROTO_ARG", "%s[ ] argument #%d is incompatible with prototype: %s is not %s", in->in_name, i + 1, n->n_args[i]->n_type.ty_name, t.ty_name);
	}
	/* one that uses itself (directly or not) would expand forever */
	if (cx->cx_inldepth >= DC_MAXINLINE)
		dc_error(cx, n->n_line, n->n_col, "D_IDENT_UNDEF", "failed to resolve %s: an inline with parameters may not use itself (%d nested uses)", in->in_name, cx->cx_inldepth);
	/* each use is a copy: more than a DIF object could hold is refused */
	if (++cx->cx_inluses > DC_MAXTEXT)
		dc_error(cx, n->n_line, n->n_col, "D_DIF_SIZE", "inlines with parameters are used more than %u times in one clause: their code exceeds the limit of %u DIF instructions", DC_MAXTEXT, DC_MAXTEXT);
	e = dc_type_inline_subst(cx, in, in->in_expr, n->n_args);
	cx->cx_inldepth++;
	if (e->n_kind != DN_XLATE)
		dc_type_expr(cx, e);
	cx->cx_inldepth--;
	if (!dc_type_compat(&in->in_type, &e->n_type))
		dc_error(cx, e->n_line, e->n_col, "D_OP_INCOMPAT", "inline %s: expression of type %s is incompatible with declared type %s", in->in_name, e->n_type.ty_name, in->in_type.ty_name);
	t = in->in_type.ty_kind == DC_INT && e->n_type.ty_kind == DC_INT ?
	    in->in_type : e->n_type;
	*n = *e;
	n->n_type = t;
	return 1;
}

/* p[i] on a pointer or a kernel array member: element type. */
static void
dc_type_ptrindex(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a;

	n->n_scope = DS_GLOBAL;
	dc_type_expr(cx, n->n_a);
	a = &n->n_a->n_type;
	if (n->n_nargs != 1)
		dc_error(cx, n->n_line, n->n_col, "D_ARR_BADREF", "cannot access %s as an associative array: a pointer or array index takes one value, %d given", n->n_a->n_kind == DN_VAR ? n->n_a->n_str : "this operand", n->n_nargs);
	dc_type_expr(cx, n->n_args[0]);
	if (n->n_args[0]->n_type.ty_kind != DC_INT)
		dc_error(cx, n->n_line, n->n_col, "D_IDX_TYPE", "index of type %s is not an integer", n->n_args[0]->n_type.ty_name);
	if (a->ty_kind == DC_ARRAY && a->ty_elsou != NULL) {
		/* an element of an array of D structs: its address */
		memset(&n->n_type, 0, sizeof (n->n_type));
		n->n_type.ty_kind = DC_STRUCT;
		n->n_type.ty_sou = a->ty_elsou;
		n->n_type.ty_size = a->ty_elsize;
		n->n_type.ty_name = a->ty_elname;
		return;
	}
	if ((a->ty_kind != DC_PTR && a->ty_kind != DC_ARRAY) ||
	    a->ty_sou != NULL || a->ty_btf != 0 ||
	    (a->ty_elsize != 1 && a->ty_elsize != 2 && a->ty_elsize != 4 &&
	    a->ty_elsize != 8))
		dc_error(cx, n->n_line, n->n_col, "D_IDX_BADTYPE", "operator [ ] cannot be applied to %s: needs an associative array, args[] or a pointer to integers", a->ty_name);
	if (a->ty_kind == DC_PTR && a->ty_elsize == 8 && a->ty_elsigned == 0 &&
	    strcmp(a->ty_name, "pointer to pointer") == 0) {
		memset(&n->n_type, 0, sizeof (n->n_type));
		n->n_type.ty_kind = DC_PTR;
		n->n_type.ty_size = 8;
		n->n_type.ty_name = "void *";
		return;
	}
	dc_type_int(&n->n_type, a->ty_elsize, a->ty_elsigned);
}

/* args[], regs[], uregs[]: one integer index, ldga. */
static void
dc_type_barray(struct dc_ctx *cx, struct dc_node *n, int id)
{
	const struct dc_node *b = n->n_a;

	if (n->n_nargs != 1)
		dc_error(cx, n->n_line, n->n_col, "D_PROTO_LEN", "%s[ ] takes one index, %d given", b->n_str, n->n_nargs);
	dc_type_expr(cx, n->n_args[0]);
	if (n->n_args[0]->n_type.ty_kind != DC_INT)
		dc_error(cx, n->n_line, n->n_col, "D_IDX_TYPE", "%s[ ] index of type %s is not an integer", b->n_str, n->n_args[0]->n_type.ty_name);
	n->n_scope = DS_BUILTIN;
	n->n_ival = (uint64_t)id;
	if (id == DIF_VAR_ARGS && n->n_args[0]->n_kind == DN_INT &&
	    dc_btf_fbt_arg(cx, n, n->n_args[0]->n_ival, &n->n_type))
		return;
	dc_type_int(&n->n_type, 8, id == DIF_VAR_ARGS);
}

/*
 * An aggregation named inside an expression: dtrace reports one it has not
 * seen defined as an unknown identifier, a defined one as a misuse.
 */
static void
dc_type_aggref(struct dc_ctx *cx, const struct dc_node *a)
{
	const struct dc_agg *ag;

	for (ag = cx->cx_aggs; ag != NULL; ag = ag->ag_next)
		if (strcmp(ag->ag_name, a->n_str) == 0 && ag->ag_func != 0)
			dc_error(cx, a->n_line, a->n_col, "D_AGG_REF", "aggregation @%s cannot be used in an expression", a->n_str);
	dc_error(cx, a->n_line, a->n_col, "D_IDENT_UNDEF", "failed to resolve @%s: Unknown variable name", a->n_str);
}

/*
 * x[...]: an associative array unless x names args[]/regs[]/uregs[], a
 * scalar user variable (then x is a pointer being indexed), a built-in or
 * an inline.
 */
static void
dc_type_index(struct dc_ctx *cx, struct dc_node *n, int store)
{
	struct dc_node *b = n->n_a;
	enum dc_scope sc;
	struct dc_var *v;
	struct dc_type t;
	int id;

	if (b->n_kind == DN_AGG)
		dc_type_aggref(cx, b);
	if (b->n_kind != DN_VAR) {
		dc_type_ptrindex(cx, n);
		return;
	}
	sc = b->n_scope == DS_BUILTIN ? DS_GLOBAL : b->n_scope;
	if (sc == DS_GLOBAL && (id = dc_barray_id(b->n_str)) >= 0) {
		dc_type_barray(cx, n, id);
		return;
	}
	if (sc == DS_GLOBAL && dc_var_lookup(cx, b->n_str, sc) == NULL &&
	    dc_type_inline_call(cx, n))
		return;
	v = dc_var_lookup(cx, b->n_str, sc);
	if ((v != NULL && !v->va_array) || (sc == DS_GLOBAL &&
	    (dc_builtin_var(b->n_str, &t) >= 0 ||
	    dc_inline_lookup(cx, b->n_str) != NULL)) ||
	    (sc == DS_LOCAL && v == NULL && !store)) {
		dc_type_ptrindex(cx, n);
		return;
	}
	if (sc == DS_LOCAL)
		dc_error(cx, n->n_line, n->n_col, "D_ARR_LOCAL", "associative arrays may not be clause-local: this->%s", b->n_str);
	dc_type_assoc(cx, n, store);
}

/* *p = v, p[i] = v: a store into D memory (alloca), 1/2/4/8 bytes. */
static void
dc_type_memstore(struct dc_ctx *cx, struct dc_node *l)
{
	if (l->n_type.ty_kind == DC_STRING && l->n_kind == DN_MEMBER &&
	    l->n_type.ty_size > 0)
		return;		/* a string member: copied (dc_cg.c) */
	if (!dc_type_is_scalar(&l->n_type) || (l->n_type.ty_size != 1 &&
	    l->n_type.ty_size != 2 && l->n_type.ty_size != 4 &&
	    l->n_type.ty_size != 8))
		dc_error(cx, l->n_line, l->n_col, "D_OP_WRITE", "operator = cannot store a value of type %s through a pointer", l->n_type.ty_name);
}

/*
 * "p = a" of a D array a: an array cannot be assigned (D_OP_ARRFUN), but
 * to anything else it is the address of its first element, as in C.
 */
static void
dc_type_decay(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *l = n->n_a, *b = n->n_b, *a;
	const struct dc_var *v = l->n_kind == DN_VAR ? dc_var_lookup(cx,
	    l->n_str, l->n_scope == DS_BUILTIN ? DS_GLOBAL : l->n_scope) :
	    NULL;
	struct dc_type el;

	if (v != NULL && v->va_typed && v->va_type.ty_kind == DC_ARRAY)
		dc_error(cx, n->n_line, n->n_col, "D_OP_ARRFUN", "operator = cannot assign to array %s: arrays are not assignable", l->n_str);
	if (b->n_kind != DN_VAR)
		return;
	a = dc_alloc(cx, sizeof (*a));
	memset(a, 0, sizeof (*a));
	a->n_kind = DN_INDEX;
	a->n_line = b->n_line;
	a->n_col = b->n_col;
	a->n_a = b;
	a->n_args = dc_alloc(cx, sizeof (a->n_args[0]));
	a->n_args[0] = dc_alloc(cx, sizeof (*a));
	memset(a->n_args[0], 0, sizeof (*a));
	a->n_args[0]->n_kind = DN_INT;
	dc_type_int(&a->n_args[0]->n_type, 4, 1);
	a->n_nargs = 1;
	dc_type_expr(cx, a);
	el = a->n_type;
	n->n_b = dc_alloc(cx, sizeof (*a));
	memset(n->n_b, 0, sizeof (*a));
	n->n_b->n_kind = DN_ADDR;
	n->n_b->n_line = b->n_line;
	n->n_b->n_col = b->n_col;
	n->n_b->n_a = a;
	dc_type_ptr_to(&n->n_b->n_type, &el);
}

/* Check and type an lvalue; rhs (may be NULL) types undeclared vars. */
static void
dc_type_lvalue(struct dc_ctx *cx, struct dc_node *l, const struct dc_type *rhs)
{
	struct dc_var *v;

	if (l->n_kind == DN_INDEX) {
		dc_type_index(cx, l, 1);
		if (l->n_scope == DS_BUILTIN)
			dc_error(cx, l->n_line, l->n_col, "D_OP_WRITE", "operator = can only be applied to a writable variable; built-in arrays are read-only");
		if (l->n_var == NULL) {
			dc_type_memstore(cx, l);
			return;
		}
		v = l->n_var;
	} else if (l->n_kind == DN_DEREF || (l->n_kind == DN_MEMBER &&
	    l->n_a->n_kind != DN_XLATE)) {
		dc_type_expr(cx, l);
		if (l->n_type.ty_bits != 0)
			return;		/* dc_type_bfstore() */
		dc_type_memstore(cx, l);
		return;
	} else if (l->n_kind == DN_VAR) {
		if (l->n_scope == DS_GLOBAL || l->n_scope == DS_BUILTIN) {
			struct dc_type t;

			if (dc_builtin_var(l->n_str, &t) >= 0 ||
			    dc_barray_id(l->n_str) >= 0 ||
			    dc_inline_lookup(cx, l->n_str) != NULL)
				dc_error(cx, l->n_line, l->n_col, "D_OP_WRITE", "operator = can only be applied to a writable variable: %s is a built-in or inline", l->n_str);
			l->n_scope = DS_GLOBAL;
		}
		v = dc_var_get(cx, l->n_str, l->n_scope, l->n_line, l->n_col);
		if (v->va_array)
			dc_error(cx, l->n_line, l->n_col, "D_ARR_BADREF", "%s is an associative array and must be indexed", l->n_str);
		l->n_var = v;
		l->n_ival = v->va_id;
	} else {
		dc_error(cx, l->n_line, l->n_col, "D_OP_LVAL", "operator = requires a variable on its left (kernel memory cannot be written)");
	}
	if (!v->va_typed && rhs != NULL) {
		v->va_type = *rhs;
		v->va_type.ty_bits = 0;	/* "x = s.bf": x is no bitfield */
		if (rhs->ty_kind == DC_INT && rhs->ty_size < 4)
			dc_type_int(&v->va_type, rhs->ty_size, rhs->ty_signed);
		v->va_typed = 1;
	}
	if (!v->va_typed) {
		dc_type_int(&v->va_type, 8, 1);
		v->va_typed = 1;
	}
	l->n_type = v->va_type;
}

/*
 * "v = s" of a whole struct or union: dtrace copies it into a D variable
 * (global, self-> or this->; a by-reference variable of the struct's
 * size), not into kernel memory or an associative array element.
 */
static int
dc_type_struct_assign(const struct dc_node *n)
{
	return n->n_op == DT_ASSIGN && n->n_a->n_kind == DN_VAR &&
	    n->n_b->n_type.ty_size > 0;
}

static struct dc_node *
dc_bf_new(struct dc_ctx *cx, const struct dc_node *at, enum dc_nkind k,
    enum dc_tok op, struct dc_node *a, struct dc_node *b, uint64_t v)
{
	struct dc_node *c = dc_alloc(cx, sizeof (*c));

	memset(c, 0, sizeof (*c));
	c->n_kind = k;
	c->n_line = at->n_line;
	c->n_col = at->n_col;
	c->n_op = op;
	c->n_a = a;
	c->n_b = b;
	c->n_ival = v;
	if (k == DN_INT)
		dc_type_int(&c->n_type, 8, 0);
	return c;
}

/*
 * n is "bf = e" or "bf op= e" on a bitfield, whose read dc_decl.c turned
 * into ((long)unit << (64 - off - w)) >> (64 - w).  n becomes a store of
 * the whole unit: unit = (unit & ~(m << off)) | ((v & m) << off), with
 * m = 2^w - 1 and v the value (e, or the field op e), as C writes one.
 */
static void
dc_type_bfstore(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *rd = n->n_a, *unit = rd->n_a->n_a->n_a, *v, *keep;
	uint32_t w = rd->n_type.ty_bits;
	uint32_t off = 64 - (uint32_t)rd->n_a->n_b->n_ival - w;
	uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
	struct dc_node *u2 = dc_alloc(cx, sizeof (*u2));

	*u2 = *unit;
	v = n->n_op == DT_ASSIGN ? n->n_b :
	    dc_bf_new(cx, n, DN_BINARY, n->n_op, rd, n->n_b, 0);
	keep = dc_bf_new(cx, n, DN_BINARY, DT_BAND, u2,
	    dc_bf_new(cx, n, DN_INT, 0, NULL, NULL, ~(m << off)), 0);
	v = dc_bf_new(cx, n, DN_BINARY, DT_SHL,
	    dc_bf_new(cx, n, DN_BINARY, DT_BAND, v,
	    dc_bf_new(cx, n, DN_INT, 0, NULL, NULL, m), 0),
	    dc_bf_new(cx, n, DN_INT, 0, NULL, NULL, off), 0);
	n->n_op = DT_ASSIGN;
	n->n_a = unit;
	n->n_b = dc_bf_new(cx, n, DN_BINARY, DT_BOR, keep, v, 0);
	dc_type_expr(cx, n->n_b);
	dc_type_lvalue(cx, unit, &n->n_b->n_type);
	n->n_type = unit->n_type;
}

/*
 * The field value held by a unit value u, as bitfield read rd extracts it
 * from the unit: rd's shifts and cast, with u in place of the unit load;
 * lsh is the left shift (rd's, or 64 - w when u holds the field in its
 * low bits).
 */
static struct dc_node *
dc_bf_extract(struct dc_ctx *cx, const struct dc_node *rd,
    struct dc_node *u, uint64_t lsh)
{
	struct dc_node *shr = dc_alloc(cx, sizeof (*shr));
	struct dc_node *shl = dc_alloc(cx, sizeof (*shl));
	struct dc_node *cast = dc_alloc(cx, sizeof (*cast));

	*shr = *rd;
	*shl = *rd->n_a;
	*cast = *rd->n_a->n_a;
	cast->n_a = u;
	shl->n_a = cast;
	shl->n_b = dc_bf_new(cx, rd, DN_INT, 0, NULL, NULL, lsh);
	dc_type_int(&shl->n_b->n_type, 4, 1);
	shr->n_a = shl;
	shr->n_type.ty_bits = 0;	/* a value, no longer the field */
	return shr;
}

/*
 * ++bf, bf++, --bf, bf-- on a bitfield: the store of "bf += 1" (or -= 1)
 * into its unit (dc_type_bfstore()), whose value is the new unit; the
 * prefix forms give the new field value read from it, the postfix ones
 * that value minus (plus) one, cut back to the field's width and sign.
 */
static void
dc_type_bfincdec(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *rd = n->n_a, *st = dc_alloc(cx, sizeof (*st)), *v;
	uint32_t w = rd->n_type.ty_bits;
	int inc = n->n_op == DT_INC;

	memset(st, 0, sizeof (*st));
	st->n_kind = DN_ASSIGN;
	st->n_line = n->n_line;
	st->n_col = n->n_col;
	st->n_op = inc ? DT_PLUS : DT_MINUS;
	st->n_a = rd;
	st->n_b = dc_bf_new(cx, n, DN_INT, 0, NULL, NULL, 1);
	dc_type_bfstore(cx, st);
	v = dc_bf_extract(cx, rd, st, rd->n_a->n_b->n_ival);
	if (n->n_ival) {	/* postfix: the old value */
		v = dc_bf_new(cx, n, DN_BINARY, inc ? DT_MINUS : DT_PLUS, v,
		    dc_bf_new(cx, n, DN_INT, 0, NULL, NULL, 1), 0);
		dc_type_int(&v->n_type, 8, 1);
		v = dc_bf_extract(cx, rd, v, 64 - w);
	}
	*n = *v;
}

void
dc_type_assign(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_node *saved;
	const struct dc_type *r;
	struct dc_type t;

	/* x op= e reads x: a global never assigned is undefined */
	if (n->n_op != DT_ASSIGN && n->n_a->n_kind == DN_VAR &&
	    n->n_a->n_scope == DS_BUILTIN &&
	    dc_builtin_var(n->n_a->n_str, &t) < 0 &&
	    dc_inline_lookup(cx, n->n_a->n_str) == NULL &&
	    dc_var_lookup(cx, n->n_a->n_str, DS_GLOBAL) == NULL)
		dc_error(cx, n->n_line, n->n_col, "D_VAR_UNDEF", "operator %s= cannot be applied to %s: it has not been assigned", dc_tok_name(n->n_op), n->n_a->n_str);
	saved = cx->cx_asgvar;
	if (n->n_a->n_kind == DN_VAR && (n->n_a->n_scope == DS_LOCAL ||
	    n->n_a->n_scope == DS_THREAD))
		cx->cx_asgvar = n->n_a;
	dc_type_expr(cx, n->n_b);
	cx->cx_asgvar = saved;
	r = &n->n_b->n_type;
	if (n->n_b->n_kind == DN_CALL && dc_act_is_action(n->n_b->n_str))
		dc_error(cx, n->n_line, n->n_col, "D_ACT_EXPR", "%s( ) is an action and cannot be used inside an expression", n->n_b->n_str);
	if (r->ty_kind == DC_ARRAY && r->ty_elsize != 1)
		dc_type_decay(cx, n);
	r = &n->n_b->n_type;
	if (r->ty_kind == DC_VOID || (r->ty_kind == DC_STRUCT &&
	    !dc_type_struct_assign(n)) || r->ty_kind == DC_ARRAY) {
		if (r->ty_kind == DC_ARRAY && r->ty_elsize == 1) {
			struct dc_node *s = dc_alloc(cx, sizeof (*s));

			memset(s, 0, sizeof (*s));
			s->n_kind = DN_STRINGOF;
			s->n_line = n->n_b->n_line;
			s->n_col = n->n_b->n_col;
			s->n_a = n->n_b;
			dc_type_string(&s->n_type);
			n->n_b = s;
			r = &s->n_type;
		} else {
			dc_error(cx, n->n_line, n->n_col, "D_OP_INCOMPAT", "operator = cannot assign a value of type %s", r->ty_name);
		}
	}
	dc_type_lvalue(cx, n->n_a, r);
	if (n->n_a->n_type.ty_bits != 0) {
		if (!dc_type_is_scalar(r) || r->ty_kind == DC_PTR)
			dc_error(cx, n->n_line, n->n_col, "D_OP_INCOMPAT", "operator %s operands have incompatible types: bitfield %s = %s", n->n_op == DT_ASSIGN ? "=" : dc_tok_name(n->n_op), n->n_a->n_type.ty_name, r->ty_name);
		dc_type_bfstore(cx, n);
		return;
	}
	if (!dc_type_compat(&n->n_a->n_type, r) &&
	    !(n->n_op == DT_ASSIGN && dc_type_strptr(&n->n_a->n_type, r)))
		dc_error(cx, n->n_line, n->n_col, "D_OP_INCOMPAT", "operator %s operands have incompatible types: %s = %s", n->n_op == DT_ASSIGN ? "=" : dc_tok_name(n->n_op), n->n_a->n_type.ty_name, r->ty_name);
	/* dtrace's rules for += and -=: a pointer of known size on the left */
	if ((n->n_op == DT_PLUS || n->n_op == DT_MINUS) &&
	    n->n_a->n_type.ty_kind != DC_STRING && r->ty_kind != DC_STRING &&
	    (n->n_a->n_type.ty_kind != DC_INT || r->ty_kind != DC_INT) &&
	    (n->n_a->n_type.ty_kind != DC_PTR ||
	    dc_type_voidptr(&n->n_a->n_type)))
		dc_error(cx, n->n_line, n->n_col, "D_OP_VFPTR", "operator %s= requires a left-hand scalar operand of known size, not %s (with %s)", dc_tok_name(n->n_op), n->n_a->n_type.ty_name, r->ty_name);
	if (n->n_op != DT_ASSIGN && (n->n_a->n_type.ty_kind == DC_STRING ||
	    r->ty_kind != DC_INT || (n->n_a->n_type.ty_kind == DC_PTR &&
	    n->n_op != DT_PLUS && n->n_op != DT_MINUS)))
		dc_error(cx, n->n_line, n->n_col, "D_OP_INCOMPAT", "operator %s= needs an integer (or pointer += integer), not %s and %s", dc_tok_name(n->n_op), n->n_a->n_type.ty_name, r->ty_name);
	n->n_type = n->n_a->n_type;
}

static void
dc_type_incdec(struct dc_ctx *cx, struct dc_node *n)
{
	dc_type_lvalue(cx, n->n_a, NULL);
	if (n->n_a->n_type.ty_bits != 0) {
		dc_type_bfincdec(cx, n);
		return;
	}
	if (!dc_type_is_scalar(&n->n_a->n_type))
		dc_error(cx, n->n_line, n->n_col, "D_OP_SCALAR", "operator %s requires a scalar operand, not %s", dc_tok_name(n->n_op), n->n_a->n_type.ty_name);
	if (dc_type_voidptr(&n->n_a->n_type))
		dc_error(cx, n->n_line, n->n_col, "D_OP_VFPTR", "operator %s requires an operand of known size, not void *", dc_tok_name(n->n_op));
	n->n_type = n->n_a->n_type;
}

static void
dc_type_deref(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type;

	if (a->ty_kind != DC_PTR)
		dc_error(cx, n->n_line, n->n_col, "D_DEREF_NONPTR", "operator * cannot be applied to a non-pointer of type %s", a->ty_name);
	if (a->ty_btf != 0 || a->ty_sou != NULL) {
		memset(&n->n_type, 0, sizeof (n->n_type));
		n->n_type.ty_kind = DC_STRUCT;
		n->n_type.ty_btf = a->ty_btf;
		n->n_type.ty_sou = a->ty_sou;
		n->n_type.ty_size = a->ty_elsize;
		n->n_type.ty_name = dc_type_pointee_name(cx, a);
		return;
	}
	if (a->ty_elsize == 0)
		dc_error(cx, n->n_line, n->n_col, "D_DEREF_VOID", "operator * cannot dereference a void pointer; cast it first");
	dc_type_int(&n->n_type, a->ty_elsize, a->ty_elsigned);
}

static void
dc_type_addr(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *a = n->n_a;

	if (a->n_type.ty_bits != 0)
		dc_error(cx, n->n_line, n->n_col, "D_ADDROF_BITFIELD", "operator & cannot be applied to a bitfield");
	/* as dtrace: & of a value that is no object (&1, &(x + 1)) */
	if (a->n_kind != DN_MEMBER && a->n_kind != DN_DEREF &&
	    a->n_kind != DN_INDEX && a->n_kind != DN_VAR)
		dc_error(cx, n->n_line, n->n_col, "D_ADDROF_LVAL", "operator & needs an object (an lvalue), not a value");
	if (a->n_kind != DN_MEMBER && a->n_kind != DN_DEREF &&
	    (a->n_kind != DN_INDEX || a->n_var != NULL ||
	    a->n_scope == DS_BUILTIN))
		dc_error(cx, n->n_line, n->n_col, "D_ADDROF_VAR", "operator & can only take the address of kernel memory (a member or *p), not of a D variable");
	dc_type_ptr_to(&n->n_type, &a->n_type);
	if (a->n_type.ty_kind == DC_STRUCT || a->n_type.ty_kind == DC_ARRAY)
		n->n_type.ty_btf = a->n_type.ty_kind == DC_STRUCT ?
		    a->n_type.ty_btf : 0;
}

/* sizeof expr: a constant of type size_t. */
static void
dc_type_sizeof(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *a = n->n_a;

	dc_type_expr(cx, a);
	if (a->n_type.ty_bits != 0)
		dc_error(cx, n->n_line, n->n_col, "D_SIZEOF_BITFIELD", "sizeof cannot be applied to a bitfield");
	n->n_kind = DN_INT;
	n->n_ival = a->n_type.ty_kind == DC_STRING ? dc_strsize(cx) :
	    a->n_type.ty_size;
	if (a->n_kind == DN_STR)	/* "hi": its bytes and NUL, as in C */
		n->n_ival = a->n_len + 1;
	if (n->n_ival == 0)
		dc_error(cx, n->n_line, n->n_col, "D_SIZEOF_TYPE", "sizeof cannot be applied to an operand of unknown size (%s)", a->n_type.ty_name != NULL ? a->n_type.ty_name : "void");
	n->n_a = NULL;
	dc_type_int(&n->n_type, 8, 0);
}

static void
dc_type_call(struct dc_ctx *cx, struct dc_node *n)
{
	if (strcmp(n->n_str, "sizeof") == 0) {
		dc_type_sizeof(cx, n);
		return;
	}
	if (dc_act_is_action(n->n_str)) {
		dc_act_in_expr(cx, n);
		return;
	}
	dc_subr_type(cx, n);
}

void
dc_type_expr(struct dc_ctx *cx, struct dc_node *n)
{
	switch (n->n_kind) {
	case DN_ASSIGN: dc_type_assign(cx, n); return;
	case DN_INCDEC: dc_type_incdec(cx, n); return;
	case DN_INDEX: dc_type_index(cx, n, 0); return;
	case DN_CALL: dc_type_call(cx, n); return;
	case DN_XLSOU:
		return;		/* typed when built */
	case DN_XLATE:
		if (n->n_type.ty_kind == DC_STRUCT) {	/* whole struct */
			struct dc_node *x = dc_alloc(cx, sizeof (*x));

			*x = *n;
			dc_decl_xlate_sou(cx, n, x);
			return;
		}
		dc_error(cx, n->n_line, n->n_col, "D_CG_DYN", "expression cannot evaluate to result of dynamic type: xlate( ) needs a member, as in xlate <T> (e).m or xlate <T *> (e)->m");
	case DN_MEMBER:
		if (dc_decl_xlate_of(cx, n->n_a) != NULL) {
			dc_decl_xlate(cx, n);
			return;
		}
		break;
	case DN_DEREF: {
		struct dc_node *x = dc_decl_xlate_of(cx, n->n_a);

		if (x != NULL && x->n_type.ty_kind == DC_PTR) {
			dc_decl_xlate_sou(cx, n, x);	/* *xlate <T *> e */
			return;
		}
		break;
	}
	case DN_ADDR:
		if (n->n_a->n_kind == DN_AGG)
			dc_error(cx, n->n_line, n->n_col, "D_ADDROF_VAR", "operator & cannot take the address of aggregation @%s", n->n_a->n_str);
		break;
	case DN_AGG:
		dc_type_aggref(cx, n);
	default:
		break;
	}
	if (n->n_a != NULL)
		dc_type_expr(cx, n->n_a);
	if (n->n_b != NULL)
		dc_type_expr(cx, n->n_b);
	if (n->n_c != NULL)
		dc_type_expr(cx, n->n_c);
	switch (n->n_kind) {
	case DN_STR: dc_type_string(&n->n_type); break;
	case DN_VAR: dc_type_var(cx, n); break;
	case DN_UNARY: dc_type_unary(cx, n); break;
	case DN_BINARY: dc_type_binary(cx, n); break;
	case DN_COND: dc_type_cond(cx, n); break;
	case DN_CAST: dc_type_cast(cx, n); break;
	case DN_MEMBER:
		if (!dc_decl_member(cx, n))
			dc_btf_member(cx, n);
		break;
	case DN_STRINGOF: dc_type_stringof(cx, n); break;
	case DN_DEREF: dc_type_deref(cx, n); break;
	case DN_ADDR: dc_type_addr(cx, n); break;
	default: break;
	}
}
