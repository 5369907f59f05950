/*
 * test_anon_lowered.c -- kc_region_lowered() (consumer/kc.h): "kdt -a"
 * and kdt-extract say "buffer size lowered to N" when kdt.ko had to divide
 * an anonymous region among more CPUs than kdt -A sized it for, and only
 * then.
 *
 * Each case is a real region made by the writer kdt.ko uses (rgn_init(),
 * common/rgn_write.c) around a DOF compiled by compiler/, sized exactly
 * as kdt -A sizes it (an_size_compute(), anon/an_size.c) for one CPU
 * count and laid out for another.  The measured case of the VM test
 * (tst.limits-cpus.sh): sized for 2 CPUs, booted with 4, each CPU got
 * 0x269fc0 bytes instead of 4 MiB.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "anon/an_impl.h"
#include "common/rgn.h"
#include "compiler/dc.h"
#include "consumer/kc.h"

#define MIB	(1ULL << 20)

static char t_errbuf[4096];

/* Compile "src" as kdt -A would (no BTF: BEGIN-only programs). */
static void
t_compile(const char *src, struct dc_out *o)
{
	struct dc_opts opts;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "/nonexistent/vmlinux";
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts, o) == 0,
	    "compile: %s", o->dco_diag);
}

/*
 * The region kdt -A sizes for "sized_for" CPUs (or "regsize" bytes when
 * not 0), laid out by rgn_init() for "ncpu" CPUs with "flags"; then what
 * kc_region_lowered() says about it (its return, its text in t_errbuf).
 */
static int
t_lowered(const char *src, uint32_t sized_for, uint64_t regsize,
    uint32_t ncpu, uint32_t flags, uint64_t *bufsize)
{
	struct an_size as;
	struct rgn_params p;
	struct kdt_err ke;
	struct dc_out o;
	FILE *err;
	void *img;
	int rv;

	t_compile(src, &o);
	err = fmemopen(t_errbuf, sizeof (t_errbuf), "w");
	ck_assert(err != NULL);
	ck_assert_msg(an_size_compute(o.dco_dof, o.dco_dofsz, sized_for,
	    8ULL << 30, regsize, &as, err) == 0, "an_size_compute");
	img = calloc(1, as.as_size);
	ck_assert(img != NULL);
	memset(&p, 0, sizeof (p));
	p.rp_phys = 0x10000000;
	p.rp_ncpu = ncpu;
	p.rp_probe_cap = as.as_nprobes + 1024;
	p.rp_epid_cap = as.as_nprobes + 1024;
	p.rp_flags = flags;
	p.rp_aggsize = as.as_aggsize;
	p.rp_release = "6.1.0-56-amd64";
	p.rp_dof = o.dco_dof;
	p.rp_dofsz = o.dco_dofsz;
	ck_assert_msg(rgn_init(img, as.as_size, &p, &ke) == 0, "rgn_init: %s",
	    ke.ke_msg);
	*bufsize = ((const struct rgn_hdr *)img)->rh_bufsize;
	memset(t_errbuf, 0, sizeof (t_errbuf));
	rv = kc_region_lowered(img, as.as_size, "kdt", err);
	fclose(err);
	free(img);
	dc_out_free(&o);
	return rv;
}

START_TEST(test_default_rule)
{
	ck_assert_uint_eq(kc_anon_bufsize_default(1), 4 * MIB);
	ck_assert_uint_eq(kc_anon_bufsize_default(2), 4 * MIB);
	ck_assert_uint_eq(kc_anon_bufsize_default(16), 4 * MIB);
	ck_assert_uint_eq(kc_anon_bufsize_default(32), 2 * MIB);
	ck_assert_uint_eq(kc_anon_bufsize_default(512), 256 << 10);
	ck_assert_uint_eq(kc_anon_bufsize_default(0), 4 * MIB);
}
END_TEST

