/*
 * dc_btf.c -- kernel types for the compiler, read from BTF with libbpf.
 *
 * The compiler needs kernel struct layouts for casts such as
 * "(struct module *)arg0", member access "->name" / ".name", offsetof and
 * the type of curthread (struct task_struct *).  They come from the
 * kernel's BTF: the file given with --btf=PATH (an ELF vmlinux with a .BTF
 * section, or raw BTF), else $KDT_BTF, else /sys/kernel/btf/vmlinux.  BTF
 * is loaded lazily, on the first struct type a program names, so scripts
 * without kernel types compile anywhere.  Loaded modules' types (their
 * split BTF) are merged into the compilation's BTF as it needs them, any
 * number of modules, each in its own id range (see "Modules' BTF in the
 * compiler").  Called from dc_parse.c (casts)
 * and dc_type.c (member access, args[]).  The second half types probe
 * arguments -- args[] of fbt, sdt and syscall probes, and the "Argument
 * Types" of `kdt -l -v` -- from function prototypes, tracepoint typedefs,
 * modules' split BTF and tracefs (see "Probe argument types" below).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <bpf/btf.h>
#include "dc_impl.h"

#define DC_BTF_SYSDIR	"/sys/kernel/btf"
#define DC_BTF_SYSFS	DC_BTF_SYSDIR "/vmlinux"

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

/* Modules' BTF (see "Modules' BTF in the compiler" below). */
struct dc_btf_mod {
	char		*bm_name;
	struct btf	*bm_split;	/* on the vmlinux BTF; NULL: unread */
	int		bm_bad;		/* could not be parsed: skipped */
	uint32_t	bm_first;	/* merged: its types in cx_btf are */
	uint32_t	bm_end;		/* [bm_first, bm_end); 0 0: not yet */
};

struct dc_btf_mods {
	struct dc_btf_mod *bs_mods;	/* sorted by name */
	uint32_t	bs_n;
	int		bs_listed;	/* directory read */
	char		bs_dir[256];	/* "": none */
};

static struct dc_btf_mods *dc_btf_mods(struct dc_ctx *cx);
static struct dc_btf_mod *dc_btf_mod_byname(struct dc_btf_mods *bs,
    const char *name);
static uint32_t dc_btf_mod_find(struct dc_ctx *cx, struct dc_btf_mods *bs,
    struct dc_btf_mod *m, const char *name, int kind);
static uint32_t dc_btf_lookup(struct dc_ctx *cx, const char *scope,
    const char *name, int kind, int mods);
static int dc_btf_ismodscope(const char *scope);

/*
 * "struct name" / "union name" from kernel BTF: the struct type.  With
 * a scope (struct ext4`name, cx_btfscope) that module's own type; else
 * vmlinux's, else a module's.
 */
void
dc_btf_sou(struct dc_ctx *cx, const char *name, int isunion,
    struct dc_type *ty, int line, int col)
{
	const char *scope = cx->cx_btfscope;
	struct dc_btf_mods *bs = NULL;
	struct dc_btf_mod *m = NULL;
	const struct btf_type *t;
	int id;

