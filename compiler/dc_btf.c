/*
 * dc_btf.c -- kernel types for the compiler, read from BTF with libbpf.
 *
 * The compiler needs kernel struct layouts for casts such as
 * "(struct module *)arg0" and member access "->name".  They come from the
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

	snprintf(s, len, "%s %s *", kw, name);
	return s;
}

void
dc_type_struct_ptr(struct dc_ctx *cx, const char *sname, struct dc_type *ty,
    int line, int col)
{
	int id;

	dc_btf_load(cx, line, col);
	id = btf__find_by_name_kind(cx->cx_btf, sname, BTF_KIND_STRUCT);
	if (id <= 0)
		id = btf__find_by_name_kind(cx->cx_btf, sname, BTF_KIND_UNION);
	if (id <= 0)
		dc_error(cx, line, col, "D_TYPE_ERR", "struct %s is not defined in kernel BTF %s", sname, dc_btf_path(cx));
	memset(ty, 0, sizeof (*ty));
	ty->ty_kind = DC_PTR;
	ty->ty_size = 8;
	ty->ty_btf = (uint32_t)id;
	ty->ty_name = dc_btf_ptrname(cx, "struct", sname);
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
		ty->ty_kind = DC_PTR;
		ty->ty_size = 8;
		ty->ty_btf = dc_btf_skip(btf, t->type);
		ty->ty_name = "pointer";
	} else if (t != NULL && btf_is_array(t)) {
		const struct btf_type *et = btf__type_by_id(btf,
		    dc_btf_skip(btf, btf_array(t)->type));

		ty->ty_kind = DC_ARRAY;
		ty->ty_btf = rid;
		ty->ty_elsize = et != NULL && btf_is_int(et) ? et->size : 0;
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

void
dc_btf_member(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_type *a = &n->n_a->n_type;
	const struct btf_type *st;
	uint32_t mtype, bitoff, bitsize;

	if (a->ty_kind != DC_PTR)
		dc_error(cx, n->n_line, n->n_col, "D_OP_PTR", "operator -> must be applied to a pointer, not %s", a->ty_name);
	st = cx->cx_btf != NULL && a->ty_btf != 0 ?
	    btf__type_by_id(cx->cx_btf, a->ty_btf) : NULL;
	if (st == NULL || !(btf_is_struct(st) || btf_is_union(st)))
		dc_error(cx, n->n_line, n->n_col, "D_OP_SOU", "operator -> cannot be applied to %s: not a pointer to a kernel struct (cast it, e.g. (struct module *)arg0)", a->ty_name);
	if (!dc_btf_find(cx->cx_btf, a->ty_btf, n->n_str, &mtype, &bitoff,
	    &bitsize, 0))
		dc_error(cx, n->n_line, n->n_col, "D_MEMBER_NAME", "%s has no member named %s", a->ty_name, n->n_str);
	if (bitsize != 0 || (bitoff & 7) != 0)
		dc_error(cx, n->n_line, n->n_col, "D_MEMBER_TYPE", "member %s is a bit-field, not supported yet", n->n_str);
	n->n_moff = bitoff / 8;
	dc_btf_dtype(cx, n, mtype, &n->n_type);
}