/* Sized for 2 CPUs, laid out for 4: the VM test's case. */
START_TEST(test_more_cpus)
{
	uint64_t got;
	char want[128];

	ck_assert_int_eq(t_lowered("BEGIN { trace(1); }", 2, 0, 4,
	    RGN_F_ANON, &got), 1);
	ck_assert_msg(got < 4 * MIB && got > 2 * MIB, "rh_bufsize 0x%llx",
	    (unsigned long long)got);
	snprintf(want, sizeof (want), "kdt: buffer size lowered to %llu (",
	    (unsigned long long)got);
	ck_assert_msg(strncmp(t_errbuf, want, strlen(want)) == 0, "%s",
	    t_errbuf);
	ck_assert_msg(strstr(t_errbuf, "divided among 4 CPUs; the enabling asked for 4m per CPU") != NULL,
	    "%s", t_errbuf);
	ck_assert_msg(strchr(t_errbuf, '\n') == strrchr(t_errbuf, '\n'),
	    "one line: %s", t_errbuf);
}
END_TEST

/* Laid out for the CPUs it was sized for, or fewer: nothing to say. */
START_TEST(test_enough)
{
	uint64_t got;

	ck_assert_int_eq(t_lowered("BEGIN { trace(1); }", 2, 0, 2,
	    RGN_F_ANON, &got), 0);
	ck_assert_msg(got >= 4 * MIB, "0x%llx", (unsigned long long)got);
	ck_assert_str_eq(t_errbuf, "");
	ck_assert_int_eq(t_lowered("BEGIN { trace(1); }", 4, 0, 1,
	    RGN_F_ANON, &got), 0);
	ck_assert_str_eq(t_errbuf, "");
	/* aggregations live in the region too; their room is not the
	   principal buffers' */
	ck_assert_int_eq(t_lowered("BEGIN { @a = count(); }", 2, 0, 2,
	    RGN_F_ANON, &got), 0);
	ck_assert_str_eq(t_errbuf, "");
}
END_TEST

/* The DOF's bufsize is what was asked for, whatever the CPU count. */
START_TEST(test_bufsize_option)
{
	uint64_t got;

	ck_assert_int_eq(t_lowered("#pragma D option bufsize=8m\nBEGIN { trace(1); }",
	    2, 0, 3, RGN_F_ANON, &got), 1);
	ck_assert_msg(strstr(t_errbuf, "asked for 8m per CPU") != NULL, "%s",
	    t_errbuf);
	ck_assert_int_eq(t_lowered("#pragma D option bufsize=8m\nBEGIN { trace(1); }",
	    2, 0, 2, RGN_F_ANON, &got), 0);
	/* -x regionsize below what 8m x 2 CPUs needs is refused by kdt -A;
	   a larger one holds it */
	ck_assert_int_eq(t_lowered("#pragma D option bufsize=1m\nBEGIN { trace(1); }",
	    2, 8 * MIB, 4, RGN_F_ANON, &got), 0);
	ck_assert_msg(got >= MIB, "0x%llx", (unsigned long long)got);
}
END_TEST

/* A live -x region session without bufsize: no anonymous rule to hold. */
START_TEST(test_live_region)
{
	uint64_t got;

	ck_assert_int_eq(t_lowered("BEGIN { trace(1); }", 2, 0, 8, 0, &got),
	    0);
	ck_assert_str_eq(t_errbuf, "");
}
END_TEST

/* Not a region: quiet (the decoder says why), never a crash. */
START_TEST(test_garbage)
{
	static uint8_t junk[65536];
	FILE *err = fmemopen(t_errbuf, sizeof (t_errbuf), "w");

	memset(t_errbuf, 0, sizeof (t_errbuf));
	memset(junk, 0xa5, sizeof (junk));
	ck_assert_int_eq(kc_region_lowered(junk, sizeof (junk), "kdt", err),
	    0);
	ck_assert_int_eq(kc_region_lowered(junk, 7, "kdt", err), 0);
	fclose(err);
	ck_assert_str_eq(t_errbuf, "");
}
END_TEST

static Suite *
anon_lowered_suite(void)
{
	Suite *s = suite_create("anon_lowered");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_default_rule);
	tcase_add_test(tc, test_more_cpus);
	tcase_add_test(tc, test_enough);
	tcase_add_test(tc, test_bufsize_option);
	tcase_add_test(tc, test_live_region);
	tcase_add_test(tc, test_garbage);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(anon_lowered_suite)
