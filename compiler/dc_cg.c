/*
 * dc_cg.c -- DIF code generation for one typed expression tree.
 *
 * dc_cg_object() turns an expression (already typed by dc_type.c) into one
 * DIF object: instruction text, an INTTAB of 64-bit constants (setx,
 * deduplicated) and a STRTAB of string literals (sets), plus the object's
 * return type.  The generator is a straightforward tree walk: every
 * sub-expression leaves its value in a register taken from a bitmask
 * allocator over %r1..%r7 (%r0 reads as zero and is never written);
 * running out is the D_NOREG error.  Variables load and store with the
 * scope's instructions (ldgs/ldts/ldls, ldgaa/ldtaa with the key tuple
 * pushed first, reference 2.3) and are listed in the object's VARTAB
 * (dc_var_use); subroutine calls push their arguments the same way.
 * Comparisons, !, &&, || and ?: use cmp
 * or tst followed by forward branches whose labels are patched once the
 * target is known, so the validator's "branches go forward" rule holds by
 * construction.  Every object ends in "ret".  Called by dc_parse.c for
 * each predicate and action.
 */
#include <string.h>
#include "dc_impl.h"

static int cg_expr(struct dc_ctx *cx, struct dc_node *n);

/*
 * tab with room for entry n (n <= *cap): doubled into a new arena block
 * when full (the old one stays in the arena until the compilation ends).
 */
void *
dc_cg_grow(struct dc_ctx *cx, void *tab, uint32_t n, uint32_t *cap,
    size_t esize)
{
	void *nt;

	if (n < *cap)
		return tab;
	*cap = *cap == 0 ? 16 : *cap * 2;
	nt = dc_alloc(cx, *cap * esize);
	if (n > 0)
		memcpy(nt, tab, n * esize);
	return nt;
}

static void
cg_emit(struct dc_ctx *cx, uint32_t w)
{
	struct dc_difo *df = cx->cx_difo;

	if (df->df_len >= DC_MAXTEXT)
		dc_error(cx, 0, 0, "D_DIF_SIZE", "DIF object exceeds the limit of %u instructions", DC_MAXTEXT);
	df->df_text = dc_cg_grow(cx, df->df_text, df->df_len, &df->df_textcap,
	    sizeof (*df->df_text));
	df->df_text[df->df_len++] = w;
}

static uint32_t
cg_here(struct dc_ctx *cx)
{
	return cx->cx_difo->df_len;
}

/* Emit a branch to be patched by cg_patch(); returns its index. */
static uint32_t
cg_branch(struct dc_ctx *cx, int op)
{
	uint32_t at = cg_here(cx);

	cg_emit(cx, DIF_INSTR_BRANCH(op, 0));
	return at;
}

static void
cg_patch(struct dc_ctx *cx, uint32_t at)
{
	uint32_t *w = &cx->cx_difo->df_text[at];

	*w = DIF_INSTR_BRANCH(DIF_INSTR_OP(*w), cg_here(cx));
}

static int
cg_reg(struct dc_ctx *cx, const struct dc_node *n)
{
	struct dc_difo *df = cx->cx_difo;
	int r;

	for (r = 1; r < DIF_DIR_NREGS; r++) {
		if ((df->df_regs & (1u << r)) == 0) {
			df->df_regs |= 1u << r;
			return r;
		}
	}
	dc_error(cx, n->n_line, n->n_col, "D_NOREG", "insufficient registers to generate code: expression needs more than %d registers", DIF_DIR_NREGS - 1);
}

static void
cg_free(struct dc_ctx *cx, int r)
{
	cx->cx_difo->df_regs &= ~(1u << r);
}

static void
cg_setx(struct dc_ctx *cx, uint64_t v, int rd)
{
	struct dc_difo *df = cx->cx_difo;
	uint32_t i;

	for (i = 0; i < df->df_nints; i++)
		if (df->df_ints[i] == v)
			break;
	if (i == df->df_nints) {
		if (i >= DC_MAXINTS)
			dc_error(cx, 0, 0, "D_DIF_SIZE", "DIF object exceeds the limit of %u integer constants", DC_MAXINTS);
		df->df_ints = dc_cg_grow(cx, df->df_ints, df->df_nints,
		    &df->df_intscap, sizeof (*df->df_ints));
		df->df_ints[df->df_nints++] = v;
	}
	cg_emit(cx, DIF_INSTR_SETX(i, rd));
}

