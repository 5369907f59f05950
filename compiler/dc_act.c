/*
 * dc_act.c -- D statements to ECB actions (reference 3.3).
 *
 * dc_act_statement() is called by the parser (dc_parse.c) for every
 * statement of a clause body and appends the actions it compiles to:
 *
 *	trace(e)              DIFEXPR returning e
 *	print(e)              DIFEXPR returning e, its format the type name
 *	                      as written (reference 1.6); the consumer
 *	                      prints "<type> <value>"; for a struct, union,
 *	                      enum or array the format is its type layout
 *	                      (common/dof_ptype.h, made by dc_ptype.c)
 *	printf/system/freopen one printf-like action per argument
 *	printa([fmt,] @a...)  PRINTA per aggregation, object = variable id
 *	tracemem(a, n [, d])  [TRACEMEM_DYNSIZE d] TRACEMEM a, arg n
 *	stack/ustack/jstack   STACK/USTACK/JSTACK, arg = frames (| size << 32)
 *	sym/func/mod/usym/... SYM/MOD/USYM/UMOD/UADDR returning the address
 *	exit(e)               EXIT, 4-byte status
 *	speculate/commit/discard(id)
 *	clear/normalize/denormalize/trunc/setopt/ftruncate
 *	                      LIBACT with common/dof_libact.h codes
 *	raise/stop/panic/chill/breakpoint  destructive (need -w)
 *	@a[k...] = f(x...)    variable-id DIFEXPR, key DIFEXPRs, optional
 *	                      void increment DIFEXPR, then DTRACEAGG_f with
 *	                      ntuple = number of those actions
 *	anything else         DIFEXPR of void type (records nothing)
 *
 * It also enforces the ordering rules of speculations inside one clause
 * (reference 3.3: D_SPEC_*, D_COMM_*, D_AGG_COMM/SPEC, D_DREC_COMM,
 * D_ACT_SPEC, D_EXIT_SPEC) and the parameter rules of lquantize and
 * llquantize (reference 3.4).
 */
#include <string.h>
#include "dc_impl.h"
#include "dof_libact.h"
#include "agg.h"

#define DC_CS_SPEC	0x1	/* speculate() seen */
#define DC_CS_COMMIT	0x2	/* commit() seen */
#define DC_CS_DREC	0x4	/* a data-recording action seen */

enum { AK_DREC, AK_DESTR, AK_SPEC, AK_COMMIT, AK_DISCARD, AK_EXIT, AK_LIB,
	AK_AGG };

typedef void dc_actfn(struct dc_ctx *, struct dc_clause *, struct dc_node *);

struct dc_actdef {
	const char	*ad_name;
	uint32_t	ad_kind;	/* DTRACEACT_* */
	int		ad_class;	/* AK_* for the ordering rules */
	dc_actfn	*ad_fn;
	int		ad_min;		/* arguments, for use in expressions */
	int		ad_max;
};

static const struct dc_actdef *dc_act_find(const char *name);

/* ---- helpers ---- */

static void
dc_nargs_tag(struct dc_ctx *cx, const struct dc_node *call, int min, int max,
    const char *tag)
{
	if (call->n_nargs >= min && call->n_nargs <= max)
		return;
	dc_error(cx, call->n_line, call->n_col, tag, "%s( ) prototype mismatch: %d arg%s passed, %s%d expected", call->n_str, call->n_nargs, call->n_nargs == 1 ? "" : "s", min == max ? "" : call->n_nargs < min ? "at least " : "at most ", call->n_nargs < min ? min : max);
}

static void
dc_nargs(struct dc_ctx *cx, const struct dc_node *call, int min, int max)
{
	dc_nargs_tag(cx, call, min, max, "D_PROTO_LEN");
}

/*
 * Type argument i of a value-taking action.  A char array (a kernel member
 * such as module->name) is taken as the string it holds, as if written
 * stringof(...).
 */
static struct dc_node *
dc_value_arg(struct dc_ctx *cx, struct dc_node *call, int i)
{
	struct dc_node *a = call->n_args[i], *s;

	dc_type_expr(cx, a);
	if (a->n_type.ty_kind == DC_ARRAY && a->n_type.ty_elsize == 1) {
		s = dc_alloc(cx, sizeof (*s));
		memset(s, 0, sizeof (*s));
		s->n_kind = DN_STRINGOF;
		s->n_line = a->n_line;
		s->n_col = a->n_col;
		s->n_a = a;
		dc_type_expr(cx, s);
		call->n_args[i] = a = s;
	}
	if (call->n_kind == DN_INDEX && !dc_type_is_scalar(&a->n_type) &&
	    a->n_type.ty_kind != DC_STRING)
		dc_error(cx, a->n_line, a->n_col, "D_KEY_TYPE", "@%s[ ] key #%d of type %s is not a scalar or string", call->n_a->n_str, i + 1, a->n_type.ty_name);
	if (!dc_type_is_scalar(&a->n_type) && a->n_type.ty_kind != DC_STRING)
		dc_error(cx, a->n_line, a->n_col, strcmp(call->n_str, "printf") == 0 && i > 0 ? "D_PRINTF_ARG_TYPE" : "D_PROTO_ARG", "%s( ) argument #%d is incompatible with prototype: %s is not a scalar or string (use stringof() for char arrays)", call->n_str, i + 1, a->n_type.ty_name);
	return a;
}

static struct dc_node *
dc_scalar_arg(struct dc_ctx *cx, struct dc_node *call, int i)
{
	struct dc_node *a = dc_value_arg(cx, call, i);

	if (!dc_type_is_scalar(&a->n_type))
		dc_error(cx, a->n_line, a->n_col, "D_PROTO_ARG", "%s( ) argument #%d is incompatible with prototype: %s is not an integer or pointer", call->n_str, i + 1, a->n_type.ty_name);
	return a;
}

/* Fold an integer constant expression; 0 when it is not one. */
int
dc_const(const struct dc_node *n, int64_t *v)
{
	int64_t a, b;

	switch (n->n_kind) {
	case DN_INT:
		*v = (int64_t)n->n_ival;
		return 1;
	case DN_UNARY:
		if (!dc_const(n->n_a, &a))
			return 0;
		*v = n->n_op == DT_MINUS ? (int64_t)(0 - (uint64_t)a) :
		    n->n_op == DT_TILDE ? ~a : n->n_op == DT_NOT ? !a : a;
		return 1;
	case DN_CAST:
		return dc_const(n->n_a, v);
	case DN_BINARY:
		if (!dc_const(n->n_a, &a) || !dc_const(n->n_b, &b))
			return 0;
		switch (n->n_op) {
		case DT_PLUS:
			*v = (int64_t)((uint64_t)a + (uint64_t)b);
			return 1;
		case DT_MINUS:
			*v = (int64_t)((uint64_t)a - (uint64_t)b);
			return 1;
		case DT_STAR:
			*v = (int64_t)((uint64_t)a * (uint64_t)b);
			return 1;
		case DT_SHL:
			*v = (int64_t)((uint64_t)a << (b & 63));
			return 1;
		case DT_SHR:	/* arithmetic for signed types, as in C */
			*v = n->n_type.ty_signed && a < 0 ?
			    ~(int64_t)(~(uint64_t)a >> (b & 63)) :
			    (int64_t)((uint64_t)a >> (b & 63));
			return 1;
		case DT_SLASH:
		case DT_PERCENT:
			if (b == 0 || (b == -1 && a == INT64_MIN))
				return 0;
			if (n->n_type.ty_signed)
				*v = n->n_op == DT_SLASH ? a / b : a % b;
			else
				*v = (int64_t)(n->n_op == DT_SLASH ?
				    (uint64_t)a / (uint64_t)b :
				    (uint64_t)a % (uint64_t)b);
			return 1;
		case DT_BAND:
			*v = a & b;
			return 1;
		case DT_BOR:
			*v = a | b;
			return 1;
		case DT_XOR:
			*v = a ^ b;
			return 1;
		default:
			return 0;
		}
	default:
		return 0;
	}
}

