/*
 * test_opt_names.c -- dc_opt_name(), the list of -x option names that
 * "kdt --list-options" prints for shell completion (compiler/dc_opt.c),
 * and the bash completion built on it (contrib/bash-completion/kdt).
 *
 * The list is the kernel option table plus a hand-written list of the
 * compiler's own options, so the test holds it against the compiler
 * itself: every name must be one dc_compile() accepts as -x (with some
 * value of its kind: the names that take a value are tried with sizes,
 * counts and rates, then with the keywords the completion offers for
 * them; the others bare), no name may be there twice, and a name that is
 * not an option must still be refused, so that "accepted" means
 * something.
 *
 * The completion's fixed value lists ("bufpolicy) vals=..." in the -x
 * case) are read from the file: each value must compile with its option,
 * and every listed option that takes no number (a keyword option) must
 * have such a list.  Its flag list must hold every short option of kdt's
 * getopt string and every long option that is not marked hidden, both
 * read from consumer/kdt_main.c.  The files are read relative to the
 * repository's top (tests/run-tests runs unit tests there).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/dc.h"
#include "kt_check.h"

#define KT_COMPLETION	"contrib/bash-completion/kdt"
#define KT_MAINSRC	"consumer/kdt_main.c"

static const char *const kt_prog = "BEGIN { exit(0); }";

/* 0: compiled; 1: refused as an unknown name; 2: refused otherwise. */
static int
kt_try(const char *xopt)
{
	struct dc_opts o;
	struct dc_out out;
	int rv;

	memset(&o, 0, sizeof (o));
	memset(&out, 0, sizeof (out));
	o.dco_xopts[0] = xopt;
	o.dco_nxopts = 1;
	if (dc_compile(kt_prog, strlen(kt_prog), "test", &o, &out) == 0)
		rv = 0;
	else
		rv = strstr(out.dco_msg, "Invalid option name") != NULL ? 1 : 2;
	dc_out_free(&out);
	return rv;
}

