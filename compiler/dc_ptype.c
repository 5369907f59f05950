/*
 * dc_ptype.c -- the type layout of a print() action (common/dof_ptype.h).
 *
 * print(e) of a struct, union, enum or array records the object's bytes
 * and carries, as the action's format, a self-contained description of
 * its type, so that every consumer prints the record without the D
 * declarations or the writing kernel's BTF.  dc_a_print() (dc_act.c)
 * calls dc_ptype_layout() for such an argument; types come from two
 * places, written by two small walkers over one output buffer:
 *
 *	D declarations	dc_sou / dc_enum / dc_type (dc_decl.c)
 *	kernel BTF	libbpf's struct btf, through cx_btf (dc_btf.c)
 *
 * Limits (dof_ptype.h, "Limits"): the record is at most DOF_PT_MAXREC
 * bytes of the object, the layout at most DOF_PT_MAXLEN bytes and
 * DOF_PT_DEPTH levels.  A member that does not fit one of them is left
 * out; its struct becomes a cut struct ("c") that counts what was left
 * out, and a struct straddling the byte limit is described up to it.
 * Members are written in place and rolled back when they fail, and a
 * struct's head is inserted before its members once their count is known.
 * An array element is never cut (the grammar has no cut elements): an
 * array that cannot be described whole is left out whole.
 */
#include <string.h>
#include <bpf/btf.h>
#include "dc_impl.h"
#include "dof_ptype.h"

/*
 * Members stop DC_PT_RESERVE bytes short of DOF_PT_MAXLEN, so that the
 * heads of the structs around them (at most DOF_PT_DEPTH + 1, under 64
 * bytes each) can still be inserted.
 */
#define DC_PT_RESERVE	2048

struct dc_pt {
	struct dc_ctx	*pt_cx;
	char		*pt_buf;
	size_t		pt_len;
	size_t		pt_cap;
	size_t		pt_limit;	/* bytes pt_buf may reach */
	const struct btf *pt_btf;
};

/* ---- Output buffer ---- */

static int
dc_pt_put(struct dc_pt *p, const char *s, size_t n)
{
	char *nb;

	if (p->pt_len + n + 1 > p->pt_limit)
		return -1;
	if (p->pt_len + n + 1 > p->pt_cap) {
		p->pt_cap = (p->pt_len + n + 1) * 2;
		nb = dc_alloc(p->pt_cx, p->pt_cap);
		if (p->pt_len > 0)	/* pt_buf is NULL at first */
			memcpy(nb, p->pt_buf, p->pt_len);
		p->pt_buf = nb;
	}
	memcpy(p->pt_buf + p->pt_len, s, n);
	p->pt_len += n;
	p->pt_buf[p->pt_len] = '\0';
	return 0;
}

static int
dc_pt_num(struct dc_pt *p, uint64_t v)
{
	char b[24];

	return dc_pt_put(p, b, (size_t)snprintf(b, sizeof (b), "%llu,",
	    (unsigned long long)v));
}

static int
dc_pt_name(struct dc_pt *p, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	return dc_pt_num(p, n) != 0 || dc_pt_put(p, s != NULL ? s : "", n);
}

/* Insert text at "at" (a struct's head before its members). */
static int
dc_pt_insert(struct dc_pt *p, size_t at, const char *s, size_t n)
{
	size_t tail = p->pt_len - at;
	int rc;

	p->pt_limit = DOF_PT_MAXLEN;	/* the reserve is for heads */
	rc = dc_pt_put(p, s, n);
	p->pt_limit = DOF_PT_MAXLEN - DC_PT_RESERVE;
	if (rc != 0)
		return -1;
	memmove(p->pt_buf + at + n, p->pt_buf + at, tail);
	memcpy(p->pt_buf + at, s, n);
	return 0;
}

/*
 * A struct's head "s" SIZE NMEM or "c" SIZE NMEM NCUT, inserted at "at"
 * once the members are written.
 */
static int
dc_pt_souhead(struct dc_pt *p, size_t at, uint64_t size, uint64_t nmem,
    uint64_t ncut, int cut)
{
	char b[80];
	size_t n;

	if (cut)
		n = (size_t)snprintf(b, sizeof (b), "c%llu,%llu,%llu,",
		    (unsigned long long)size, (unsigned long long)nmem,
		    (unsigned long long)ncut);
	else
		n = (size_t)snprintf(b, sizeof (b), "s%llu,%llu,",
		    (unsigned long long)size, (unsigned long long)nmem);
	return dc_pt_insert(p, at, b, n);
}