	dc_btf_load(cx, line, col);
	/* no module directory (--btf alone): the scope is not checked */
	if (dc_btf_ismodscope(scope) && (bs = dc_btf_mods(cx)) != NULL &&
	    (m = dc_btf_mod_byname(bs, scope)) == NULL)
		dc_error(cx, line, col, "D_TYPE_ERR", "%s %s`%s: module %s has no BTF in %s (not loaded?)", isunion ? "union" : "struct", scope, name, scope, bs->bs_dir);
	if (m != NULL) {	/* struct mod`name: that module's own */
		id = (int)dc_btf_mod_find(cx, bs, m, name, isunion ?
		    BTF_KIND_UNION : BTF_KIND_STRUCT);
		if (id <= 0)
			id = (int)dc_btf_mod_find(cx, bs, m, name, isunion ?
			    BTF_KIND_STRUCT : BTF_KIND_UNION);
		if (id <= 0)
			dc_error(cx, line, col, "D_TYPE_ERR", "%s %s`%s is not defined in module %s's BTF %s/%s", isunion ? "union" : "struct", scope, name, scope, bs->bs_dir, scope);
	} else {
		id = (int)dc_btf_lookup(cx, NULL, name, isunion ?
		    BTF_KIND_UNION : BTF_KIND_STRUCT, 1);
		if (id <= 0)
			id = (int)dc_btf_lookup(cx, NULL, name, isunion ?
			    BTF_KIND_STRUCT : BTF_KIND_UNION, 1);
	}
	if (id <= 0)
		dc_error(cx, line, col, cx->cx_undef_tag != NULL ? cx->cx_undef_tag : "D_TYPE_ERR", "%s %s is not defined in D or in kernel BTF %s%s%s", isunion ? "union" : "struct", name, dc_btf_path(cx), cx->cx_btfmods != NULL ? " or its modules' in " : "", cx->cx_btfmods != NULL ? cx->cx_btfmods->bs_dir : "");
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

/*
 * A pointer to BTF type "pointee" (0: void): keep what "->", "*" and
 * "[ ]" need of the pointee.
 */
static void
dc_btf_ptr_to(const struct btf *btf, uint32_t pointee, struct dc_type *ty)
{
	const struct btf_type *pt = pointee != 0 && btf != NULL ?
	    btf__type_by_id(btf, dc_btf_skip(btf, pointee)) : NULL;

	ty->ty_kind = DC_PTR;
	ty->ty_size = 8;
	ty->ty_name = "pointer";
	if (pt != NULL && (btf_is_struct(pt) || btf_is_union(pt))) {
		ty->ty_btf = dc_btf_skip(btf, pointee);
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

/* A BTF pointer type. */
static void
dc_btf_ptr(const struct btf *btf, const struct btf_type *t,
    struct dc_type *ty)
{
	dc_btf_ptr_to(btf, t->type, ty);
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

/*
 * ---- Probe argument types ----
 *
 * args[i] is typed where the kernel says what a probe's arguments are
 * (DTrace's args[] against arg0..; untyped arguments stay int64):
 *
 *   fbt::f:entry	the parameters of FUNC f's prototype.
 *   fbt::f:return	args[0] the return offset (int), args[1] the return
 *			value with f's return type (none for void f), as in
 *			DTrace.
 *   sdt:sys::ev	every tracepoint has a typedef btf_trace_<ev>, a
 *			pointer to the prototype of the tracepoint's probes,
 *			probe(void *__data, TP_PROTO arguments...); kd_sdt.c
 *			passes the TP_PROTO arguments as arg0.., so args[i]
 *			is parameter i + 1.  A module's tracepoints (and
 *			functions, for fbt) are in the module's split BTF,
 *			/sys/kernel/btf/<module>, looked through when the
 *			name is not in vmlinux (see "Modules' BTF in the
 *			compiler" below: any number of modules per
 *			compilation); a module that is not loaded leaves the
 *			arguments untyped, without an error.
 *   syscall::c:entry	the system call's C prototype.  BTF keeps it only
 *			where __do_sys_<c> survived as a function (about a
 *			third of the calls on the pinned 6.1: the rest are
 *			inlined into __se_sys_/__x64_sys_ wrappers, whose
 *			parameters are all long or one struct pt_regs *;
 *			a SYSCALL_DEFINE0 call's __do_sys_ is an alias of
 *			its wrapper, so (const struct pt_regs *) there
 *			means no arguments), so that comes first, and
 *			tracefs's
 *			events/syscalls/sys_enter_<c>/format second: its
 *			fields are the SYSCALL_DEFINE declaration, type by
 *			type, for every call the kernel defines that way
 *			($KDT_TRACEFS, else /sys/kernel/tracing, else
 *			/sys/kernel/debug/tracing; it must be mounted and
 *			readable).  The type names there are C spellings
 *			("const char *", "umode_t", "struct stat *"),
 *			resolved against BTF by dc_btf_ctype().
 *   syscall::c:return	args[0] and args[1] are both the return value
 *			(DTrace's syscall provider), typed long: every
 *			system call returns long in the kernel.
 *
 * The compiler types args[i] only when the clause names exactly one such
 * probe (one description, no glob in the fields that pick the
 * prototype); `kdt -l -v` uses the same rules per listed probe through
 * dc_argtypes_open() (compiler/dc.h), which indexes the names once so a
 * listing of every probe stays fast.
 */

#define DC_BTF_NARGS	10	/* DIF_NARGS (common/dif_vm.h) */

/* One argument's type. */
struct dc_btf_at {
	uint32_t	at_id;		/* BTF type; 0 with !at_isint: void */
	uint32_t	at_nptr;	/* "*"s over at_id / the integer */
	int		at_isint;	/* a C integer spelled in tracefs */
	uint32_t	at_size;	/* at_isint: bytes */
	int		at_signed;	/* at_isint: signed */
	int		at_ok;		/* resolved; else only at_c is known */
	char		at_c[DC_ARGTYPE_LEN];	/* C spelling, "" if from BTF */
};

struct dc_btf_args {
	struct btf	*ba_btf;	/* the BTF the ids are in */
	int		ba_n;
	struct dc_btf_at ba_at[DC_BTF_NARGS];
};

/*
 * Name lookup: the compiler searches its BTF (loading a module's split
 * BTF on a miss), the lister its indexes.  Returns the id (> 0) and the
 * BTF holding it, or 0.
 */
typedef uint32_t (*dc_btf_findfn)(void *arg, const char *name, int kind,
    struct btf **btfp);

static int
dc_btf_isglob(const char *s)
{
	return s[strcspn(s, "*?[")] != '\0';
}

/* An integer spelled in C: "unsigned long", "int", "char"... */
static int
dc_btf_cint(char **w, int nw, struct dc_btf_at *at)
{
	int i, nlong = 0, isshort = 0, ischar = 0, sgn = 1;

	if (nw == 0)
		return 0;
	for (i = 0; i < nw; i++) {
		if (strcmp(w[i], "unsigned") == 0)
			sgn = 0;
		else if (strcmp(w[i], "long") == 0)
			nlong++;
		else if (strcmp(w[i], "short") == 0)
			isshort = 1;
		else if (strcmp(w[i], "char") == 0)
			ischar = 1;
		else if (strcmp(w[i], "signed") != 0 &&
		    strcmp(w[i], "int") != 0)
			return 0;
	}
	at->at_isint = 1;
	at->at_signed = sgn;
	at->at_size = ischar ? 1 : isshort ? 2 : nlong > 0 ? 8 : 4;
	return 1;
}

/*
 * Resolve the C type spelled "text" (a tracefs field type) against BTF:
 * qualifiers and __user dropped, "*"s counted, the base a struct, union
 * or enum, a C integer, void, or a typedef or base type BTF names.
 * Fills at (at_ok 0 when the base is unknown).
 */
static void
dc_btf_ctype(dc_btf_findfn find, void *arg, struct btf **btfp,
    const char *text, struct dc_btf_at *at)
{
	char buf[DC_ARGTYPE_LEN], *w[8], *p, *tok;
	int nw = 0, kind = 0;
	uint32_t id = 0;

	memset(at, 0, sizeof (*at));
	snprintf(at->at_c, sizeof (at->at_c), "%s", text);
	snprintf(buf, sizeof (buf), "%s", text);
	for (p = buf; *p != '\0'; p++) {
		if (*p == '*') {
			at->at_nptr++;
			*p = ' ';
		}
	}
	for (tok = strtok(buf, " \t"); tok != NULL; tok = strtok(NULL, " \t")) {
		if (strcmp(tok, "const") == 0 || strcmp(tok, "volatile") == 0 ||
		    strcmp(tok, "__user") == 0 || strcmp(tok, "restrict") == 0 ||
		    strcmp(tok, "__restrict") == 0)
			continue;
		if (nw == (int)(sizeof (w) / sizeof (w[0])))
			return;
		w[nw++] = tok;
	}
	if (nw == 2 && (strcmp(w[0], "struct") == 0 ||
	    strcmp(w[0], "union") == 0 || strcmp(w[0], "enum") == 0)) {
		kind = w[0][0] == 's' ? BTF_KIND_STRUCT : w[0][0] == 'u' ?
		    BTF_KIND_UNION : BTF_KIND_ENUM;
		id = find(arg, w[1], kind, btfp);
		if (id == 0 && kind == BTF_KIND_ENUM)
			id = find(arg, w[1], BTF_KIND_ENUM64, btfp);
	} else if (nw == 1 && strcmp(w[0], "void") == 0) {
		at->at_ok = at->at_nptr > 0;	/* void * only */
		return;
	} else if (dc_btf_cint(w, nw, at)) {
		at->at_ok = 1;
		return;
	} else if (nw == 1) {
		id = find(arg, w[0], BTF_KIND_TYPEDEF, btfp);
		if (id == 0)
			id = find(arg, w[0], BTF_KIND_INT, btfp);
	}
	at->at_id = id;
	at->at_ok = id != 0;
}

/*
 * The first line of tracefs's sys_enter_<c>/format fields after
 * __syscall_nr are the call's arguments: "field:TYPE NAME;".
 */
static int
dc_btf_tracefs(dc_btf_findfn find, void *arg, const char *call,
    struct dc_btf_args *ba)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	const char *env = getenv("KDT_TRACEFS");
	char path[512], line[512], *f, *semi, *nm;
	FILE *fp = NULL;
	int past = 0;
	size_t r;

	if (env != NULL && *env != '\0') {
		snprintf(path, sizeof (path),
		    "%s/events/syscalls/sys_enter_%s/format", env, call);
		fp = fopen(path, "r");
	}
	for (r = 0; fp == NULL && (env == NULL || *env == '\0') &&
	    r < sizeof (roots) / sizeof (roots[0]); r++) {
		snprintf(path, sizeof (path),
		    "%s/events/syscalls/sys_enter_%s/format", roots[r], call);
		fp = fopen(path, "r");
	}
	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof (line), fp) != NULL) {
		if ((f = strstr(line, "field:")) == NULL ||
		    (semi = strchr(f, ';')) == NULL)
			continue;
		f += strlen("field:");
		*semi = '\0';
		for (nm = semi; nm > f && (isalnum((unsigned char)nm[-1]) ||
		    nm[-1] == '_'); nm--)
			;
		if (!past) {
			past = strcmp(nm, "__syscall_nr") == 0;
			continue;
		}
		if (nm == f || ba->ba_n == DC_BTF_NARGS)
			continue;
		*nm = '\0';
		while (nm > f && (nm[-1] == ' ' || nm[-1] == '\t'))
			*--nm = '\0';
		dc_btf_ctype(find, arg, &ba->ba_btf, f, &ba->ba_at[ba->ba_n]);
		ba->ba_n++;
	}
	fclose(fp);
	return past;
}

/* Parameters [skip, vlen) of FUNC_PROTO "proto" as arguments. */
static void
dc_btf_params(struct btf *btf, const struct btf_type *proto, int skip,
    struct dc_btf_args *ba)
{
	const struct btf_param *pa = btf_params(proto);
	int i, vlen = btf_vlen(proto);

