/*
 * test_sym_map.c -- symbols of a kernel that is not the running one
 * (consumer/kc_sym.c: kc_sym_load_map(), kc_sym_for_region()):
 * System.map text and ELF symbol tables, moved by a KASLR slide; the
 * region header picks the file and the slide; bad files are named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "common/rgn.h"
#include "consumer/kc_sym.h"
#include <sys/utsname.h>

#define T_SLIDE	0x1a200000ULL

static char t_file[64];

static void
t_write(const char *text)
{
	FILE *f;

	strcpy(t_file, "/tmp/kdt-test-sym.XXXXXX");
	ck_assert_int_ge(mkstemp(t_file), 0);
	f = fopen(t_file, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static const char t_map[] =
    "ffffffff81000000 T _text\n"
    "ffffffff81146420 t syscall_trace_enter.constprop.0\n"
    "ffffffff811465c0 T do_syscall_64\n"
    "ffffffff81146700 T something_after\n";

/* A System.map moved by the slide: frames resolve to function+offset. */
START_TEST(test_sysmap_slide)
{
	const struct kc_sym *sy = NULL;
	const char *mod = NULL;
	struct kc_symtab *t;
	char why[256];

	t_write(t_map);
	t = kc_sym_load_map(t_file, T_SLIDE, why, sizeof (why));
	ck_assert_msg(t != NULL, "%s", why);
	ck_assert_int_eq(kc_sym_lookup(t, 0xffffffff811465c0ULL + T_SLIDE +
	    0x3e, &sy, &mod), KC_SYM_FOUND);
	ck_assert_str_eq(sy->sy_name, "do_syscall_64");
	ck_assert_str_eq(sy->sy_mod, "vmlinux");
	ck_assert_uint_eq(sy->sy_addr, 0xffffffff811465c0ULL + T_SLIDE);
	/* the link-time address is no longer a symbol of this kernel */
	ck_assert_int_ne(kc_sym_lookup(t, 0xffffffff811465c0ULL + 0x3e, &sy,
	    &mod), KC_SYM_FOUND);
	kc_sym_free(t);
	unlink(t_file);
}
END_TEST

/* An ELF file's symbol table: this test program's own. */
START_TEST(test_elf_symtab)
{
	const struct kc_sym *sy = NULL;
	const char *mod = NULL;
	struct kc_symtab *t;
	char why[256];
	uint64_t fn = (uint64_t)(uintptr_t)kc_sym_load_map;
	FILE *f;
	char line[512];
	uint64_t link = 0, lo;

	t = kc_sym_load_map("/proc/self/exe", 0, why, sizeof (why));
	ck_assert_msg(t != NULL, "%s", why);
	/* a PIE runs at a load bias: find it from /proc/self/maps */
	f = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof (line), f) != NULL)
		if (strstr(line, "r-xp") != NULL || strstr(line, "r--p") != NULL) {
			lo = strtoull(line, NULL, 16);
			if (link == 0 || lo < link)
				link = lo;
			break;
		}
	fclose(f);
	kc_sym_free(t);
	t = kc_sym_load_map("/proc/self/exe", link, why, sizeof (why));
	ck_assert_msg(t != NULL, "%s", why);
	if (kc_sym_lookup(t, fn, &sy, &mod) != KC_SYM_FOUND) {
		/* not a PIE: the symbols are at their link addresses */
		kc_sym_free(t);
		t = kc_sym_load_map("/proc/self/exe", 0, why, sizeof (why));
		ck_assert_ptr_nonnull(t);
		ck_assert_int_eq(kc_sym_lookup(t, fn, &sy, &mod),
		    KC_SYM_FOUND);
	}
	ck_assert_str_eq(sy->sy_name, "kc_sym_load_map");
	ck_assert_uint_gt(sy->sy_size, 0);
	kc_sym_free(t);
}
END_TEST

