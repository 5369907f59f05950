/*
 * dc_btf.c -- kernel types for the compiler, read from BTF with libbpf.
 *
 * The compiler needs kernel struct layouts for casts such as
 * "(struct module *)arg0", member access "->name" / ".name", offsetof and
 * the type of curthread (struct task_struct *).  They come from the
 * kernel's BTF: the file given with --btf=PATH (an ELF vmlinux with a .BTF
 * section, or raw BTF), else $KDT_BTF, else /sys/kernel/btf/vmlinux.  BTF
 * is loaded lazily, on the first struct type a program names, so scripts
 * without kernel types compile anywhere.  Called from dc_parse.c (casts)
 * and dc_type.c (member access).
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <bpf/btf.h>
#include "dc_impl.h"

#define DC_BTF_SYSFS	"/sys/kernel/btf/vmlinux"

static const char *
dc_btf_path(const struct dc_ctx *cx)
{
	const char *p;

	if (cx->cx_opts != NULL && cx->cx_opts->dco_btf != NULL)
		return cx->cx_opts->dco_btf;
	p = getenv("KDT_BTF");
	if (p != NULL && *p != '\0')
		return p;
	return DC_BTF_SYSFS;
}

void
dc_btf_load(struct dc_ctx *cx, int line, int col)
{
	const char *path = dc_btf_path(cx);
	struct btf *btf;

	if (cx->cx_btf != NULL)
		return;
	btf = btf__parse(path, NULL);
	if (btf == NULL)
		dc_error(cx, line, col, "D_BTF_LOAD", "cannot load kernel types from BTF file %s: %s (use --btf=PATH or KDT_BTF)", path, strerror(errno));
	cx->cx_btf = btf;
}

/* Skip typedefs and qualifiers; returns the underlying type id. */
static uint32_t
dc_btf_skip(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int guard = 0;

	while (t != NULL && guard++ < 64 && (btf_is_typedef(t) ||
	    btf_is_mod(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

static const char *
dc_btf_ptrname(struct dc_ctx *cx, const char *kw, const char *name)
{
	size_t len = strlen(kw) + strlen(name) + 4;
	char *s = dc_alloc(cx, len);

	snprintf(s, len, "%s %s", kw, name);
	return s;
}

/* "struct name" / "union name" from kernel BTF: the struct type. */
void
dc_btf_sou(struct dc_ctx *cx, const char *name, int isunion,
    struct dc_type *ty, int line, int col)
{
	const struct btf_type *t;
	int id;

	dc_btf_load(cx, line, col);
	id = btf__find_by_name_kind(cx->cx_btf, name, isunion ?
	    BTF_KIND_UNION : BTF_KIND_STRUCT);
	if (id <= 0)
		id = btf__find_by_name_kind(cx->cx_btf, name, isunion ?
		    BTF_KIND_STRUCT : BTF_KIND_UNION);
	if (id <= 0)
		dc_error(cx, line, col, cx->cx_undef_tag != NULL ? cx->cx_undef_tag : "D_TYPE_ERR", "%s %s is not defined in D or in kernel BTF %s", isunion ? "union" : "struct", name, dc_btf_path(cx));
	t = btf__type_by_id(cx->cx_btf, (uint32_t)id);
	memset(ty, 0, sizeof (*ty));
	ty->ty_kind = DC_STRUCT;
	ty->ty_size = t != NULL ? t->size : 0;
	ty->ty_btf = (uint32_t)id;
	ty->ty_name = dc_btf_ptrname(cx, isunion ? "union" : "struct", name);
}

/*
 * Find member "name" of struct/union "sid", descending into anonymous
 * members.  Returns 1 with the member's type id and bit offset.
 */
static int
dc_btf_find(const struct btf *btf, uint32_t sid, const char *name,
    uint32_t *mtype, uint32_t *bitoff, uint32_t *bitsize, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, sid);
	const struct btf_member *m;
	int i, vlen;

	if (t == NULL || depth > 16 || !(btf_is_struct(t) || btf_is_union(t)))
		return 0;
	m = btf_members(t);
	vlen = btf_vlen(t);
	for (i = 0; i < vlen; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint32_t off = btf_member_bit_offset(t, (uint32_t)i);

		if (mn != NULL && strcmp(mn, name) == 0) {
			*mtype = m->type;
			*bitoff = off;
			*bitsize = btf_member_bitfield_size(t, (uint32_t)i);
			return 1;
		}
		if ((mn == NULL || *mn == '\0') &&
		    dc_btf_find(btf, dc_btf_skip(btf, m->type), name, mtype,
		    bitoff, bitsize, depth + 1)) {
			*bitoff += off;
			return 1;
		}
	}
	return 0;
}

/* A BTF pointer: keep what "->", "*" and "[ ]" need of the pointee. */
static void
dc_btf_ptr(const struct btf *btf, const struct btf_type *t,
    struct dc_type *ty)
{
	const struct btf_type *pt = btf__type_by_id(btf,
	    dc_btf_skip(btf, t->type));

	ty->ty_kind = DC_PTR;
	ty->ty_size = 8;
	ty->ty_name = "pointer";
	if (pt != NULL && (btf_is_struct(pt) || btf_is_union(pt))) {
		ty->ty_btf = dc_btf_skip(btf, t->type);
		ty->ty_elsize = pt->size;
	} else if (pt != NULL && btf_is_int(pt)) {
		ty->ty_elsize = pt->size;
		ty->ty_elsigned = (btf_int_encoding(pt) & BTF_INT_SIGNED) != 0 ||
		    pt->size == 1;
		ty->ty_name = pt->size == 1 ? "char *" : "integer pointer";
	} else if (pt != NULL && btf_is_ptr(pt)) {
		ty->ty_elsize = 8;
		ty->ty_name = "pointer to pointer";
	}
}

/* Turn the BTF type of a member into a D type. */
static void
dc_btf_dtype(struct dc_ctx *cx, const struct dc_node *n, uint32_t id,
    struct dc_type *ty)
{
	const struct btf *btf = cx->cx_btf;
	const struct btf_type *t;
	uint32_t rid = dc_btf_skip(btf, id);

	t = btf__type_by_id(btf, rid);
	memset(ty, 0, sizeof (*ty));
	if (t != NULL && btf_is_int(t)) {
		dc_type_int(ty, t->size,
		    (btf_int_encoding(t) & BTF_INT_SIGNED) != 0);
		if (t->size != 1 && t->size != 2 && t->size != 4 &&
		    t->size != 8)
			dc_error(cx, n->n_line, n->n_col, "D_MEMBER_TYPE", "member %s: integer of %u bytes is not supported (1, 2, 4 or 8)", n->n_str, t->size);
	} else if (t != NULL && (btf_is_enum(t) || btf_is_enum64(t))) {
		dc_type_int(ty, t->size, 1);
	} else if (t != NULL && btf_is_ptr(t)) {
		dc_btf_ptr(btf, t, ty);
	} else if (t != NULL && btf_is_array(t)) {
		const struct btf_type *et = btf__type_by_id(btf,
		    dc_btf_skip(btf, btf_array(t)->type));

		ty->ty_kind = DC_ARRAY;
		ty->ty_btf = rid;
		ty->ty_elsize = et != NULL && btf_is_int(et) ? et->size : 0;
		ty->ty_elsigned = et != NULL && btf_is_int(et) &&
		    ((btf_int_encoding(et) & BTF_INT_SIGNED) != 0 ||
		    et->size == 1);
		ty->ty_nelems = btf_array(t)->nelems;
		ty->ty_size = ty->ty_elsize * ty->ty_nelems;
		ty->ty_name = ty->ty_elsize == 1 ? "char array" : "array";
	} else if (t != NULL && (btf_is_struct(t) || btf_is_union(t))) {
		ty->ty_kind = DC_STRUCT;
		ty->ty_btf = rid;
		ty->ty_size = t->size;
		ty->ty_name = "struct";
	} else {
		dc_error(cx, n->n_line, n->n_col, "D_MEMBER_TYPE", "member %s has a kernel type kdt cannot use yet (BTF kind %u)", n->n_str, t != NULL ? btf_kind(t) : 0);
	}
}

/* The function "fbt::func:entry" names, when it names exactly one. */
static const char *
dc_btf_fbt_func(const struct dc_ctx *cx)
{
	const struct dc_clause *cl = cx->cx_clause;
	const struct dc_pdesc *pd;

	if (cl == NULL || cl->cl_npdescs != 1)
		return NULL;
	pd = &cl->cl_pdescs[0];
	if (strcmp(pd->pd_prov, "fbt") != 0 ||
	    strcmp(pd->pd_name, "entry") != 0 ||
	    pd->pd_func[strcspn(pd->pd_func, "*?[")] != '\0' ||
	    *pd->pd_func == '\0')
		return NULL;
	return pd->pd_func;
}

/*
 * args[i] of "fbt::func:entry" typed from the kernel function's BTF
 * prototype.  1 with "ty" set; 0 when the clause is not one fbt entry
 * probe of a known function, or BTF is missing (args[i] is then int64).
 */
int
dc_btf_fbt_arg(struct dc_ctx *cx, const struct dc_node *n, uint64_t i,
    struct dc_type *ty)
{
	const char *fn = dc_btf_fbt_func(cx);
	const struct btf_type *f, *proto, *pt;
	int id;

	if (fn == NULL || dc_btf_struct_id(cx, "task_struct") == 0)
		return 0;
	id = btf__find_by_name_kind(cx->cx_btf, fn, BTF_KIND_FUNC);
	f = id > 0 ? btf__type_by_id(cx->cx_btf, (uint32_t)id) : NULL;
	proto = f != NULL ? btf__type_by_id(cx->cx_btf, f->type) : NULL;
	if (proto == NULL || !btf_is_func_proto(proto))
		return 0;
	if (i >= btf_vlen(proto))
		dc_error(cx, n->n_line, n->n_col, "D_ARGS_IDX", "index %llu is out of range for fbt::%s:entry args[ ] (the function has %u arguments)", (unsigned long long)i, fn, btf_vlen(proto));
	pt = btf__type_by_id(cx->cx_btf, dc_btf_skip(cx->cx_btf,
	    btf_params(proto)[i].type));
	if (pt == NULL || !(btf_is_ptr(pt) || btf_is_enum(pt) ||
	    (btf_is_int(pt) && (pt->size == 1 || pt->size == 2 ||
	    pt->size == 4 || pt->size == 8))))
		return 0;
	dc_btf_dtype(cx, n, btf_params(proto)[i].type, ty);
	return 1;
}

/* offsetof(struct k, member) for a kernel struct. */
uint32_t
dc_btf_offsetof(struct dc_ctx *cx, const struct dc_type *ty,
    const char *member, int line, int col)
{
	uint32_t mtype, bitoff, bitsize;

	if (cx->cx_btf == NULL || !dc_btf_find(cx->cx_btf, ty->ty_btf, member,
	    &mtype, &bitoff, &bitsize, 0))
		dc_error(cx, line, col, "D_UNKNOWN", "failed to determine offset of %s: %s has no such member", member, ty->ty_name);
	if (bitsize != 0 || (bitoff & 7) != 0)
		dc_error(cx, line, col, "D_OFFSETOF_BITFIELD", "offsetof( ) cannot be applied to bit-field %s", member);
	return bitoff / 8;
}

/* BTF id of struct/union "name", 0 when unknown or BTF is missing. */
uint32_t
dc_btf_struct_id(struct dc_ctx *cx, const char *name)
{
	int id;

	if (cx->cx_btf == NULL) {
		cx->cx_btf = btf__parse(dc_btf_path(cx), NULL);
		if (cx->cx_btf == NULL)
			return 0;
	}
	id = btf__find_by_name_kind(cx->cx_btf, name, BTF_KIND_STRUCT);
	return id > 0 ? (uint32_t)id : 0;
}

void
dc_btf_member(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type;
	const struct btf_type *st;
	uint32_t mtype, bitoff, bitsize;

	if (n->n_dot && a->ty_kind != DC_STRUCT)
		dc_error(cx, n->n_line, n->n_col, "D_OP_SOU", "operator . must be applied to a struct or union, not %s", a->ty_name);
	if (!n->n_dot && a->ty_kind != DC_PTR)
		dc_error(cx, n->n_line, n->n_col, "D_OP_PTR", "operator -> must be applied to a pointer, not %s", a->ty_name);
	st = cx->cx_btf != NULL && a->ty_btf != 0 ?
	    btf__type_by_id(cx->cx_btf, a->ty_btf) : NULL;
	if (st == NULL || !(btf_is_struct(st) || btf_is_union(st)))
		dc_error(cx, n->n_line, n->n_col, "D_OP_SOU", "operator -> cannot be applied to %s: not a pointer to a kernel struct (cast it, e.g. (struct module *)arg0)", a->ty_name);
	if (!dc_btf_find(cx->cx_btf, a->ty_btf, n->n_str, &mtype, &bitoff,
	    &bitsize, 0))
		dc_error(cx, n->n_line, n->n_col, "D_TYPE_MEMBER", "%s has no member named %s", a->ty_name, n->n_str);
	if (bitsize != 0 || (bitoff & 7) != 0)
		dc_error(cx, n->n_line, n->n_col, "D_MEMBER_TYPE", "member %s is a bit-field, not supported yet", n->n_str);
	n->n_moff = bitoff / 8;
	dc_btf_dtype(cx, n, mtype, &n->n_type);
}