/* Offset of "s" (len bytes, NUL-free) in the object's STRTAB, adding it. */
uint32_t
dc_cg_str(struct dc_ctx *cx, const char *str, size_t len, int line, int col)
{
	struct dc_difo *df = cx->cx_difo;
	uint32_t off = 0;
	char *ns;

	while (off < df->df_strlen && (strlen(df->df_strs + off) != len ||
	    memcmp(df->df_strs + off, str, len) != 0))
		off += (uint32_t)strlen(df->df_strs + off) + 1;
	if (off < df->df_strlen)
		return off;
	if (df->df_strlen + len + 1 > DIF_STROFF_MAX)
		dc_error(cx, line, col, "D_STR_SIZE", "string table of DIF object exceeds the limit of %u bytes", DIF_STROFF_MAX);
	ns = dc_alloc(cx, df->df_strlen + len + 1);
	memcpy(ns, df->df_strs, df->df_strlen);
	memcpy(ns + df->df_strlen, str, len);
	ns[df->df_strlen + len] = '\0';
	off = df->df_strlen;
	df->df_strs = ns;
	df->df_strlen += (uint32_t)len + 1;
	return off;
}

static void
cg_sets(struct dc_ctx *cx, const struct dc_node *n, int rd)
{
	size_t len = strnlen(n->n_str, n->n_len);

	cg_emit(cx, DIF_INSTR_SETS(dc_cg_str(cx, n->n_str, len, n->n_line,
	    n->n_col), rd));
}

/* rd = (condition that "op" tests) ? 1 : 0, after a cmp/scmp/tst. */
static void
cg_flag(struct dc_ctx *cx, int op, int rd)
{
	uint32_t btrue, bend;

	btrue = cg_branch(cx, op);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_MOV, 0, 0, rd));
	bend = cg_branch(cx, DIF_OP_BA);
	cg_patch(cx, btrue);
	cg_setx(cx, 1, rd);
	cg_patch(cx, bend);
}

static int
cg_cmp_op(enum dc_tok op, int uns)
{
	switch (op) {
	case DT_EQ: return DIF_OP_BE;
	case DT_NE: return DIF_OP_BNE;
	case DT_LT: return uns ? DIF_OP_BLU : DIF_OP_BL;
	case DT_LE: return uns ? DIF_OP_BLEU : DIF_OP_BLE;
	case DT_GT: return uns ? DIF_OP_BGU : DIF_OP_BG;
	default: return uns ? DIF_OP_BGEU : DIF_OP_BGE;
	}
}

static int
cg_compare(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type, *b = &n->n_b->n_type;
	int ra = cg_expr(cx, n->n_a), rb = cg_expr(cx, n->n_b), uns;

	if (a->ty_kind == DC_STRING || b->ty_kind == DC_STRING) {
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_SCMP, ra, rb, 0));
		uns = 0;
	} else {
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_CMP, ra, rb, 0));
		uns = a->ty_kind == DC_PTR || b->ty_kind == DC_PTR ||
		    (a->ty_size >= 4 && !a->ty_signed &&
		    a->ty_size >= b->ty_size) ||
		    (b->ty_size >= 4 && !b->ty_signed &&
		    b->ty_size >= a->ty_size);
	}
	cg_free(cx, rb);
	cg_flag(cx, cg_cmp_op(n->n_op, uns), ra);
	return ra;
}

/* && and ||: evaluate the right side only when it decides. */
static int
cg_logical(struct dc_ctx *cx, struct dc_node *n)
{
	int isand = n->n_op == DT_LAND, ra, rb;
	int op = isand ? DIF_OP_BE : DIF_OP_BNE;
	uint32_t b1, b2, bend;

	ra = cg_expr(cx, n->n_a);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_TST, ra, 0, 0));
	b1 = cg_branch(cx, op);
	rb = cg_expr(cx, n->n_b);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_TST, rb, 0, 0));
	cg_free(cx, rb);
	b2 = cg_branch(cx, op);
	if (isand)
		cg_setx(cx, 1, ra);
	else
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_MOV, 0, 0, ra));
	bend = cg_branch(cx, DIF_OP_BA);
	cg_patch(cx, b1);
	cg_patch(cx, b2);
	if (isand)
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_MOV, 0, 0, ra));
	else
		cg_setx(cx, 1, ra);
	cg_patch(cx, bend);
	return ra;
}

/* r = (r != 0) */
static void
cg_bool(struct dc_ctx *cx, int r)
{
	uint32_t b;

	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_TST, r, 0, 0));
	b = cg_branch(cx, DIF_OP_BE);
	cg_setx(cx, 1, r);
	cg_patch(cx, b);
}

