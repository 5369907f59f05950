/*
 * dc_var.c -- user variables, aggregations, inlines and macro variables.
 *
 * D declares variables implicitly on first assignment (or explicitly with
 * "int x;", "self int y;", "this int z;").  Each scope -- global, thread
 * (self->), clause-local (this->) -- allocates DIF variable ids upward
 * from 0x500 in its own id space (reference 2.4); the id, the kind (scalar
 * or associative array), the type and, for arrays, the key signature are
 * fixed at the first use and every later use must agree.  Aggregations get
 * 1-based variable ids in order of first appearance (reference 3.3); their
 * function and key signature are checked by dc_act.c.
 *
 * Every DIF object lists the variables it reads or writes in its VARTAB
 * (dc_var_use(), called by dc_cg.c while generating code), with the REF
 * and MOD flags and the DIF type (reference 1.6, 1.7).
 *
 * Macro variables ($1..$9, $$1, $0, $pid, $ppid, $uid, $gid, $target)
 * come from the command line (struct dc_opts) and the process; dc_macro()
 * turns one into its text.  Called by dc_parse.c, dc_type.c and dc_cg.c.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dc_impl.h"

uint32_t
dc_strsize(const struct dc_ctx *cx)
{
	uint64_t v = cx->cx_optv[DTRACEOPT_STRSIZE];

	return v == DTRACEOPT_UNSET ? DTRACE_STRSIZE_DEFAULT : (uint32_t)v;
}

struct dc_var *
dc_var_lookup(struct dc_ctx *cx, const char *name, enum dc_scope scope)
{
	struct dc_var *v;

	for (v = cx->cx_vars; v != NULL; v = v->va_next)
		if (v->va_scope == scope && strcmp(v->va_name, name) == 0)
			return v;
	return NULL;
}

/* Find or create "name" in "scope" (untyped until assigned/declared). */
struct dc_var *
dc_var_get(struct dc_ctx *cx, const char *name, enum dc_scope scope,
    int line, int col)
{
	struct dc_var *v = dc_var_lookup(cx, name, scope);

	if (v != NULL)
		return v;
	if (cx->cx_nextid[scope] == 0)
		cx->cx_nextid[scope] = DIF_VAR_OTHER_UBASE;
	if (cx->cx_nextid[scope] > DIF_VAR_OTHER_MAX)
		dc_error(cx, line, col, "D_VAR_MAX", "variable %s: too many variables in one scope, limit %u", name, DIF_VAR_OTHER_MAX - DIF_VAR_OTHER_UBASE + 1);
	v = dc_alloc(cx, sizeof (*v));
	memset(v, 0, sizeof (*v));
	v->va_name = dc_strndup(cx, name, strlen(name));
	v->va_scope = scope;
	v->va_id = cx->cx_nextid[scope]++;
	v->va_next = cx->cx_vars;
	cx->cx_vars = v;
	return v;
}

struct dc_agg *
dc_agg_get(struct dc_ctx *cx, const char *name)
{
	struct dc_agg *a, **tail = &cx->cx_aggs;

	for (a = cx->cx_aggs; a != NULL; a = a->ag_next) {
		if (strcmp(a->ag_name, name) == 0)
			return a;
		tail = &a->ag_next;
	}
	a = dc_alloc(cx, sizeof (*a));
	memset(a, 0, sizeof (*a));
	a->ag_name = dc_strndup(cx, name, strlen(name));
	a->ag_id = ++cx->cx_naggs;
	*tail = a;
	return a;
}

struct dc_inline *
dc_inline_lookup(struct dc_ctx *cx, const char *name)
{
	struct dc_inline *in;

	for (in = cx->cx_inlines; in != NULL; in = in->in_next)
		if (strcmp(in->in_name, name) == 0)
			return in;
	return NULL;
}

/* The DIF type (reference 1.7) of a D type, as VARTAB and returns use. */
void
dc_type_dif(struct dc_ctx *cx, const struct dc_type *ty, struct dif_type *dt)
{
	memset(dt, 0, sizeof (*dt));
	switch (ty->ty_kind) {
	case DC_STRING:
		dt->dtdt_kind = DIF_TYPE_STRING;
		dt->dtdt_flags = DIF_TF_BYREF;
		dt->dtdt_size = dc_strsize(cx);
		break;
	case DC_PTR:
		dt->dtdt_ckind = DIF_CTF_POINTER;
		dt->dtdt_size = 8;
		break;
	case DC_ARRAY:
	case DC_STRUCT:
		dt->dtdt_ckind = ty->ty_kind == DC_ARRAY ? DIF_CTF_ARRAY :
		    DIF_CTF_STRUCT;
		dt->dtdt_flags = DIF_TF_BYREF;
		dt->dtdt_size = ty->ty_size;
		break;
	default:
		dt->dtdt_ckind = DIF_CTF_INTEGER;
		dt->dtdt_size = ty->ty_kind == DC_VOID ? 0 : ty->ty_size;
		break;
	}
}

