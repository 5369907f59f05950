/*
 * test_usym.c -- usym(), uaddr() and umod() records named as dtrace names
 * them (consumer/kc_fmt.c's kc_fmt_usym(), through kc_uaddr_lookup() of
 * consumer/kc_uprobe.c, the resolver pid probes use): addresses of this
 * test program's own functions and of libc.so.6, looked up in this
 * process's /proc/self/maps and ELF symbols; an unmapped address, a
 * process that is gone and a decoder without a lookup (a dead image)
 * print the address in hex.  And the whole path in the userspace engine:
 * a D program's usym()/uaddr()/umod() records (ecb.c writes the pid, which
 * is this process's there) print the same names; ustack() frames too.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kt_check.h"
#include "common/dof.h"
#include "consumer/kc_fmt.h"
#include "consumer/kc_uprobe.h"
#include "consumer/kc_run.h"
#include "compiler/dc.h"

/* At least two bytes of code, so that t_marker + 1 is inside it. */
__attribute__((noinline, noclone)) long
t_marker(long x)
{
	__asm__ __volatile__("" : "+r" (x) : : "memory");
	return x * 3 + 1;
}

static char t_buf[512];

/* The record as the kernel writes it, printed by kc_fmt_usym(). */
static const char *
t_fmt(uint32_t kind, uint64_t pid, uint64_t addr)
{
	uint8_t rec[16];
	struct kc_val v = { rec, sizeof (rec), 0 };
	FILE *f;

	memcpy(rec, &pid, 8);
	memcpy(rec + 8, &addr, 8);
	memset(t_buf, 0, sizeof (t_buf));
	f = fmemopen(t_buf, sizeof (t_buf) - 1, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(kc_fmt_usym(f, &v, kind), 0);
	fclose(f);
	return t_buf;
}

/* "  " + text left-justified in 50 columns. */
static const char *
t_col(const char *text)
{
	static char want[512];

	snprintf(want, sizeof (want), "  %-50s", text);
	return want;
}

START_TEST(test_own_function)
{
	uint64_t pid = (uint64_t)getpid(), fn = (uint64_t)(uintptr_t)&t_marker;

	kc_fmt_set_ulookup(kc_uaddr_lookup);
	ck_assert_str_eq(t_fmt(DTRACEACT_USYM, pid, fn),
	    t_col("test_usym`t_marker"));
	/* usym() rounds down to the function; uaddr() keeps the offset */
	ck_assert_str_eq(t_fmt(DTRACEACT_USYM, pid, fn + 1),
	    t_col("test_usym`t_marker"));
	ck_assert_str_eq(t_fmt(DTRACEACT_UADDR, pid, fn),
	    t_col("test_usym`t_marker"));
	ck_assert_str_eq(t_fmt(DTRACEACT_UADDR, pid, fn + 1),
	    t_col("test_usym`t_marker+0x1"));
	ck_assert_str_eq(t_fmt(DTRACEACT_UMOD, pid, fn + 1),
	    t_col("test_usym"));
}
END_TEST

START_TEST(test_shared_library)
{
	uint64_t pid = (uint64_t)getpid();
	uint64_t fn = (uint64_t)(uintptr_t)&getppid;
	char got[512];

	kc_fmt_set_ulookup(kc_uaddr_lookup);
	ck_assert_str_eq(t_fmt(DTRACEACT_UMOD, pid, fn), t_col("libc.so.6"));
	snprintf(got, sizeof (got), "%s", t_fmt(DTRACEACT_USYM, pid, fn));
	/* getppid or its global alias __getppid, whichever libc exports */
	ck_assert_msg(strncmp(got, "  libc.so.6`", 12) == 0 &&
	    strstr(got, "getppid") != NULL && strchr(got, '+') == NULL,
	    "usym of getppid: \"%s\"", got);
}
END_TEST

START_TEST(test_unmapped_gone_and_dead_images_print_hex)
{
	uint64_t fn = (uint64_t)(uintptr_t)&t_marker;
	pid_t child;
	char want[64];

	kc_fmt_set_ulookup(kc_uaddr_lookup);
	ck_assert_str_eq(t_fmt(DTRACEACT_UADDR, (uint64_t)getpid(), 0x10),
	    t_col("0x10"));
	ck_assert_str_eq(t_fmt(DTRACEACT_UMOD, (uint64_t)getpid(), 0x10),
	    t_col("0x10"));
	/* a reaped child: no /proc entry */
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	snprintf(want, sizeof (want), "0x%llx", (unsigned long long)fn);
	ck_assert_str_eq(t_fmt(DTRACEACT_USYM, (uint64_t)child, fn),
	    t_col(want));
	/* no lookup installed (kdt-extract): hex, the process is not asked */
	kc_fmt_set_ulookup(NULL);
	ck_assert_str_eq(t_fmt(DTRACEACT_USYM, (uint64_t)getpid(), fn),
	    t_col(want));
}
END_TEST

/* Compile "src" and run it in the userspace engine; stdout in *out. */
static int
t_engine(const char *src, char **out, char **err)
{
	struct kc_run_opts ro;
	struct dc_opts opts;
	struct dc_out o;
	size_t outlen, errlen;
	FILE *fo, *fe;
	int rc;

	memset(&opts, 0, sizeof (opts));
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts, &o) == 0,
	    "%s", o.dco_diag);
	memset(&ro, 0, sizeof (ro));
	ro.ro_prog = "kdt";
	ro.ro_input = "t.d";
	ro.ro_is_script = 1;
	ro.ro_engine = KC_ENGINE_USER;
	fo = open_memstream(out, &outlen);
	fe = open_memstream(err, &errlen);
	ck_assert_ptr_nonnull(fo);
	ck_assert_ptr_nonnull(fe);
	rc = kc_run(o.dco_dof, o.dco_dofsz, &ro, fo, fe);
	fclose(fo);
	fclose(fe);
	dc_out_free(&o);
	return rc;
}

