/*
 * dc_opt.c -- D options: "#pragma D option name=value" and "kdt -x".
 *
 * Kernel options (table below) become OPTDESC entries in the DOF, written
 * by dc_dof.c from cx_optv[].  regionsize and regionaddr are compiler-side
 * options of `kdt -A`: they place the reserved memory region and never
 * reach the kernel through OPTDESC; so are errtags, defaultargs, zdefs,
 * engine (user|kernel), encoding (ascii|utf8: how the consumer draws
 * histogram bars) and noerror (probe faults are not reported), which
 * dc_compile() reports in struct dc_out, and
 * dtrace's other compiler-only options, which are accepted and ignored.
 * Called by dc_compile.c (command-line options) and dc_parse.c (pragmas).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "dc_impl.h"

enum { OV_BOOL, OV_SIZE, OV_RATE, OV_POLICY, OV_COUNT, OV_RESIZE };

struct dc_optdef {
	const char	*od_name;
	uint32_t	od_id;		/* DTRACEOPT_* */
	int		od_kind;
};

static const struct dc_optdef dc_optdefs[] = {
	{ "bufsize", DTRACEOPT_BUFSIZE, OV_SIZE },
	{ "bufpolicy", DTRACEOPT_BUFPOLICY, OV_POLICY },
	{ "dynvarsize", DTRACEOPT_DYNVARSIZE, OV_SIZE },
	{ "aggsize", DTRACEOPT_AGGSIZE, OV_SIZE },
	{ "specsize", DTRACEOPT_SPECSIZE, OV_SIZE },
	{ "nspec", DTRACEOPT_NSPEC, OV_COUNT },
	{ "strsize", DTRACEOPT_STRSIZE, OV_SIZE },
	{ "flowindent", DTRACEOPT_FLOWINDENT, OV_BOOL },
	{ "quiet", DTRACEOPT_QUIET, OV_BOOL },
	{ "destructive", DTRACEOPT_DESTRUCTIVE, OV_BOOL },
	{ "rawbytes", DTRACEOPT_RAWBYTES, OV_BOOL },
	{ "stackframes", DTRACEOPT_STACKFRAMES, OV_COUNT },
	{ "ustackframes", DTRACEOPT_USTACKFRAMES, OV_COUNT },
	{ "jstackframes", DTRACEOPT_JSTACKFRAMES, OV_COUNT },
	{ "jstackstrsize", DTRACEOPT_JSTACKSTRSIZE, OV_SIZE },
	{ "switchrate", DTRACEOPT_SWITCHRATE, OV_RATE },
	{ "aggrate", DTRACEOPT_AGGRATE, OV_RATE },
	{ "cleanrate", DTRACEOPT_CLEANRATE, OV_RATE },
	{ "statusrate", DTRACEOPT_STATUSRATE, OV_RATE },
	{ "cpu", DTRACEOPT_CPU, OV_COUNT },
	{ "bufresize", DTRACEOPT_BUFRESIZE, OV_RESIZE },
	{ "stackindent", DTRACEOPT_STACKINDENT, OV_COUNT },
	{ "aggsortkey", DTRACEOPT_AGGSORTKEY, OV_BOOL },
	{ "aggsortrev", DTRACEOPT_AGGSORTREV, OV_BOOL },
	{ "aggsortpos", DTRACEOPT_AGGSORTPOS, OV_COUNT },
	{ "aggsortkeypos", DTRACEOPT_AGGSORTKEYPOS, OV_COUNT },
	{ "temporal", DTRACEOPT_TEMPORAL, OV_BOOL },
	{ "agghist", DTRACEOPT_AGGHIST, OV_BOOL },
	{ "aggpack", DTRACEOPT_AGGPACK, OV_BOOL },
	{ "aggzoom", DTRACEOPT_AGGZOOM, OV_BOOL },
};

/* "16m", "4k", "1g", "1t", or plain bytes; -1 on junk or overflow. */
static int
dc_opt_size(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n;
	int shift = 0;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno != 0)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end != '\0' || (shift > 0 && n > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)n << shift;
	return 0;
}

/* Rates: "10hz", a time ("100ms", "1s", "500us", "10ns") or hertz. */
static int
dc_opt_rate(const char *v, uint64_t *out)
{
	static const struct { const char *s; uint64_t ns; } unit[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 }, { "s", 1000000000 },
		{ "sec", 1000000000 },
	};
	char *end;
	unsigned long long n;
	size_t i;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno != 0 || n == 0)
		return -1;
	if (*end == '\0' || strcmp(end, "hz") == 0) {
		*out = 1000000000ull / n;
		return 0;
	}
	for (i = 0; i < sizeof (unit) / sizeof (unit[0]); i++) {
		if (strcmp(end, unit[i].s) == 0 &&
		    n <= UINT64_MAX / unit[i].ns) {
			*out = n * unit[i].ns;
			return 0;
		}
	}
	return -1;
}