static uint8_t
dc_var_scope(enum dc_scope s)
{
	switch (s) {
	case DS_THREAD: return DIFV_SCOPE_THREAD;
	case DS_LOCAL: return DIFV_SCOPE_LOCAL;
	default: return DIFV_SCOPE_GLOBAL;
	}
}

/*
 * Record in the current object's VARTAB that it references variable "id"
 * (mod: writes it).  One entry per (scope, id); flags accumulate.
 */
void
dc_var_use(struct dc_ctx *cx, uint32_t id, enum dc_scope scope, int array,
    const struct dc_type *ty, const char *name, int mod)
{
	struct dc_difo *df = cx->cx_difo;
	uint8_t sc = dc_var_scope(scope);
	struct dif_var *v;
	uint32_t i;

	for (i = 0; i < df->df_nvars; i++) {
		v = &df->df_vars[i];
		if (v->dtdv_id == id && v->dtdv_scope == sc) {
			v->dtdv_flags |= mod ? DIFV_F_MOD : DIFV_F_REF;
			return;
		}
	}
	if (df->df_nvars >= DC_MAXVARS)
		dc_error(cx, 0, 0, "D_DIF_SIZE", "DIF object references more than the limit of %u variables", DC_MAXVARS);
	df->df_vars = dc_cg_grow(cx, df->df_vars, df->df_nvars, &df->df_varscap,
	    sizeof (*df->df_vars));
	v = &df->df_vars[df->df_nvars++];
	memset(v, 0, sizeof (*v));
	v->dtdv_name = dc_cg_str(cx, name, strlen(name), 0, 0);
	v->dtdv_id = id;
	v->dtdv_kind = array ? DIFV_KIND_ARRAY : DIFV_KIND_SCALAR;
	v->dtdv_scope = sc;
	v->dtdv_flags = mod ? DIFV_F_MOD : DIFV_F_REF;
	dc_type_dif(cx, ty, &v->dtdv_type);
}

/* Argument n of the command line, or NULL. */
static const char *
dc_macro_arg(struct dc_ctx *cx, int n)
{
	const struct dc_opts *o = cx->cx_opts;

	if (o == NULL || o->dco_argv == NULL || n >= o->dco_argc)
		return NULL;
	return o->dco_argv[n];
}

static const char *
dc_macro_num(struct dc_ctx *cx, unsigned long v)
{
	char buf[32];

	snprintf(buf, sizeof (buf), "%lu", v);
	return dc_strndup(cx, buf, strlen(buf));
}

/*
 * Text of macro variable "name" (without '$'; "$1" for $$1).  *isstr is
 * set for $$n.  An argument that was not given is D_MACRO_UNDEF unless
 * the defaultargs option is set (then 0 or "").
 */
const char *
dc_macro(struct dc_ctx *cx, const char *name, int *isstr, int line, int col)
{
	const char *s = name, *v;
	char *end;
	long n;

	*isstr = *s == '$';
	if (*isstr)
		s++;
	if (strcmp(s, "pid") == 0)
		return dc_macro_num(cx, (unsigned long)getpid());
	if (strcmp(s, "ppid") == 0)
		return dc_macro_num(cx, (unsigned long)getppid());
	if (strcmp(s, "uid") == 0)
		return dc_macro_num(cx, (unsigned long)getuid());
	if (strcmp(s, "gid") == 0)
		return dc_macro_num(cx, (unsigned long)getgid());
	if (strcmp(s, "euid") == 0)
		return dc_macro_num(cx, (unsigned long)geteuid());
	if (strcmp(s, "egid") == 0)
		return dc_macro_num(cx, (unsigned long)getegid());
	if (strcmp(s, "pgid") == 0)
		return dc_macro_num(cx, (unsigned long)getpgid(0));
	if (strcmp(s, "sid") == 0)
		return dc_macro_num(cx, (unsigned long)getsid(0));
	if (strcmp(s, "target") == 0)
		return dc_macro_num(cx, cx->cx_opts != NULL ?
		    (unsigned long)cx->cx_opts->dco_target : 0);
	n = strtol(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || n > 127)
		dc_error(cx, line, col, "D_MACRO_UNDEF", "macro variable $%s is not defined", name);
	v = dc_macro_arg(cx, (int)n);
	if (v != NULL)
		return v;
	if (cx->cx_defaultargs)
		return *isstr ? "" : "0";
	dc_error(cx, line, col, "D_MACRO_UNDEF", "macro argument $%s is not defined (the program was given %d argument%s)", name, cx->cx_opts != NULL && cx->cx_opts->dco_argc > 0 ? cx->cx_opts->dco_argc - 1 : 0, cx->cx_opts != NULL && cx->cx_opts->dco_argc == 2 ? "" : "s");
}
