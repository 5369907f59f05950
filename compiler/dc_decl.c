/*
 * dc_decl.c -- types and translators defined in D.
 *
 * A D program may define its own types:
 *
 *	struct point { int x; int y; };      union u { int i; char c[4]; };
 *	enum color { RED, GREEN = 5, BLUE };
 *	translator struct out < struct in *p > { sum = p->a + p->b; };
 *
 * Structs and unions are laid out by C's rules (each member at the next
 * multiple of its alignment, the size rounded up to the largest member
 * alignment; a union's members all at offset 0) and live in the
 * compilation's list (cx_sous); a struct name without a D definition is
 * looked up in kernel BTF (dc_btf.c).  A bitfield ("int a : 3;") takes
 * the next bits of a storage unit of its type's size, or starts the next
 * unit when it would straddle one (as GCC lays them out); reading one
 * loads the unit and shifts the field out (sign-extending a signed one).
 * Enumerators become integer inlines.
 * A translator keeps its member expressions as parse trees; "xlate <T>
 * (e).m" and "xlate <T *> (e)->m" are resolved here at compile time by
 * copying the member's tree with the parameter replaced by e (the kernel
 * validator rejects xlate instructions, reference 2.3).
 *
 * Called by the parser (dc_parse.c) for type names and declarations and
 * by the type checker (dc_type.c) for member access on these types.
 */
#include <stdio.h>
#include <string.h>
#include "dc_impl.h"

#define DC_MAXMEMBERS	128
#define DC_MAXSOUNEST	16	/* struct definitions inside members */

uint32_t
dc_type_align(const struct dc_type *ty)
{
	switch (ty->ty_kind) {
	case DC_INT: return ty->ty_size != 0 ? ty->ty_size : 1;
	case DC_ARRAY: return ty->ty_elsize != 0 ? ty->ty_elsize : 1;
	case DC_STRUCT: return ty->ty_sou != NULL ? ty->ty_sou->so_align : 8;
	default: return 8;
	}
}

static struct dc_sou *
dc_sou_find(struct dc_ctx *cx, const char *name, int isunion)
{
	struct dc_sou *so;

	for (so = cx->cx_sous; so != NULL; so = so->so_next)
		if (so->so_union == isunion && strcmp(so->so_name, name) == 0)
			return so;
	return NULL;
}

/* ": width" after a member name: a bitfield of an integer type. */
static void
dc_sou_bitfield(struct dc_ctx *cx, struct dc_member *m)
{
	const struct dc_token *t = &cx->cx_tok;
	int line = t->tk_line, col = t->tk_col;
	int64_t w;

	dc_next(cx);
	if (m->me_type.ty_kind != DC_INT || m->me_type.ty_float)
		dc_error(cx, line, col, "D_DECL_BFTYPE", "bitfield %s must have an integer type, not %s", m->me_name != NULL && m->me_name[0] != '\0' ? m->me_name : "(anonymous)", m->me_type.ty_name);
	if (!dc_const(dc_parse_expr(cx), &w))
		dc_error(cx, line, col, "D_DECL_BFCONST", "width of bitfield %s must be an integer constant", m->me_name);
	if (w < 0 || (w == 0 && m->me_name[0] != '\0'))
		dc_error(cx, line, col, "D_DECL_BFCONST", "width of bitfield %s is %lld: it must be positive", m->me_name, (long long)w);
	if (w > 64 || w > (int64_t)m->me_type.ty_size * 8)
		dc_error(cx, line, col, "D_DECL_BFSIZE", "width of bitfield %s is %lld bits, more than the %u bits of its type %s", m->me_name, (long long)w, m->me_type.ty_size * 8, m->me_type.ty_name);
	m->me_type.ty_bits = (uint32_t)w;
	if (w == 0)
		m->me_bitoff = 1;	/* ": 0" closes the unit */
}

/* "[N]" after member m's name: ty becomes an array of N base elements. */
static void
dc_sou_arraydim(struct dc_ctx *cx, const struct dc_member *m,
    const struct dc_type *base, struct dc_type *ty)
{
	const struct dc_token *t = &cx->cx_tok;

	dc_next(cx);
	if (t->tk_kind != DT_INT || t->tk_ival == 0 || t->tk_ival > 0xffffff)
		dc_error(cx, t->tk_line, t->tk_col, "D_DECL_ARRDIM", "array dimension of member %s must be a positive integer constant", m->me_name);
	ty->ty_kind = DC_ARRAY;
	ty->ty_elsize = base->ty_size;
	ty->ty_elsigned = base->ty_signed;
	ty->ty_nelems = (uint32_t)t->tk_ival;
	ty->ty_size = base->ty_size * ty->ty_nelems;
	ty->ty_name = "array";
	ty->ty_elname = base->ty_name;
	if (base->ty_kind == DC_STRUCT)
		ty->ty_elsou = base->ty_sou;
	dc_next(cx);
	dc_parse_expect(cx, DT_RBRACK);
}

/*
 * "ret (*name)(params)": a function pointer member, 8 bytes.  Its type is
 * named as dtrace prints it, "ret (*)()" -- D records no parameters, and
 * a void return reads as int.
 */