	ba->ba_btf = btf;
	for (i = skip; i < vlen && ba->ba_n < DC_BTF_NARGS; i++) {
		/* a trailing "..." is a parameter of type 0 */
		if (pa[i].type == 0 && i == vlen - 1)
			break;
		memset(&ba->ba_at[ba->ba_n], 0, sizeof (ba->ba_at[0]));
		ba->ba_at[ba->ba_n].at_id = pa[i].type;
		ba->ba_at[ba->ba_n].at_ok = pa[i].type != 0;
		ba->ba_n++;
	}
}

static void
dc_btf_long(struct dc_btf_at *at, const char *c, uint32_t size)
{
	memset(at, 0, sizeof (*at));
	at->at_isint = 1;
	at->at_size = size;
	at->at_signed = 1;
	at->at_ok = 1;
	snprintf(at->at_c, sizeof (at->at_c), "%s", c);
}

/* The FUNC_PROTO of FUNC "fn", or NULL. */
static const struct btf_type *
dc_btf_funcproto(dc_btf_findfn find, void *arg, const char *fn,
    struct btf **btfp)
{
	const struct btf_type *f, *proto;
	uint32_t id = find(arg, fn, BTF_KIND_FUNC, btfp);

	f = id != 0 ? btf__type_by_id(*btfp, id) : NULL;
	proto = f != NULL ? btf__type_by_id(*btfp, f->type) : NULL;
	return proto != NULL && btf_is_func_proto(proto) ? proto : NULL;
}

/*
 * Is "proto" (const struct pt_regs *)?  A SYSCALL_DEFINE0 call has no
 * __do_sys_ function of its own: the name is an alias of the
 * __x64_sys_ wrapper, whose prototype BTF then shows under it.
 */
static int
dc_btf_ptregs(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_type *t;
	const char *nm;

	if (btf_vlen(proto) != 1)
		return 0;
	t = btf__type_by_id(btf, dc_btf_skip(btf, btf_params(proto)[0].type));
	if (t == NULL || !btf_is_ptr(t))
		return 0;
	t = btf__type_by_id(btf, dc_btf_skip(btf, t->type));
	nm = t != NULL ? btf__name_by_offset(btf, t->name_off) : NULL;
	return t != NULL && btf_is_struct(t) && nm != NULL &&
	    strcmp(nm, "pt_regs") == 0;
}

/*
 * The argument types of probe prov:mod:func:name.  1 with "ba" filled
 * (ba_n may be 0: a probe known to take no arguments); 0 when kdt knows
 * no types for it.
 */
static int
dc_btf_probe_args(dc_btf_findfn find, void *arg, const char *prov,
    const char *func, const char *name, struct dc_btf_args *ba)
{
	const struct btf_type *proto, *t;
	char sym[DC_ARGTYPE_LEN + 16];
	struct btf *btf = NULL;
	uint32_t id;

	memset(ba, 0, sizeof (*ba));
	if (strcmp(prov, "fbt") == 0 && *func != '\0' && !dc_btf_isglob(func) &&
	    (strcmp(name, "entry") == 0 || strcmp(name, "return") == 0)) {
		if ((proto = dc_btf_funcproto(find, arg, func, &btf)) == NULL)
			return 0;
		if (name[0] == 'e') {
			dc_btf_params(btf, proto, 0, ba);
			return 1;
		}
		ba->ba_btf = btf;
		dc_btf_long(&ba->ba_at[0], "int", 4);
		if (proto->type != 0) {
			ba->ba_at[1].at_id = proto->type;
			ba->ba_at[1].at_ok = 1;
			ba->ba_n = 2;
		} else {
			ba->ba_n = 1;
		}
		return 1;
	}
	if (strcmp(prov, "sdt") == 0 && *name != '\0' && !dc_btf_isglob(name)) {
		snprintf(sym, sizeof (sym), "btf_trace_%s", name);
		id = find(arg, sym, BTF_KIND_TYPEDEF, &btf);
		t = id != 0 ? btf__type_by_id(btf, id) : NULL;
		t = t != NULL ? btf__type_by_id(btf, t->type) : NULL;
		proto = t != NULL && btf_is_ptr(t) ?
		    btf__type_by_id(btf, t->type) : NULL;
		if (proto == NULL || !btf_is_func_proto(proto))
			return 0;
		dc_btf_params(btf, proto, 1, ba);	/* 0 is void *__data */
		return 1;
	}
	if (strcmp(prov, "syscall") == 0 && *func != '\0' &&
	    !dc_btf_isglob(func) && strcmp(name, "return") == 0) {
		dc_btf_long(&ba->ba_at[0], "long", 8);
		dc_btf_long(&ba->ba_at[1], "long", 8);
		ba->ba_n = 2;
		return 1;
	}
	if (strcmp(prov, "syscall") == 0 && *func != '\0' &&
	    !dc_btf_isglob(func) && strcmp(name, "entry") == 0) {
		snprintf(sym, sizeof (sym), "__do_sys_%s", func);
		if ((proto = dc_btf_funcproto(find, arg, sym, &btf)) != NULL) {
			if (!dc_btf_ptregs(btf, proto))
				dc_btf_params(btf, proto, 0, ba);
			return 1;
		}
		memset(ba, 0, sizeof (*ba));
		return dc_btf_tracefs(find, arg, func, ba);
	}
	return 0;
}

/* A pointer "nptr" deep to the type of "at", as a D type. */
static void
dc_btf_at_ptr(const struct btf *btf, const struct dc_btf_at *at,
    struct dc_type *ty)
{
	memset(ty, 0, sizeof (*ty));
	if (at->at_nptr > 1) {
		ty->ty_kind = DC_PTR;
		ty->ty_size = 8;
		ty->ty_elsize = 8;
		ty->ty_name = "pointer to pointer";
	} else if (at->at_isint) {
		ty->ty_kind = DC_PTR;
		ty->ty_size = 8;
		ty->ty_elsize = at->at_size;
		ty->ty_elsigned = at->at_signed || at->at_size == 1;
		ty->ty_name = at->at_size == 1 ? "char *" : "integer pointer";
	} else {
		dc_btf_ptr_to(btf, at->at_id, ty);
	}
}

/*
 * ---- Modules' BTF in the compiler ----
 *
 * A module's types are in its split BTF, /sys/kernel/btf/<module> (only
 * while the module is loaded), whose ids continue vmlinux's.  Two
 * modules' splits number their types alike, so a compilation that needs
 * several modules (sdt:kyber:: and sdt:watchdog:: clauses, fbt functions
 * of two modules, struct xfs`foo beside struct ext4`bar) merges them
 * into ONE BTF: on the first module, cx_btf (vmlinux) moves to
 * cx_btf_base and cx_btf becomes an empty split BTF on it; each module
 * needed is appended to it type by type (btf__add_type(); libbpf 1.1's
 * btf__add_btf() refuses a split source), its references to its own
 * types moved by the distance to where it landed, those to vmlinux
 * kept.  So every type id the compiler holds (dc_type's ty_btf, print()'s
 * layouts) stays a bare id into cx_btf, vmlinux ids never change, and
 * each module's types occupy their own range [bm_first, bm_end): types
 * of different modules never mix, and a name two modules define is
 * looked up in the range of the module that scopes it.
 *
 * Scope: the probe's module field for args[] (fbt:ext4:f:entry,
 * sdt:xfs::ev: the module's BTF first when a module of that name has
 * one), the backquote for types (struct ext4`ext4_sb_info: that module
 * only; vmlinux`, kernel`, D` and C` are no module).  Unscoped, a name is
 * looked up in vmlinux and the modules merged so far (lowest id first,
 * i.e. the module merged first), then in the others by name order.
 *
 * Which names fall through to modules: btf_trace_ typedefs (sdt), FUNCs
 * (fbt) other than __do_sys_ (system calls are all in vmlinux, and most
 * of those lookups miss by design), structs, unions and enums.  Module
 * files are read when a lookup reaches them, in name order, each at most
 * once per compilation (kept parsed: a name no module defines reads them
 * all, once), and only those a lookup hits are merged.  Reading them all
 * is cheap enough to do where needed: 120 modules of the pinned 6.1
 * (15,000 types, from their .ko files) parse in 24 ms on a loaded build
 * host, ext4, xfs, sunrpc, i915, mac80211 and cfg80211 together in 12 ms.
 *
 * The directory: $KDT_BTF_MODDIR when set (files named after modules,
 * split on the BTF in use: tests and other kernels' BTF), else
 * /sys/kernel/btf when the BTF in use is the running kernel's
 * (/sys/kernel/btf/vmlinux), else none (--btf=PATH / $KDT_BTF alone:
 * vmlinux types only).
 */

static const char *
dc_btf_moddir(const struct dc_ctx *cx)
{
	const char *p = getenv("KDT_BTF_MODDIR");

	if (p != NULL && *p != '\0')
		return p;
	return strcmp(dc_btf_path(cx), DC_BTF_SYSFS) == 0 ? DC_BTF_SYSDIR :
	    NULL;
}

static int
dc_btf_mod_cmp(const void *a, const void *b)
{
	const struct dc_btf_mod *x = a, *y = b;

	return strcmp(x->bm_name, y->bm_name);
}

/* The vmlinux BTF under the compilation's (merged) BTF. */
static struct btf *
dc_btf_vmlinux(const struct dc_ctx *cx)
{
	return cx->cx_btf_base != NULL ? cx->cx_btf_base : cx->cx_btf;
}

/* The table of modules (names only until needed); NULL: none. */
static struct dc_btf_mods *
dc_btf_mods(struct dc_ctx *cx)
{
	struct dc_btf_mods *bs = cx->cx_btfmods;
	struct dc_btf_mod *nm;
	struct dirent *de;
	const char *dir;
	DIR *d;

	if (bs == NULL) {
		if ((dir = dc_btf_moddir(cx)) == NULL ||
		    (bs = calloc(1, sizeof (*bs))) == NULL)
			return NULL;
		snprintf(bs->bs_dir, sizeof (bs->bs_dir), "%s", dir);
		cx->cx_btfmods = bs;
	}
	if (bs->bs_listed)
		return bs;
	bs->bs_listed = 1;
	if ((d = opendir(bs->bs_dir)) == NULL)
		return bs;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "vmlinux") == 0)
			continue;
		nm = realloc(bs->bs_mods, (bs->bs_n + 1) * sizeof (*nm));
		if (nm == NULL)
			break;
		bs->bs_mods = nm;
		memset(&nm[bs->bs_n], 0, sizeof (*nm));
		if ((nm[bs->bs_n].bm_name = strdup(de->d_name)) == NULL)
			break;
		bs->bs_n++;
	}
	closedir(d);
	qsort(bs->bs_mods, bs->bs_n, sizeof (*bs->bs_mods), dc_btf_mod_cmp);
	return bs;
}

