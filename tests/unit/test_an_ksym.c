/*
 * test_an_ksym.c -- unit tests of the kernel symbol hints kdt -A makes
 * from the running kernel (anon/an_ksym.c, an_ksym_build() without a
 * vmlinux): a synthetic /proc/kallsyms and /sys/kernel/notes, named with
 * the test-only $KDT_KALLSYMS and $KDT_KNOTES, stand for the kernel.
 *
 * The fake kernel's text is [_stext, _etext) = [0xffffffff9a000000,
 * +0xffff0); it has vfs_read and kmem_cache_alloc once, show_stat twice
 * (two static functions), init_fn in init text, mod_fn only in a module
 * ("[kdtmod]"), and the enabling also names absent_fn and a glob.
 * Aliases: kmem_cache_alloc's address also has kmem_alias,
 * __x64_sys_getppid's __do_sys_getppid and __ia32_sys_getppid (listed
 * first by kallsyms, as in Debian's kernel), both_a's both_b (both
 * wanted: each an entry of its own, no alias twice), and one of
 * show_stat's two addresses show_stat_alias (show_stat is left out, so
 * its alias is too).  The file must list exactly vfs_read (+0x1000),
 * kmem_cache_alloc and kmem_alias (+0x4000), __x64_sys_getppid and its
 * two aliases (+0x5000), both_a and both_b (+0x6000), with the build id
 * of the GNU note (after a note of another owner, as the kernel's
 * stream has several) and the text size 0xffff0, and pass ksh_check();
 * five names are counted, not the aliases.  Then each way to get no
 * hints: every address zero (kptr_restrict), no GNU build id, no
 * _etext, a target kernel that is not the running one.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "kt_check.h"
#include "kt_ksh.h"
#include "anon/an_impl.h"
#include "compiler/dc.h"

static const char t_src[] =
    "fbt::vfs_read:entry, fbt::show_stat:entry, fbt::init_fn:entry,\n"
    "fbt::mod_fn:entry, fbt::absent_fn:entry, fbt::vfs_*:return,\n"
    "::kmem_cache_alloc:entry, syscall::read:entry,\n"
    "fbt::__x64_sys_getppid:entry, fbt::both_a:entry, fbt::both_b:entry\n"
    "{ trace(1); }\n"
    "fbt::vfs_read:return { trace(2); }\n";

static const char t_kallsyms[] =
    "0000000000000000 A fixed_percpu_data\n"
    "ffffffff9a000000 T _stext\n"
    "ffffffff9a001000 T vfs_read\n"
    "ffffffff9a002000 t show_stat\n"
    "ffffffff9a002000 t show_stat_alias\n"
    "ffffffff9a003000 t show_stat\n"
    "ffffffff9a004000 T kmem_cache_alloc\n"
    "ffffffff9a004000 t kmem_alias\n"
    "ffffffff9a005000 t __do_sys_getppid\n"
    "ffffffff9a005000 T __ia32_sys_getppid\n"
    "ffffffff9a005000 T __x64_sys_getppid\n"
    "ffffffff9a006000 T both_a\n"
    "ffffffff9a006000 T both_b\n"
    "ffffffff9a0ffff0 T _etext\n"
    "ffffffff9b000000 T _sinittext\n"
    "ffffffff9b000100 t init_fn\n"
    "ffffffff9b100000 T _einittext\n"
    "ffffffffc0001000 t mod_fn\t[kdtmod]\n"
    "ffffffffc0002000 t vfs_read\t[kdtmod]\n";

static const uint8_t t_bid[20] = {
	0x4a, 0x5a, 0x9b, 0x0a, 0xff, 0xb6, 0x6c, 0x43, 0x7a, 0xbc,
	0xd4, 0x55, 0xd2, 0x73, 0x8a, 0xf8, 0x79, 0x98, 0x5f, 0xa9 };

static char t_dir[] = "/tmp/kt-an-ksym.XXXXXX";
static char t_kpath[64], t_npath[64];
static struct dc_out t_o;
static char t_kver[65];

static void
t_write(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(data, 1, len, fp), len);
	fclose(fp);
}

/* A note stream: a "Xen" note, then (when gnu) the GNU build id. */
static void
t_notes(int gnu)
{
	uint8_t b[128];
	uint32_t h[3];
	size_t n = 0;

	memset(b, 0, sizeof (b));
	h[0] = 4; h[1] = 6; h[2] = 3;	/* type 3 but not "GNU" */
	memcpy(b + n, h, 12);
	memcpy(b + n + 12, "Xen", 4);
	memcpy(b + n + 16, "abcdef", 6);
	n += 16 + 8;
	if (gnu) {
		h[0] = 4; h[1] = sizeof (t_bid); h[2] = 3;
		memcpy(b + n, h, 12);
		memcpy(b + n + 12, "GNU", 4);
		memcpy(b + n + 16, t_bid, sizeof (t_bid));
		n += 16 + sizeof (t_bid);
	}
	t_write(t_npath, b, n);
}

static void
t_setup(void)
{
	struct dc_opts opts;
	struct utsname u;

	ck_assert_ptr_nonnull(mkdtemp(t_dir));
	snprintf(t_kpath, sizeof (t_kpath), "%s/kallsyms", t_dir);
	snprintf(t_npath, sizeof (t_npath), "%s/notes", t_dir);
	setenv("KDT_KALLSYMS", t_kpath, 1);
	setenv("KDT_KNOTES", t_npath, 1);
	unsetenv("KDT_BTF");
	ck_assert_int_eq(uname(&u), 0);
	snprintf(t_kver, sizeof (t_kver), "%s", u.release);
	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "/nonexistent/vmlinux";
	memset(&t_o, 0, sizeof (t_o));
	ck_assert_msg(dc_compile(t_src, strlen(t_src), "t.d", &opts,
	    &t_o) == 0, "compile: %s", t_o.dco_diag);
}