/* A whole file as a string (freed by the caller). */
static char *
kt_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s (run from the repository's top)", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_gt(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The completion's values for -x "name=" ("a b c"), or NULL. */
static char *
kt_comp_vals(const char *comp, const char *name)
{
	char key[64];
	const char *p, *e;
	char *v;

	snprintf(key, sizeof (key), "%s) vals=\"", name);
	for (p = strstr(comp, key); p != NULL; p = strstr(p + 1, key)) {
		if (p > comp && !isspace((unsigned char)p[-1]))
			continue;	/* "xbufpolicy)": another name */
		p += strlen(key);
		e = strchr(p, '"');
		ck_assert_ptr_nonnull(e);
		v = strndup(p, (size_t)(e - p));
		ck_assert_ptr_nonnull(v);
		return v;
	}
	return NULL;
}

/* -x name=v for each word of "vals": 1 when all compile. */
static void
kt_vals_compile(const char *name, const char *vals)
{
	char *copy = strdup(vals), *w, *save = NULL, buf[128];
	int n = 0;

	ck_assert_ptr_nonnull(copy);
	for (w = strtok_r(copy, " \t", &save); w != NULL;
	    w = strtok_r(NULL, " \t", &save), n++) {
		snprintf(buf, sizeof (buf), "%s=%s", name, w);
		ck_assert_msg(kt_try(buf) == 0, "%s offers -x %s, which does not compile", KT_COMPLETION, buf);
	}
	ck_assert_msg(n > 0, "%s: empty value list for -x %s=", KT_COMPLETION,
	    name);
	free(copy);
}

START_TEST(names_are_options)
{
	static const char *const nums[] = { "4m", "1", "10hz" };
	char buf[128], *comp = kt_slurp(KT_COMPLETION), *vals;
	const char *name, *seen[128];
	size_t i, j, n = 0;
	int tv, ok;

	for (i = 0; (name = dc_opt_name(i, &tv)) != NULL; i++) {
		ck_assert_msg(n < 128, "more than 128 option names");
		for (j = 0; j < n; j++)
			ck_assert_msg(strcmp(seen[j], name) != 0,
			    "option %s listed twice", name);
		seen[n++] = name;
		if (!tv) {
			ck_assert_msg(kt_try(name) == 0,
			    "-x %s (listed without a value) does not compile",
			    name);
			continue;
		}
		ok = 0;
		for (j = 0; j < sizeof (nums) / sizeof (nums[0]) && !ok; j++) {
			snprintf(buf, sizeof (buf), "%s=%s", name, nums[j]);
			ck_assert_msg(kt_try(buf) != 1,
			    "-x %s: the compiler does not know the name", buf);
			ok = kt_try(buf) == 0;
		}
		vals = kt_comp_vals(comp, name);
		/* a keyword option: its words must be in the completion */
		ck_assert_msg(ok || vals != NULL, "-x %s=VALUE: no number accepted and %s offers no values for it", name, KT_COMPLETION);
		if (vals != NULL)
			kt_vals_compile(name, vals);
		free(vals);
	}
	ck_assert_uint_ge(n, 30);
	ck_assert_int_eq(kt_try("nosuchoption=1"), 1);
	/* the lists tried above are there, with the values they must have */
	vals = kt_comp_vals(comp, "encoding");
	ck_assert_msg(vals != NULL && strcmp(vals, "ascii utf8") == 0,
	    "encoding's values: %s", vals != NULL ? vals : "(none)");
	free(vals);
	free(comp);
}
END_TEST

/* Is "word" (e.g. "-i", "--btf") among the completion's flags? */
static int
kt_has_flag(const char *flags, const char *word)
{
	size_t len = strlen(word);
	const char *p;

	for (p = strstr(flags, word); p != NULL; p = strstr(p + 1, word))
		if ((p == flags || isspace((unsigned char)p[-1])) &&
		    (p[len] == '\0' || p[len] == '=' ||
		    isspace((unsigned char)p[len])))
			return 1;
	return 0;
}

START_TEST(completion_has_every_flag)
{
	char *comp = kt_slurp(KT_COMPLETION), *src = kt_slurp(KT_MAINSRC);
	char *flags, *p, *e, *line, *save = NULL, word[64];
	static const char start[] = "compgen -W '-a";
	static const char gol[] = "getopt_long(argc, argv, \"";
	int nshort = 0, nlong = 0;

	/* kdt's flag list: the first "compgen -W '-a ..." of the file */
	p = strstr(comp, start);
	ck_assert_msg(p != NULL, "%s: no flag list", KT_COMPLETION);
	p += strlen("compgen -W '");
	e = strchr(p, '\'');
	ck_assert_ptr_nonnull(e);
	flags = strndup(p, (size_t)(e - p));
	ck_assert_ptr_nonnull(flags);
	for (p = flags; *p != '\0'; p++)
		if (isspace((unsigned char)*p))
			*p = ' ';
	/* the short options */
	p = strstr(src, gol);
	ck_assert_msg(p != NULL, "%s: no getopt_long call", KT_MAINSRC);
	for (p += strlen(gol); *p != '"' && *p != '\0'; p++) {
		if (!isalpha((unsigned char)*p))
			continue;
		snprintf(word, sizeof (word), "-%c", *p);
		ck_assert_msg(kt_has_flag(flags, word), "%s does not offer %s", KT_COMPLETION, word);
		nshort++;
	}
	ck_assert_int_ge(nshort, 20);
	/* the long options: { "name", x_argument, ... } not marked hidden */
	for (line = strtok_r(src, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		p = strstr(line, "{ \"");
		if (p == NULL || strstr(line, "_argument") == NULL ||
		    strstr(line, "hidden") != NULL)
			continue;
		p += 3;
		e = strchr(p, '"');
		if (e == NULL || (size_t)(e - p) + 3 > sizeof (word))
			continue;
		snprintf(word, sizeof (word), "--%.*s", (int)(e - p), p);
		ck_assert_msg(kt_has_flag(flags, word), "%s does not offer %s", KT_COMPLETION, word);
		nlong++;
	}
	ck_assert_int_ge(nlong, 5);
	free(flags);
	free(src);
	free(comp);
}
END_TEST

static Suite *
opt_names_suite(void)
{
	Suite *s = suite_create("opt_names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, names_are_options);
	tcase_add_test(tc, completion_has_every_flag);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(opt_names_suite)