static struct dc_btf_mod *
dc_btf_mod_byname(struct dc_btf_mods *bs, const char *name)
{
	struct dc_btf_mod key;

	memset(&key, 0, sizeof (key));
	key.bm_name = (char *)name;
	return bsearch(&key, bs->bs_mods, bs->bs_n, sizeof (key),
	    dc_btf_mod_cmp);
}

/* Parse module "m"'s file on vmlinux.  0, or -1 (left out). */
static int
dc_btf_mod_read(struct dc_ctx *cx, struct dc_btf_mods *bs,
    struct dc_btf_mod *m)
{
	char path[512];

	if (m->bm_split != NULL || m->bm_end != 0)
		return 0;
	if (m->bm_bad)
		return -1;
	snprintf(path, sizeof (path), "%s/%s", bs->bs_dir, m->bm_name);
	m->bm_split = btf__parse_split(path, dc_btf_vmlinux(cx));
	m->bm_bad = m->bm_split == NULL;
	return m->bm_bad ? -1 : 0;
}

/* Type id "id" of a module split, moved into the merged BTF. */
static uint32_t
dc_btf_remap1(uint32_t id, uint32_t nbase, uint32_t first)
{
	return id < nbase ? id : id - nbase + first;
}

/* The type references of "t" (copied from a split) moved to "first". */
static void
dc_btf_remap(struct btf_type *t, uint32_t nbase, uint32_t first)
{
	struct btf_member *m;
	struct btf_param *pa;
	struct btf_var_secinfo *vs;
	struct btf_array *a;
	uint16_t i, vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		t->type = dc_btf_remap1(t->type, nbase, first);
		break;
	case BTF_KIND_ARRAY:
		a = btf_array(t);
		a->type = dc_btf_remap1(a->type, nbase, first);
		a->index_type = dc_btf_remap1(a->index_type, nbase, first);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0, m = btf_members(t); i < vlen; i++, m++)
			m->type = dc_btf_remap1(m->type, nbase, first);
		break;
	case BTF_KIND_FUNC_PROTO:
		t->type = dc_btf_remap1(t->type, nbase, first);
		for (i = 0, pa = btf_params(t); i < vlen; i++, pa++)
			pa->type = dc_btf_remap1(pa->type, nbase, first);
		break;
	case BTF_KIND_DATASEC:
		for (i = 0, vs = btf_var_secinfos(t); i < vlen; i++, vs++)
			vs->type = dc_btf_remap1(vs->type, nbase, first);
		break;
	default:		/* INT, ENUM, ENUM64, FWD, FLOAT: no ids */
		break;
	}
}