static int
cg_binop(enum dc_tok op, int s)
{
	switch (op) {
	case DT_PLUS: return DIF_OP_ADD;
	case DT_MINUS: return DIF_OP_SUB;
	case DT_STAR: return DIF_OP_MUL;
	case DT_SLASH: return s ? DIF_OP_SDIV : DIF_OP_UDIV;
	case DT_PERCENT: return s ? DIF_OP_SREM : DIF_OP_UREM;
	case DT_SHL: return DIF_OP_SLL;
	case DT_SHR: return s ? DIF_OP_SRA : DIF_OP_SRL;
	case DT_BAND: case DT_LAND: return DIF_OP_AND;
	case DT_BOR: return DIF_OP_OR;
	default: return DIF_OP_XOR;
	}
}

static int
cg_arith_op(const struct dc_node *n)
{
	return cg_binop(n->n_op, n->n_type.ty_signed);
}

/* r = r * size, for pointer arithmetic on elements of "size" bytes. */
static void
cg_scale(struct dc_ctx *cx, const struct dc_node *n, int r, uint32_t size)
{
	int rt;

	if (size <= 1)
		return;
	rt = cg_reg(cx, n);
	cg_setx(cx, size, rt);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_MUL, r, rt, r));
	cg_free(cx, rt);
}

static int
cg_binary(struct dc_ctx *cx, struct dc_node *n)
{
	int ra, rb;

	switch (n->n_op) {
	case DT_EQ: case DT_NE: case DT_LT: case DT_LE: case DT_GT: case DT_GE:
		return cg_compare(cx, n);
	case DT_LAND: case DT_LOR:
		return cg_logical(cx, n);
	default:
		break;
	}
	ra = cg_expr(cx, n->n_a);
	rb = cg_expr(cx, n->n_b);
	if (n->n_type.ty_kind == DC_PTR) {
		if (n->n_a->n_type.ty_kind == DC_INT)
			cg_scale(cx, n, ra, n->n_type.ty_elsize);
		else
			cg_scale(cx, n, rb, n->n_type.ty_elsize);
	}
	if (n->n_op == DT_LXOR) {
		cg_bool(cx, ra);
		cg_bool(cx, rb);
	}
	cg_emit(cx, DIF_INSTR_FMT(cg_arith_op(n), ra, rb, ra));
	if (n->n_a->n_type.ty_kind == DC_PTR &&
	    n->n_b->n_type.ty_kind == DC_PTR && n->n_a->n_type.ty_elsize > 1) {
		cg_setx(cx, n->n_a->n_type.ty_elsize, rb);
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_SDIV, ra, rb, ra));
	}
	cg_free(cx, rb);
	return ra;
}

static int
cg_unary(struct dc_ctx *cx, struct dc_node *n)
{
	int r = cg_expr(cx, n->n_a);

	switch (n->n_op) {
	case DT_MINUS:
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_SUB, 0, r, r));
		break;
	case DT_TILDE:
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_NOT, r, 0, r));
		break;
	case DT_NOT:
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_TST, r, 0, 0));
		cg_flag(cx, DIF_OP_BE, r);
		break;
	default:
		break;
	}
	return r;
}

static int
cg_cond(struct dc_ctx *cx, struct dc_node *n)
{
	int rc = cg_expr(cx, n->n_a), r, rt;
	uint32_t belse, bend;

	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_TST, rc, 0, 0));
	cg_free(cx, rc);
	belse = cg_branch(cx, DIF_OP_BE);
	r = cg_expr(cx, n->n_b);
	bend = cg_branch(cx, DIF_OP_BA);
	cg_patch(cx, belse);
	rt = cg_expr(cx, n->n_c);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_MOV, rt, 0, r));
	cg_free(cx, rt);
	cg_patch(cx, bend);
	return r;
}

/* r = r narrowed to integer type "ty" (< 8 bytes): shift left, then back. */
static void
cg_narrow(struct dc_ctx *cx, const struct dc_node *n, int r,
    const struct dc_type *ty)
{
	int rt;

	if (ty->ty_kind != DC_INT || ty->ty_size >= 8)
		return;
	rt = cg_reg(cx, n);
	cg_setx(cx, 64 - 8 * (uint64_t)ty->ty_size, rt);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_SLL, r, rt, r));
	cg_emit(cx, DIF_INSTR_FMT(ty->ty_signed ? DIF_OP_SRA : DIF_OP_SRL,
	    r, rt, r));
	cg_free(cx, rt);
}

