/*
 * dc_subr.c -- DTrace subroutines: prototypes and type checking.
 *
 * Each subroutine a D program may call is one row of dc_subrs[]: its name,
 * its DIF id (common/dif.h and common/dif_subr.h, illumos numbering,
 * reference 2.7), its result type and a prototype string with one letter
 * per argument:
 *
 *	i  integer            s  string           p  integer or pointer
 *	x  string, integer or pointer (strtok's "NULL continues")
 *
 * Arguments after '|' are optional.  A call with the wrong number of
 * arguments is D_PROTO_LEN, one of the wrong type D_PROTO_ARG (the tags
 * dtrace uses).  dc_subr_type() is called by dc_type.c for every call
 * expression that is not an action; the code generator (dc_cg.c) then
 * pushes the arguments (pushtv for scalars, pushtr for strings) and emits
 * "call id" as in reference 2.3.
 */
#include <string.h>
#include "dc_impl.h"
#include "dif_subr.h"

enum { SR_INT, SR_UINT, SR_LONG, SR_ULONG, SR_STR, SR_PTR, SR_VOID,
	SR_U16, SR_U32 };

struct dc_subr {
	const char	*su_name;
	uint16_t	su_id;
	uint8_t		su_ret;
	uint8_t		su_destr;	/* destructive: needs -w */
	const char	*su_proto;
};

static const struct dc_subr dc_subrs[] = {
	{ "rand", DIF_SUBR_RAND, SR_INT, 0, "" },
	{ "mutex_owned", DIF_SUBR_MUTEX_OWNED, SR_INT, 0, "p" },
	{ "mutex_owner", DIF_SUBR_MUTEX_OWNER, SR_PTR, 0, "p" },
	{ "mutex_type_adaptive", DIF_SUBR_MUTEX_TYPE_ADAPTIVE, SR_INT, 0,
	    "p" },
	{ "mutex_type_spin", DIF_SUBR_MUTEX_TYPE_SPIN, SR_INT, 0, "p" },
	{ "rw_read_held", DIF_SUBR_RW_READ_HELD, SR_INT, 0, "p" },
	{ "rw_write_held", DIF_SUBR_RW_WRITE_HELD, SR_INT, 0, "p" },
	{ "rw_iswriter", DIF_SUBR_RW_ISWRITER, SR_INT, 0, "p" },
	{ "copyin", DIF_SUBR_COPYIN, SR_PTR, 0, "pi" },
	{ "copyinstr", DIF_SUBR_COPYINSTR, SR_STR, 0, "p|i" },
	{ "speculation", DIF_SUBR_SPECULATION, SR_INT, 0, "" },
	{ "progenyof", DIF_SUBR_PROGENYOF, SR_INT, 0, "i" },
	{ "strlen", DIF_SUBR_STRLEN, SR_ULONG, 0, "s" },
	{ "copyout", DIF_SUBR_COPYOUT, SR_VOID, 1, "ppi" },
	{ "copyoutstr", DIF_SUBR_COPYOUTSTR, SR_VOID, 1, "spi" },
	{ "alloca", DIF_SUBR_ALLOCA, SR_PTR, 0, "i" },
	{ "bcopy", DIF_SUBR_BCOPY, SR_VOID, 0, "xpi" },
	{ "copyinto", DIF_SUBR_COPYINTO, SR_VOID, 0, "pip" },
	{ "getmajor", DIF_SUBR_GETMAJOR, SR_U32, 0, "i" },
	{ "getminor", DIF_SUBR_GETMINOR, SR_U32, 0, "i" },
	{ "strjoin", DIF_SUBR_STRJOIN, SR_STR, 0, "ss" },
	{ "lltostr", DIF_SUBR_LLTOSTR, SR_STR, 0, "i|i" },
	{ "basename", DIF_SUBR_BASENAME, SR_STR, 0, "s" },
	{ "dirname", DIF_SUBR_DIRNAME, SR_STR, 0, "s" },
	{ "cleanpath", DIF_SUBR_CLEANPATH, SR_STR, 0, "s" },
	{ "strchr", DIF_SUBR_STRCHR, SR_STR, 0, "si" },
	{ "strrchr", DIF_SUBR_STRRCHR, SR_STR, 0, "si" },
	{ "strstr", DIF_SUBR_STRSTR, SR_STR, 0, "ss" },
	{ "strtok", DIF_SUBR_STRTOK, SR_STR, 0, "xs" },
	{ "substr", DIF_SUBR_SUBSTR, SR_STR, 0, "si|i" },
	{ "index", DIF_SUBR_INDEX, SR_INT, 0, "ss|i" },
	{ "rindex", DIF_SUBR_RINDEX, SR_INT, 0, "ss|i" },
	{ "htons", DIF_SUBR_HTONS, SR_U16, 0, "i" },
	{ "htonl", DIF_SUBR_HTONL, SR_U32, 0, "i" },
	{ "htonll", DIF_SUBR_HTONLL, SR_ULONG, 0, "i" },
	{ "ntohs", DIF_SUBR_NTOHS, SR_U16, 0, "i" },
	{ "ntohl", DIF_SUBR_NTOHL, SR_U32, 0, "i" },
	{ "ntohll", DIF_SUBR_NTOHLL, SR_ULONG, 0, "i" },
	{ "inet_ntop", DIF_SUBR_INET_NTOP, SR_STR, 0, "ip" },
	{ "inet_ntoa", DIF_SUBR_INET_NTOA, SR_STR, 0, "p" },
	{ "inet_ntoa6", DIF_SUBR_INET_NTOA6, SR_STR, 0, "p" },
	{ "toupper", DIF_SUBR_TOUPPER, SR_STR, 0, "s" },
	{ "tolower", DIF_SUBR_TOLOWER, SR_STR, 0, "s" },
	{ "json", DIF_SUBR_JSON, SR_STR, 0, "ss" },
	{ "strtoll", DIF_SUBR_STRTOLL, SR_LONG, 0, "s|i" },
};

