/*
 * test_sym_lines.c -- source lines of stack frames (consumer/kc_sym.c:
 * kc_sym_load_lines(), kc_sym_srcline(), kc_sym_lines_for_region()),
 * read with libdwarf.  The test builds its own small program with
 * "cc -g" (a non-PIE executable: fixed addresses, like a vmlinux), loads
 * its symbols and line tables moved by a KASLR-like slide, and checks
 * every byte of two functions against binutils' addr2line (the oracle);
 * once more with .debug_aranges removed (the whole-file path); a frame
 * printed by stack() carries " [t_src.c:LINE]"; a file without DWARF is
 * an error that names it, and kdt-extract --vmlinux says which it used
 * or exits 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "kt_addr2line.h"
#include "common/rgn.h"
#include "consumer/kc_sym.h"
#include "consumer/kc_fmt.h"
#include "crashdump/cd.h"
#include "kt_region.h"

#define T_SLIDE		0x3c00000ULL
#define T_MARK		9	/* the line of "g += x * 3" below */

static const char t_src[] =
    "int g;\n"					/* 1 */
    "\n"					/* 2 */
    "__attribute__((noinline)) int\n"		/* 3 */
    "leaf(int x)\n"				/* 4 */
    "{\n"					/* 5 */
    "\tint i;\n"				/* 6 */
    "\n"					/* 7 */
    "\tfor (i = 0; i < x; i++)\n"		/* 8 */
    "\t\tg += x * 3;\n"			/* 9 */
    "\treturn g;\n"				/* 10 */
    "}\n"					/* 11 */
    "\n"					/* 12 */
    "__attribute__((noinline)) int\n"		/* 13 */
    "caller(int y)\n"				/* 14 */
    "{\n"					/* 15 */
    "\tint r = leaf(y + 1);\n"			/* 16 */
    "\n"					/* 17 */
    "\treturn r + leaf(y);\n"			/* 18 */
    "}\n"					/* 19 */
    "\n"					/* 20 */
    "int\n"					/* 21 */
    "main(int argc, char **argv)\n"		/* 22 */
    "{\n"					/* 23 */
    "\treturn caller(argc);\n"			/* 24 */
    "}\n";					/* 25 */

static char t_dir[64], t_prog[128], t_noar[128], t_strip[128];

/* Build the program and its variants in a fresh directory. */
static void
t_build(void)
{
	char cmd[1024];

	strcpy(t_dir, "/tmp/kdt-test-lines.XXXXXX");
	kt_srcdir(t_dir, "t_src.c", t_src);
	snprintf(t_prog, sizeof (t_prog), "%s/prog", t_dir);
	snprintf(t_noar, sizeof (t_noar), "%s/prog-noaranges", t_dir);
	snprintf(t_strip, sizeof (t_strip), "%s/prog-stripped", t_dir);
	/* relative source name: the table's FILE is "t_src.c" */
	snprintf(cmd, sizeof (cmd),
	    "cd %s && cc -g -O1 -fno-pie -no-pie -o prog t_src.c && "
	    "objcopy --remove-section .debug_aranges prog prog-noaranges && "
	    "objcopy --strip-debug prog prog-stripped", t_dir);
	ck_assert_msg(system(cmd) == 0, "cannot build the test program: %s",
	    cmd);
}

static void
t_cleanup(void)
{
	kt_rmdir(t_dir);
}

static const struct kc_sym *
t_sym(const struct kc_symtab *t, const char *name)
{
	uint32_t i;

	for (i = 0; i < t->kb_nsyms; i++)
		if (strcmp(t->kb_syms[i].sy_name, name) == 0)
			return &t->kb_syms[i];
	ck_abort_msg("no symbol %s", name);
	return NULL;
}

/*
 * Every byte of leaf() and caller(): kc_sym_srcline() of the run-time
 * address agrees with addr2line on the file address it looks up (pc - 1
 * inside a function, pc at its start).  Returns how many bytes were on
 * line T_MARK.
 */
static int
t_compare(const char *prog)
{
	static const char *const fn[] = { "leaf", "caller" };
	const struct kc_sym *s;
	struct kc_symtab *t;
	char why[512], ours[256], want[600];
	uint64_t pc, fa;
	int i, mark = 0, known = 0;

	t = kc_sym_load_map(prog, T_SLIDE, why, sizeof (why));
	ck_assert_msg(t != NULL, "%s", why);
	ck_assert_msg(kc_sym_load_lines(t, prog, "vmlinux", T_SLIDE, why,
	    sizeof (why)) == 0, "%s", why);
	for (i = 0; i < 2; i++) {
		s = t_sym(t, fn[i]);
		ck_assert_uint_gt(s->sy_size, 0);
		for (pc = s->sy_addr; pc < s->sy_addr + s->sy_size; pc++) {
			fa = (pc > s->sy_addr ? pc - 1 : pc) - T_SLIDE;
			kt_addr2line(prog, NULL, fa, want, sizeof (want));
			if (!kc_sym_srcline(t, pc, ours, sizeof (ours)))
				ours[0] = '\0';
			ck_assert_msg(strcmp(ours, want) == 0,
			    "%s+0x%llx: kc_sym_srcline \"%s\", addr2line \"%s\"",
			    fn[i], (unsigned long long)(pc - s->sy_addr), ours,
			    want);
			known += ours[0] != '\0';
			snprintf(want, sizeof (want), "t_src.c:%d", T_MARK);
			mark += strcmp(ours, want) == 0;
		}
	}
	ck_assert_int_gt(known, 8);
	/* outside any symbol: nothing */
	ck_assert_int_eq(kc_sym_srcline(t, 0x10, ours, sizeof (ours)), 0);
	kc_sym_free(t);
	return mark;
}