/* Append module "m" to the compilation's BTF (see above). */
static void
dc_btf_mod_merge(struct dc_ctx *cx, struct dc_btf_mods *bs,
    struct dc_btf_mod *m)
{
	struct btf *vml = dc_btf_vmlinux(cx), *merged;
	uint32_t nbase = btf__type_cnt(vml), n, i, first;
	const struct btf_type *t;
	int id;

	if (m->bm_end != 0)
		return;
	if (cx->cx_btf_base == NULL) {
		merged = btf__new_empty_split(vml);
		if (merged == NULL)
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_BTF_LOAD", "cannot combine module BTF %s/%s with the kernel's: %s", bs->bs_dir, m->bm_name, strerror(errno));
		cx->cx_btf_base = vml;
		cx->cx_btf = merged;
	}
	first = btf__type_cnt(cx->cx_btf);
	n = btf__type_cnt(m->bm_split);
	for (i = nbase; i < n; i++) {
		t = btf__type_by_id(m->bm_split, i);
		id = t != NULL ? btf__add_type(cx->cx_btf, m->bm_split, t) : -1;
		if (id < 0)
			dc_error(cx, cx->cx_tok.tk_line, cx->cx_tok.tk_col, "D_BTF_LOAD", "cannot combine module BTF %s/%s with the kernel's: type %u of %u: %s", bs->bs_dir, m->bm_name, i, n - 1, strerror(id < 0 ? -id : EINVAL));
		/* the copy is ours: cx_btf owns its types once written to */
		dc_btf_remap((struct btf_type *)btf__type_by_id(cx->cx_btf,
		    (uint32_t)id), nbase, first);
	}
	m->bm_first = first;
	m->bm_end = btf__type_cnt(cx->cx_btf);
	btf__free(m->bm_split);
	m->bm_split = NULL;
}