/* Argument i must be an integer constant; tag names the parameter. */
static int64_t
dc_const_arg(struct dc_ctx *cx, struct dc_node *call, int i, const char *tag,
    const char *what)
{
	struct dc_node *a = call->n_args[i];
	int64_t v;

	dc_type_expr(cx, a);
	if (a->n_type.ty_kind != DC_INT || !dc_const(a, &v))
		dc_error(cx, a->n_line, a->n_col, tag, "%s( ) argument #%d (%s) must be an integer constant", call->n_str, i + 1, what);
	return v;
}

/* The tag dtrace uses for a non-aggregation where one is needed. */
static const char *
dc_aggarg_tag(const char *fn)
{
	if (strcmp(fn, "printa") == 0)
		return "D_PRINTA_AGGARG";
	if (strcmp(fn, "clear") == 0)
		return "D_CLEAR_AGGARG";
	if (strcmp(fn, "trunc") == 0)
		return "D_TRUNC_AGGARG";
	return "D_NORMALIZE_AGGARG";
}

static struct dc_agg *
dc_agg_arg(struct dc_ctx *cx, struct dc_node *call, int i)
{
	struct dc_node *a = call->n_args[i];
	struct dc_agg *ag;

	if (a->n_kind != DN_AGG)
		dc_error(cx, a->n_line, a->n_col, dc_aggarg_tag(call->n_str), "%s( ) argument #%d is incompatible with prototype: expected an aggregation", call->n_str, i + 1);
	for (ag = cx->cx_aggs; ag != NULL; ag = ag->ag_next)
		if (strcmp(ag->ag_name, a->n_str) == 0 && ag->ag_func != 0)
			return ag;
	dc_error(cx, a->n_line, a->n_col, "D_AGG_UNDEF", "%s( ) argument #%d: aggregation @%s is not defined", call->n_str, i + 1, a->n_str);
}

static void
dc_act(struct dc_ctx *cx, struct dc_clause *cl, uint32_t kind,
    struct dc_difo *df, uint64_t arg)
{
	dc_add_action(cx, cl, kind, NULL, df);
	cl->cl_acts[cl->cl_nacts - 1].ac_arg = arg;
}

static uint64_t
dc_optval(const struct dc_ctx *cx, uint32_t opt, uint64_t dflt)
{
	return cx->cx_optv[opt] == DTRACEOPT_UNSET ? dflt : cx->cx_optv[opt];
}

/* ---- recording actions ---- */

static void
dc_a_trace(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	dc_nargs(cx, call, 1, 1);
	dc_type_expr(cx, call->n_args[0]);
	if (call->n_args[0]->n_type.ty_kind == DC_VOID)
		dc_error(cx, call->n_args[0]->n_line, call->n_args[0]->n_col, "D_TRACE_VOID", "trace( ) may not be applied to a void expression");
	if (call->n_args[0]->n_type.ty_kind == DC_STRUCT &&
	    call->n_args[0]->n_type.ty_size != 0) {
		/* a struct by value: its bytes, as dtrace traces them */
		dc_act(cx, cl, DTRACEACT_DIFEXPR, dc_cg_object(cx,
		    call->n_args[0], -1), 0);
		return;
	}
	dc_value_arg(cx, call, 0);
	dc_act(cx, cl, DTRACEACT_DIFEXPR, dc_cg_object(cx, call->n_args[0],
	    -1), 0);
}

static void
dc_a_print(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	struct dc_difo *df;
	const char *layout;
	uint32_t recsize;
	struct dc_node *a;

	dc_nargs(cx, call, 1, 1);
	a = call->n_args[0];
	if (a->n_kind == DN_AGG)
		dc_error(cx, a->n_line, a->n_col, "D_PRINT_AGG", "print( ) may not be applied to an aggregation -- did you mean printa()?");
	dc_type_expr(cx, a);
	if (a->n_type.ty_kind == DC_VOID)
		dc_error(cx, a->n_line, a->n_col, "D_PRINT_VOID", "print( ) may not be applied to a void expression");
	if ((a->n_type.ty_kind == DC_STRUCT && (a->n_type.ty_sou != NULL ||
	    a->n_type.ty_btf != 0)) ||
	    (a->n_type.ty_kind == DC_ARRAY && (a->n_type.ty_nelems != 0 ||
	    a->n_type.ty_btf != 0)) ||
	    (a->n_type.ty_kind == DC_INT && a->n_type.ty_enum != NULL &&
	    a->n_type.ty_size == 4 && a->n_type.ty_bits == 0)) {
		/* the object's bytes, at most DOF_PT_MAXREC (dc_ptype.c) */
		layout = dc_ptype_layout(cx, &a->n_type, a->n_line, a->n_col,
		    &recsize);
		df = dc_cg_object(cx, a, -1);
		df->df_rtype.dtdt_size = recsize;
		dc_add_action(cx, cl, DTRACEACT_DIFEXPR, layout, df);
		return;
	}
	a = dc_value_arg(cx, call, 0);
	dc_add_action(cx, cl, DTRACEACT_DIFEXPR, a->n_type.ty_name != NULL &&
	    a->n_type.ty_name[0] != '\0' ? a->n_type.ty_name : NULL,
	    dc_cg_object(cx, a, -1));
}

/*
 * printf(fmt, a, b), system(...), freopen(...): one action per argument,
 * every one carrying the format (the loader's rule A3, dof_load.c, wants
 * it on each printf-like action).  With no arguments the one action's
 * object is "ret %r0" typed as an 8-byte integer, so a record exists for
 * the consumer to print the format from.
 */
/*
 * freopen("") restores the original output.  Formats must not be empty
 * (the loader's rule, as in DTrace), so "" travels as the sentinel ".",
 * which names no file one could open for writing; the consumer restores
 * standard output when it formats ".".  "." itself is rejected.
 */
static void
dc_freopen_fmt(struct dc_ctx *cx, struct dc_node *f)
{
	if (strcmp(f->n_str, ".") == 0)
		dc_error(cx, f->n_line, f->n_col, "D_FREOPEN_INVALID", "freopen( ) argument #1 cannot be \".\"");
	if (f->n_len == 0) {
		f->n_str = ".";
		f->n_len = 1;
	}
}