static int
cg_cast(struct dc_ctx *cx, struct dc_node *n)
{
	int r = cg_expr(cx, n->n_a);

	cg_narrow(cx, n, r, &n->n_type);
	return r;
}

static int
cg_load_op(const struct dc_type *ty)
{
	if (ty->ty_kind == DC_PTR || ty->ty_size == 8)
		return DIF_OP_LDX;
	switch (ty->ty_size) {
	case 1: return ty->ty_signed ? DIF_OP_LDSB : DIF_OP_LDUB;
	case 2: return ty->ty_signed ? DIF_OP_LDSH : DIF_OP_LDUH;
	default: return ty->ty_signed ? DIF_OP_LDSW : DIF_OP_LDUW;
	}
}

/* ptr->member: address arithmetic, then a load unless it is an array. */
static int
cg_member(struct dc_ctx *cx, struct dc_node *n)
{
	int r = cg_expr(cx, n->n_a), rt;

	if (n->n_moff != 0) {
		rt = cg_reg(cx, n);
		cg_setx(cx, n->n_moff, rt);
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_ADD, r, rt, r));
		cg_free(cx, rt);
	}
	if (n->n_type.ty_kind == DC_INT || n->n_type.ty_kind == DC_PTR)
		cg_emit(cx, DIF_INSTR_FMT(cg_load_op(&n->n_type), r, 0, r));
	return r;
}

/* stringof(kernel address): the kdt kstring subroutine copies it. */
static int
cg_stringof(struct dc_ctx *cx, struct dc_node *n)
{
	int r = cg_expr(cx, n->n_a);

	if (n->n_a->n_type.ty_kind == DC_STRING)
		return r;
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_FLUSHTS, 0, 0, 0));
	cg_emit(cx, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF_T, 0, r));
	cg_emit(cx, DIF_INSTR_CALL(DIF_SUBR_KDT_KSTRING, r));
	return r;
}

/* ---- variables ---- */

static int
cg_ldop(enum dc_scope sc, int array)
{
	if (array)
		return sc == DS_THREAD ? DIF_OP_LDTAA : DIF_OP_LDGAA;
	switch (sc) {
	case DS_THREAD: return DIF_OP_LDTS;
	case DS_LOCAL: return DIF_OP_LDLS;
	default: return DIF_OP_LDGS;
	}
}

static int
cg_stop(enum dc_scope sc, int array)
{
	if (array)
		return sc == DS_THREAD ? DIF_OP_STTAA : DIF_OP_STGAA;
	switch (sc) {
	case DS_THREAD: return DIF_OP_STTS;
	case DS_LOCAL: return DIF_OP_STLS;
	default: return DIF_OP_STGS;
	}
}

static void
cg_use(struct dc_ctx *cx, const struct dc_node *n, int mod)
{
	const struct dc_var *v = n->n_var;

	if (v != NULL)
		dc_var_use(cx, v->va_id, v->va_scope, v->va_array,
		    &v->va_type, v->va_name, mod);
	else
		dc_var_use(cx, (uint32_t)n->n_ival, DS_BUILTIN, 0, &n->n_type,
		    dc_builtin_name((uint32_t)n->n_ival), mod);
}

static int
cg_var(struct dc_ctx *cx, struct dc_node *n)
{
	int r = cg_reg(cx, n);

	cg_use(cx, n, 0);
	cg_emit(cx, DIF_INSTR_LDV(cg_ldop(n->n_var != NULL ?
	    n->n_var->va_scope : DS_GLOBAL, 0), n->n_ival, r));
	return r;
}

/*
 * Push value "r" of key k on the tuple stack (reference 2.3); a struct
 * or union goes by reference with its size, as dtrace pushes it.
 */
static void
cg_push(struct dc_ctx *cx, const struct dc_node *k, int r)
{
	const struct dc_type *ty = &k->n_type;
	int rs;

	if (ty->ty_kind == DC_STRING) {
		cg_emit(cx, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING_T,
		    0, r));
	} else if (ty->ty_kind == DC_STRUCT) {
		rs = cg_reg(cx, k);
		cg_setx(cx, ty->ty_size, rs);
		cg_emit(cx, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_CTF_T,
		    rs, r));
		cg_free(cx, rs);
	} else
		cg_emit(cx, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF_T,
		    0, r));
}

/*
 * Evaluate "args" into registers first (a key may itself read an
 * associative array), then flushts and push them all.  Registers are
 * released; with keep the first one is kept and returned.
 */