static void
dc_sou_funcptr(struct dc_ctx *cx, struct dc_sou *so, struct dc_member *m,
    const struct dc_type *ret)
{
	const struct dc_token *t = &cx->cx_tok;
	struct dc_type v;
	const char *rn;
	size_t len;
	char *nm;
	int depth;

	if (so->so_nmems == DC_MAXMEMBERS)
		dc_error(cx, t->tk_line, t->tk_col, "D_DECL_MAX", "%s %s has more than the limit of %d members", so->so_union ? "union" : "struct", so->so_name, DC_MAXMEMBERS);
	dc_next(cx);
	dc_parse_expect(cx, DT_STAR);
	if (t->tk_kind != DT_IDENT)
		dc_parse_syntax(cx);
	memset(m, 0, sizeof (*m));
	m->me_name = t->tk_text;
	dc_next(cx);
	dc_parse_expect(cx, DT_RPAR);
	if (t->tk_kind != DT_LPAR)
		dc_parse_syntax(cx);
	for (depth = 0;;) {		/* the parameters: skipped */
		if (t->tk_kind == DT_LPAR)
			depth++;
		else if (t->tk_kind == DT_RPAR && --depth == 0)
			break;
		else if (t->tk_kind == DT_EOF || t->tk_kind == DT_SEMI)
			dc_parse_syntax(cx);
		dc_next(cx);
	}
	dc_next(cx);
	memset(&v, 0, sizeof (v));
	v.ty_name = "void";
	dc_type_ptr_to(&m->me_type, &v);
	rn = ret->ty_kind == DC_VOID || ret->ty_name == NULL ? "int" :
	    ret->ty_name;
	len = strlen(rn) + 8;
	nm = dc_alloc(cx, len);
	snprintf(nm, len, "%s (*)()", rn);
	m->me_type.ty_name = nm;
}

/* "type name [N], name2;" inside a struct body: append the members. */
static void
dc_sou_members(struct dc_ctx *cx, struct dc_sou *so, struct dc_member *mems)
{
	struct dc_type base, ty;
	const struct dc_token *t = &cx->cx_tok;

	if (!dc_parse_is_type(cx, t))
		dc_parse_syntax(cx);
	dc_parse_type(cx, &base);
	for (;;) {
		ty = base;
		if (t->tk_kind == DT_SEMI && ty.ty_kind == DC_STRUCT &&
		    ty.ty_sou != NULL && ty.ty_sou->so_name[0] == '\0' &&
		    so->so_nmems < DC_MAXMEMBERS) {
			/* an anonymous struct or union: its members are ours */
			memset(&mems[so->so_nmems], 0, sizeof (mems[0]));
			mems[so->so_nmems].me_name = "";
			mems[so->so_nmems++].me_type = ty;
			break;
		}
		if (t->tk_kind == DT_LPAR) {
			dc_sou_funcptr(cx, so, &mems[so->so_nmems], &base);
			so->so_nmems++;
			if (t->tk_kind != DT_COMMA)
				break;
			dc_next(cx);
			continue;
		}
		if (t->tk_kind != DT_IDENT && t->tk_kind != DT_COLON)
			dc_parse_syntax(cx);
		if (so->so_nmems == DC_MAXMEMBERS)
			dc_error(cx, t->tk_line, t->tk_col, "D_DECL_MAX", "%s %s has more than the limit of %d members", so->so_union ? "union" : "struct", so->so_name, DC_MAXMEMBERS);
		memset(&mems[so->so_nmems], 0, sizeof (mems[0]));
		mems[so->so_nmems].me_name = "";
		if (t->tk_kind == DT_IDENT) {
			mems[so->so_nmems].me_name = t->tk_text;
			dc_next(cx);
		}
		if (t->tk_kind == DT_COLON) {
			mems[so->so_nmems].me_type = ty;
			dc_sou_bitfield(cx, &mems[so->so_nmems]);
			so->so_nmems++;
			if (t->tk_kind != DT_COMMA)
				break;
			dc_next(cx);
			continue;
		}
		if (mems[so->so_nmems].me_name[0] == '\0')
			dc_parse_syntax(cx);
		/* "int f();" is a function, of size 0 as void: no member */
		if (t->tk_kind == DT_LPAR || ty.ty_kind == DC_VOID)
			dc_error(cx, t->tk_line, t->tk_col, "D_DECL_VOIDOBJ", "cannot have void member: %s", mems[so->so_nmems].me_name);
		if (t->tk_kind == DT_LBRACK)
			dc_sou_arraydim(cx, &mems[so->so_nmems], &base, &ty);
		if (ty.ty_kind == DC_STRING)	/* the bytes, as dtrace */
			ty.ty_size = dc_strsize(cx);
		if (ty.ty_kind == DC_STRUCT && ty.ty_sou != NULL &&
		    !ty.ty_sou->so_defined)
			dc_error(cx, t->tk_line, t->tk_col, "D_DECL_INCOMPLETE", "member %s of %s %s has incomplete type %s %s", mems[so->so_nmems].me_name, so->so_union ? "union" : "struct", so->so_name, ty.ty_sou->so_union ? "union" : "struct", ty.ty_sou->so_name);
		mems[so->so_nmems++].me_type = ty;
		if (t->tk_kind != DT_COMMA)
			break;
		dc_next(cx);
	}
	dc_parse_expect(cx, DT_SEMI);
}

/*
 * Place bitfield m at bit *bit: in the current unit of its type's size
 * unless it would straddle it; ": 0" moves to the next unit boundary.
 */
static void
dc_sou_placebits(struct dc_member *m, uint64_t *bit)
{
	uint64_t unit = (uint64_t)m->me_type.ty_size * 8;
	uint32_t w = m->me_type.ty_bits;

	if ((w == 0 && *bit % unit != 0) || *bit % unit + w > unit)
		*bit = (*bit + unit - 1) / unit * unit;
	m->me_off = (uint32_t)(*bit / unit * m->me_type.ty_size);
	m->me_bitoff = (uint32_t)(*bit % unit);
	*bit += w;
}

