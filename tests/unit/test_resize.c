/*
 * test_resize.c -- fitting dynvarsize to its limit (consumer/kc_resize.c)
 * and the userspace engine's use of it (consumer/kc_engine.c): under
 * bufresize=auto a dynvarsize whose variable state is over the limit is
 * halved until it fits and "dynamic variable size lowered to N" is said,
 * as dtrace says it; under bufresize=manual the message names the
 * option, its value and the limit.  kdt -A puts the variable state in
 * the region it sizes (anon/an_size.c): a region too large because of
 * dynvarsize names dynvarsize.  kdt.ko's twin (kmod/kd_cs.c,
 * kd_dynvar_fit) is tested live by tests/vm/scenarios/tst.limits-cpus.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "common/dof_load.h"
#include "common/dif_vm.h"
#include "consumer/kc_resize.h"
#include "consumer/kc_run.h"
#include "consumer/kc_engine.h"
#include "anon/an_impl.h"	/* an_size_compute: kdt -A's region sizing */

#define MIB	(1ULL << 20)
#define GIB	(1ULL << 30)

/* The loaded enabling of D source "src". */
static struct dof_enabling *
load(const char *src)
{
	struct dc_opts opts;
	struct dc_out o;
	struct dof_enabling *den;
	struct kdt_err ke;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "build/kernel/vmlinux";
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts, &o) == 0,
	    "%s", o.dco_diag);
	ck_assert_msg(dof_load(o.dco_dof, o.dco_dofsz, &den, &ke) == 0, "%s",
	    ke.ke_msg);
	dc_out_free(&o);
	return den;
}

static const char dyn_src[] = "BEGIN { a[1] = 1; self->t = 2; exit(0); }\n";

START_TEST(test_fits_unchanged)
{
	struct dof_enabling *den = load(dyn_src);
	char msg[256];
	uint64_t out = 0;

	ck_assert_int_eq(kc_dynvar_fit(den, MIB, GIB, "a quarter of memory",
	    0, &out, msg, sizeof (msg)), 0);
	ck_assert_uint_eq(out, MIB);
	ck_assert_str_eq(msg, "");
	ck_assert_int_eq(kc_dynvar_fit(den, MIB, GIB, "a quarter of memory",
	    1, &out, msg, sizeof (msg)), 0);
	ck_assert_uint_eq(out, MIB);
	dof_free(den);
}
END_TEST

START_TEST(test_auto_halves_to_the_largest_that_fits)
{
	struct dof_enabling *den = load(dyn_src);
	uint64_t fixed = dif_vstate_size(den, 0), out = 0;
	char msg[256];

	ck_assert_uint_gt(fixed, 0);
	/* 64g into 1g: 1g itself is over (the tables come on top): 512m */
	ck_assert_int_eq(kc_dynvar_fit(den, 64 * GIB, GIB, "a quarter of memory",
	    0, &out, msg, sizeof (msg)), 0);
	ck_assert_uint_eq(out, 512 * MIB);
	ck_assert_str_eq(msg, "");
	ck_assert_uint_le(dif_vstate_size(den, out), GIB);
	ck_assert_uint_gt(dif_vstate_size(den, out * 2), GIB);
	/* exactly at the limit fits */
	ck_assert_int_eq(kc_dynvar_fit(den, 4 * MIB, 2 * MIB + fixed, "x", 0,
	    &out, msg, sizeof (msg)), 0);
	ck_assert_uint_eq(out, 2 * MIB);
	/* a size whose sum with the tables overflows is lowered too */
	ck_assert_int_eq(kc_dynvar_fit(den, ~0ULL, GIB, "x", 0, &out, msg,
	    sizeof (msg)), 0);
	ck_assert_uint_le(dif_vstate_size(den, out), GIB);
	ck_assert_uint_gt(out, 256 * MIB);
	dof_free(den);
}
END_TEST

START_TEST(test_manual_names_option_value_and_limit)
{
	struct dof_enabling *den = load(dyn_src);
	uint64_t need = dif_vstate_size(den, 64 * GIB), out = 1;
	char msg[256], want[256];

	ck_assert_int_eq(kc_dynvar_fit(den, 64 * GIB, GIB,
	    "a quarter of memory", 1, &out, msg, sizeof (msg)), -1);
	snprintf(want, sizeof (want), "dynvarsize 68719476736 needs %llu bytes of variable state, over the limit of 1073741824 bytes, a quarter of memory (bufresize=manual)",
	    (unsigned long long)need);
	ck_assert_str_eq(msg, want);
	dof_free(den);
}
END_TEST

START_TEST(test_auto_stops_at_the_minimum)
{
	struct dof_enabling *den = load(dyn_src);
	uint64_t fixed = dif_vstate_size(den, 0), out = 1;
	char msg[512];

	ck_assert_int_eq(kc_dynvar_fit(den, MIB, fixed + 1000, "a quarter of memory",
	    0, &out, msg, sizeof (msg)), -1);
	ck_assert_msg(strstr(msg, "cannot allocate variable state: dynvarsize 1048576 lowered to 4096 and still needs ") == msg,
	    "%s", msg);
	ck_assert_ptr_nonnull(strstr(msg, "(bufresize=auto stops at 4096 bytes)"));
	dof_free(den);
}
END_TEST