/* "name" of "kind" among ids [from, to) of "btf", or 0. */
static uint32_t
dc_btf_scan(const struct btf *btf, uint32_t from, uint32_t to,
    const char *name, int kind)
{
	const struct btf_type *t;
	const char *nm;
	uint32_t i;

	for (i = from; i < to; i++) {
		t = btf__type_by_id(btf, i);
		if (t == NULL || btf_kind(t) != kind)
			continue;
		nm = btf__name_by_offset(btf, t->name_off);
		if (nm != NULL && strcmp(nm, name) == 0)
			return i;
	}
	return 0;
}

/*
 * "name" of "kind" defined by module "m" itself (not by vmlinux under
 * it): its id in cx_btf, the module merged first; 0 when m lacks it.
 */
static uint32_t
dc_btf_mod_find(struct dc_ctx *cx, struct dc_btf_mods *bs,
    struct dc_btf_mod *m, const char *name, int kind)
{
	uint32_t nbase, id;

	if (m->bm_end != 0)
		return dc_btf_scan(cx->cx_btf, m->bm_first, m->bm_end, name,
		    kind);
	if (dc_btf_mod_read(cx, bs, m) != 0)
		return 0;
	nbase = btf__type_cnt(dc_btf_vmlinux(cx));
	id = dc_btf_scan(m->bm_split, nbase, btf__type_cnt(m->bm_split),
	    name, kind);
	if (id == 0)
		return 0;
	dc_btf_mod_merge(cx, bs, m);
	return id - nbase + m->bm_first;
}

/* Is "scope" a module's name (not vmlinux, kernel, or dtrace's D or C)? */
static int
dc_btf_ismodscope(const char *scope)
{
	return scope != NULL && *scope != '\0' && !dc_btf_isglob(scope) &&
	    strcmp(scope, "vmlinux") != 0 && strcmp(scope, "kernel") != 0 &&
	    strcmp(scope, "D") != 0 && strcmp(scope, "C") != 0;
}

/*
 * Look "name" of "kind" up for the compilation: in module "scope" first
 * (when one of that name has BTF), then vmlinux and the merged modules,
 * then (when "mods") the other modules.  Its id in cx_btf, or 0.
 */
static uint32_t
dc_btf_lookup(struct dc_ctx *cx, const char *scope, const char *name,
    int kind, int mods)
{
	struct dc_btf_mods *bs = NULL;
	struct dc_btf_mod *m;
	uint32_t i, id;
	int r;

	if (dc_btf_ismodscope(scope) && (bs = dc_btf_mods(cx)) != NULL &&
	    (m = dc_btf_mod_byname(bs, scope)) != NULL &&
	    (id = dc_btf_mod_find(cx, bs, m, name, kind)) != 0)
		return id;
	r = btf__find_by_name_kind(cx->cx_btf, name, kind);
	if (r > 0)
		return (uint32_t)r;
	if (!mods || (bs == NULL && (bs = dc_btf_mods(cx)) == NULL))
		return 0;
	for (i = 0; i < bs->bs_n; i++) {
		m = &bs->bs_mods[i];
		if (m->bm_end == 0 && (id = dc_btf_mod_find(cx, bs, m, name,
		    kind)) != 0)
			return id;
	}
	return 0;
}

/* The compiler's lookups for dc_btf_probe_args(): the probe's module. */
struct dc_btf_cxq {
	struct dc_ctx	*cq_cx;
	const char	*cq_scope;
};

static uint32_t
dc_btf_cx_find(void *arg, const char *name, int kind, struct btf **btfp)
{
	struct dc_btf_cxq *q = arg;
	int mods = kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION ||
	    kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64 ||
	    (kind == BTF_KIND_FUNC &&
	    strncmp(name, "__do_sys_", strlen("__do_sys_")) != 0) ||
	    (kind == BTF_KIND_TYPEDEF &&
	    strncmp(name, "btf_trace_", strlen("btf_trace_")) == 0);
	uint32_t id = dc_btf_lookup(q->cq_cx, q->cq_scope, name, kind, mods);

	*btfp = q->cq_cx->cx_btf;	/* after a merge: the merged BTF */
	return id;
}

void
dc_btf_free(struct dc_ctx *cx)
{
	struct dc_btf_mods *bs = cx->cx_btfmods;
	uint32_t i;

	if (bs != NULL) {
		for (i = 0; i < bs->bs_n; i++) {
			if (bs->bs_mods[i].bm_split != NULL)
				btf__free(bs->bs_mods[i].bm_split);
			free(bs->bs_mods[i].bm_name);
		}
		free(bs->bs_mods);
		free(bs);
	}
	cx->cx_btfmods = NULL;
	if (cx->cx_btf != NULL)
		btf__free(cx->cx_btf);
	cx->cx_btf = NULL;
	if (cx->cx_btf_base != NULL)	/* after the split BTF on it */
		btf__free(cx->cx_btf_base);
	cx->cx_btf_base = NULL;
}