static int
dc_pt_member(struct dc_pt *p, uint64_t off, uint64_t bitoff, uint64_t bits,
    const char *name)
{
	return dc_pt_num(p, off) != 0 || dc_pt_num(p, bitoff) != 0 ||
	    dc_pt_num(p, bits) != 0 || dc_pt_name(p, name) != 0 ? -1 : 0;
}

static int
dc_pt_int(struct dc_pt *p, uint32_t size, char flag)
{
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return -1;
	return dc_pt_put(p, "i", 1) != 0 || dc_pt_num(p, size) != 0 ||
	    dc_pt_put(p, &flag, 1) != 0 ? -1 : 0;
}

static int
dc_pt_ischar(const char *name, uint32_t size)
{
	return size == 1 && name != NULL && (strcmp(name, "char") == 0 ||
	    strcmp(name, "signed char") == 0 || strcmp(name, "int8_t") == 0);
}

/* ---- Types defined in D ---- */

static int dc_pt_d(struct dc_pt *p, const struct dc_type *ty,
    const char *name, int depth, uint64_t avail, int nocut);

/* A D enum: "e" 4, its enumerator count, each value and name. */
static int
dc_pt_denum(struct dc_pt *p, const struct dc_enum *en)
{
	int i;

	if (dc_pt_put(p, "e", 1) != 0 || dc_pt_num(p, 4) != 0 ||
	    dc_pt_num(p, (uint64_t)en->en_n) != 0)
		return -1;
	for (i = 0; i < en->en_n; i++)
		if (dc_pt_num(p, (uint32_t)en->en_vals[i]) != 0 ||
		    dc_pt_name(p, en->en_names[i]) != 0)
			return -1;
	return 0;
}

/* A D struct or union of "size" bytes, "avail" of them recorded. */
static int
dc_pt_dsou(struct dc_pt *p, const struct dc_sou *so, uint32_t size,
    int depth, uint64_t avail, int nocut)
{
	const struct dc_member *m;
	size_t at = p->pt_len, mark;
	uint64_t n = 0, cut = 0;
	int i;

	for (i = 0; i < so->so_nmems; i++) {
		m = &so->so_mems[i];
		mark = p->pt_len;
		if (m->me_off > avail ||
		    dc_pt_member(p, m->me_off, m->me_bitoff,
		    m->me_type.ty_bits, m->me_name) != 0 ||
		    dc_pt_d(p, &m->me_type, NULL, depth + 1,
		    avail - m->me_off, nocut) != 0) {
			p->pt_len = mark;
			cut++;
			continue;
		}
		n++;
	}
	if (nocut && (cut > 0 || size > avail))
		return -1;
	return dc_pt_souhead(p, at, size, n, cut, cut > 0 || size > avail);
}

static const char *
dc_pt_dname(struct dc_pt *p, const struct dc_type *ty, const char *name)
{
	const char *el;
	size_t len;
	char *nm;

	if (name != NULL)
		return name;
	if (ty->ty_kind == DC_STRUCT && ty->ty_name != NULL &&
	    (strcmp(ty->ty_name, "struct") == 0 ||
	    strcmp(ty->ty_name, "union") == 0))	/* anonymous */
		return ty->ty_name;	/* "struct c = {", as dtrace prints it */
	if (ty->ty_kind != DC_ARRAY)
		return ty->ty_name;
	el = ty->ty_elname != NULL ? ty->ty_elname : "integer";
	len = strlen(el) + 16;
	nm = dc_alloc(p->pt_cx, len);
	snprintf(nm, len, "%s [%u]", el, ty->ty_nelems);
	return nm;
}

/* A D array: its elements are never cut. */
static int
dc_pt_darray(struct dc_pt *p, const struct dc_type *ty, int depth,
    uint64_t avail)
{
	struct dc_type el;

	if ((uint64_t)ty->ty_elsize * ty->ty_nelems > avail ||
	    dc_pt_put(p, "a", 1) != 0 || dc_pt_num(p, ty->ty_nelems) != 0)
		return -1;
	if (ty->ty_elsou != NULL)
		return depth + 1 > DOF_PT_DEPTH ||
		    dc_pt_name(p, ty->ty_elname) != 0 ? -1 :
		    dc_pt_dsou(p, ty->ty_elsou, ty->ty_elsize, depth + 1,
		    ty->ty_elsize, 1);
	dc_type_int(&el, ty->ty_elsize, ty->ty_elsigned);
	if (ty->ty_elname != NULL)
		el.ty_name = ty->ty_elname;
	return dc_pt_d(p, &el, NULL, depth + 1, ty->ty_elsize, 1);
}