static int
dc_opt_count(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno != 0 || *end != '\0' || n >= DTRACEOPT_UNSET)
		return -1;
	*out = n;
	return 0;
}

/* The words dtrace takes for a boolean option, in any case. */
static int
dc_opt_word(const char *v, int on)
{
	static const char *const words[][2] = { { "no", "yes" },
	    { "disable", "enable" }, { "disabled", "enabled" },
	    { "false", "true" }, { "off", "on" }, { "unset", "set" } };
	size_t i;

	for (i = 0; i < sizeof (words) / sizeof (words[0]); i++)
		if (strcasecmp(v, words[i][on]) == 0)
			return 1;
	return 0;
}

static int
dc_opt_value(const struct dc_optdef *od, const char *v, uint64_t *out)
{
	switch (od->od_kind) {
	case OV_BOOL:
		if (v == NULL || strcmp(v, "1") == 0 || strcmp(v, "") == 0 ||
		    dc_opt_word(v, 1))
			*out = 1;
		else if (strcmp(v, "0") == 0 || dc_opt_word(v, 0))
			*out = 0;
		else
			return -1;
		return 0;
	case OV_POLICY:
		if (v == NULL)
			return -1;
		if (strcmp(v, "ring") == 0)
			*out = DTRACEOPT_BUFPOLICY_RING;
		else if (strcmp(v, "fill") == 0)
			*out = DTRACEOPT_BUFPOLICY_FILL;
		else if (strcmp(v, "switch") == 0)
			*out = DTRACEOPT_BUFPOLICY_SWITCH;
		else
			return -1;
		return 0;
	case OV_RATE:
		return v == NULL ? -1 : dc_opt_rate(v, out);
	case OV_RESIZE:
		if (v != NULL && strcmp(v, "auto") == 0)
			*out = 0;
		else if (v != NULL && strcmp(v, "manual") == 0)
			*out = 1;
		else
			return -1;
		return 0;
	case OV_COUNT:
		return v == NULL || dc_opt_count(v, out) != 0 ? -1 : 0;
	default:
		return v == NULL || dc_opt_size(v, out) != 0 || *out == 0 ?
		    -1 : 0;
	}
}

static const char *
dc_opt_expect(const struct dc_optdef *od)
{
	switch (od->od_kind) {
	case OV_BOOL: return "no value, 0, 1, yes, no, on, off, true, false, set, unset, enable(d) or disable(d)";
	case OV_POLICY: return "ring, fill or switch";
	case OV_RATE: return "a positive rate such as 10hz";
	case OV_COUNT: return "a number";
	case OV_RESIZE: return "auto or manual";
	default: return "a non-zero size such as 4m";
	}
}

/* Compiler-side options of kdt -A; 1 when "name" was one of them. */
static int
dc_opt_region(struct dc_ctx *cx, const char *name, const char *v,
    int line, int col)
{
	uint64_t *dst;

	if (strcmp(name, "regionsize") == 0) {
		dst = &cx->cx_regsize;
		cx->cx_regset |= DC_REGSET_SIZE;
	} else if (strcmp(name, "regionaddr") == 0) {
		dst = &cx->cx_regaddr;
		cx->cx_regset |= DC_REGSET_ADDR;
	} else
		return 0;
	if (v == NULL || dc_opt_size(v, dst) != 0 || *dst == 0 ||
	    (*dst & 0xfff) != 0)
		dc_error(cx, line, col, "D_PRAGMA_OPTSET", "failed to set option '%s' to '%s': expected a non-zero multiple of 4k such as 16m", name, v == NULL ? "" : v);
	return 1;
}

/*
 * Options that stay in the compiler or the kdt command: they never reach
 * the kernel through OPTDESC.  1 when "name" was one of them.
 */