/* The clause's one probe description, or NULL. */
static const struct dc_pdesc *
dc_btf_onepdesc(const struct dc_ctx *cx)
{
	const struct dc_clause *cl = cx->cx_clause;

	if (cl == NULL || cl->cl_npdescs != 1)
		return NULL;
	return &cl->cl_pdescs[0];
}

/*
 * args[i] of the clause's probe typed from BTF (fbt, sdt, syscall: see
 * above).  1 with "ty" set; 0 when the clause is not one probe whose
 * types are known, or BTF is missing (args[i] is then int64).  An index
 * past a known argument list is an error.
 */
int
dc_btf_fbt_arg(struct dc_ctx *cx, const struct dc_node *n, uint64_t i,
    struct dc_type *ty)
{
	const struct dc_pdesc *pd = dc_btf_onepdesc(cx);
	const struct dc_btf_at *at;
	const struct btf_type *pt;
	struct dc_btf_args ba;
	struct dc_btf_cxq q;

	if (pd == NULL || dc_btf_struct_id(cx, "task_struct") == 0)
		return 0;
	q.cq_cx = cx;
	q.cq_scope = pd->pd_mod;
	if (!dc_btf_probe_args(dc_btf_cx_find, &q, pd->pd_prov, pd->pd_func,
	    pd->pd_name, &ba))
		return 0;
	if (i >= (uint64_t)ba.ba_n)
		dc_error(cx, n->n_line, n->n_col, "D_ARGS_IDX", "index %llu is out of range for %s:%s:%s:%s args[ ] (the probe has %d typed arguments)", (unsigned long long)i, pd->pd_prov, pd->pd_mod, pd->pd_func, pd->pd_name, ba.ba_n);
	at = &ba.ba_at[i];
	if (!at->at_ok)
		return 0;
	if (at->at_nptr > 0) {
		dc_btf_at_ptr(cx->cx_btf, at, ty);
		return 1;
	}
	if (at->at_isint) {
		dc_type_int(ty, at->at_size, at->at_signed);
		return 1;
	}
	pt = btf__type_by_id(cx->cx_btf, dc_btf_skip(cx->cx_btf, at->at_id));
	if (pt == NULL || !(btf_is_ptr(pt) || btf_is_enum(pt) ||
	    (btf_is_int(pt) && (pt->size == 1 || pt->size == 2 ||
	    pt->size == 4 || pt->size == 8))))
		return 0;
	dc_btf_dtype(cx, n, at->at_id, ty);
	return 1;
}

/* ---- kdt -l -v: argument types of listed probes ---- */

struct dc_btf_name {
	const char	*bn_name;
	uint32_t	bn_id;
	uint32_t	bn_kind;
};

/* A BTF with its names sorted for lookups, and a C printer. */
struct dc_btf_ix {
	struct btf	*bx_btf;
	struct dc_btf_name *bx_names;
	uint32_t	bx_n;
	struct btf_dump	*bx_dump;
};

struct dc_argtypes {
	struct dc_btf_ix at_core;	/* vmlinux */
	struct dc_btf_ix *at_mods;	/* /sys/kernel/btf/<module> */
	uint32_t	at_nmods;
	int		at_sysfs;	/* the running kernel's BTF */
	int		at_scanned;	/* at_mods read */
	char		*at_out;	/* btf_dump's output */
	size_t		at_outlen;
	size_t		at_outcap;
};

static int
dc_btf_name_cmp(const void *a, const void *b)
{
	const struct dc_btf_name *x = a, *y = b;
	int c = strcmp(x->bn_name, y->bn_name);

	if (c != 0)
		return c;
	return x->bn_kind < y->bn_kind ? -1 : x->bn_kind > y->bn_kind;
}

static void
dc_btf_printf(void *ctx, const char *fmt, va_list ap)
{
	struct dc_argtypes *a = ctx;
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || a->at_outlen + (size_t)n + 1 > a->at_outcap)
		return;		/* longer than DC_ARGTYPE_LEN: cut */
	vsnprintf(a->at_out + a->at_outlen, a->at_outcap - a->at_outlen,
	    fmt, ap);
	a->at_outlen += (size_t)n;
}

/* Index the named types of "btf" from id "first" on.  0, or -1. */
static int
dc_btf_ix_init(struct dc_argtypes *a, struct dc_btf_ix *bx, struct btf *btf,
    uint32_t first)
{
	uint32_t i, n = btf__type_cnt(btf);
	const struct btf_type *t;
	const char *nm;

	memset(bx, 0, sizeof (*bx));
	bx->bx_btf = btf;
	bx->bx_names = calloc(n > first ? n - first : 1,
	    sizeof (*bx->bx_names));
	bx->bx_dump = btf_dump__new(btf, dc_btf_printf, a, NULL);
	if (bx->bx_names == NULL || bx->bx_dump == NULL)
		return -1;
	for (i = first; i < n; i++) {
		t = btf__type_by_id(btf, i);
		nm = t != NULL ? btf__name_by_offset(btf, t->name_off) : NULL;
		if (nm == NULL || *nm == '\0')
			continue;
		bx->bx_names[bx->bx_n].bn_name = nm;
		bx->bx_names[bx->bx_n].bn_id = i;
		bx->bx_names[bx->bx_n].bn_kind = btf_kind(t);
		bx->bx_n++;
	}
	qsort(bx->bx_names, bx->bx_n, sizeof (*bx->bx_names), dc_btf_name_cmp);
	return 0;
}