START_TEST(test_no_dynamic_variables_always_fit)
{
	struct dof_enabling *den = load("int x; BEGIN { x = 1; exit(0); }\n");
	uint64_t out = 0;
	char msg[256];

	ck_assert_uint_eq(dif_vstate_size(den, 64 * GIB),
	    dif_vstate_size(den, 0));
	ck_assert_int_eq(kc_dynvar_fit(den, 64 * GIB, MIB, "x", 1, &out, msg,
	    sizeof (msg)), 0);
	ck_assert_uint_eq(out, 64 * GIB);
	dof_free(den);
}
END_TEST

START_TEST(test_lowered_message_in_dtrace_words)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_int_eq(kc_dynvar_lowered(fp, "kdt", 64 * GIB, 64 * GIB), 0);
	ck_assert_int_eq(kc_dynvar_lowered(fp, "kdt", 64 * GIB, 512 * MIB), 1);
	fclose(fp);
	ck_assert_str_eq(buf, "kdt: dynamic variable size lowered to 512m\n");
	free(buf);
}
END_TEST

/* The userspace engine, as "kdt -x engine=user -n ..." runs it. */
static int
run(const char *src, char **errtext)
{
	struct kc_run_opts ro;
	struct dc_opts opts;
	struct dc_out o;
	char *obuf = NULL;
	size_t olen = 0, elen = 0;
	FILE *out, *err;
	int rc;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "build/kernel/vmlinux";
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts, &o) == 0,
	    "%s", o.dco_diag);
	memset(&ro, 0, sizeof (ro));
	ro.ro_prog = "kdt";
	ro.ro_input = "t.d";
	ro.ro_is_script = 1;
	ro.ro_engine = KC_ENGINE_USER;
	out = open_memstream(&obuf, &olen);
	err = open_memstream(errtext, &elen);
	rc = kc_run(o.dco_dof, o.dco_dofsz, &ro, out, err);
	fclose(out);
	fclose(err);
	free(obuf);
	dc_out_free(&o);
	return rc;
}

/* 1t: over a quarter of any machine this runs on (CI: this host). */
START_TEST(test_engine_lowers_under_auto)
{
	char *err = NULL;

	ck_assert_int_eq(run("#pragma D option dynvarsize=1t\n"
	    "#pragma D option quiet\n"
	    "BEGIN { a[1] = 1; exit(0); }\n", &err), 0);
	ck_assert_msg(strstr(err, "kdt: dynamic variable size lowered to ") == err,
	    "%s", err);
	ck_assert_ptr_null(strstr(err, "out of memory"));
	free(err);
}
END_TEST

START_TEST(test_engine_refuses_under_manual)
{
	char *err = NULL;

	ck_assert_int_ne(run("#pragma D option dynvarsize=1t\n"
	    "#pragma D option bufresize=manual\n"
	    "BEGIN { a[1] = 1; exit(0); }\n", &err), 0);
	ck_assert_msg(strstr(err, "kdt: could not enable tracing: dynvarsize 1099511627776 needs ") == err,
	    "%s", err);
	ck_assert_ptr_nonnull(strstr(err, " bytes, a quarter of memory (bufresize=manual)\n"));
	free(err);
}
END_TEST

/* kdt -A: the variable state is in the region; too big names dynvarsize */
START_TEST(test_anon_region_names_dynvarsize)
{
	static const char src[] = "#pragma D option dynvarsize=64g\n"
	    "BEGIN { a[1] = 1; }\n";
	struct dc_opts opts;
	struct dc_out o;
	struct an_size as;
	char *buf = NULL, want[256];
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "build/kernel/vmlinux";
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts, &o) == 0,
	    "%s", o.dco_diag);
	ck_assert_int_eq(an_size_compute(o.dco_dof, o.dco_dofsz, 2, 8 * GIB,
	    0, &as, err), -1);
	fclose(err);
	ck_assert_uint_eq(as.as_dynvarsize, 64 * GIB);
	snprintf(want, sizeof (want), "kdt: a region of %llu bytes (sized: %llu bytes of variable state for dynvarsize 68719476736, ",
	    (unsigned long long)as.as_size, (unsigned long long)as.as_vararea);
	ck_assert_msg(strstr(buf, want) == buf, "%s", buf);
	ck_assert_msg(strstr(buf, ") exceeds the limit of 2147483648 bytes, a quarter of RAM; lower dynvarsize\n") != NULL,
	    "%s", buf);
	free(buf);
	dc_out_free(&o);
}
END_TEST

static Suite *
resize_suite(void)
{
	Suite *s = suite_create("resize");
	TCase *tc = tcase_create("dynvarsize");

	/* ~20 s under the sanitizers, 43 s seen on a loaded host */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fits_unchanged);
	tcase_add_test(tc, test_auto_halves_to_the_largest_that_fits);
	tcase_add_test(tc, test_manual_names_option_value_and_limit);
	tcase_add_test(tc, test_auto_stops_at_the_minimum);
	tcase_add_test(tc, test_no_dynamic_variables_always_fit);
	tcase_add_test(tc, test_lowered_message_in_dtrace_words);
	tcase_add_test(tc, test_engine_lowers_under_auto);
	tcase_add_test(tc, test_engine_refuses_under_manual);
	tcase_add_test(tc, test_anon_region_names_dynvarsize);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(resize_suite)