/* Bad inputs: named, with the reason. */
START_TEST(test_bad_files)
{
	char why[256];

	ck_assert_ptr_null(kc_sym_load_map("/nonexistent/System.map", 0, why,
	    sizeof (why)));
	ck_assert_ptr_nonnull(strstr(why, "/nonexistent/System.map: cannot open"));
	t_write("this is not a symbol map\n");
	ck_assert_ptr_null(kc_sym_load_map(t_file, 0, why, sizeof (why)));
	ck_assert_ptr_nonnull(strstr(why, "line 1: not a kallsyms line"));
	unlink(t_file);
	t_write("ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n");
	ck_assert_ptr_null(kc_sym_load_map(t_file, 0, why, sizeof (why)));
	ck_assert_ptr_nonnull(strstr(why, "a placeholder without symbols"));
	unlink(t_file);
	t_write("\177ELF garbage");
	ck_assert_ptr_null(kc_sym_load_map(t_file, 0, why, sizeof (why)));
	ck_assert_ptr_nonnull(strstr(why, t_file));
	unlink(t_file);
}
END_TEST

/* kc_sym_for_region: --symbols and the region's slide; a bad file fails. */
START_TEST(test_for_region)
{
	static struct rgn_hdr h;
	const struct kc_sym *sy = NULL;
	const char *mod = NULL;
	struct kc_symtab *t;
	char buf[1024];
	FILE *err;
	int failed;

	memset(&h, 0, sizeof (h));
	h.rh_kaslr = T_SLIDE;
	strcpy(h.rh_release, "6.1.0-test");
	t_write(t_map);
	err = fmemopen(buf, sizeof (buf), "w");
	t = kc_sym_for_region(&h, sizeof (h), t_file, 0, "kdt-extract", err,
	    &failed);
	fclose(err);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(failed, 0);
	ck_assert_ptr_nonnull(strstr(buf, "symbols of kernel 6.1.0-test from"));
	ck_assert_ptr_nonnull(strstr(buf, "KASLR offset 0x1a200000"));
	ck_assert_int_eq(kc_sym_lookup(t, 0xffffffff81146420ULL + T_SLIDE + 1,
	    &sy, &mod), KC_SYM_FOUND);
	ck_assert_str_eq(sy->sy_name, "syscall_trace_enter.constprop.0");
	kc_sym_free(t);
	unlink(t_file);
	/* an unusable --symbols file is an error, named */
	err = fmemopen(buf, sizeof (buf), "w");
	t = kc_sym_for_region(&h, sizeof (h), "/nonexistent/map", 0, "kdt-extract",
	    err, &failed);
	fclose(err);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(failed, 1);
	ck_assert_ptr_nonnull(strstr(buf, "--symbols: /nonexistent/map"));
	/* nothing found by the search: no error, no table */
	t = kc_sym_for_region(&h, sizeof (h), NULL, 0, "kdt-extract", stderr,
	    &failed);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(failed, 0);
}
END_TEST

/*
 * A region written by the running kernel's release, no file found: this
 * boot's kallsyms, core symbols only, moved to the region's KASLR offset
 * (a warm reboot or a dump of the same kernel).  Needs readable kallsyms
 * addresses (root).
 */
START_TEST(test_kallsyms_moved)
{
	static struct rgn_hdr h;
	struct kc_symtab *t;
	struct utsname u;
	char buf[2048];
	FILE *err;
	uint32_t i;
	int failed, text = 0;

	if (geteuid() != 0)
		return;	/* kallsyms shows zeros: nothing to move */
	ck_assert_int_eq(uname(&u), 0);
	memset(&h, 0, sizeof (h));
	h.rh_kaslr = T_SLIDE;
	snprintf(h.rh_release, sizeof (h.rh_release), "%s", u.release);
	err = fmemopen(buf, sizeof (buf), "w");
	t = kc_sym_for_region(&h, sizeof (h), NULL, 0, "kdt", err, &failed);
	fclose(err);
	ck_assert_msg(t != NULL, "%s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "from /proc/kallsyms (this boot runs the same kernel)"));
	for (i = 0; i < t->kb_nsyms; i++) {
		ck_assert_str_eq(t->kb_syms[i].sy_mod, "vmlinux");
		if (strcmp(t->kb_syms[i].sy_name, "_text") == 0) {
			ck_assert_uint_eq(t->kb_syms[i].sy_addr,
			    0xffffffff81000000ULL + T_SLIDE);
			text = 1;
		}
	}
	ck_assert(text);
	kc_sym_free(t);
}
END_TEST

static Suite *
sym_map_suite(void)
{
	Suite *s = suite_create("sym_map");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_sysmap_slide);
	tcase_add_test(tc, test_elf_symtab);
	tcase_add_test(tc, test_bad_files);
	tcase_add_test(tc, test_for_region);
	tcase_add_test(tc, test_kallsyms_moved);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(sym_map_suite)