static void
dc_a_printf(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	uint32_t kind = dc_act_find(call->n_str)->ad_kind;
	struct dc_node *f;
	int i;

	if (call->n_nargs < 1)
		dc_error(cx, call->n_line, call->n_col, "D_PROTO_LEN", "%s( ) prototype mismatch: 0 args passed, at least 1 expected", call->n_str);
	f = call->n_args[0];
	if (f->n_kind != DN_STR)
		dc_error(cx, f->n_line, f->n_col, "D_PRINTF_ARG_FMT", "%s( ) argument #1 must be a string literal format", call->n_str);
	if (kind == DTRACEACT_FREOPEN)
		dc_freopen_fmt(cx, f);
	if (f->n_len != strlen(f->n_str) || f->n_len == 0)
		dc_error(cx, f->n_line, f->n_col, "D_PRINTF_FMT_EMPTY", "%s( ) format string is empty or contains a NUL byte", call->n_str);
	for (i = 1; i < call->n_nargs; i++)
		if (call->n_args[i]->n_kind != DN_AGG)	/* dc_printf_check */
			dc_value_arg(cx, call, i);
	dc_printf_check(cx, call);
	if (call->n_nargs == 1)
		dc_add_action(cx, cl, kind, f->n_str,
		    dc_cg_object(cx, NULL, 8));
	for (i = 1; i < call->n_nargs; i++)
		dc_add_action(cx, cl, kind, call->n_args[0]->n_str,
		    dc_cg_object(cx, call->n_args[i], -1));
}

static void
dc_a_printa(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	const char *fmt = NULL;
	int i = 0;

	struct dc_agg *first = NULL;
	int k;

	if (call->n_nargs < 1)
		dc_error(cx, call->n_line, call->n_col, "D_PRINTA_PROTO", "printa( ) prototype mismatch: 0 args passed, at least 1 expected");
	if (call->n_args[0]->n_kind == DN_STR) {
		fmt = call->n_args[0]->n_str;
		if (*fmt == '\0' || strlen(fmt) != call->n_args[0]->n_len)
			dc_error(cx, call->n_args[0]->n_line, call->n_args[0]->n_col, "D_PRINTF_FMT_EMPTY", "printa( ) format string is empty or contains a NUL byte");
		i = 1;
		if (call->n_nargs < 2)
			dc_error(cx, call->n_line, call->n_col, "D_PRINTA_PROTO", "printa( ) prototype mismatch: 1 arg passed, 2 expected (a format, then an aggregation)");
	}
	for (; i < call->n_nargs; i++) {
		struct dc_agg *ag = dc_agg_arg(cx, call, i);

		/* the aggregations of one printa() share their key signature */
		if (first == NULL && fmt != NULL)
			dc_printa_check(cx, call->n_args[0], ag->ag_keys,
			    ag->ag_nkeys);
		if (first == NULL)
			first = ag;
		else if (ag->ag_nkeys != first->ag_nkeys)
			dc_error(cx, call->n_args[i]->n_line, call->n_args[i]->n_col, "D_PRINTA_AGGKEY", "printa( ): @%s and @%s do not have matching key signatures: @%s has %d key%s, @%s has %d", first->ag_name, ag->ag_name, first->ag_name, first->ag_nkeys, first->ag_nkeys == 1 ? "" : "s", ag->ag_name, ag->ag_nkeys);
		for (k = 0; first != ag && k < ag->ag_nkeys; k++)
			if (first->ag_keycls[k] != ag->ag_keycls[k] ||
			    !dc_type_compat(&first->ag_keys[k],
			    &ag->ag_keys[k]))
				dc_error(cx, call->n_args[i]->n_line, call->n_args[i]->n_col, "D_PRINTA_AGGPROTO", "printa( ): @%s[ ] key #%d is incompatible with @%s: %s is not %s", ag->ag_name, k + 1, first->ag_name, ag->ag_keys[k].ty_name, first->ag_keys[k].ty_name);

		dc_add_action(cx, cl, DTRACEACT_PRINTA, fmt,
		    dc_cg_const(cx, ag->ag_id));
		fmt = NULL;
	}
}

static void
dc_a_exit(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	dc_nargs(cx, call, 1, 1);
	dc_type_expr(cx, call->n_args[0]);
	if (call->n_args[0]->n_type.ty_kind != DC_INT)
		dc_error(cx, call->n_args[0]->n_line, call->n_args[0]->n_col, "D_PROTO_ARG", "exit( ) argument #1 is incompatible with prototype: %s is not an integer", call->n_args[0]->n_type.ty_name);
	dc_act(cx, cl, DTRACEACT_EXIT, dc_cg_object(cx, call->n_args[0], 4),
	    0);
}

static void
dc_a_tracemem(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	int64_t size;

	dc_nargs(cx, call, 2, 3);
	dc_scalar_arg(cx, call, 0);
	/* the prototype (an integer size) before the constant rule */
	dc_type_expr(cx, call->n_args[1]);
	if (call->n_args[1]->n_type.ty_kind != DC_INT)
		dc_error(cx, call->n_args[1]->n_line, call->n_args[1]->n_col, "D_PROTO_ARG", "tracemem( ) argument #2 is incompatible with prototype: expected an integer size, argument is %s", call->n_args[1]->n_type.ty_name);
	size = dc_const_arg(cx, call, 1, "D_TRACEMEM_SIZE", "size");
	if (size <= 0 || size > (int64_t)DOF_MAX_DIFO_SIZE)
		dc_error(cx, call->n_args[1]->n_line, call->n_args[1]->n_col, "D_TRACEMEM_SIZE", "tracemem( ) size %lld must be 1..%u", (long long)size, DOF_MAX_DIFO_SIZE);
	if (call->n_nargs == 3) {
		dc_scalar_arg(cx, call, 2);
		dc_act(cx, cl, DTRACEACT_TRACEMEM_DYNSIZE,
		    dc_cg_object(cx, call->n_args[2], 8), 0);
	}
	dc_act(cx, cl, DTRACEACT_TRACEMEM, dc_cg_object(cx, call->n_args[0],
	    8), (uint64_t)size);
}

/*
 * Stack-size argument i (default dflt when absent): a positive constant,
 * else dtrace's tag for that argument.  min is 0 for ustack()'s string
 * table size, which may be 0.
 */
static uint64_t
dc_frames(struct dc_ctx *cx, struct dc_node *call, int i, uint64_t dflt,
    const char *tag, int64_t min)
{
	int64_t v;

	if (call->n_nargs <= i)
		return dflt;
	v = dc_const_arg(cx, call, i, tag, i == 0 ? "frames" : "string size");
	if (v < min || v > 0x7fffffff)
		dc_error(cx, call->n_args[i]->n_line, call->n_args[i]->n_col, tag, "%s( ) argument #%d: %lld is not a %s", call->n_str, i + 1, (long long)v, min > 0 ? "positive count" : "size of 0 or more");
	return (uint64_t)v;
}