static const struct dc_subr *
dc_subr_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof (dc_subrs) / sizeof (dc_subrs[0]); i++)
		if (strcmp(dc_subrs[i].su_name, name) == 0)
			return &dc_subrs[i];
	return NULL;
}

/* Name of subroutine "id" for the disassembler, or NULL. */
const char *
dc_subr_name(uint32_t id)
{
	size_t i;

	if (id == DIF_SUBR_KDT_KSTRING)
		return "kstring";
	for (i = 0; i < sizeof (dc_subrs) / sizeof (dc_subrs[0]); i++)
		if (dc_subrs[i].su_id == id)
			return dc_subrs[i].su_name;
	return NULL;
}

static void
dc_subr_ret(const struct dc_subr *su, struct dc_type *ty)
{
	struct dc_type v;

	switch (su->su_ret) {
	case SR_INT: dc_type_int(ty, 4, 1); break;
	case SR_UINT: dc_type_int(ty, 4, 0); break;
	case SR_U16: dc_type_int(ty, 2, 0); break;
	case SR_U32: dc_type_int(ty, 4, 0); break;
	case SR_LONG: dc_type_int(ty, 8, 1); break;
	case SR_ULONG: dc_type_int(ty, 8, 0); break;
	case SR_STR: dc_type_string(ty); break;
	case SR_PTR:
		memset(&v, 0, sizeof (v));
		dc_type_ptr_to(ty, &v);
		break;
	default:
		memset(ty, 0, sizeof (*ty));
		ty->ty_name = "void";
		break;
	}
}

static int
dc_subr_argok(char want, const struct dc_type *ty)
{
	switch (want) {
	case 'i': return ty->ty_kind == DC_INT;
	case 's': return ty->ty_kind == DC_STRING;
	case 'p': return dc_type_is_scalar(ty);
	default: return dc_type_is_scalar(ty) || ty->ty_kind == DC_STRING;
	}
}

static const char *
dc_subr_want(char want)
{
	switch (want) {
	case 'i': return "an integer";
	case 's': return "a string";
	case 'p': return "an integer or pointer";
	default: return "a string or pointer";
	}
}

static void
dc_subr_count(struct dc_ctx *cx, const struct dc_node *n,
    const struct dc_subr *su)
{
	const char *bar = strchr(su->su_proto, '|');
	int min = bar != NULL ? (int)(bar - su->su_proto) :
	    (int)strlen(su->su_proto);
	int max = (int)strlen(su->su_proto) - (bar != NULL);

	if (n->n_nargs < min || n->n_nargs > max)
		dc_error(cx, n->n_line, n->n_col, "D_PROTO_LEN", "%s( ) prototype mismatch: %d arg%s passed, %s%d expected", n->n_str, n->n_nargs, n->n_nargs == 1 ? "" : "s", min == max ? "" : n->n_nargs < min ? "at least " : "at most ", n->n_nargs < min ? min : max);
}

/* Whether name is a subroutine (for the D_FUNC_UNDEF checks elsewhere). */
int
dc_subr_known(const char *name)
{
	return dc_subr_find(name) != NULL;
}

/* Is "name" a destructive subroutine (copyout, copyoutstr)? */
int
dc_subr_destructive(const char *name)
{
	const struct dc_subr *su = dc_subr_find(name);

	return su != NULL && su->su_destr;
}

/* Type a subroutine call: arguments against the prototype, result. */
void
dc_subr_type(struct dc_ctx *cx, struct dc_node *n)
{
	const struct dc_subr *su = dc_subr_find(n->n_str);
	const char *p;
	int i;

	if (su == NULL)
		dc_error(cx, n->n_line, n->n_col, "D_FUNC_UNDEF", "failed to resolve %s: Unknown function name", n->n_str);
	dc_subr_count(cx, n, su);
	for (i = 0, p = su->su_proto; i < n->n_nargs; i++, p++) {
		struct dc_node *a = n->n_args[i];

		if (*p == '|')
			p++;
		dc_type_expr(cx, a);
		if (a->n_type.ty_kind == DC_ARRAY && a->n_type.ty_elsize == 1 &&
		    *p != 'i') {
			struct dc_node *s = dc_alloc(cx, sizeof (*s));

			memset(s, 0, sizeof (*s));
			s->n_kind = DN_STRINGOF;
			s->n_line = a->n_line;
			s->n_col = a->n_col;
			s->n_a = a;
			dc_type_string(&s->n_type);
			n->n_args[i] = a = s;
		}
		if (!dc_subr_argok(*p, &a->n_type))
			dc_error(cx, a->n_line, a->n_col, "D_PROTO_ARG", "%s( ) argument #%d is incompatible with prototype: expected %s, argument is %s", n->n_str, i + 1, dc_subr_want(*p), a->n_type.ty_name);
	}
	/* as in dtrace, the prototype is checked before the permission */
	if (su->su_destr && !cx->cx_destructive)
		dc_error(cx, n->n_line, n->n_col, "D_ACT_DESTR", "%s( ) is destructive: destructive actions are not allowed without -w", n->n_str);
	n->n_ival = su->su_id;
	dc_subr_ret(su, &n->n_type);
}