static int
cg_tuple(struct dc_ctx *cx, struct dc_node **args, int nargs, int keep)
{
	int regs[DC_MAXKEYS], i, first = 0;

	for (i = 0; i < nargs; i++)
		regs[i] = cg_expr(cx, args[i]);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_FLUSHTS, 0, 0, 0));
	for (i = 0; i < nargs; i++)
		cg_push(cx, args[i], regs[i]);
	for (i = 0; i < nargs; i++) {
		if (keep && i == 0)
			first = regs[0];
		else
			cg_free(cx, regs[i]);
	}
	return first;
}

/*
 * a[k]: ld?aa with the key tuple pushed.  An element of struct type is
 * used through its address (a[k].x = 3 stores into it), so, as dtrace
 * does, one that does not exist yet is created zeroed first:
 *
 *	ld?aa id, %r; tst %r; bne L
 *	setx size, %r; allocs %r, %r; st?aa id, %r; ld?aa id, %r
 *   L:
 *
 * (the tuple stays pushed for all three; a full dynamic variable space
 * leaves %r 0, and the access then faults as a bad address).
 */
static int
cg_assoc_load(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *ty = &n->n_var->va_type;
	uint32_t b;
	int r;

	cg_tuple(cx, n->n_args, n->n_nargs, 0);
	r = cg_reg(cx, n);
	cg_use(cx, n, 0);
	cg_emit(cx, DIF_INSTR_LDV(cg_ldop(n->n_var->va_scope, 1),
	    n->n_var->va_id, r));
	if (ty->ty_kind == DC_STRUCT && ty->ty_size != 0) {
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_TST, r, 0, 0));
		b = cg_branch(cx, DIF_OP_BNE);
		cg_setx(cx, ty->ty_size, r);
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_ALLOCS, r, 0, r));
		cg_use(cx, n, 1);
		cg_emit(cx, DIF_INSTR_STV(cg_stop(n->n_var->va_scope, 1),
		    n->n_var->va_id, r));
		cg_emit(cx, DIF_INSTR_LDV(cg_ldop(n->n_var->va_scope, 1),
		    n->n_var->va_id, r));
		cg_patch(cx, b);
	}
	return r;
}

static int
cg_index(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_type i64;
	int r, ri;

	if (n->n_var != NULL)
		return cg_assoc_load(cx, n);
	if (n->n_scope == DS_BUILTIN) {
		r = cg_expr(cx, n->n_args[0]);
		dc_type_int(&i64, 8, 1);
		dc_var_use(cx, (uint32_t)n->n_ival, DS_BUILTIN, 1, &i64,
		    dc_builtin_name((uint32_t)n->n_ival), 0);
		cg_emit(cx, DIF_INSTR_LDGA(n->n_ival, r, r));
		cg_narrow(cx, n, r, &n->n_type);
		return r;
	}
	r = cg_expr(cx, n->n_a);
	ri = cg_expr(cx, n->n_args[0]);
	cg_scale(cx, n, ri, n->n_type.ty_kind == DC_PTR ? 8 :
	    n->n_type.ty_size);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_ADD, r, ri, r));
	cg_free(cx, ri);
	if (n->n_type.ty_kind != DC_STRUCT)	/* a struct: its address */
		cg_emit(cx, DIF_INSTR_FMT(cg_load_op(&n->n_type), r, 0, r));
	return r;
}

static int
cg_store_op(const struct dc_type *ty)
{
	switch (ty->ty_kind == DC_PTR ? 8 : ty->ty_size) {
	case 1: return DIF_OP_STB;
	case 2: return DIF_OP_STH;
	case 4: return DIF_OP_STW;
	default: return DIF_OP_STX;
	}
}

/* The address *p or p[i] names (p[i]: p + i * element size). */
static int
cg_memaddr(struct dc_ctx *cx, struct dc_node *l)
{
	int r, ri;

	if (l->n_kind == DN_DEREF)
		return cg_expr(cx, l->n_a);
	r = cg_expr(cx, l->n_a);
	if (l->n_kind == DN_MEMBER) {
		if (l->n_moff != 0) {
			ri = cg_reg(cx, l);
			cg_setx(cx, l->n_moff, ri);
			cg_emit(cx, DIF_INSTR_FMT(DIF_OP_ADD, r, ri, r));
			cg_free(cx, ri);
		}
		return r;
	}
	ri = cg_expr(cx, l->n_args[0]);
	cg_scale(cx, l, ri, l->n_type.ty_kind == DC_PTR ? 8 :
	    l->n_type.ty_size);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_ADD, r, ri, r));
	cg_free(cx, ri);
	return r;
}