/*
 * stack([frames]), ustack/jstack([frames [, strsize]]): as dtrace, the
 * arguments are checked in order before their number (stack(1, 2) is
 * D_STACK_PROTO, ustack(1, 2, "x") D_USTACK_PROTO).
 */
static void
dc_a_stack(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	uint32_t kind = dc_act_find(call->n_str)->ad_kind;
	uint64_t n, sz = 0;

	if (kind == DTRACEACT_STACK) {
		dc_nargs_tag(cx, call, 0, 1, "D_STACK_PROTO");
		n = dc_frames(cx, call, 0, dc_optval(cx,
		    DTRACEOPT_STACKFRAMES, 20), "D_STACK_SIZE", 1);
		dc_act(cx, cl, kind, NULL, n);
		return;
	}
	if (kind == DTRACEACT_JSTACK) {
		n = dc_frames(cx, call, 0, dc_optval(cx,
		    DTRACEOPT_JSTACKFRAMES, 50), "D_USTACK_FRAMES", 1);
		sz = dc_frames(cx, call, 1, dc_optval(cx,
		    DTRACEOPT_JSTACKSTRSIZE, 512), "D_USTACK_STRSIZE", 0);
	} else {
		n = dc_frames(cx, call, 0, dc_optval(cx,
		    DTRACEOPT_USTACKFRAMES, 20), "D_USTACK_FRAMES", 1);
		sz = dc_frames(cx, call, 1, 0, "D_USTACK_STRSIZE", 0);
	}
	dc_nargs_tag(cx, call, 0, 2, "D_USTACK_PROTO");
	dc_act(cx, cl, kind, NULL, n | sz << 32);
}

/* speculate, commit, discard, raise, chill: one integer argument. */
static void
dc_a_int1(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	dc_nargs(cx, call, 1, 1);
	dc_scalar_arg(cx, call, 0);
	dc_act(cx, cl, dc_act_find(call->n_str)->ad_kind,
	    dc_cg_object(cx, call->n_args[0], 8), 0);
}

/*
 * sym, func, mod, usym, ufunc, umod, uaddr: the address is recorded, just
 * as one integer argument is; a function of its own because aggregation
 * keys recognise address actions by it (dc_agg_key_action).
 */
static void
dc_a_addr(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	dc_a_int1(cx, cl, call);
}

/* stop, panic, breakpoint: no argument, nothing recorded. */
static void
dc_a_none(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	dc_nargs(cx, call, 0, 0);
	dc_act(cx, cl, dc_act_find(call->n_str)->ad_kind, NULL, 0);
}

/* ---- consumer-side (LIBACT) actions ---- */

static void
dc_a_aggop(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	const char *s = call->n_str;
	uint64_t code = strcmp(s, "clear") == 0 ? KDT_LIBACT_CLEAR :
	    strcmp(s, "denormalize") == 0 ? KDT_LIBACT_DENORMALIZE :
	    strcmp(s, "normalize") == 0 ? KDT_LIBACT_NORMALIZE :
	    KDT_LIBACT_TRUNC;
	struct dc_agg *ag;

	/* dtrace has a tag of its own for each of these prototypes */
	if (code == KDT_LIBACT_NORMALIZE)
		dc_nargs_tag(cx, call, 2, 2, "D_NORMALIZE_PROTO");
	else if (code == KDT_LIBACT_TRUNC)
		dc_nargs_tag(cx, call, 1, 2, "D_TRUNC_PROTO");
	else if (code == KDT_LIBACT_CLEAR)
		dc_nargs_tag(cx, call, 1, 1, "D_CLEAR_PROTO");
	else
		dc_nargs_tag(cx, call, 1, 1, "D_NORMALIZE_PROTO");
	ag = dc_agg_arg(cx, call, 0);
	dc_act(cx, cl, DTRACEACT_LIBACT, dc_cg_const(cx, ag->ag_id), code);
	if (call->n_nargs == 2) {
		if (call->n_args[1]->n_kind != DN_AGG)
			dc_type_expr(cx, call->n_args[1]);
		if (call->n_args[1]->n_kind == DN_AGG ||
		    !dc_type_is_scalar(&call->n_args[1]->n_type))
			dc_error(cx, call->n_args[1]->n_line, call->n_args[1]->n_col, code == KDT_LIBACT_TRUNC ? "D_TRUNC_SCALAR" : "D_NORMALIZE_SCALAR", "%s( ) argument #2 must be of scalar type, not %s", s, call->n_args[1]->n_type.ty_name);
		dc_act(cx, cl, DTRACEACT_LIBACT,
		    dc_cg_object(cx, call->n_args[1], 8), code);
	} else if (code == KDT_LIBACT_TRUNC) {
		dc_act(cx, cl, DTRACEACT_LIBACT, dc_cg_const(cx, 0), code);
	}
}

static void
dc_a_setopt(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	struct dc_node empty;
	int i;

	dc_nargs(cx, call, 1, 2);
	for (i = 0; i < call->n_nargs; i++) {
		dc_type_expr(cx, call->n_args[i]);
		if (call->n_args[i]->n_type.ty_kind != DC_STRING)
			dc_error(cx, call->n_args[i]->n_line, call->n_args[i]->n_col, "D_PROTO_ARG", "setopt( ) argument #%d is incompatible with prototype: %s is not a string", i + 1, call->n_args[i]->n_type.ty_name);
		dc_act(cx, cl, DTRACEACT_LIBACT,
		    dc_cg_object(cx, call->n_args[i], -1), KDT_LIBACT_SETOPT);
	}
	if (call->n_nargs == 1) {
		memset(&empty, 0, sizeof (empty));
		empty.n_kind = DN_STR;
		empty.n_str = "";
		dc_type_string(&empty.n_type);
		dc_act(cx, cl, DTRACEACT_LIBACT, dc_cg_object(cx, &empty, -1),
		    KDT_LIBACT_SETOPT);
	}
}

static void
dc_a_ftruncate(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *call)
{
	dc_nargs(cx, call, 0, 0);
	dc_act(cx, cl, DTRACEACT_LIBACT, dc_cg_const(cx, 0),
	    KDT_LIBACT_FTRUNCATE);
}

/* ---- aggregations ---- */

struct dc_aggfn {
	const char	*af_name;
	uint32_t	af_kind;
	int		af_min;		/* arguments */
	int		af_max;
};

static const struct dc_aggfn dc_aggfns[] = {
	{ "count", DTRACEAGG_COUNT, 0, 0 }, { "sum", DTRACEAGG_SUM, 1, 1 },
	{ "min", DTRACEAGG_MIN, 1, 1 }, { "max", DTRACEAGG_MAX, 1, 1 },
	{ "avg", DTRACEAGG_AVG, 1, 1 }, { "stddev", DTRACEAGG_STDDEV, 1, 1 },
	{ "quantize", DTRACEAGG_QUANTIZE, 1, 2 },
	{ "lquantize", DTRACEAGG_LQUANTIZE, 3, 5 },
	{ "llquantize", DTRACEAGG_LLQUANTIZE, 5, 6 },
};

