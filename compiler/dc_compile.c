/*
 * dc_compile.c -- the compiler's entry point, arena and diagnostics.
 *
 * dc_compile() (declared in dc.h, called by kdt_main.c and the tests) sets
 * up one compilation context, applies the command-line options, runs the
 * parser (which type-checks and generates DIF clause by clause, see
 * dc_parse.c) and finally the DOF writer.  Any diagnostic longjmp()s back
 * here; because everything lives in the arena, cleanup is one loop.
 */
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <bpf/btf.h>
#include "dc_impl.h"

struct dc_chunk {
	struct dc_chunk	*ch_next;
	size_t		ch_size;
	size_t		ch_used;
	max_align_t	ch_data[];
};

#define DC_CHUNK_SIZE	(64u << 10)

void *
dc_alloc(struct dc_ctx *cx, size_t size)
{
	struct dc_chunk *ch = cx->cx_arena;
	size_t need = (size + 15) & ~(size_t)15;
	void *p;

	if (ch == NULL || ch->ch_size - ch->ch_used < need) {
		size_t csz = need > DC_CHUNK_SIZE ? need : DC_CHUNK_SIZE;

		ch = calloc(1, sizeof (*ch) + csz);
		if (ch == NULL)
			dc_error(cx, 0, 0, "D_NOMEM", "out of memory");
		ch->ch_size = csz;
		ch->ch_next = cx->cx_arena;
		cx->cx_arena = ch;
	}
	p = (char *)ch->ch_data + ch->ch_used;
	ch->ch_used += need;
	return p;
}

char *
dc_strndup(struct dc_ctx *cx, const char *s, size_t len)
{
	char *p = dc_alloc(cx, len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void
dc_error(struct dc_ctx *cx, int line, int col, const char *tag,
    const char *fmt, ...)
{
	struct dc_out *out = cx->cx_out;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->dco_msg, sizeof (out->dco_msg), fmt, ap);
	va_end(ap);
	out->dco_tag = tag;
	out->dco_line = line;
	out->dco_col = col;
	if (line == 0)
		snprintf(out->dco_diag, sizeof (out->dco_diag),
		    "%.200s: [%.40s] %s", cx->cx_name, tag, out->dco_msg);
	else
		snprintf(out->dco_diag, sizeof (out->dco_diag),
		    "%.200s:%d:%d: [%.40s] %s", cx->cx_name, line, col, tag,
		    out->dco_msg);
	longjmp(cx->cx_jmp, 1);
}

static void
dc_ctx_free(struct dc_ctx *cx)
{
	struct dc_chunk *ch, *next;

	for (ch = cx->cx_arena; ch != NULL; ch = next) {
		next = ch->ch_next;
		free(ch);
	}
	cx->cx_arena = NULL;
	dc_btf_free(cx);
}

static void
dc_ctx_init(struct dc_ctx *cx, const char *src, size_t len,
    const char *name, const struct dc_opts *o, struct dc_out *out)
{
	int i;

	memset(cx, 0, sizeof (*cx));
	cx->cx_srcname = name != NULL ? name : "<input>";
	cx->cx_name = cx->cx_srcname;
	cx->cx_src = src;
	cx->cx_len = len;
	cx->cx_opts = o;
	cx->cx_out = out;
	cx->cx_tail = &cx->cx_clauses;
	cx->cx_regsize = DC_REGION_SIZE_DEFAULT;
	cx->cx_regaddr = DC_REGION_ADDR_DEFAULT;
	for (i = 0; i < DTRACEOPT_MAX; i++)
		cx->cx_optv[i] = DTRACEOPT_UNSET;
}

/* Does "s" contain a probe-description glob character? */
static int
dc_isglob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

/*
 * Nanoseconds between firings of a profile provider probe named
 * "profile-N[unit]" or "tick-N[unit]" (no unit: N per second), or 0 when
 * the name is not one the provider creates.
 */
static uint64_t
dc_profile_ns(const char *name)
{
	static const struct { const char *u; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 }, { "s", 1000000000 },
		{ "sec", 1000000000 }, { "m", 60000000000ULL },
		{ "min", 60000000000ULL }, { "h", 3600000000000ULL },
		{ "hour", 3600000000000ULL }, { "d", 86400000000000ULL },
		{ "day", 86400000000000ULL },
	};
	const char *p = strchr(name, '-');
	uint64_t n = 0;
	size_t i;

	if (p == NULL || p[1] < '0' || p[1] > '9')
		return 0;
	for (p++; *p >= '0' && *p <= '9' && n < 1000000000000ULL; p++)
		n = n * 10 + (uint64_t)(*p - '0');
	if (n == 0)
		return 0;
	if (*p == '\0' || strcmp(p, "hz") == 0)
		return 1000000000ULL / n;
	for (i = 0; i < sizeof (units) / sizeof (units[0]); i++)
		if (strcmp(p, units[i].u) == 0)
			return n * units[i].ns;
	return 0;
}

/*
 * A profile provider description without globs names one probe, which
 * exists only for a well-formed rate no faster than every 200us (dtrace's
 * profile-min): otherwise it matches nothing, D_PDESC_ZERO unless -Z.
 */