/* One D type at depth: its name, then its kind (-1: cannot, left out). */
static int
dc_pt_d(struct dc_pt *p, const struct dc_type *ty, const char *name,
    int depth, uint64_t avail, int nocut)
{
	if (depth > DOF_PT_DEPTH ||
	    dc_pt_name(p, dc_pt_dname(p, ty, name)) != 0)
		return -1;
	switch (ty->ty_kind) {
	case DC_INT:
		if (ty->ty_size > avail)
			return -1;
		if (ty->ty_enum != NULL && ty->ty_size == 4 &&
		    ty->ty_bits == 0)
			return dc_pt_denum(p, ty->ty_enum);
		return dc_pt_int(p, ty->ty_size, dc_pt_ischar(ty->ty_name,
		    ty->ty_size) ? 'c' : ty->ty_signed ? 's' : 'u');
	case DC_PTR:
		return avail < 8 ? -1 : dc_pt_put(p, "p", 1);
	case DC_STRING:
		return dc_strsize(p->pt_cx) > avail ||
		    dc_pt_put(p, "z", 1) != 0 ? -1 :
		    dc_pt_num(p, dc_strsize(p->pt_cx));
	case DC_ARRAY:
		return dc_pt_darray(p, ty, depth, avail);
	case DC_STRUCT:
		if (ty->ty_sou != NULL)
			return dc_pt_dsou(p, ty->ty_sou, ty->ty_size, depth,
			    avail, nocut);
		break;
	default:
		break;
	}
	return -1;
}

/* ---- Kernel types from BTF ---- */

#define DC_PT_NAMEDEPTH	8	/* qualifiers and pointers in a name */

/* Skip typedefs and qualifiers. */
static uint32_t
dc_pt_bskip(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t;
	int guard;

	for (guard = 0; guard < 32; guard++) {
		t = btf__type_by_id(btf, id);
		if (t == NULL || !(btf_is_typedef(t) || btf_is_mod(t)))
			break;
		id = t->type;
	}
	return id;
}

static const char *dc_pt_bname(struct dc_pt *p, uint32_t id, int depth);

/* A pointer to a function: "void (*)(struct foo *, int)". */
static const char *
dc_pt_bfunc(struct dc_pt *p, const struct btf_type *t, int depth)
{
	const struct btf_param *pa = btf_params(t);
	const char *ret = dc_pt_bname(p, t->type, depth + 1), *a;
	size_t len = strlen(ret) + 16, n;
	uint16_t i, vlen = btf_vlen(t);
	char *s;

	for (i = 0; i < vlen; i++)
		len += strlen(pa[i].type == 0 ? "..." :
		    dc_pt_bname(p, pa[i].type, depth + 1)) + 2;
	s = dc_alloc(p->pt_cx, len);
	n = (size_t)snprintf(s, len, "%s (*)(", ret);
	for (i = 0; i < vlen; i++) {
		a = pa[i].type == 0 ? "..." : dc_pt_bname(p, pa[i].type,
		    depth + 1);
		n += (size_t)snprintf(s + n, len - n, "%s%s", i > 0 ? ", " :
		    "", a);
	}
	snprintf(s + n, len - n, "%s)", vlen == 0 ? "void" : "");
	return s;
}

/* The C name of BTF type id, as dtrace prints it ("struct foo *"). */
static const char *
dc_pt_bname(struct dc_pt *p, uint32_t id, int depth)
{
	const struct btf_type *t = btf__type_by_id(p->pt_btf, id);
	const char *n, *in, *kw = NULL;
	size_t len;
	char *s;

	if (id == 0 || t == NULL || depth > DC_PT_NAMEDEPTH)
		return "void";
	n = btf__name_by_offset(p->pt_btf, t->name_off);
	if (btf_is_struct(t))
		kw = "struct";
	else if (btf_is_union(t))
		kw = "union";
	else if (btf_is_enum(t) || btf_is_enum64(t))
		kw = "enum";
	else if (btf_is_fwd(t))
		kw = btf_kflag(t) ? "union" : "struct";
	if (kw != NULL || btf_is_int(t) || btf_is_float(t) ||
	    btf_is_typedef(t)) {
		if (n == NULL || n[0] == '\0')
			return kw != NULL ? kw : "integer";	/* anonymous */
		if (kw == NULL)
			return n;
		len = strlen(kw) + strlen(n) + 2;
		s = dc_alloc(p->pt_cx, len);
		snprintf(s, len, "%s %s", kw, n);
		return s;
	}
	if (btf_is_func_proto(t))
		return dc_pt_bfunc(p, t, depth);
	in = dc_pt_bname(p, t->type, depth + 1);
	len = strlen(in) + 32;
	s = dc_alloc(p->pt_cx, len);
	if (btf_is_ptr(t)) {
		const struct btf_type *pt = btf__type_by_id(p->pt_btf,
		    t->type);

		if (pt != NULL && btf_is_func_proto(pt))
			return in;
		snprintf(s, len, "%s%s*", in,
		    in[strlen(in) - 1] == '*' ? "" : " ");
	} else if (btf_is_array(t)) {
		snprintf(s, len, "%s [%u]", dc_pt_bname(p, btf_array(t)->type,
		    depth + 1), btf_array(t)->nelems);
	} else if (btf_is_const(t)) {
		snprintf(s, len, "const %s", in);
	} else if (btf_is_volatile(t)) {
		snprintf(s, len, "volatile %s", in);
	} else {
		return in;	/* restrict, type tags */
	}
	return s;
}