static const struct dc_aggfn *
dc_aggfn_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof (dc_aggfns) / sizeof (dc_aggfns[0]); i++)
		if (strcmp(dc_aggfns[i].af_name, name) == 0)
			return &dc_aggfns[i];
	return NULL;
}

/* lquantize parameters (reference 3.4): step << 48 | levels << 32 | base */
static uint64_t
dc_lquant(struct dc_ctx *cx, struct dc_node *call)
{
	int64_t base, limit, step = 1, levels;
	struct dc_node *at = call->n_args[2];

	base = dc_const_arg(cx, call, 1, "D_LQUANT_BASETYPE", "base");
	if (base < INT32_MIN || base > INT32_MAX)
		dc_error(cx, call->n_args[1]->n_line, call->n_args[1]->n_col, "D_LQUANT_BASEVAL", "lquantize( ) base (argument #2) %lld must be a 32-bit value", (long long)base);
	limit = dc_const_arg(cx, call, 2, "D_LQUANT_LIMTYPE", "limit");
	if (limit < INT32_MIN || limit > INT32_MAX)
		dc_error(cx, at->n_line, at->n_col, "D_LQUANT_LIMVAL", "lquantize( ) limit (argument #3) %lld must be a 32-bit value", (long long)limit);
	if (limit <= base)
		dc_error(cx, at->n_line, at->n_col, "D_LQUANT_MISMATCH", "lquantize( ) limit (argument #3) %lld must be greater than base (argument #2) %lld", (long long)limit, (long long)base);
	if (call->n_nargs >= 4) {
		at = call->n_args[3];
		step = dc_const_arg(cx, call, 3, "D_LQUANT_STEPTYPE", "step");
		if (step < 0)
			dc_error(cx, at->n_line, at->n_col, "D_LQUANT_STEPTYPE", "lquantize( ) step (argument #4) %lld must be a positive integer constant", (long long)step);
		if (step == 0 || step > UINT16_MAX)
			dc_error(cx, at->n_line, at->n_col, "D_LQUANT_STEPVAL", "lquantize( ) step (argument #4) %lld must be 1..65535", (long long)step);
	}
	levels = (limit - base) / step;
	if (levels == 0)
		dc_error(cx, at->n_line, at->n_col, "D_LQUANT_STEPLARGE", "lquantize( ) step %lld is too large: (limit - base) / step must be at least 1", (long long)step);
	if (levels > UINT16_MAX)
		dc_error(cx, at->n_line, at->n_col, "D_LQUANT_STEPSMALL", "lquantize( ) step %lld is too small: (limit - base) / step is %lld, limit 65535", (long long)step, (long long)levels);
	return (uint64_t)step << 48 | (uint64_t)levels << 32 |
	    (uint32_t)base;
}

static int64_t
dc_llq_arg(struct dc_ctx *cx, struct dc_node *call, int i, const char *what,
    const char *ttag, const char *vtag)
{
	int64_t v = dc_const_arg(cx, call, i, ttag, what);

	if (v < 0 || v > UINT16_MAX)
		dc_error(cx, call->n_args[i]->n_line, call->n_args[i]->n_col, vtag, "llquantize( ) %s (argument #%d) %lld must be a 16-bit unsigned value", what, i + 1, (long long)v);
	return v;
}

/* Is there a power of "factor" (fitting in 64 bits) divisible by n? */
static int
dc_llq_power(uint64_t factor, uint64_t n)
{
	uint64_t p = factor;

	for (;;) {
		if (p % n == 0)
			return 1;
		if (p > UINT64_MAX / factor)
			return 0;
		p *= factor;
	}
}

/* llquantize parameters: factor << 48 | low << 32 | high << 16 | nsteps */
static uint64_t
dc_llquant(struct dc_ctx *cx, struct dc_node *call)
{
	int64_t f, lo, hi, ns, i;
	const struct dc_node *n = call;
	uint64_t p = 1, arg;

	f = dc_llq_arg(cx, call, 1, "factor", "D_LLQUANT_FACTORTYPE", "D_LLQUANT_FACTORVAL");
	lo = dc_llq_arg(cx, call, 2, "low", "D_LLQUANT_LOWTYPE", "D_LLQUANT_LOWVAL");
	hi = dc_llq_arg(cx, call, 3, "high", "D_LLQUANT_HIGHTYPE", "D_LLQUANT_HIGHVAL");
	ns = dc_llq_arg(cx, call, 4, "steps", "D_LLQUANT_NSTEPTYPE", "D_LLQUANT_NSTEPVAL");
	if (f < 2)
		dc_error(cx, n->n_line, n->n_col, "D_LLQUANT_FACTORSMALL", "llquantize( ) factor (argument #2) %lld must be at least 2", (long long)f);
	if (lo >= hi)
		dc_error(cx, n->n_line, n->n_col, "D_LLQUANT_MAGRANGE", "llquantize( ) high magnitude (argument #4) %lld must be greater than low magnitude (argument #3) %lld", (long long)hi, (long long)lo);
	if (ns < f)
		dc_error(cx, n->n_line, n->n_col, "D_LLQUANT_FACTORNSTEPS", "llquantize( ) steps (argument #5) %lld must be at least the factor %lld", (long long)ns, (long long)f);
	if (ns % f != 0 || !dc_llq_power((uint64_t)f, (uint64_t)ns))
		dc_error(cx, n->n_line, n->n_col, "D_LLQUANT_FACTOREVEN", "llquantize( ) factor %lld must evenly divide steps %lld and some power of the factor must be divisible by the steps", (long long)f, (long long)ns);
	for (i = 0; i <= hi; i++) {
		if (p > UINT64_MAX / (uint64_t)f)
			dc_error(cx, n->n_line, n->n_col, "D_LLQUANT_MAGTOOBIG", "llquantize( ) factor %lld raised to the high magnitude %lld overflows 64 bits", (long long)f, (long long)hi);
		p *= (uint64_t)f;
	}
	arg = (uint64_t)f << 48 | (uint64_t)lo << 32 | (uint64_t)hi << 16 |
	    (uint64_t)ns;
	/*
	 * The loader (common/agg.c) also needs every magnitude from low to
	 * high cut into equal integer widths; without this check
	 * llquantize(x, 10, 0, 2, 80) compiled to DOF that dof_load()
	 * rejects (found by tests/fuzz/fuzz_dparse, bad-llquantize-steps).
	 */
	if (agg_data_size(DTRACEAGG_LLQUANTIZE, arg) == 0)
		dc_error(cx, n->n_line, n->n_col, "D_LLQUANT_FACTOREVEN", "llquantize( ) steps %lld do not divide every magnitude %lld..%lld of factor %lld into equal integer widths", (long long)ns, (long long)lo, (long long)hi, (long long)f);
	return arg;
}

/* The lquantize parameter words' base, limit and step. */
static void
dc_lq_split(uint64_t arg, int64_t *base, int64_t *limit, uint64_t *step)
{
	*base = (int32_t)(uint32_t)arg;
	*step = arg >> 48;
	*limit = *base + (int64_t)((arg >> 32) & 0xffff) * (int64_t)*step;
}