START_TEST(test_userspace_engine_records)
{
	unsigned long long fn = (unsigned long long)(uintptr_t)&t_marker;
	char src[512], want[1024], *out = NULL, *err = NULL;

	snprintf(src, sizeof (src),
	    "#pragma D option quiet\n"
	    "BEGIN { usym(0x%llx); printf(\"|\\n\"); uaddr(0x%llx);"
	    " printf(\"|\\n\"); umod(0x%llx); printf(\"|\\n\");"
	    " uaddr(0x10); printf(\"|\\n\"); exit(0); }\n",
	    fn + 1, fn + 1, fn);
	ck_assert_int_eq(t_engine(src, &out, &err), 0);
	/* the records, and the newline kdt ends its output with */
	snprintf(want, sizeof (want), "  %-50s|\n  %-50s|\n  %-50s|\n"
	    "  %-50s|\n\n", "test_usym`t_marker", "test_usym`t_marker+0x1",
	    "test_usym", "0x10");
	ck_assert_msg(strcmp(out, want) == 0, "got:\n%s\nwant:\n%s\n(%s)",
	    out, want, err);
	free(out);
	free(err);
}
END_TEST

/* ustack() frames are named like uaddr(); after the lookup, hex again. */
START_TEST(test_ustack_frames)
{
	uint64_t rec[4] = { (uint64_t)getpid(),
	    (uint64_t)(uintptr_t)&t_marker + 1, 0x10, 0 };
	char want[256];
	FILE *f;

	kc_fmt_set_ulookup(kc_uaddr_lookup);
	memset(t_buf, 0, sizeof (t_buf));
	f = fmemopen(t_buf, sizeof (t_buf) - 1, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(kc_fmt_ustack(f, (const uint8_t *)rec, sizeof (rec),
	    3, 0, 4), 0);
	fclose(f);
	ck_assert_str_eq(t_buf, "\n    test_usym`t_marker+0x1\n    0x10\n");
	kc_fmt_set_ulookup(NULL);
	memset(t_buf, 0, sizeof (t_buf));
	f = fmemopen(t_buf, sizeof (t_buf) - 1, "w");
	ck_assert_int_eq(kc_fmt_ustack(f, (const uint8_t *)rec, sizeof (rec),
	    3, 0, 4), 0);
	fclose(f);
	snprintf(want, sizeof (want), "\n    0x%llx\n    0x10\n",
	    (unsigned long long)rec[1]);
	ck_assert_str_eq(t_buf, want);
}
END_TEST

START_TEST(test_bad_size)
{
	uint8_t rec[8] = { 0 };
	struct kc_val v = { rec, sizeof (rec), 0 };

	ck_assert_int_eq(kc_fmt_usym(stdout, &v, DTRACEACT_USYM), -1);
}
END_TEST

static Suite *
usym_suite(void)
{
	Suite *s = suite_create("usym");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_own_function);
	tcase_add_test(tc, test_shared_library);
	tcase_add_test(tc, test_unmapped_gone_and_dead_images_print_hex);
	tcase_add_test(tc, test_userspace_engine_records);
	tcase_add_test(tc, test_ustack_frames);
	tcase_add_test(tc, test_bad_size);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(usym_suite)