static int
cg_is_mem(const struct dc_node *l)
{
	return l->n_kind == DN_DEREF || l->n_kind == DN_MEMBER ||
	    (l->n_kind == DN_INDEX && l->n_var == NULL);
}

/*
 * A string into D memory (a string member of a struct): n = strlen + 1
 * bytes, at most the member's size, copied (copys), and the member's
 * last byte made NUL, so a longer string is cut as dtrace cuts strings:
 *
 *	flushts; pushtr rv; call strlen, %n; %n += 1
 *	cmp %n, size; bleu L; setx size, %n
 *   L:	copys rv, %n, ra; stb %r0, [ra + size - 1]
 */
static void
cg_store_str(struct dc_ctx *cx, struct dc_node *l, int rv, int ra)
{
	uint32_t size = l->n_type.ty_size, b;
	int rn = cg_reg(cx, l), rt = cg_reg(cx, l);

	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_FLUSHTS, 0, 0, 0));
	cg_emit(cx, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING_T, 0, rv));
	cg_emit(cx, DIF_INSTR_CALL(DIF_SUBR_STRLEN, rn));
	cg_setx(cx, 1, rt);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_ADD, rn, rt, rn));
	cg_setx(cx, size, rt);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_CMP, rn, rt, 0));
	b = cg_branch(cx, DIF_OP_BLEU);
	cg_setx(cx, size, rn);
	cg_patch(cx, b);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_COPYS, rv, rn, ra));
	cg_setx(cx, size - 1, rt);
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_ADD, ra, rt, rt));
	cg_emit(cx, DIF_INSTR_FMT(DIF_OP_STB, 0, 0, rt));
	cg_free(cx, rt);
	cg_free(cx, rn);
}

/* Store "rv" into the variable, array element or D memory "l". */
static void
cg_store(struct dc_ctx *cx, struct dc_node *l, int rv)
{
	const struct dc_var *v = l->n_var;
	int ra;

	if (cg_is_mem(l) && l->n_type.ty_kind == DC_STRING) {
		ra = cg_memaddr(cx, l);
		cg_store_str(cx, l, rv, ra);
		cg_free(cx, ra);
		return;
	}
	if (cg_is_mem(l)) {
		ra = cg_memaddr(cx, l);
		cg_emit(cx, DIF_INSTR_FMT(cg_store_op(&l->n_type), rv, 0, ra));
		cg_free(cx, ra);
		return;
	}
	if (l->n_kind == DN_INDEX)
		cg_tuple(cx, l->n_args, l->n_nargs, 0);
	cg_use(cx, l, 1);
	cg_emit(cx, DIF_INSTR_STV(cg_stop(v->va_scope, v->va_array),
	    v->va_id, rv));
}

static int
cg_lvalue_load(struct dc_ctx *cx, struct dc_node *l)
{
	if (cg_is_mem(l))
		return cg_expr(cx, l);
	return l->n_kind == DN_INDEX ? cg_assoc_load(cx, l) : cg_var(cx, l);
}

/* An integer type dtrace can hold in a register (1 to 8 bytes). */
static int
cg_is_regint(const struct dc_type *t)
{
	return t->ty_kind == DC_INT && t->ty_size >= 1 && t->ty_size <= 8;
}

/*
 * dtrace's compile-time cast of an integer constant (dt_cast), from type
 * "from" to type "to": to a smaller type the low bytes are kept, zero-
 * filled above; to a bigger one the value's bytes are extended by the
 * sign of "from" (zero-filled when unsigned), with zeros above the bytes
 * of "to".
 */
static uint64_t
cg_dtcast(uint64_t u, const struct dc_type *from, const struct dc_type *to)
{
	int sh, ext;

	if (to->ty_size < from->ty_size) {
		sh = 64 - 8 * (int)to->ty_size;
		u = (u << sh) >> sh;
	} else if (to->ty_size > from->ty_size) {
		sh = 64 - 8 * (int)from->ty_size;
		ext = 8 * (int)(to->ty_size - from->ty_size);
		u <<= sh;
		if (from->ty_signed)
			u = (uint64_t)((int64_t)u >> ext) >> (sh - ext);
		else
			u >>= sh;
	}
	return u;
}

/*
 * The value of a constant integer expression as dtrace folds it: a cast
 * of a constant is dt_cast above (dc_const() alone ignores casts).
 */