static void
t_teardown(void)
{
	dc_out_free(&t_o);
	unlink(t_kpath);
	unlink(t_npath);
	rmdir(t_dir);
	strcpy(t_dir, "/tmp/kt-an-ksym.XXXXXX");
}

/* No hints: rv 0, no buffer, "why" containing "want". */
static void
t_none(const char *kver, const char *want)
{
	uint8_t *b = (uint8_t *)1;
	size_t len = 1;
	uint32_t nn = 1;
	char why[512];

	ck_assert_int_eq(an_ksym_build(&t_o, NULL, kver, &b, &len, &nn, why,
	    sizeof (why)), 0);
	ck_assert_ptr_null(b);
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(nn, 0);
	ck_assert_msg(strstr(why, want) != NULL, "why: %s (want %s)", why,
	    want);
}

START_TEST(test_running)
{
	static const struct kt_ksh_want want[] = {
		{ "__do_sys_getppid", 1, 0, { 0x5000 } },
		{ "__ia32_sys_getppid", 1, 1, { 0x5000 } },
		{ "__x64_sys_getppid", 1, 2, { 0x5000 } },
		{ "both_a", 1, 3, { 0x6000 } },
		{ "both_b", 1, 4, { 0x6000 } },
		{ "kmem_alias", 1, 5, { 0x4000 } },
		{ "kmem_cache_alloc", 1, 6, { 0x4000 } },
		{ "vfs_read", 1, 7, { 0x1000 } },
		/* two addresses, init text, module only, absent: left out */
		{ "show_stat" }, { "init_fn" }, { "mod_fn" }, { "absent_fn" },
		/* an alias of a name left out */
		{ "show_stat_alias" },
	};
	struct ksh_hdr kh;
	uint8_t *b;
	size_t len;
	uint32_t nn;
	char why[512];

	t_write(t_kpath, t_kallsyms, strlen(t_kallsyms));
	t_notes(1);
	ck_assert_int_eq(an_ksym_build(&t_o, NULL, t_kver, &b, &len, &nn,
	    why, sizeof (why)), 1);
	ck_assert_msg(strstr(why, t_kpath) != NULL, "why: %s", why);
	ck_assert_uint_eq(nn, 5);
	kt_ksh_valid(b, len, 8, &kh);
	ck_assert_uint_eq(kh.kh_bidlen, sizeof (t_bid));
	ck_assert_int_eq(memcmp(kh.kh_bid, t_bid, sizeof (t_bid)), 0);
	ck_assert_uint_eq(kh.kh_textsz, 0xffff0);
	ck_assert_uint_eq(len, KSH_HDRSZ + 8 * 8 +
	    sizeof ("__do_sys_getppid") + sizeof ("__ia32_sys_getppid") +
	    sizeof ("__x64_sys_getppid") + sizeof ("both_a") +
	    sizeof ("both_b") + sizeof ("kmem_alias") +
	    sizeof ("kmem_cache_alloc") + sizeof ("vfs_read"));
	kt_ksh_find(b, want, sizeof (want) / sizeof (want[0]));
	free(b);
}
END_TEST

START_TEST(test_hidden_addresses)
{
	char z[sizeof (t_kallsyms)], *p;

	/* kptr_restrict: the same lines, every address zero */
	memcpy(z, t_kallsyms, sizeof (z));
	for (p = z; *p != '\0'; p = strchr(p, '\n') + 1)
		memset(p, '0', 16);
	t_write(t_kpath, z, strlen(z));
	t_notes(1);
	t_none(t_kver, "shows no addresses");
}
END_TEST

START_TEST(test_missing)
{
	static const char noetext[] =
	    "ffffffff9a000000 T _stext\n"
	    "ffffffff9a001000 T vfs_read\n";

	t_write(t_kpath, t_kallsyms, strlen(t_kallsyms));
	t_notes(0);
	t_none(t_kver, "no GNU build id");
	t_notes(1);
	t_write(t_kpath, noetext, strlen(noetext));
	t_none(t_kver, "no usable _stext/_etext");
	unlink(t_kpath);
	t_none(t_kver, "No such file");
}
END_TEST

START_TEST(test_not_running)
{
	t_write(t_kpath, t_kallsyms, strlen(t_kallsyms));
	t_notes(1);
	t_none("0.0.0-not-this-kernel", "is not the running one");
	t_none(NULL, "is not the running one");
	/* a raw BTF file as vmlinux, on the running kernel: kallsyms */
	{
		uint8_t *b;
		size_t len;
		uint32_t nn;
		char why[512];

		t_write(t_npath, "", 0);	/* no notes: "no build id" */
		ck_assert_int_eq(an_ksym_build(&t_o, t_kpath, t_kver, &b,
		    &len, &nn, why, sizeof (why)), 0);
		ck_assert_msg(strstr(why, "no GNU build id") != NULL, "%s",
		    why);
	}
}
END_TEST

static Suite *
an_ksym_suite(void)
{
	Suite *s = suite_create("an_ksym");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, t_setup, t_teardown);
	tcase_add_test(tc, test_running);
	tcase_add_test(tc, test_hidden_addresses);
	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_not_running);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(an_ksym_suite)