/* C layout of the members parsed into so (bit offsets, then bytes). */
static void
dc_sou_layout(struct dc_sou *so)
{
	uint64_t bit = 0, end = 0;
	uint32_t al, i;

	so->so_align = 1;
	for (i = 0; i < (uint32_t)so->so_nmems; i++) {
		struct dc_member *m = &so->so_mems[i];
		int isbf = m->me_type.ty_bits != 0 || m->me_bitoff != 0;

		al = dc_type_align(&m->me_type);
		if (al > so->so_align && (!isbf || m->me_name[0] != '\0'))
			so->so_align = al;
		if (so->so_union)
			bit = 0;
		if (isbf) {
			dc_sou_placebits(m, &bit);
		} else {
			bit = (bit + (uint64_t)al * 8 - 1) / (al * 8) *
			    (al * 8);
			m->me_off = (uint32_t)(bit / 8);
			bit += (uint64_t)m->me_type.ty_size * 8;
		}
		if (bit > end)
			end = bit;
	}
	end = (end + 7) / 8;
	so->so_size = (uint32_t)((end + so->so_align - 1) / so->so_align *
	    so->so_align);
}

static void
dc_sou_define(struct dc_ctx *cx, struct dc_sou *so, int line, int col)
{
	struct dc_member mems[DC_MAXMEMBERS];

	if (so->so_defined)
		dc_error(cx, line, col, "D_DECL_TYPERED", "%s %s is already defined", so->so_union ? "union" : "struct", so->so_name);
	if (++cx->cx_sounest > DC_MAXSOUNEST)
		dc_error(cx, line, col, "D_DECL_NEST", "%s %s: type definitions are nested more than the limit of %d levels", so->so_union ? "union" : "struct", so->so_name, DC_MAXSOUNEST);
	dc_next(cx);
	so->so_nmems = 0;
	while (cx->cx_tok.tk_kind != DT_RBRACE)
		dc_sou_members(cx, so, mems);
	dc_next(cx);
	if (so->so_nmems == 0)
		dc_error(cx, line, col, "D_DECL_EMPTY", "%s %s has no members", so->so_union ? "union" : "struct", so->so_name);
	so->so_mems = dc_alloc(cx, sizeof (mems[0]) * (size_t)so->so_nmems);
	memcpy(so->so_mems, mems, sizeof (mems[0]) * (size_t)so->so_nmems);
	dc_sou_layout(so);
	so->so_defined = 1;
	cx->cx_sounest--;
}

/*
 * "enum name { A, B = 5, C }": the enumerators become inlines of the enum's
 * type (an int that knows its enumerators, so print() names them).
 */
static void
dc_enum_define(struct dc_ctx *cx, struct dc_type *ty)
{
	const struct dc_token *t = &cx->cx_tok;
	const struct dc_inline *before = cx->cx_inlines, *o;
	struct dc_enum *en = (struct dc_enum *)ty->ty_enum;
	int64_t v = 0;
	int cap = 0;

	dc_next(cx);
	while (t->tk_kind != DT_RBRACE) {
		struct dc_inline *in = dc_alloc(cx, sizeof (*in));
		struct dc_node *n = dc_alloc(cx, sizeof (*n));

		if (t->tk_kind != DT_IDENT)
			dc_parse_syntax(cx);
		/* twice in this enum: dtrace's type library refuses it */
		for (o = cx->cx_inlines; o != before; o = o->in_next)
			if (strcmp(o->in_name, t->tk_text) == 0)
				dc_error(cx, t->tk_line, t->tk_col, "D_UNKNOWN", "failed to define enumerator '%s': it is already an enumerator of this enum", t->tk_text);
		if (dc_inline_lookup(cx, t->tk_text) != NULL)
			dc_error(cx, t->tk_line, t->tk_col, "D_DECL_IDRED", "identifier redeclared: %s", t->tk_text);
		memset(in, 0, sizeof (*in));
		memset(n, 0, sizeof (*n));
		in->in_name = t->tk_text;
		dc_next(cx);
		if (t->tk_kind == DT_ASSIGN) {	/* a constant expression */
			struct dc_node *e;
			int line, col;

			dc_next(cx);
			line = t->tk_line;
			col = t->tk_col;
			e = dc_parse_expr(cx);
			dc_type_expr(cx, e);
			if (e->n_type.ty_kind != DC_INT || !dc_const(e, &v))
				dc_error(cx, line, col, "D_DECL_ENCONST", "enumerator %s must be assigned an integer constant expression", in->in_name);
			if (v > INT32_MAX || v < INT32_MIN)
				dc_error(cx, line, col, "D_DECL_ENOFLOW", "enumerator %s value %lld overflows an int", in->in_name, (long long)v);
		}
		if (en->en_n == cap) {
			const char **nn;
			int32_t *nv;

			cap = cap == 0 ? 16 : cap * 2;
			nn = dc_alloc(cx, sizeof (nn[0]) * (size_t)cap);
			nv = dc_alloc(cx, sizeof (nv[0]) * (size_t)cap);
			if (en->en_n > 0) {
				memcpy(nn, en->en_names,
				    sizeof (nn[0]) * (size_t)en->en_n);
				memcpy(nv, en->en_vals,
				    sizeof (nv[0]) * (size_t)en->en_n);
			}
			en->en_names = nn;
			en->en_vals = nv;
		}
		en->en_names[en->en_n] = in->in_name;
		en->en_vals[en->en_n++] = (int32_t)v;
		n->n_kind = DN_INT;
		n->n_ival = (uint64_t)v++;
		n->n_type = *ty;
		in->in_expr = n;
		in->in_type = n->n_type;
		in->in_next = cx->cx_inlines;
		cx->cx_inlines = in;
		if (t->tk_kind == DT_COMMA)
			dc_next(cx);
		else if (t->tk_kind != DT_RBRACE)
			dc_parse_syntax(cx);
	}
	dc_next(cx);
}