static void
dc_agg_param_match(struct dc_ctx *cx, const struct dc_node *rhs,
    const struct dc_agg *ag, uint64_t arg)
{
	static const char *const llq[4] = { "D_LLQUANT_NSTEPMATCH",
	    "D_LLQUANT_HIGHMATCH", "D_LLQUANT_LOWMATCH",
	    "D_LLQUANT_FACTORMATCH" };
	int64_t b0, b1, l0, l1;
	uint64_t s0, s1;
	int i;

	if (arg == ag->ag_arg)
		return;
	if (ag->ag_func == DTRACEAGG_LQUANTIZE) {
		dc_lq_split(ag->ag_arg, &b0, &l0, &s0);
		dc_lq_split(arg, &b1, &l1, &s1);
		dc_error(cx, rhs->n_line, rhs->n_col, b0 != b1 ? "D_LQUANT_MATCHBASE" : l0 != l1 ? "D_LQUANT_MATCHLIM" : "D_LQUANT_MATCHSTEP", "lquantize( ) parameters of @%s (base %lld, limit %lld, step %llu) differ from its previous use on line %d (base %lld, limit %lld, step %llu)", ag->ag_name, (long long)b1, (long long)l1, (unsigned long long)s1, ag->ag_line, (long long)b0, (long long)l0, (unsigned long long)s0);
	}
	for (i = 3; i >= 0; i--) {
		uint64_t m = 0xffffull << (16 * i);

		if ((arg & m) != (ag->ag_arg & m))
			dc_error(cx, rhs->n_line, rhs->n_col, llq[i], "llquantize( ) parameters of @%s differ from its previous use on line %d", ag->ag_name, ag->ag_line);
	}
}

static const struct dc_actdef *dc_agg_key_action(const struct dc_node *k);

/*
 * D's type of an action key, as dtrace types them: 1 "stack" (stack(),
 * ustack(), jstack(), of any depth), 2 "_symaddr" (sym(), func(), mod()),
 * 3 "_usymaddr" (usym(), ufunc(), umod(), uaddr()); 0 for an expression.
 * Keys of one class are compatible with each other and with nothing
 * else: @[stack()] and @[ustack()] may key one aggregation (the loader
 * lets stack keys differ in size), @[stack()] and @[1L] may not.
 */
static uint8_t
dc_agg_key_class(const struct dc_node *k)
{
	const char *n;

	if (dc_agg_key_action(k) == NULL)
		return 0;
	n = k->n_str;
	if (strcmp(n, "stack") == 0 || strcmp(n, "ustack") == 0 ||
	    strcmp(n, "jstack") == 0)
		return 1;
	if (strcmp(n, "sym") == 0 || strcmp(n, "func") == 0 ||
	    strcmp(n, "mod") == 0)
		return 2;
	return 3;
}

/* Record or check the aggregation's function and key signature. */
static void
dc_agg_sig(struct dc_ctx *cx, struct dc_agg *ag, const struct dc_node *rhs,
    struct dc_node **keys, int nkeys, uint32_t func, uint64_t arg)
{
	int i;

	if (ag->ag_func == 0) {
		ag->ag_func = func;
		ag->ag_arg = arg;
		ag->ag_nkeys = nkeys;
		ag->ag_line = rhs->n_line;
		for (i = 0; i < nkeys; i++) {
			ag->ag_keys[i] = keys[i]->n_type;
			ag->ag_keycls[i] = dc_agg_key_class(keys[i]);
		}
		return;
	}
	if (ag->ag_func != func)
		dc_error(cx, rhs->n_line, rhs->n_col, "D_AGG_REDEF", "aggregation redefined: @%s was %s( ) on line %d, now %s( )", ag->ag_name, dc_aggfns[(ag->ag_func & 0xff) - 1].af_name, ag->ag_line, rhs->n_str);
	if (ag->ag_nkeys != nkeys)
		dc_error(cx, rhs->n_line, rhs->n_col, "D_PROTO_LEN", "@%s[ ] prototype mismatch: %d key%s passed, %d expected (line %d)", ag->ag_name, nkeys, nkeys == 1 ? "" : "s", ag->ag_nkeys, ag->ag_line);
	for (i = 0; i < nkeys; i++)
		if (ag->ag_keycls[i] != dc_agg_key_class(keys[i]) ||
		    (ag->ag_keycls[i] == 0 &&
		    (!dc_type_compat(&ag->ag_keys[i], &keys[i]->n_type) ||
		    (ag->ag_keys[i].ty_kind == DC_INT &&
		    ag->ag_keys[i].ty_size != keys[i]->n_type.ty_size))))
			dc_error(cx, keys[i]->n_line, keys[i]->n_col, "D_PROTO_ARG", "@%s[ ] key #%d is incompatible with prototype: %s is not %s (line %d)", ag->ag_name, i + 1, keys[i]->n_type.ty_name, ag->ag_keys[i].ty_name, ag->ag_line);
	dc_agg_param_match(cx, rhs, ag, arg);
}

/* The parameter word and the increment argument index (or -1). */
static uint64_t
dc_agg_params(struct dc_ctx *cx, struct dc_node *rhs,
    const struct dc_aggfn *af, int *incr)
{
	*incr = -1;
	switch (af->af_kind) {
	case DTRACEAGG_QUANTIZE:
		*incr = rhs->n_nargs == 2 ? 1 : -1;
		return 0;
	case DTRACEAGG_LQUANTIZE:
		*incr = rhs->n_nargs == 5 ? 4 : -1;
		return dc_lquant(cx, rhs);
	case DTRACEAGG_LLQUANTIZE:
		*incr = rhs->n_nargs == 6 ? 5 : -1;
		return dc_llquant(cx, rhs);
	default:
		return 0;
	}
}

/*
 * stack(), ustack(), jstack(), sym(), func(), mod(), usym(), ufunc(),
 * umod() and uaddr() may be aggregation keys (@[stack()] = count()): the
 * key is then that action itself, as libdtrace encodes it.
 */
static const struct dc_actdef *
dc_agg_key_action(const struct dc_node *k)
{
	const struct dc_actdef *ad;

	if (k->n_kind != DN_CALL || (ad = dc_act_find(k->n_str)) == NULL)
		return NULL;
	return ad->ad_fn == dc_a_stack || ad->ad_fn == dc_a_addr ? ad : NULL;
}

/* Type key i; an action key gets an 8-byte type named after it. */
static void
dc_agg_key_type(struct dc_ctx *cx, struct dc_node *lhs, int i)
{
	struct dc_node *k = lhs->n_args[i];

	if (k->n_kind == DN_AGG)
		dc_error(cx, k->n_line, k->n_col, "D_KEY_TYPE", "@%s[ ] key #%d: an aggregation (@%s) cannot be a key", lhs->n_a->n_str, i + 1, k->n_str);
	if (dc_decl_xlate_of(cx, k) != NULL)
		dc_error(cx, k->n_line, k->n_col, "D_KEY_TYPE", "@%s[ ] key #%d is of a dynamic type: a translation (xlate) cannot be a key, only its members can", lhs->n_a->n_str, i + 1);
	if (dc_agg_key_action(k) == NULL) {
		dc_value_arg(cx, lhs, i);
		return;
	}
	dc_type_int(&k->n_type, 8, 0);
	k->n_type.ty_name = k->n_str;
}