static void
dc_check_profile_pdesc(struct dc_ctx *cx, const struct dc_pdesc *pd)
{
	if (strcmp(pd->pd_prov, "profile") != 0 || dc_isglob(pd->pd_mod) ||
	    dc_isglob(pd->pd_func) || dc_isglob(pd->pd_name) ||
	    pd->pd_name[0] == '\0' || (strncmp(pd->pd_name, "profile-", 8)
	    != 0 && strncmp(pd->pd_name, "tick-", 5) != 0))
		return;
	if (dc_profile_ns(pd->pd_name) < 200000)
		dc_error(cx, pd->pd_line, pd->pd_col, "D_PDESC_ZERO", "probe description %s:%s:%s:%s does not match any probes (the profile provider's probes are profile-N or tick-N with a rate of at most one per 200us)", pd->pd_prov, pd->pd_mod, pd->pd_func, pd->pd_name);
}

/*
 * The dtrace provider's probes are the same on every engine (BEGIN, END,
 * ERROR, module and function empty), so a description naming that
 * provider exactly, with no glob, either matches one of them or matches
 * nothing at all: the latter is D_PDESC_ZERO, as in dtrace, unless -Z.
 * Descriptions of other providers are matched when they are enabled.
 */
static void
dc_check_dtrace_pdescs(struct dc_ctx *cx)
{
	const struct dc_clause *cl;
	const struct dc_pdesc *pd;
	int i;

	for (cl = cx->cx_clauses; cl != NULL && !cx->cx_zdefs;
	    cl = cl->cl_next) {
		for (i = 0; i < cl->cl_npdescs; i++) {
			pd = &cl->cl_pdescs[i];
			dc_check_profile_pdesc(cx, pd);
			if (strcmp(pd->pd_prov, "dtrace") != 0 ||
			    dc_isglob(pd->pd_mod) || dc_isglob(pd->pd_func) ||
			    dc_isglob(pd->pd_name))
				continue;
			if (pd->pd_mod[0] == '\0' && pd->pd_func[0] == '\0' &&
			    (strcmp(pd->pd_name, "BEGIN") == 0 ||
			    strcmp(pd->pd_name, "END") == 0 ||
			    strcmp(pd->pd_name, "ERROR") == 0 ||
			    pd->pd_name[0] == '\0'))
				continue;
			dc_error(cx, pd->pd_line, pd->pd_col, "D_PDESC_ZERO",
			    "probe description %s:%s:%s:%s does not match any probes",
			    pd->pd_prov, pd->pd_mod, pd->pd_func, pd->pd_name);
		}
	}
}

/* The volatile context pointer keeps longjmp from clobbering it. */
static int
dc_run(struct dc_ctx *volatile cx)
{
	const struct dc_opts *o = cx->cx_opts;
	struct dc_out *out = cx->cx_out;
	int i;

	if (setjmp(cx->cx_jmp) != 0) {
		out->dco_errtags = cx->cx_errtags;
		return -1;
	}
	if (o != NULL) {
		cx->cx_destructive = o->dco_destructive;
		cx->cx_zdefs = o->dco_zdefs;
	}
	cx->cx_name = "-x";
	for (i = 0; o != NULL && i < o->dco_nxopts; i++)
		dc_opt_set(cx, o->dco_xopts[i], 0, 0);
	cx->cx_name = cx->cx_srcname;
	dc_lib_load(cx);
	dc_lex_init(cx);
	dc_parse_program(cx);
	if (cx->cx_clauses == NULL)
		dc_error(cx, cx->cx_line, cx->cx_col, "D_EMPTY",
		    "program contains no probe clauses");
	dc_check_dtrace_pdescs(cx);
	/*
	 * -w travels in the DOF as the destructive option, as dtrace -A -w
	 * saves it: an anonymous enabling has no consumer at enabling time
	 * to pass the permission along (live runs pass it as well).
	 */
	if (cx->cx_destructive &&
	    cx->cx_optv[DTRACEOPT_DESTRUCTIVE] == DTRACEOPT_UNSET)
		cx->cx_optv[DTRACEOPT_DESTRUCTIVE] = 1;
	if (dc_dof_write(cx, &out->dco_dof, &out->dco_dofsz) != 0)
		dc_error(cx, 0, 0, "D_NOMEM", "out of memory writing DOF");
	if (o != NULL && o->dco_dis != NULL)
		dc_dis_program(o->dco_dis, cx);
	out->dco_regsize = cx->cx_regsize;
	out->dco_regaddr = cx->cx_regaddr;
	out->dco_regset = cx->cx_regset;
	out->dco_errtags = cx->cx_errtags;
	out->dco_droptags = cx->cx_droptags;
	out->dco_encoding = cx->cx_encoding;
	out->dco_noerror = cx->cx_noerror;
	out->dco_engine = cx->cx_engine;
	out->dco_region = cx->cx_region;
	out->dco_quiet = cx->cx_optv[DTRACEOPT_QUIET] == 1;
	out->dco_destructive = cx->cx_destructive;
	out->dco_zdefs = cx->cx_zdefs;
	return 0;
}

int
dc_compile(const char *src, size_t len, const char *name,
    const struct dc_opts *o, struct dc_out *out)
{
	struct dc_ctx *cx;
	int rc;

	memset(out, 0, sizeof (*out));
	cx = malloc(sizeof (*cx));
	if (cx == NULL) {
		snprintf(out->dco_diag, sizeof (out->dco_diag),
		    "%s: [D_NOMEM] out of memory", name);
		out->dco_tag = "D_NOMEM";
		return -1;
	}
	dc_ctx_init(cx, src, len, name, o, out);
	rc = dc_run(cx);
	dc_ctx_free(cx);
	free(cx);
	if (rc != 0) {
		free(out->dco_dof);
		out->dco_dof = NULL;
		out->dco_dofsz = 0;
	}
	return rc;
}

void
dc_out_free(struct dc_out *out)
{
	free(out->dco_dof);
	out->dco_dof = NULL;
	out->dco_dofsz = 0;
}