/*
 * "enum name" or "enum [name] { ... }": an int naming the D enum, or plain
 * "enum" for one D does not define (a kernel enum: no enumerators known).
 */
static void
dc_decl_enum(struct dc_ctx *cx, const char *name, struct dc_type *ty)
{
	struct dc_enum *en;
	size_t len;
	char *nm;

	dc_type_int(ty, 4, 1);
	ty->ty_name = "enum";
	for (en = cx->cx_enums; name[0] != '\0' && en != NULL;
	    en = en->en_next)
		if (strcmp(en->en_name + 5, name) == 0)
			break;
	if (cx->cx_tok.tk_kind != DT_LBRACE) {
		if (en != NULL) {
			ty->ty_enum = en;
			ty->ty_name = en->en_name;
		}
		return;
	}
	en = dc_alloc(cx, sizeof (*en));
	memset(en, 0, sizeof (*en));
	len = strlen(name) + 6;
	nm = dc_alloc(cx, len);
	snprintf(nm, len, name[0] != '\0' ? "enum %s" : "enum", name);
	en->en_name = nm;
	ty->ty_enum = en;
	ty->ty_name = nm;
	dc_enum_define(cx, ty);
	if (name[0] != '\0') {
		en->en_next = cx->cx_enums;
		cx->cx_enums = en;
	}
}

/*
 * After "struct name" / "union name" / "enum name" (the name consumed):
 * a definition if "{" follows, else a reference to a D-defined or kernel
 * type.  "ty" becomes the struct (not a pointer) or int for an enum.
 */
void
dc_decl_sou(struct dc_ctx *cx, const char *kw, const char *name,
    struct dc_type *ty, int line, int col)
{
	int isunion = strcmp(kw, "union") == 0;
	struct dc_sou *so;
	size_t len;
	char *nm;

	if (strcmp(kw, "enum") == 0) {
		dc_decl_enum(cx, name, ty);
		return;
	}
	so = name[0] != '\0' ? dc_sou_find(cx, name, isunion) : NULL;
	/*
	 * Inside a struct body or a typedef an unknown name is a forward
	 * declaration (a pointer to it is fine, a member of it is
	 * D_DECL_INCOMPLETE).
	 */
	if ((so == NULL && cx->cx_tok.tk_kind == DT_LBRACE) || (so == NULL &&
	    (cx->cx_sounest > 0 || cx->cx_intypedef) && name[0] != '\0' &&
	    dc_btf_struct_id(cx, name) == 0)) {
		so = dc_alloc(cx, sizeof (*so));
		memset(so, 0, sizeof (*so));
		so->so_name = name;
		so->so_union = isunion;
		so->so_next = cx->cx_sous;
		cx->cx_sous = so;
	}
	if (cx->cx_tok.tk_kind == DT_LBRACE)
		dc_sou_define(cx, so, line, col);
	if (so == NULL) {
		dc_btf_sou(cx, name, isunion, ty, line, col);
		return;
	}
	memset(ty, 0, sizeof (*ty));
	ty->ty_kind = DC_STRUCT;
	ty->ty_sou = so;
	ty->ty_size = so->so_size;
	ty->ty_name = isunion ? "union" : "struct";
	if (so->so_name[0] != '\0') {	/* "struct foo", for print() */
		len = strlen(so->so_name) + 8;
		nm = dc_alloc(cx, len);
		snprintf(nm, len, "%s %s", ty->ty_name, so->so_name);
		ty->ty_name = nm;
	}
}

/*
 * Member name of so, also inside its anonymous struct and union members
 * (depth bounded by DC_MAXSOUNEST); *off gets its offset in so.
 */
static const struct dc_member *
dc_sou_member(const struct dc_sou *so, const char *name, uint32_t *off)
{
	const struct dc_member *m, *in;
	int i;

	for (i = 0; i < so->so_nmems; i++) {
		m = &so->so_mems[i];
		if (m->me_name[0] != '\0' && strcmp(m->me_name, name) == 0) {
			*off = m->me_off;
			return m;
		}
		if (m->me_name[0] == '\0' && m->me_type.ty_kind == DC_STRUCT &&
		    m->me_type.ty_sou != NULL &&
		    (in = dc_sou_member(m->me_type.ty_sou, name, off)) !=
		    NULL) {
			*off += m->me_off;
			return in;
		}
	}
	return NULL;
}

static struct dc_node *
dc_bf_node(struct dc_ctx *cx, const struct dc_node *at, int kind)
{
	struct dc_node *n = dc_alloc(cx, sizeof (*n));

	memset(n, 0, sizeof (*n));
	n->n_kind = kind;
	n->n_line = at->n_line;
	n->n_col = at->n_col;
	return n;
}

/*
 * Reading bitfield m: n becomes ((long)unit << (64 - off - w)) >> (64 - w),
 * the unit loaded as an unsigned integer of the field type's size, the
 * cast (and so the right shift) signed for a signed field.  The result
 * keeps ty_bits so that sizeof, & and offsetof can refuse it.
 */