static void
dc_a_aggregate(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *e)
{
	struct dc_node *lhs = e->n_a, *rhs = e->n_b, *agn;
	struct dc_node **keys = NULL;
	const struct dc_aggfn *af;
	int nkeys = 0, incr, i, first = cl->cl_nacts;
	struct dc_agg *ag;
	uint64_t arg;

	agn = lhs->n_kind == DN_INDEX ? lhs->n_a : lhs;
	if (lhs->n_kind == DN_INDEX) {
		keys = lhs->n_args;
		nkeys = lhs->n_nargs;
	}
	if (e->n_op != DT_ASSIGN)
		dc_error(cx, e->n_line, e->n_col, "D_AGG_FUNC", "@%s: aggregations can only be assigned with = and an aggregating function", agn->n_str);
	af = rhs->n_kind == DN_CALL ? dc_aggfn_find(rhs->n_str) : NULL;
	if (af == NULL && rhs->n_kind == DN_CALL &&
	    !dc_act_is_action(rhs->n_str) && !dc_subr_known(rhs->n_str))
		dc_error(cx, rhs->n_line, rhs->n_col, "D_FUNC_UNDEF", "failed to resolve %s: Unknown function name", rhs->n_str);
	if (af == NULL)
		dc_error(cx, rhs->n_line, rhs->n_col, "D_AGG_FUNC", "@%s: the right side must be an aggregating function (count, sum, min, max, avg, stddev, quantize, lquantize, llquantize)", agn->n_str);
	if (nkeys > DC_MAXKEYS - 1)
		dc_error(cx, lhs->n_line, lhs->n_col, "D_ARR_LONG", "@%s[ ] has %d keys, limit %d", agn->n_str, nkeys, DC_MAXKEYS - 1);
	dc_nargs(cx, rhs, af->af_min, af->af_max);
	for (i = 0; i < nkeys; i++)
		dc_agg_key_type(cx, lhs, i);
	if (af->af_min > 0 && !dc_type_is_scalar(&dc_value_arg(cx, rhs,
	    0)->n_type))
		dc_error(cx, rhs->n_args[0]->n_line, rhs->n_args[0]->n_col, strstr(rhs->n_str, "quantize") != NULL &&
		    rhs->n_str[0] != 'q' ? "D_PROTO_ARG" : "D_AGG_SCALAR", "%s( ) argument #1 must be of scalar type", rhs->n_str);
	arg = dc_agg_params(cx, rhs, af, &incr);
	ag = dc_agg_get(cx, agn->n_str);
	dc_agg_sig(cx, ag, rhs, keys, nkeys, af->af_kind, arg);
	dc_act(cx, cl, DTRACEACT_DIFEXPR, dc_cg_const(cx, ag->ag_id), 0);
	for (i = 0; i < nkeys; i++) {
		if (dc_agg_key_action(keys[i]) != NULL)
			dc_agg_key_action(keys[i])->ad_fn(cx, cl, keys[i]);
		else
			dc_act(cx, cl, DTRACEACT_DIFEXPR,
			    dc_cg_object(cx, keys[i], -1), 0);
	}
	if (incr >= 0) {
		dc_scalar_arg(cx, rhs, incr);
		dc_act(cx, cl, DTRACEACT_DIFEXPR,
		    dc_cg_object(cx, rhs->n_args[incr], 0), 0);
	}
	dc_act(cx, cl, af->af_kind, af->af_min > 0 ?
	    dc_cg_object(cx, rhs->n_args[0], 8) : NULL, arg);
	cl->cl_acts[cl->cl_nacts - 1].ac_ntuple =
	    (uint32_t)(cl->cl_nacts - 1 - first);
}

/* ---- the action table, ordering rules, statements ---- */

static const struct dc_actdef dc_actdefs[] = {
	{ "trace", DTRACEACT_DIFEXPR, AK_DREC, dc_a_trace, 1, 1 },
	{ "print", DTRACEACT_DIFEXPR, AK_DREC, dc_a_print, 1, 1 },
	{ "printf", DTRACEACT_PRINTF, AK_DREC, dc_a_printf, 1, 64 },
	{ "printa", DTRACEACT_PRINTA, AK_DREC, dc_a_printa, 1, 64 },
	{ "tracemem", DTRACEACT_TRACEMEM, AK_DREC, dc_a_tracemem, 2, 3 },
	{ "stack", DTRACEACT_STACK, AK_DREC, dc_a_stack, 0, 1 },
	{ "ustack", DTRACEACT_USTACK, AK_DREC, dc_a_stack, 0, 2 },
	{ "jstack", DTRACEACT_JSTACK, AK_DREC, dc_a_stack, 0, 2 },
	{ "sym", DTRACEACT_SYM, AK_DREC, dc_a_addr, 1, 1 },
	{ "func", DTRACEACT_SYM, AK_DREC, dc_a_addr, 1, 1 },
	{ "mod", DTRACEACT_MOD, AK_DREC, dc_a_addr, 1, 1 },
	{ "usym", DTRACEACT_USYM, AK_DREC, dc_a_addr, 1, 1 },
	{ "ufunc", DTRACEACT_USYM, AK_DREC, dc_a_addr, 1, 1 },
	{ "umod", DTRACEACT_UMOD, AK_DREC, dc_a_addr, 1, 1 },
	{ "uaddr", DTRACEACT_UADDR, AK_DREC, dc_a_addr, 1, 1 },
	{ "exit", DTRACEACT_EXIT, AK_EXIT, dc_a_exit, 1, 1 },
	{ "speculate", DTRACEACT_SPECULATE, AK_SPEC, dc_a_int1, 1, 1 },
	{ "commit", DTRACEACT_COMMIT, AK_COMMIT, dc_a_int1, 1, 1 },
	{ "discard", DTRACEACT_DISCARD, AK_DISCARD, dc_a_int1, 1, 1 },
	{ "clear", DTRACEACT_LIBACT, AK_LIB, dc_a_aggop, 1, 1 },
	{ "normalize", DTRACEACT_LIBACT, AK_LIB, dc_a_aggop, 2, 2 },
	{ "denormalize", DTRACEACT_LIBACT, AK_LIB, dc_a_aggop, 1, 1 },
	{ "trunc", DTRACEACT_LIBACT, AK_LIB, dc_a_aggop, 1, 2 },
	{ "setopt", DTRACEACT_LIBACT, AK_LIB, dc_a_setopt, 1, 2 },
	{ "ftruncate", DTRACEACT_LIBACT, AK_LIB, dc_a_ftruncate, 0, 0 },
	{ "system", DTRACEACT_SYSTEM, AK_DESTR, dc_a_printf, 1, 64 },
	{ "freopen", DTRACEACT_FREOPEN, AK_DESTR, dc_a_printf, 1, 64 },
	{ "raise", DTRACEACT_RAISE, AK_DESTR, dc_a_int1, 1, 1 },
	{ "chill", DTRACEACT_CHILL, AK_DESTR, dc_a_int1, 1, 1 },
	{ "stop", DTRACEACT_STOP, AK_DESTR, dc_a_none, 0, 0 },
	{ "panic", DTRACEACT_PANIC, AK_DESTR, dc_a_none, 0, 0 },
	{ "breakpoint", DTRACEACT_BREAKPOINT, AK_DESTR, dc_a_none, 0, 0 },
};