static int
cg_const_val(const struct dc_node *n, int64_t *v)
{
	int64_t a;

	if (n->n_kind == DN_CAST && cg_is_regint(&n->n_type) &&
	    cg_is_regint(&n->n_a->n_type)) {
		if (!cg_const_val(n->n_a, &a))
			return 0;
		*v = (int64_t)cg_dtcast((uint64_t)a, &n->n_a->n_type,
		    &n->n_type);
		return 1;
	}
	return dc_const(n, v);
}

/*
 * An integer constant assigned (or op='d) to an integer of another size
 * is cast at compile time, as dtrace's dt_assign_common() does.  1 with
 * the value in *v when "n" is such a constant.
 */
static int
cg_const_cast(const struct dc_node *n, const struct dc_type *to, int64_t *v)
{
	if (!cg_is_regint(to) || !cg_is_regint(&n->n_type) ||
	    !cg_const_val(n, v))
		return 0;
	*v = (int64_t)cg_dtcast((uint64_t)*v, &n->n_type, to);
	return 1;
}

/*
 * l op= r, with pointer scaling for p += n.  As in dtrace, a value that is
 * not a constant is not narrowed to l's type: a D variable holds the whole
 * 64-bit register, and a store to memory (or the record of an action)
 * keeps only the type's bytes; a constant is cast at compile time
 * (cg_const_cast).
 */
static int
cg_assign(struct dc_ctx *cx, struct dc_node *n)
{
	int64_t cv;
	int rv, rl;

	if (cg_const_cast(n->n_b, &n->n_a->n_type, &cv)) {
		rv = cg_reg(cx, n);
		cg_setx(cx, (uint64_t)cv, rv);
	} else {
		rv = cg_expr(cx, n->n_b);
	}

	if (n->n_op != DT_ASSIGN) {
		rl = cg_lvalue_load(cx, n->n_a);
		if (n->n_a->n_type.ty_kind == DC_PTR)
			cg_scale(cx, n, rv, n->n_a->n_type.ty_elsize);
		cg_emit(cx, DIF_INSTR_FMT(cg_binop(n->n_op,
		    n->n_a->n_type.ty_signed), rl, rv, rv));
		cg_free(cx, rl);
	}
	cg_store(cx, n->n_a, rv);
	return rv;
}

/* ++x, x++, --x, x-- */
static int
cg_incdec(struct dc_ctx *cx, struct dc_node *n)
{
	int r = cg_lvalue_load(cx, n->n_a), rt = cg_reg(cx, n), rold = 0;
	const struct dc_type *ty = &n->n_a->n_type;

	if (n->n_ival) {
		rold = cg_reg(cx, n);
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_MOV, r, 0, rold));
	}
	cg_setx(cx, ty->ty_kind == DC_PTR && ty->ty_elsize > 1 ?
	    ty->ty_elsize : 1, rt);
	cg_emit(cx, DIF_INSTR_FMT(n->n_op == DT_INC ? DIF_OP_ADD : DIF_OP_SUB,
	    r, rt, r));
	cg_free(cx, rt);
	cg_store(cx, n->n_a, r);
	if (!n->n_ival)
		return r;
	cg_free(cx, r);
	return rold;
}

/* ---- calls, pointers ---- */

static int
cg_call(struct dc_ctx *cx, struct dc_node *n)
{
	int r;

	if (dc_act_is_action(n->n_str))
		dc_error(cx, n->n_line, n->n_col, "D_ACT_EXPR", "%s( ) is an action and cannot be used inside an expression", n->n_str);
	if (n->n_nargs > DIF_TUPLE_MAX)
		dc_error(cx, n->n_line, n->n_col, "D_PROTO_LEN", "%s( ) has %d arguments, limit %d", n->n_str, n->n_nargs, DIF_TUPLE_MAX);
	r = cg_tuple(cx, n->n_args, n->n_nargs, 1);
	if (r == 0)
		r = cg_reg(cx, n);
	cg_emit(cx, DIF_INSTR_CALL(n->n_ival, r));
	return r;
}

static int
cg_deref(struct dc_ctx *cx, struct dc_node *n)
{
	int r = cg_expr(cx, n->n_a);

	if (n->n_type.ty_kind == DC_INT || n->n_type.ty_kind == DC_PTR)
		cg_emit(cx, DIF_INSTR_FMT(cg_load_op(&n->n_type), r, 0, r));
	return r;
}