static void
dc_decl_bitfield(struct dc_ctx *cx, struct dc_node *n,
    const struct dc_member *m, uint32_t off)
{
	struct dc_node *ld = dc_bf_node(cx, n, DN_MEMBER);
	struct dc_node *cast = dc_bf_node(cx, n, DN_CAST);
	struct dc_node *shl = dc_bf_node(cx, n, DN_BINARY);
	struct dc_node *k1 = dc_bf_node(cx, n, DN_INT);
	struct dc_node *k2 = dc_bf_node(cx, n, DN_INT);
	uint32_t w = m->me_type.ty_bits;

	*ld = *n;
	dc_type_int(&ld->n_type, m->me_type.ty_size, 0);
	ld->n_moff = off;
	ld->n_ival = 1;
	k1->n_ival = 64 - m->me_bitoff - w;
	k2->n_ival = 64 - w;
	dc_type_int(&k1->n_type, 4, 1);
	dc_type_int(&k2->n_type, 4, 1);
	/* a 64-bit cast, so the shifts keep their width if retyped */
	cast->n_a = ld;
	dc_type_int(&cast->n_type, 8, m->me_type.ty_signed);
	shl->n_op = DT_SHL;
	shl->n_a = cast;
	shl->n_b = k1;
	dc_type_int(&shl->n_type, 8, m->me_type.ty_signed);
	n->n_kind = DN_BINARY;
	n->n_op = DT_SHR;
	n->n_a = shl;
	n->n_b = k2;
	n->n_str = NULL;
	dc_type_int(&n->n_type, 8, m->me_type.ty_signed);
	n->n_type.ty_name = m->me_type.ty_name;
	n->n_type.ty_bits = w;
}

/* Member access on a D-defined struct; 0 when the type is not one. */
int
dc_decl_member(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type;
	const struct dc_member *m;
	uint32_t off = 0;

	if (a->ty_sou == NULL)
		return 0;
	if (n->n_dot && a->ty_kind != DC_STRUCT)
		dc_error(cx, n->n_line, n->n_col, "D_OP_SOU", "operator . must be applied to a struct or union, not %s", a->ty_name);
	if (!n->n_dot && a->ty_kind != DC_PTR)
		dc_error(cx, n->n_line, n->n_col, "D_OP_PTR", "operator -> must be applied to a pointer, not %s", a->ty_name);
	if (!a->ty_sou->so_defined)	/* a forward tag (translator input) */
		dc_error(cx, n->n_line, n->n_col, "D_OP_INCOMPLETE", "operator %s cannot be applied to a forward declaration: no %s %s definition is available", n->n_dot ? "." : "->", a->ty_sou->so_union ? "union" : "struct", a->ty_sou->so_name);
	m = dc_sou_member(a->ty_sou, n->n_str, &off);
	if (m == NULL)
		dc_error(cx, n->n_line, n->n_col, "D_TYPE_MEMBER", "%s %s has no member named %s", a->ty_sou->so_union ? "union" : "struct", a->ty_sou->so_name, n->n_str);
	n->n_moff = off;
	n->n_type = m->me_type;
	if (m->me_type.ty_bits != 0 && n->n_ival == 1)
		dc_type_int(&n->n_type, m->me_type.ty_size, 0);	/* retyped */
	else if (m->me_type.ty_bits != 0)
		dc_decl_bitfield(cx, n, m, off);
	return 1;
}

uint32_t
dc_decl_offsetof(struct dc_ctx *cx, const struct dc_type *ty,
    const char *member, int line, int col)
{
	const struct dc_member *m;
	uint32_t off = 0;

	if (ty->ty_kind != DC_STRUCT)
		dc_error(cx, line, col, "D_OFFSETOF_TYPE", "offsetof( ) needs a struct or union type, not %s", ty->ty_name);
	if (ty->ty_sou == NULL)
		return dc_btf_offsetof(cx, ty, member, line, col);
	m = dc_sou_member(ty->ty_sou, member, &off);
	if (m == NULL)
		dc_error(cx, line, col, "D_UNKNOWN", "failed to determine offset of %s: %s %s has no such member", member, ty->ty_sou->so_union ? "union" : "struct", ty->ty_sou->so_name);
	if (m->me_type.ty_bits != 0)
		dc_error(cx, line, col, "D_OFFSETOF_BITFIELD", "offsetof( ) cannot be applied to bitfield %s of %s %s", member, ty->ty_sou->so_union ? "union" : "struct", ty->ty_sou->so_name);
	return off;
}

/* ---- translators ---- */

static struct dc_node *dc_clone(struct dc_ctx *cx, const struct dc_node *n,
    const char *param, struct dc_node *arg);

/* Same type for translator signatures: kind, struct, pointee. */
static int
dc_xlator_same(const struct dc_type *a, const struct dc_type *b)
{
	return a->ty_kind == b->ty_kind && a->ty_sou == b->ty_sou &&
	    a->ty_btf == b->ty_btf && a->ty_size == b->ty_size &&
	    a->ty_elsize == b->ty_elsize;
}

/* Can a member of type m hold a value of type e (dtrace's assignment)? */
static int
dc_xlator_fits(const struct dc_type *m, const struct dc_type *e)
{
	if (m->ty_kind == DC_STRUCT || e->ty_kind == DC_STRUCT)
		return dc_type_compat(m, e);
	if ((m->ty_kind == DC_PTR && e->ty_kind == DC_INT) ||
	    (m->ty_kind == DC_INT && e->ty_kind == DC_PTR))
		return 0;
	return 1;
}

/*
 * What dtrace checks when a translator is declared: no second translator
 * between the same types (D_XLATE_REDECL), members of the output type
 * only (D_XLATE_MEMB), and member expressions that are valid for an input
 * of the declared type and fit their member (D_XLATE_INCOMPAT).  The
 * expressions are typed on a copy whose parameter is a value of the input
 * type, so the stored ones stay untyped for each xlate's own argument.
 */