static const struct dc_actdef *
dc_act_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof (dc_actdefs) / sizeof (dc_actdefs[0]); i++)
		if (strcmp(dc_actdefs[i].ad_name, name) == 0)
			return &dc_actdefs[i];
	return NULL;
}

/*
 * An action or aggregating function called inside an expression: dtrace
 * checks its prototype and types it void, so that the expression around
 * it reports the misuse (D_OP_ACT, D_OP_ARITH, D_STRINGOF_TYPE, ...);
 * code generation refuses any that is left (D_ACT_EXPR).
 */
void
dc_act_in_expr(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_actdef *ad = dc_act_find(n->n_str);
	const struct dc_aggfn *af = dc_aggfn_find(n->n_str);
	int i;

	if (ad != NULL)
		dc_nargs(cx, n, ad->ad_min, ad->ad_max);
	else if (af != NULL)
		dc_nargs(cx, n, af->af_min, af->af_max);
	for (i = 0; i < n->n_nargs; i++)
		if (n->n_args[i]->n_kind != DN_AGG)
			dc_type_expr(cx, n->n_args[i]);
	memset(&n->n_type, 0, sizeof (n->n_type));
	n->n_type.ty_kind = DC_VOID;
	n->n_type.ty_name = "void";
}

/* Actions and aggregating functions cannot appear inside expressions. */
int
dc_act_is_action(const char *name)
{
	return dc_act_find(name) != NULL || dc_aggfn_find(name) != NULL;
}

#define DC_ORDER(cond, tag, what) do {					\
	if (cond)							\
		dc_error(cx, n->n_line, n->n_col, tag, "%s", what);	\
} while (0)

/*
 * Reference 3.3: what may follow speculate() and commit() in a clause, as
 * dtrace checks it.  discard() and destructive actions record nothing
 * (destructive ones only may not follow speculate()); exit() records its
 * status like any data-recording action; what is recorded after
 * speculate() goes to the speculation, so it does not count as data
 * recorded before a later commit( ).
 */
static void
dc_act_order(struct dc_ctx *cx, struct dc_clause *cl, int class,
    const struct dc_node *n)
{
	int st = cl->cl_state;

	switch (class) {
	case AK_COMMIT:
		DC_ORDER(st & DC_CS_COMMIT, "D_COMM_COMM", "commit( ) may not follow another commit( ) in the same clause");
		DC_ORDER(st & DC_CS_DREC, "D_COMM_DREC", "commit( ) may not follow data-recording actions in the same clause");
		cl->cl_state |= DC_CS_COMMIT;
		break;
	case AK_SPEC:
		DC_ORDER(st & DC_CS_SPEC, "D_SPEC_SPEC", "speculate( ) may not follow another speculate( ) in the same clause");
		DC_ORDER(st & DC_CS_COMMIT, "D_SPEC_COMM", "speculate( ) may not follow commit( ) in the same clause");
		DC_ORDER(st & DC_CS_DREC, "D_SPEC_DREC", "speculate( ) may not follow data-recording actions in the same clause");
		cl->cl_state |= DC_CS_SPEC;
		break;
	case AK_AGG:
		DC_ORDER(st & DC_CS_COMMIT, "D_AGG_COMM", "aggregating actions may not follow commit( ) in the same clause");
		DC_ORDER(st & DC_CS_SPEC, "D_AGG_SPEC", "aggregating actions may not follow speculate( ) in the same clause");
		cl->cl_state |= DC_CS_DREC;
		break;
	case AK_DESTR:
		DC_ORDER(st & DC_CS_SPEC, "D_ACT_SPEC", "destructive actions may not follow speculate( ) in the same clause");
		break;
	case AK_EXIT:
	case AK_DREC:
		DC_ORDER(class == AK_EXIT && (st & DC_CS_SPEC), "D_EXIT_SPEC", "exit( ) may not follow speculate( ) in the same clause");
		DC_ORDER(st & DC_CS_COMMIT, "D_DREC_COMM", "data-recording actions may not follow commit( ) in the same clause");
		if (!(st & DC_CS_SPEC))
			cl->cl_state |= DC_CS_DREC;
		break;
	default:
		break;
	}
}

static int
dc_is_agg_target(struct dc_ctx *cx, const struct dc_node *l)
{
	const struct dc_node *b = l;

	while (b->n_kind == DN_INDEX)
		b = b->n_a;
	if (b->n_kind != DN_AGG)
		return 0;
	if (l->n_kind == DN_INDEX && l->n_a->n_kind == DN_INDEX)
		dc_error(cx, l->n_line, l->n_col, "D_AGG_MDIM", "@%s: aggregations take one list of keys, @%s[k1, k2], not several dimensions", b->n_str, b->n_str);
	return 1;
}

void
dc_act_statement(struct dc_ctx *cx, struct dc_clause *cl, struct dc_node *e)
{
	const struct dc_actdef *ad;

	if (e->n_kind == DN_ASSIGN && dc_is_agg_target(cx, e->n_a)) {
		dc_act_order(cx, cl, AK_AGG, e);
		dc_a_aggregate(cx, cl, e);
		return;
	}
	if (e->n_kind == DN_CALL && (ad = dc_act_find(e->n_str)) != NULL) {
		dc_act_order(cx, cl, ad->ad_class, e);
		ad->ad_fn(cx, cl, e);
		/* the prototype is checked first, as dtrace does */
		if (ad->ad_class == AK_DESTR && !cx->cx_destructive)
			dc_error(cx, e->n_line, e->n_col, "D_ACT_DESTR", "%s( ): destructive actions are not allowed: use -w (or #pragma D option destructive) to permit them", e->n_str);
		return;
	}
	if (e->n_kind == DN_CALL && dc_aggfn_find(e->n_str) != NULL)
		dc_error(cx, e->n_line, e->n_col, "D_AGG_FUNC", "%s( ) is an aggregating function: assign it to an aggregation, e.g. @[...] = %s(...)", e->n_str, e->n_str);
	if (e->n_kind == DN_INDEX && e->n_a->n_kind == DN_AGG)
		dc_error(cx, e->n_line, e->n_col, "D_AGG_NULL", "@%s[ ] is used without an aggregating function: write @%s[...] = f(...)", e->n_a->n_str, e->n_a->n_str);
	/* a statement calling copyout() is a destructive action */
	if (e->n_kind == DN_CALL && dc_subr_destructive(e->n_str))
		dc_act_order(cx, cl, AK_DESTR, e);
	dc_type_expr(cx, e);
	dc_act(cx, cl, DTRACEACT_DIFEXPR, dc_cg_object(cx, e, 0), 0);
}