static int dc_pt_b(struct dc_pt *p, uint32_t id, int depth, uint64_t avail,
    int nocut);

/* A BTF enum of 4 bytes by name; others as integers. */
static int
dc_pt_benum(struct dc_pt *p, const struct btf_type *t)
{
	const struct btf_enum *e;
	uint32_t i;

	if (!btf_is_enum(t) || t->size != 4)
		return dc_pt_int(p, t->size, btf_kflag(t) ? 's' : 'u');
	if (dc_pt_put(p, "e", 1) != 0 || dc_pt_num(p, 4) != 0 ||
	    dc_pt_num(p, btf_vlen(t)) != 0)
		return -1;
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (dc_pt_num(p, (uint32_t)e[i].val) != 0 ||
		    dc_pt_name(p, btf__name_by_offset(p->pt_btf,
		    e[i].name_off)) != 0)
			return -1;
	return 0;
}

/*
 * A bitfield member: its unit is its integer type's size, aligned down
 * from the first bit's byte (C's layout), else that byte itself.
 */
static int
dc_pt_bbits(struct dc_pt *p, const char *mname, uint32_t mid,
    uint64_t bitoff, uint64_t bits, int depth, uint64_t avail)
{
	const struct btf_type *mt = btf__type_by_id(p->pt_btf,
	    dc_pt_bskip(p->pt_btf, mid));
	uint64_t off, sz;
	char flag;

	if (mt == NULL || !(btf_is_int(mt) || btf_is_enum(mt)) ||
	    depth + 1 > DOF_PT_DEPTH)
		return -1;
	sz = mt->size;
	if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
		return -1;
	off = (bitoff / 8) & ~(sz - 1);
	if (bitoff - off * 8 + bits > sz * 8)
		off = bitoff / 8;	/* packed: the unit at its first byte */
	if (bitoff - off * 8 + bits > sz * 8 || off + sz > avail)
		return -1;
	flag = btf_is_enum(mt) || (btf_int_encoding(mt) & BTF_INT_SIGNED) ?
	    's' : 'u';
	return dc_pt_member(p, off, bitoff - off * 8, bits, mname) != 0 ||
	    dc_pt_name(p, dc_pt_bname(p, mid, 0)) != 0 ||
	    dc_pt_int(p, (uint32_t)sz, flag) != 0 ? -1 : 0;
}

/* A BTF struct or union; "avail" of its bytes are recorded. */
static int
dc_pt_bsou(struct dc_pt *p, const struct btf_type *t, int depth,
    uint64_t avail, int nocut)
{
	const struct btf_member *m = btf_members(t);
	size_t at = p->pt_len, mark;
	uint64_t n = 0, cut = 0, off, bits;
	const char *mname;
	uint32_t i;
	int rc;

	for (i = 0; i < btf_vlen(t); i++) {
		mark = p->pt_len;
		off = btf_member_bit_offset(t, i);
		bits = btf_member_bitfield_size(t, i);
		mname = btf__name_by_offset(p->pt_btf, m[i].name_off);
		if (bits != 0)
			rc = dc_pt_bbits(p, mname, m[i].type, off, bits,
			    depth, avail);
		else if ((off & 7) != 0 || off / 8 > avail)
			rc = -1;
		else
			rc = dc_pt_member(p, off / 8, 0, 0, mname) != 0 ||
			    dc_pt_b(p, m[i].type, depth + 1, avail - off / 8,
			    nocut) != 0 ? -1 : 0;
		if (rc != 0) {
			p->pt_len = mark;
			cut++;
			continue;
		}
		n++;
	}
	if (nocut && (cut > 0 || t->size > avail))
		return -1;
	return dc_pt_souhead(p, at, t->size, n, cut,
	    cut > 0 || t->size > avail);
}