static void
dc_xlator_check(struct dc_ctx *cx, const struct dc_xlator *xl, int line,
    int col)
{
	const struct dc_xlator *o;
	const struct dc_member *m = NULL;
	struct dc_node *zero, *arg, *c;
	uint32_t off;
	int i;

	for (o = cx->cx_xlators; o != NULL; o = o->xl_next)
		if (dc_xlator_same(&o->xl_out, &xl->xl_out) &&
		    dc_xlator_same(&o->xl_in, &xl->xl_in))
			dc_error(cx, line, col, "D_XLATE_REDECL", "translator from %s to %s is already declared", xl->xl_in.ty_name, xl->xl_out.ty_name);
	zero = dc_alloc(cx, sizeof (*zero));
	memset(zero, 0, sizeof (*zero));
	zero->n_kind = DN_INT;
	zero->n_line = line;
	zero->n_col = col;
	dc_type_int(&zero->n_type, 8, 1);
	arg = dc_alloc(cx, sizeof (*arg));
	*arg = *zero;
	arg->n_kind = DN_CAST;
	arg->n_a = zero;
	arg->n_type = xl->xl_in;
	if (xl->xl_in.ty_kind == DC_STRUCT) {	/* *(struct in *)0 */
		dc_type_ptr_to(&arg->n_type, &xl->xl_in);
		c = dc_alloc(cx, sizeof (*c));
		*c = *zero;
		c->n_kind = DN_DEREF;
		c->n_a = arg;
		arg = c;
	}
	for (i = 0; i < xl->xl_n; i++) {
		if (xl->xl_out.ty_sou != NULL) {
			off = 0;
			m = dc_sou_member(xl->xl_out.ty_sou, xl->xl_names[i],
			    &off);
			if (m == NULL)
				dc_error(cx, xl->xl_exprs[i]->n_line, xl->xl_exprs[i]->n_col, "D_XLATE_MEMB", "translator member %s is not a member of %s", xl->xl_names[i], xl->xl_out.ty_name);
		}
		if (xl->xl_in.ty_kind == DC_VOID)
			continue;
		c = dc_clone(cx, xl->xl_exprs[i], xl->xl_param, arg);
		dc_type_expr(cx, c);
		if (m != NULL && !dc_xlator_fits(&m->me_type, &c->n_type))
			dc_error(cx, c->n_line, c->n_col, "D_XLATE_INCOMPAT", "translator member %s of type %s cannot be assigned a value of type %s", xl->xl_names[i], m->me_type.ty_name, c->n_type.ty_name);
	}
}

/* translator out < in param > { m = e; ... } (the ";" is the caller's) */
void
dc_decl_translator(struct dc_ctx *cx)
{
	struct dc_xlator *xl = dc_alloc(cx, sizeof (*xl));
	const struct dc_token *t = &cx->cx_tok;
	const char *names[DC_MAXMEMBERS];
	struct dc_node *exprs[DC_MAXMEMBERS];

	int line = t->tk_line, col = t->tk_col;

	memset(xl, 0, sizeof (*xl));
	dc_next(cx);
	cx->cx_undef_tag = "D_XLATE_SOU";	/* an incomplete output type */
	dc_parse_type(cx, &xl->xl_out);
	cx->cx_undef_tag = NULL;
	if (xl->xl_out.ty_kind != DC_STRUCT)
		dc_error(cx, t->tk_line, t->tk_col, "D_XLATE_SOU", "translator output type must be a struct or union, not %s", xl->xl_out.ty_name);
	dc_parse_expect(cx, DT_LT);
	cx->cx_intypedef = 1;	/* "struct fwd *p": a forward tag, as dtrace */
	dc_parse_type(cx, &xl->xl_in);
	cx->cx_intypedef = 0;
	if (t->tk_kind != DT_IDENT)
		dc_parse_syntax(cx);
	xl->xl_param = t->tk_text;
	dc_next(cx);
	dc_parse_expect(cx, DT_GT);
	dc_parse_expect(cx, DT_LBRACE);
	while (t->tk_kind != DT_RBRACE) {
		if (t->tk_kind != DT_IDENT || xl->xl_n == DC_MAXMEMBERS)
			dc_parse_syntax(cx);
		names[xl->xl_n] = t->tk_text;
		dc_next(cx);
		dc_parse_expect(cx, DT_ASSIGN);
		exprs[xl->xl_n++] = dc_parse_expr(cx);
		dc_parse_expect(cx, DT_SEMI);
	}
	dc_next(cx);
	xl->xl_names = dc_alloc(cx, sizeof (names[0]) * (size_t)(xl->xl_n + 1));
	xl->xl_exprs = dc_alloc(cx, sizeof (exprs[0]) * (size_t)(xl->xl_n + 1));
	memcpy(xl->xl_names, names, sizeof (names[0]) * (size_t)xl->xl_n);
	memcpy(xl->xl_exprs, exprs, sizeof (exprs[0]) * (size_t)xl->xl_n);
	dc_xlator_check(cx, xl, line, col);
	xl->xl_next = cx->cx_xlators;
	cx->cx_xlators = xl;
}

/* Copy tree "n", replacing the unscoped identifier "param" by "arg". */
static struct dc_node *
dc_clone(struct dc_ctx *cx, const struct dc_node *n, const char *param,
    struct dc_node *arg)
{
	struct dc_node *c;
	int i;