static void
dc_btf_ix_fini(struct dc_btf_ix *bx)
{
	if (bx->bx_dump != NULL)
		btf_dump__free(bx->bx_dump);
	free(bx->bx_names);
	if (bx->bx_btf != NULL)
		btf__free(bx->bx_btf);
	memset(bx, 0, sizeof (*bx));
}

static uint32_t
dc_btf_ix_find(const struct dc_btf_ix *bx, const char *name, int kind)
{
	struct dc_btf_name key = { name, 0, (uint32_t)kind };
	const struct dc_btf_name *hit;

	hit = bsearch(&key, bx->bx_names, bx->bx_n, sizeof (key),
	    dc_btf_name_cmp);
	return hit != NULL ? hit->bn_id : 0;
}

/*
 * Every loaded module's split BTF, indexed; modules that fail are left.
 * The directory as the compiler's: $KDT_BTF_MODDIR, else /sys/kernel/btf
 * for the running kernel's BTF.
 */
static void
dc_btf_ix_mods(struct dc_argtypes *a)
{
	const char *dir = getenv("KDT_BTF_MODDIR");
	char path[512];
	struct dc_btf_ix *nm;
	struct dirent *de;
	struct btf *split;
	DIR *d;

	a->at_scanned = 1;
	if (dir == NULL || *dir == '\0')
		dir = a->at_sysfs ? DC_BTF_SYSDIR : NULL;
	if (dir == NULL || (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "vmlinux") == 0)
			continue;
		snprintf(path, sizeof (path), "%s/%s", dir, de->d_name);
		split = btf__parse_split(path, a->at_core.bx_btf);
		if (split == NULL)
			continue;
		nm = realloc(a->at_mods, (a->at_nmods + 1) * sizeof (*nm));
		if (nm == NULL) {
			btf__free(split);
			break;
		}
		a->at_mods = nm;
		if (dc_btf_ix_init(a, &nm[a->at_nmods], split,
		    btf__type_cnt(a->at_core.bx_btf)) != 0) {
			dc_btf_ix_fini(&nm[a->at_nmods]);
			continue;
		}
		a->at_nmods++;
	}
	closedir(d);
}

static uint32_t
dc_btf_list_find(void *arg, const char *name, int kind, struct btf **btfp)
{
	struct dc_argtypes *a = arg;
	uint32_t id, i;

	*btfp = a->at_core.bx_btf;
	if ((id = dc_btf_ix_find(&a->at_core, name, kind)) != 0)
		return id;
	/* modules: tracepoints' typedefs and (fbt) functions */
	if (!(kind == BTF_KIND_TYPEDEF &&
	    strncmp(name, "btf_trace_", strlen("btf_trace_")) == 0) &&
	    !(kind == BTF_KIND_FUNC &&
	    strncmp(name, "__do_sys_", strlen("__do_sys_")) != 0))
		return 0;
	if (!a->at_scanned)
		dc_btf_ix_mods(a);
	for (i = 0; i < a->at_nmods; i++) {
		if ((id = dc_btf_ix_find(&a->at_mods[i], name, kind)) != 0) {
			*btfp = a->at_mods[i].bx_btf;
			return id;
		}
	}
	return 0;
}

struct dc_argtypes *
dc_argtypes_open(const char *path, char *err, size_t errlen)
{
	struct dc_argtypes *a = calloc(1, sizeof (*a));
	struct btf *btf;
	const char *env = getenv("KDT_BTF");

	if (path == NULL)
		path = env != NULL && *env != '\0' ? env : DC_BTF_SYSFS;
	if (a == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->at_sysfs = strcmp(path, DC_BTF_SYSFS) == 0;
	btf = btf__parse(path, NULL);
	if (btf == NULL) {
		snprintf(err, errlen, "cannot load kernel types from BTF file %s: %s", path, strerror(errno));
		free(a);
		return NULL;
	}
	if (dc_btf_ix_init(a, &a->at_core, btf, 1) != 0) {
		snprintf(err, errlen, "no memory to index BTF file %s", path);
		dc_argtypes_close(a);
		return NULL;
	}
	return a;
}

void
dc_argtypes_close(struct dc_argtypes *a)
{
	uint32_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->at_nmods; i++)
		dc_btf_ix_fini(&a->at_mods[i]);
	free(a->at_mods);
	dc_btf_ix_fini(&a->at_core);
	free(a);
}

int
dc_argtypes_get(struct dc_argtypes *a, const char *prov, const char *func,
    const char *name, char (*types)[DC_ARGTYPE_LEN], int max)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = "");
	struct dc_btf_args ba;
	struct btf_dump *dump;
	uint32_t m;
	int i;

	if (!dc_btf_probe_args(dc_btf_list_find, a, prov, func, name, &ba))
		return -1;
	dump = a->at_core.bx_dump;
	for (m = 0; m < a->at_nmods; m++)
		if (a->at_mods[m].bx_btf == ba.ba_btf)
			dump = a->at_mods[m].bx_dump;
	for (i = 0; i < ba.ba_n && i < max; i++) {
		if (ba.ba_at[i].at_c[0] != '\0' || ba.ba_at[i].at_id == 0) {
			snprintf(types[i], DC_ARGTYPE_LEN, "%s",
			    ba.ba_at[i].at_c[0] != '\0' ? ba.ba_at[i].at_c :
			    "void");
			continue;
		}
		a->at_out = types[i];
		a->at_outlen = 0;
		a->at_outcap = DC_ARGTYPE_LEN;
		types[i][0] = '\0';
		if (btf_dump__emit_type_decl(dump, ba.ba_at[i].at_id, &o) != 0)
			snprintf(types[i], DC_ARGTYPE_LEN, "(BTF type %u)",
			    ba.ba_at[i].at_id);
		a->at_out = NULL;
	}
	return i;
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
	if (dc_btf_ismodscope(cx->cx_btfscope))	/* struct mod`name */
		return dc_btf_lookup(cx, cx->cx_btfscope, name,
		    BTF_KIND_STRUCT, 0);
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