/* A BTF array: elements whole (never cut), the array whole in avail. */
static int
dc_pt_barray(struct dc_pt *p, const struct btf_type *t, int depth,
    uint64_t avail)
{
	const struct btf_array *a = btf_array(t);
	int64_t esz = btf__resolve_size(p->pt_btf, a->type);

	if (esz < 0 || (uint64_t)esz * a->nelems > avail ||
	    (uint64_t)esz * a->nelems > 0xffffffffull ||
	    dc_pt_put(p, "a", 1) != 0 || dc_pt_num(p, a->nelems) != 0)
		return -1;
	return dc_pt_b(p, a->type, depth + 1, (uint64_t)esz, 1);
}

/* One BTF type at depth: name, then kind (-1: cannot, left out). */
static int
dc_pt_b(struct dc_pt *p, uint32_t id, int depth, uint64_t avail, int nocut)
{
	uint32_t rid = dc_pt_bskip(p->pt_btf, id);
	const struct btf_type *t = btf__type_by_id(p->pt_btf, rid);
	const char *name;

	if (depth > DOF_PT_DEPTH || t == NULL || rid == 0)
		return -1;
	name = dc_pt_bname(p, id, 0);
	if (dc_pt_name(p, name) != 0)
		return -1;
	if (btf_is_int(t) || btf_is_float(t))
		return t->size > avail ? -1 : dc_pt_int(p, t->size,
		    btf_is_int(t) && dc_pt_ischar(name, t->size) ? 'c' :
		    btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED) ?
		    's' : 'u');
	if (btf_is_enum(t) || btf_is_enum64(t))
		return t->size > avail ? -1 : dc_pt_benum(p, t);
	if (btf_is_ptr(t))
		return avail < 8 ? -1 : dc_pt_put(p, "p", 1);
	if (btf_is_array(t))
		return dc_pt_barray(p, t, depth, avail);
	if (btf_is_struct(t) || btf_is_union(t))
		return dc_pt_bsou(p, t, depth, avail, nocut);
	return -1;	/* void, forward declarations, functions */
}

/* ---- Entry ---- */

/*
 * The layout string ("@" T) for print() of "ty"; *recsize gets the bytes
 * to record (the object's size, at most DOF_PT_MAXREC).  Reports
 * D_PRINT_TYPE for a type that cannot be described at all.
 */
const char *
dc_ptype_layout(struct dc_ctx *cx, const struct dc_type *ty, int line,
    int col, uint32_t *recsize)
{
	struct dc_pt p;
	uint64_t size = ty->ty_size;
	const char *name;
	int rc;

	memset(&p, 0, sizeof (p));
	p.pt_cx = cx;
	p.pt_btf = cx->cx_btf;
	p.pt_limit = DOF_PT_MAXLEN - DC_PT_RESERVE;
	dc_pt_put(&p, "@", 1);
	if (ty->ty_btf != 0 && ty->ty_sou == NULL && cx->cx_btf != NULL &&
	    (ty->ty_kind == DC_STRUCT || ty->ty_kind == DC_ARRAY)) {
		int64_t s = btf__resolve_size(cx->cx_btf, ty->ty_btf);

		size = s > 0 ? (uint64_t)s : 0;
		rc = dc_pt_b(&p, ty->ty_btf, 0, size < DOF_PT_MAXREC ? size :
		    DOF_PT_MAXREC, 0);
	} else {
		rc = dc_pt_d(&p, ty, NULL, 0, size < DOF_PT_MAXREC ? size :
		    DOF_PT_MAXREC, 0);
	}
	name = p.pt_btf != NULL && ty->ty_btf != 0 && ty->ty_sou == NULL ?
	    dc_pt_bname(&p, ty->ty_btf, 0) : dc_pt_dname(&p, ty, NULL);
	if (rc != 0 && ty->ty_kind == DC_ARRAY && size > DOF_PT_MAXREC)
		dc_error(cx, line, col, "D_PRINT_TYPE", "print( ) cannot print %s: its %llu bytes exceed print()'s limit of %u (an array is printed whole; print a part of it)", name, (unsigned long long)size, DOF_PT_MAXREC);
	if (rc != 0)
		dc_error(cx, line, col, "D_PRINT_TYPE", "print( ) cannot print %s: its layout cannot be described (member types kdt cannot print, or arrays of structs nested deeper than %d levels)", name != NULL ? name : "this type", DOF_PT_DEPTH);
	*recsize = (uint32_t)(size < DOF_PT_MAXREC ? size : DOF_PT_MAXREC);
	return p.pt_buf;
}