	if (n == NULL)
		return NULL;
	if (n->n_kind == DN_VAR && n->n_scope == DS_BUILTIN &&
	    strcmp(n->n_str, param) == 0)
		return arg;
	c = dc_alloc(cx, sizeof (*c));
	*c = *n;
	c->n_a = dc_clone(cx, n->n_a, param, arg);
	c->n_b = dc_clone(cx, n->n_b, param, arg);
	c->n_c = dc_clone(cx, n->n_c, param, arg);
	if (n->n_nargs > 0) {
		c->n_args = dc_alloc(cx, sizeof (c->n_args[0]) *
		    (size_t)n->n_nargs);
		for (i = 0; i < n->n_nargs; i++)
			c->n_args[i] = dc_clone(cx, n->n_args[i], param, arg);
	}
	return c;
}

/* The translator to "out" whose input type accepts "in", or NULL. */
static const struct dc_xlator *
dc_xlator_find(struct dc_ctx *cx, const struct dc_type *out,
    const struct dc_type *in)
{
	const struct dc_xlator *xl;

	for (xl = cx->cx_xlators; xl != NULL; xl = xl->xl_next)
		if (((out->ty_sou != NULL && xl->xl_out.ty_sou == out->ty_sou) ||
		    (out->ty_sou == NULL && out->ty_btf != 0 &&
		    xl->xl_out.ty_btf == out->ty_btf)) &&
		    dc_type_compat(&xl->xl_in, in))
			return xl;
	return NULL;
}

/*
 * n is "xlate <T> (e).m" or "xlate <T *> (e)->m": replace n by the typed
 * translation of member m with the parameter bound to e.
 */
void
dc_decl_xlate(struct dc_ctx *cx, struct dc_node *n)
{
	struct dc_node *x = dc_decl_xlate_of(cx, n->n_a), *c;
	const struct dc_xlator *xl;
	struct dc_type out = x->n_type;
	int i, line = n->n_line, col = n->n_col;

	int isptr = out.ty_kind == DC_PTR;

	if (out.ty_kind == DC_PTR) {
		out.ty_kind = DC_STRUCT;
		out.ty_size = out.ty_sou != NULL ? out.ty_sou->so_size : 0;
	}
	/* as dtrace: the translator is looked up before the operator */
	dc_type_expr(cx, x->n_a);
	xl = dc_xlator_find(cx, &out, &x->n_a->n_type);
	if (xl == NULL)
		dc_error(cx, x->n_line, x->n_col, "D_XLATE_NONE", "no translator to %s from %s is defined", x->n_type.ty_name, x->n_a->n_type.ty_name);
	if (n->n_dot == isptr)
		dc_error(cx, line, col, "D_XLATE_OP", "use . with xlate <struct T> and -> with xlate <struct T *>");
	for (i = 0; i < xl->xl_n; i++)
		if (strcmp(xl->xl_names[i], n->n_str) == 0)
			break;
	if (i == xl->xl_n)
		dc_error(cx, line, col, "D_XLATE_NOCONV", "translator does not define conversion for member: %s", n->n_str);
	c = dc_clone(cx, xl->xl_exprs[i], xl->xl_param, x->n_a);
	dc_type_expr(cx, c);
	*n = *c;
	n->n_line = line;
	n->n_col = col;
}

/*
 * The "xlate <T> (e)" that n stands for: n itself, or a copy of the
 * expression of the inline n names (curpsinfo), or NULL.
 */
struct dc_node *
dc_decl_xlate_of(struct dc_ctx *cx, const struct dc_node *n)
{
	struct dc_inline *in;
	struct dc_node *c;

	if (n->n_kind == DN_XLATE)
		return (struct dc_node *)n;
	if (n->n_kind != DN_VAR || (n->n_scope != DS_GLOBAL &&
	    n->n_scope != DS_BUILTIN) || dc_var_lookup(cx, n->n_str,
	    DS_GLOBAL) != NULL)
		return NULL;
	in = dc_inline_lookup(cx, n->n_str);
	if (in == NULL || in->in_expr == NULL ||
	    in->in_expr->n_kind != DN_XLATE)
		return NULL;
	c = dc_clone(cx, in->in_expr, "", NULL);
	c->n_line = n->n_line;
	c->n_col = n->n_col;
	return c;
}

static struct dc_node *
dc_xs_node(struct dc_ctx *cx, const struct dc_node *at, enum dc_nkind k)
{
	struct dc_node *c = dc_alloc(cx, sizeof (*c));

	memset(c, 0, sizeof (*c));
	c->n_kind = k;
	c->n_line = at->n_line;
	c->n_col = at->n_col;
	return c;
}

/* The clause-local variable holding the translation's address. */
static struct dc_node *
dc_xs_var(struct dc_ctx *cx, const struct dc_node *at, const char *name)
{
	struct dc_node *v = dc_xs_node(cx, at, DN_VAR);

	v->n_str = name;
	v->n_scope = DS_LOCAL;
	return v;
}

/* bcopy(src, dst, size), typed here: src may be a string or a struct. */
static struct dc_node *
dc_xs_bcopy(struct dc_ctx *cx, const struct dc_node *at, struct dc_node *src,
    struct dc_node *dst, uint32_t size)
{
	struct dc_node *c = dc_xs_node(cx, at, DN_CALL);
	struct dc_node *k = dc_xs_node(cx, at, DN_INT);

	k->n_ival = size;
	dc_type_int(&k->n_type, 8, 0);
	c->n_str = "bcopy";
	c->n_ival = DIF_SUBR_BCOPY;
	c->n_args = dc_alloc(cx, 3 * sizeof (c->n_args[0]));
	c->n_args[0] = src;
	c->n_args[1] = dst;
	c->n_args[2] = k;
	c->n_nargs = 3;
	c->n_type.ty_name = "void";
	return c;
}

