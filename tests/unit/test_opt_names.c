/*
 * test_opt_names.c -- dc_opt_name(), the list of -x option names that
 * "kdt --list-options" prints for shell completion (compiler/dc_opt.c).
 *
 * The list is the kernel option table plus a hand-written list of the
 * compiler's own options, so the test holds it against the compiler
 * itself: every name must be one dc_compile() accepts as -x (with some
 * value of its kind: the names that take a value are tried with sizes,
 * counts, rates and each fixed keyword until one is accepted; the
 * others bare), no name may be there twice, and a name that is not an
 * option must still be refused, so that "accepted" means something.
 */
#include <string.h>

#include "compiler/dc.h"
#include "kt_check.h"

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

START_TEST(names_are_options)
{
	static const char *const vals[] = { "4m", "1", "10hz", "ring",
	    "auto", "user" };
	char buf[128];
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
		for (j = 0; j < sizeof (vals) / sizeof (vals[0]) && !ok; j++) {
			snprintf(buf, sizeof (buf), "%s=%s", name, vals[j]);
			ck_assert_msg(kt_try(buf) != 1,
			    "-x %s: the compiler does not know the name", buf);
			ok = kt_try(buf) == 0;
		}
		ck_assert_msg(ok, "-x %s=VALUE: no value of any kind accepted",
		    name);
	}
	ck_assert_uint_ge(n, 30);
	ck_assert_int_eq(kt_try("nosuchoption=1"), 1);
}
END_TEST

static Suite *
opt_names_suite(void)
{
	Suite *s = suite_create("opt_names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, names_are_options);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(opt_names_suite)