static int
dc_opt_compiler(struct dc_ctx *cx, const char *name, const char *v,
    int line, int col)
{
	static const char *const ignored[] = { "cpp", "cpppath",
	    "incdir", "define", "undef", "stdc", "version",
	    "linkmode", "ldpath", "libdir", "nolibs", "pspec", "tree",
	    "verbose", "evaltime", "iregs", "tregs", "late", "amin",
	    "argref", "core", "knodefs", "unodefs", "linktype", "modpath",
	    "disasm", "debug", "strip", "syslibdir", "lazyload", "grabanon" };
	size_t i;

	if (strcmp(name, "errtags") == 0)
		cx->cx_errtags = 1;
	else if (strcmp(name, "droptags") == 0)
		cx->cx_droptags = 1;
	else if (strcmp(name, "noerror") == 0)
		cx->cx_noerror = 1;
	else if (strcmp(name, "defaultargs") == 0)
		cx->cx_defaultargs = 1;
	else if (strcmp(name, "zdefs") == 0)
		cx->cx_zdefs = 1;
	else if (strcmp(name, "region") == 0)
		cx->cx_region = 1;
	else if (strcmp(name, "encoding") == 0) {
		if (v != NULL && strcmp(v, "ascii") == 0)
			cx->cx_encoding = DC_ENC_ASCII;
		else if (v != NULL && strcmp(v, "utf8") == 0)
			cx->cx_encoding = DC_ENC_UTF8;
		else
			dc_error(cx, line, col, "D_PRAGMA_OPTSET", "failed to set option 'encoding' to '%s': expected ascii or utf8", v == NULL ? "" : v);
	} else if (strcmp(name, "engine") == 0) {
		if (v != NULL && strcmp(v, "user") == 0)
			cx->cx_engine = 1;
		else if (v != NULL && strcmp(v, "kernel") == 0)
			cx->cx_engine = 2;
		else
			dc_error(cx, line, col, "D_PRAGMA_OPTSET", "failed to set option 'engine' to '%s': expected user or kernel", v == NULL ? "" : v);
	} else {
		for (i = 0; i < sizeof (ignored) / sizeof (ignored[0]); i++)
			if (strcmp(name, ignored[i]) == 0)
				return 1;
		return 0;
	}
	return 1;
}

void
dc_opt_set(struct dc_ctx *cx, const char *opt, int line, int col)
{
	char name[64];
	const char *eq = strchr(opt, '='), *v = eq != NULL ? eq + 1 : NULL;
	size_t n = eq != NULL ? (size_t)(eq - opt) : strlen(opt), i;

	if (n == 0 || n >= sizeof (name))
		dc_error(cx, line, col, "D_PRAGMA_OPTSET", "failed to set option '%s': option name must be 1 to %zu characters", opt, sizeof (name) - 1);
	memcpy(name, opt, n);
	name[n] = '\0';
	if (dc_opt_region(cx, name, v, line, col) ||
	    dc_opt_compiler(cx, name, v, line, col))
		return;
	for (i = 0; i < sizeof (dc_optdefs) / sizeof (dc_optdefs[0]); i++) {
		const struct dc_optdef *od = &dc_optdefs[i];

		if (strcmp(od->od_name, name) != 0)
			continue;
		if (dc_opt_value(od, v, &cx->cx_optv[od->od_id]) != 0)
			dc_error(cx, line, col, "D_PRAGMA_OPTSET", "failed to set option '%s' to '%s': expected %s", name, v == NULL ? "" : v, dc_opt_expect(od));
		if (od->od_id == DTRACEOPT_DESTRUCTIVE)
			cx->cx_destructive = cx->cx_optv[od->od_id] != 0;
		return;
	}
	dc_error(cx, line, col, "D_PRAGMA_OPTSET", "failed to set option '%s': Invalid option name", name);
}

/*
 * setopt() at run time (the consumer's decoder): the DTRACEOPT_* id and
 * value of "name" set to "value" (NULL: none given) as -x would set it.
 * 0, or -1 for a name that is no DOF option or a value it does not take.
 */
int
dc_opt_parse(const char *name, const char *value, uint32_t *opt,
    uint64_t *val)
{
	size_t i;

	for (i = 0; i < sizeof (dc_optdefs) / sizeof (dc_optdefs[0]); i++) {
		if (strcmp(dc_optdefs[i].od_name, name) != 0)
			continue;
		*opt = dc_optdefs[i].od_id;
		return dc_opt_value(&dc_optdefs[i], value, val);
	}
	return -1;
}

/*
 * The option names that -x and "#pragma D option" act on -- the kernel
 * table's and the compiler's own, not dtrace's accepted-and-ignored ones
 * -- one per call, i from 0 until NULL; *takes_value says whether it is
 * written name=value.  For "kdt --list-options" (shell completion).
 */
const char *
dc_opt_name(size_t i, int *takes_value)
{
	static const struct { const char *n; int v; } own[] = {
	    { "regionsize", 1 }, { "regionaddr", 1 }, { "engine", 1 },
	    { "encoding", 1 }, { "region", 0 }, { "errtags", 0 },
	    { "defaultargs", 0 }, { "zdefs", 0 }, { "noerror", 0 } };
	size_t n = sizeof (dc_optdefs) / sizeof (dc_optdefs[0]);

	if (i < n) {
		*takes_value = dc_optdefs[i].od_kind != OV_BOOL;
		return dc_optdefs[i].od_name;
	}
	i -= n;
	if (i >= sizeof (own) / sizeof (own[0]))
		return NULL;
	*takes_value = own[i].v;
	return own[i].n;
}