/*
 * n becomes the whole translation "xlate <T> (e)" of x (x's type is the
 * struct T, or the pointer T * that n dereferences): as dtrace builds it,
 * zeroed scratch memory of T's size (alloca) with every member the
 * translator defines stored into it, in declaration order, from its
 * expression with the parameter bound to e.  Scalars are stored, strings
 * and structs copied (bcopy, at most the member's size).  The value is
 * the memory's address, typed T: print(), trace() and struct assignment
 * take it like any struct.  Members without a conversion stay 0.
 */
void
dc_decl_xlate_sou(struct dc_ctx *cx, struct dc_node *n, struct dc_node *x)
{
	const struct dc_xlator *xl;
	const struct dc_member *m;
	struct dc_type out = x->n_type, pt;
	struct dc_node **st, *s, *c, *mem, *call, *k, *addr;
	struct dc_var *v;
	uint32_t off, size;
	char name[32];
	int i, ns = 0;

	if (out.ty_kind == DC_PTR) {
		out.ty_kind = DC_STRUCT;
		out.ty_size = out.ty_sou != NULL ? out.ty_sou->so_size : 0;
		if (out.ty_name != NULL && strlen(out.ty_name) > 2 &&
		    strcmp(out.ty_name + strlen(out.ty_name) - 2, " *") == 0)
			out.ty_name = dc_strndup(cx, out.ty_name,
			    strlen(out.ty_name) - 2);
	}
	dc_type_expr(cx, x->n_a);
	xl = dc_xlator_find(cx, &out, &x->n_a->n_type);
	if (xl == NULL)
		dc_error(cx, x->n_line, x->n_col, "D_XLATE_NONE", "no translator to %s from %s is defined", out.ty_name, x->n_a->n_type.ty_name);
	if (out.ty_sou == NULL || out.ty_sou->so_size == 0)
		dc_error(cx, x->n_line, x->n_col, "D_XLATE_SOU", "xlate <%s> of a whole struct needs a struct defined in D; use xlate <T> (e).member", out.ty_name);
	snprintf(name, sizeof (name), "%%xlate%u", cx->cx_nxlsou++);
	name[sizeof (name) - 1] = '\0';
	v = dc_var_get(cx, dc_strndup(cx, name, strlen(name)), DS_LOCAL,
	    x->n_line, x->n_col);
	dc_type_ptr_to(&pt, &out);
	v->va_type = pt;
	v->va_typed = 1;
	st = dc_alloc(cx, sizeof (st[0]) * (size_t)(xl->xl_n + 1));
	/* this->%xlateN = alloca(sizeof (T)) */
	s = dc_xs_node(cx, x, DN_ASSIGN);
	s->n_op = DT_ASSIGN;
	s->n_a = dc_xs_var(cx, x, v->va_name);
	call = dc_xs_node(cx, x, DN_CALL);
	call->n_str = "alloca";
	k = dc_xs_node(cx, x, DN_INT);
	k->n_ival = out.ty_size;
	dc_type_int(&k->n_type, 8, 0);
	call->n_args = dc_alloc(cx, sizeof (call->n_args[0]));
	call->n_args[0] = k;
	call->n_nargs = 1;
	s->n_b = call;
	dc_type_expr(cx, s);
	st[ns++] = s;
	for (i = 0; i < xl->xl_n; i++) {
		off = 0;
		m = dc_sou_member(out.ty_sou, xl->xl_names[i], &off);
		if (m == NULL)
			continue;	/* D_XLATE_MEMB when declared */
		c = dc_clone(cx, xl->xl_exprs[i], xl->xl_param, x->n_a);
		dc_type_expr(cx, c);
		mem = dc_xs_node(cx, x, DN_MEMBER);
		mem->n_a = dc_xs_var(cx, x, v->va_name);
		mem->n_str = xl->xl_names[i];
		if (m->me_type.ty_kind == DC_INT ||
		    m->me_type.ty_kind == DC_PTR) {
			s = dc_xs_node(cx, x, DN_ASSIGN);
			s->n_op = DT_ASSIGN;
			s->n_a = mem;
			s->n_b = c;
			dc_type_expr(cx, s);
			st[ns++] = s;
			continue;
		}
		/* a string, char array or struct member: copied */
		if (c->n_type.ty_kind != DC_STRING &&
		    c->n_type.ty_kind != DC_STRUCT &&
		    c->n_type.ty_kind != DC_ARRAY)
			dc_error(cx, c->n_line, c->n_col, "D_XLATE_INCOMPAT", "translator member %s of type %s cannot be assigned a value of type %s", xl->xl_names[i], m->me_type.ty_name, c->n_type.ty_name);
		size = m->me_type.ty_kind == DC_STRING ? dc_strsize(cx) :
		    m->me_type.ty_size;
		if (c->n_type.ty_kind == DC_STRING && size > dc_strsize(cx))
			size = dc_strsize(cx);
		if (c->n_type.ty_kind != DC_STRING && size > c->n_type.ty_size)
			size = c->n_type.ty_size;
		addr = dc_xs_node(cx, x, DN_ADDR);
		addr->n_a = mem;
		dc_type_expr(cx, addr);
		st[ns++] = dc_xs_bcopy(cx, x, c, addr, size);
	}
	memset(n, 0, sizeof (*n));
	n->n_kind = DN_XLSOU;
	n->n_line = x->n_line;
	n->n_col = x->n_col;
	n->n_args = st;
	n->n_nargs = ns;
	n->n_a = dc_xs_var(cx, x, v->va_name);
	dc_type_expr(cx, n->n_a);
	n->n_type = out;
	n->n_depth = 1;
}