/* &p->m, &s.m, &*p, &p[i], &a[i]: the address, without the final load. */
static int
cg_addr(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *a = n->n_a;
	int r, rt;

	if (a->n_kind == DN_DEREF)
		return cg_expr(cx, a->n_a);
	if (a->n_kind == DN_INDEX) {
		r = cg_expr(cx, a->n_a);
		rt = cg_expr(cx, a->n_args[0]);
		cg_scale(cx, a, rt, a->n_type.ty_kind == DC_PTR ? 8 :
		    a->n_type.ty_size);
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_ADD, r, rt, r));
		cg_free(cx, rt);
		return r;
	}
	r = cg_expr(cx, a->n_a);
	if (a->n_moff != 0) {
		rt = cg_reg(cx, n);
		cg_setx(cx, a->n_moff, rt);
		cg_emit(cx, DIF_INSTR_FMT(DIF_OP_ADD, r, rt, r));
		cg_free(cx, rt);
	}
	return r;
}

static int
cg_expr(struct dc_ctx *cx, struct dc_node *n)
{
	int r, i;

	switch (n->n_kind) {
	case DN_XLSOU:		/* the stores, then the address */
		for (i = 0; i < n->n_nargs; i++)
			if ((r = cg_expr(cx, n->n_args[i])) != 0)
				cg_free(cx, r);
		return cg_expr(cx, n->n_a);
	case DN_INT:
		r = cg_reg(cx, n);
		cg_setx(cx, n->n_ival, r);
		return r;
	case DN_STR:
		r = cg_reg(cx, n);
		cg_sets(cx, n, r);
		return r;
	case DN_VAR: return cg_var(cx, n);
	case DN_UNARY: return cg_unary(cx, n);
	case DN_BINARY: return cg_binary(cx, n);
	case DN_COND: return cg_cond(cx, n);
	case DN_CAST: return cg_cast(cx, n);
	case DN_MEMBER: return cg_member(cx, n);
	case DN_STRINGOF: return cg_stringof(cx, n);
	case DN_ASSIGN: return cg_assign(cx, n);
	case DN_INCDEC: return cg_incdec(cx, n);
	case DN_INDEX: return cg_index(cx, n);
	case DN_CALL: return cg_call(cx, n);
	case DN_DEREF: return cg_deref(cx, n);
	case DN_ADDR: return cg_addr(cx, n);
	default:
		dc_error(cx, n->n_line, n->n_col, "D_SYNTAX", "expression cannot be compiled");
	}
}

static void
cg_rtype(struct dc_ctx *cx, struct dif_type *rt, const struct dc_type *ty,
    int rsize)
{
	memset(rt, 0, sizeof (*rt));
	if (rsize >= 0) {
		rt->dtdt_kind = DIF_TYPE_CTF;
		rt->dtdt_ckind = DIF_CTF_INTEGER;
		rt->dtdt_size = (uint32_t)rsize;
	} else if (ty->ty_kind == DC_STRING) {
		rt->dtdt_kind = DIF_TYPE_STRING;
		rt->dtdt_flags = DIF_TF_BYREF;
	} else {
		dc_type_dif(cx, ty, rt);
	}
}

static struct dc_difo *
cg_new(struct dc_ctx *cx)
{
	struct dc_difo *df = dc_alloc(cx, sizeof (*df));

	memset(df, 0, sizeof (*df));	/* empty tables, grown on use */
	df->df_strs = dc_alloc(cx, 1);
	return df;
}

/*
 * Compile "e" (NULL: an object returning %r0) into a new DIF object.
 * rsize >= 0 forces an integer return type of that size (0 = void, as for
 * expression statements; 4 for exit(); 8 for an argument-less printf); -1
 * takes the expression's type.
 */
struct dc_difo *
dc_cg_object(struct dc_ctx *cx, struct dc_node *e, int rsize)
{
	struct dc_difo *df = cg_new(cx);
	int r = 0;

	cx->cx_difo = df;
	if (e != NULL)
		r = cg_expr(cx, e);
	cg_emit(cx, DIF_INSTR_RET(r));
	cg_rtype(cx, &df->df_rtype, e != NULL ? &e->n_type : NULL, rsize);
	cx->cx_difo = NULL;
	return df;
}

/*
 * The two-instruction object "setx v -> %r1; ret %r1" returning an
 * 8-byte integer: the aggregation variable id of aggregations, printa(),
 * clear() and friends (reference 3.3; the loader recognises this shape).
 */
struct dc_difo *
dc_cg_const(struct dc_ctx *cx, uint64_t v)
{
	struct dc_difo *df = cg_new(cx);

	cx->cx_difo = df;
	df->df_regs |= 1u << 1;
	cg_setx(cx, v, 1);
	cg_emit(cx, DIF_INSTR_RET(1));
	cg_rtype(cx, &df->df_rtype, NULL, 8);
	cx->cx_difo = NULL;
	return df;
}