START_TEST(test_lines_aranges)
{
	ck_assert_int_gt(t_compare(t_prog), 0);
}
END_TEST

/* No .debug_aranges: every unit's table is read at the first lookup. */
START_TEST(test_lines_no_aranges)
{
	ck_assert_int_gt(t_compare(t_noar), 0);
}
END_TEST

/* A stack() frame: module`function+0xoff [FILE:LINE]. */
START_TEST(test_stack_frame)
{
	const struct kc_sym *s;
	struct kc_symtab *t;
	char why[512], out[2048], want[600], line[256];
	uint64_t frames[3];
	FILE *f;

	t = kc_sym_load_map(t_prog, T_SLIDE, why, sizeof (why));
	ck_assert_msg(t != NULL, "%s", why);
	ck_assert_int_eq(kc_sym_load_lines(t, t_prog, "vmlinux", T_SLIDE, why,
	    sizeof (why)), 0);
	s = t_sym(t, "caller");
	frames[0] = s->sy_addr + 4;
	frames[1] = 0xffffffff00000000ULL;	/* no symbol: no line */
	frames[2] = 0;
	ck_assert_int_eq(kc_sym_srcline(t, frames[0], line, sizeof (line)), 1);
	f = fmemopen(out, sizeof (out), "w");
	ck_assert_int_eq(kc_fmt_stack(f, t, (const uint8_t *)frames,
	    sizeof (frames), 3, 14), 0);
	fclose(f);
	snprintf(want, sizeof (want),
	    "\n              vmlinux`caller+0x4 [%s]\n"
	    "              0xffffffff00000000\n", line);
	ck_assert_str_eq(out, want);
	kc_sym_free(t);
}
END_TEST

/* Files without DWARF, and no table to attach lines to: named errors. */
START_TEST(test_no_dwarf)
{
	struct kc_symtab *t;
	struct rgn_hdr h;
	char why[512], buf[1024];
	FILE *err;

	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_load_lines(t, t_strip, "vmlinux", 0, why,
	    sizeof (why)), -1);
	ck_assert_msg(strstr(why, t_strip) != NULL &&
	    strstr(why, "no DWARF debugging information") != NULL, "%s", why);
	ck_assert_int_eq(kc_sym_load_lines(t, "/nonexistent/vmlinux",
	    "vmlinux", 0, why, sizeof (why)), -1);
	ck_assert_str_eq(why, "/nonexistent/vmlinux: cannot open: No such file or directory");
	memset(&h, 0, sizeof (h));
	h.rh_kaslr = 0x1000000;
	err = fmemopen(buf, sizeof (buf), "w");
	ck_assert_int_eq(kc_sym_lines_for_region(t, &h, sizeof (h), t_strip,
	    0, "kdt-extract", err), -1);
	ck_assert_int_eq(kc_sym_lines_for_region(NULL, &h, sizeof (h), t_prog,
	    0, "kdt-extract", err), -1);
	ck_assert_int_eq(kc_sym_lines_for_region(t, &h, sizeof (h), t_prog,
	    0, "kdt-extract", err), 0);
	fclose(err);
	ck_assert_msg(strstr(buf, "kdt-extract: --vmlinux: ") != NULL &&
	    strstr(buf, "--vmlinux " ) != NULL &&
	    strstr(buf, "no symbols to attach source lines to") != NULL &&
	    strstr(buf, "moved by the KASLR offset 0x1000000") != NULL,
	    "%s", buf);
	kc_sym_free(t);
}
END_TEST

/* kdt-extract --vmlinux FILE on a raw region image, in-process. */
static int
t_extract(const char *vmlinux, char *err, size_t errsz)
{
	char img[160], out[8192], opt[200];
	char *argv[] = { "kdt-extract", opt, img, NULL };
	uint8_t *b = kt_region_new(0);
	FILE *f, *fo, *fe;
	int rv;

	kt_region_rec(b, 0, 1, 42);
	snprintf(img, sizeof (img), "%s/region.img", t_dir);
	snprintf(opt, sizeof (opt), "--vmlinux=%s", vmlinux);
	f = fopen(img, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, KT_RSIZE, f), KT_RSIZE);
	fclose(f);
	free(b);
	fo = fmemopen(out, sizeof (out), "w");
	fe = fmemopen(err, errsz, "w");
	rv = cd_extract_main(3, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	return rv;
}

/* The option: a file with DWARF is used and said so; one without fails. */
START_TEST(test_extract_option)
{
	char err[4096];

	ck_assert_int_eq(t_extract(t_prog, err, sizeof (err)), 0);
	ck_assert_msg(strstr(err, "source lines of kernel frames from ") !=
	    NULL && strstr(err, "(DWARF), moved by the KASLR offset 0x0") !=
	    NULL, "%s", err);
	ck_assert_int_eq(t_extract(t_strip, err, sizeof (err)), 2);
	ck_assert_msg(strstr(err, "kdt-extract: --vmlinux: ") != NULL &&
	    strstr(err, "prog-stripped: no DWARF debugging information") !=
	    NULL, "%s", err);
}
END_TEST

static Suite *
sym_lines_suite(void)
{
	Suite *s = suite_create("sym_lines");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	/* once, in the runner's process: the forked tests share the files */
	tcase_add_unchecked_fixture(tc, t_build, t_cleanup);
	tcase_add_test(tc, test_lines_aranges);
	tcase_add_test(tc, test_lines_no_aranges);
	tcase_add_test(tc, test_stack_frame);
	tcase_add_test(tc, test_no_dwarf);
	tcase_add_test(tc, test_extract_option);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(sym_lines_suite)
