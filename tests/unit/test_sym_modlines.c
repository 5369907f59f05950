/*
 * test_sym_modlines.c -- source lines of loadable-module frames
 * (consumer/kc_sym.c: kc_sym_modlines_for_region(), kdt-extract
 * --modules DIR).  The test builds its own "module": a relocatable
 * object made with "cc -g -O1 -c" whose functions sit in .text,
 * .init.text and .exit.text, as a .ko's do -- so its DWARF 5 line
 * sequences for the three sections all start at address 0 and only
 * .rela.debug_line tells them apart.  It is installed as t-mod.ko in a
 * directory tree (the region names the module "t_mod": '-' and '_'
 * match either way), a region's module table places its core text and
 * init text where a module loader might, and every byte of two .text
 * functions and of the .init.text one must resolve to the line binutils'
 * "addr2line -j SECTION -e t-mod.ko OFFSET" gives (the oracle).  Then:
 * init text the region does not record gets no line (never a wrong
 * one); a .ko without DWARF, one of another build (text of another
 * size), a truncated one, a directory that does not exist and a region
 * without a module table are named in the messages; kdt-extract
 * --modules on a region image says what it used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "kt_addr2line.h"
#include "kt_region.h"
#include "consumer/kc_sym.h"
#include "consumer/kc_fmt.h"
#include "crashdump/cd.h"

#define T_RSIZE		(128 * 1024)
#define T_CORE		0xffffffffc0100000ULL
#define T_INIT		0xffffffffc0400000ULL
#define T_TEXT		0x1000	/* md_text: the little text, page-aligned */
#define T_MARK		10	/* the line of "g += x * 3" below */

static const char t_src[] =
    "int g;\n"						/* 1 */
    "#define __init __attribute__((section(\".init.text\")))\n" /* 2 */
    "#define __exit __attribute__((section(\".exit.text\")))\n" /* 3 */
    "__attribute__((noinline)) int\n"			/* 4 */
    "tm_leaf(int x)\n"					/* 5 */
    "{\n"						/* 6 */
    "\tint i;\n"					/* 7 */
    "\n"						/* 8 */
    "\tfor (i = 0; i < x; i++)\n"			/* 9 */
    "\t\tg += x * 3;\n"				/* 10 */
    "\treturn g;\n"					/* 11 */
    "}\n"						/* 12 */
    "\n"						/* 13 */
    "__attribute__((noinline)) int\n"			/* 14 */
    "tm_caller(int y)\n"				/* 15 */
    "{\n"						/* 16 */
    "\tint r = tm_leaf(y + 1);\n"			/* 17 */
    "\n"						/* 18 */
    "\treturn r + tm_leaf(y);\n"			/* 19 */
    "}\n"						/* 20 */
    "\n"						/* 21 */
    "int __init\n"					/* 22 */
    "tm_init(void)\n"					/* 23 */
    "{\n"						/* 24 */
    "\tg = 7;\n"					/* 25 */
    "\treturn tm_caller(g) + 1;\n"			/* 26 */
    "}\n"						/* 27 */
    "\n"						/* 28 */
    "void __exit\n"					/* 29 */
    "tm_exit(void)\n"					/* 30 */
    "{\n"						/* 31 */
    "\tg = 0;\n"					/* 32 */
    "\tg += tm_leaf(3);\n"				/* 33 */
    "}\n"						/* 34 */
    "#ifdef T_BIG\n"					/* 35 */
    "void tm_big(void) { __asm__(\".fill 5000, 1, 0x90\"); }\n" /* 36 */
    "#endif\n";						/* 37 */

static char t_dir[64], t_mods[128], t_ko[192], t_strip[128], t_other[128];
static char t_trunc[128];

/* Build the module and its variants in a fresh directory. */
static void
t_build(void)
{
	char cmd[2048];

	strcpy(t_dir, "/tmp/kdt-test-modlines.XXXXXX");
	kt_srcdir(t_dir, "t_mod.c", t_src);
	snprintf(t_mods, sizeof (t_mods), "%s/mods", t_dir);
	snprintf(t_ko, sizeof (t_ko), "%s/kernel/drivers/t-mod.ko", t_mods);
	snprintf(t_strip, sizeof (t_strip), "%s/stripped", t_dir);
	snprintf(t_other, sizeof (t_other), "%s/other", t_dir);
	snprintf(t_trunc, sizeof (t_trunc), "%s/trunc", t_dir);
	/* relative source name: the table's FILE is "t_mod.c" */
	snprintf(cmd, sizeof (cmd),
	    "cd %s && mkdir -p mods/kernel/drivers stripped/a other/b && "
	    "cc -g -O1 -fno-pie -c -o mods/kernel/drivers/t-mod.ko t_mod.c && "
	    "objcopy --strip-debug mods/kernel/drivers/t-mod.ko "
	    "stripped/a/t_mod.ko && "
	    "cc -g -O1 -fno-pie -DT_BIG -c -o other/b/t_mod.ko t_mod.c && "
	    "mkdir trunc && head -c 200 mods/kernel/drivers/t-mod.ko > "
	    "trunc/t_mod.ko",
	    t_dir);
	ck_assert_msg(system(cmd) == 0, "cannot build the test module: %s",
	    cmd);
}

static void
t_cleanup(void)
{
	kt_rmdir(t_dir);
}

/* nm -S's value and size of "name" in the .ko (its section offset). */
static void
t_nm(const char *name, uint64_t *off, uint64_t *size)
{
	char cmd[512], line[512], n[256], ty;
	unsigned long long v, s;
	FILE *p;
	int found = 0;

	snprintf(cmd, sizeof (cmd), "nm -S %s", t_ko);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof (line), p) != NULL)
		if (sscanf(line, "%llx %llx %c %255s", &v, &s, &ty, n) == 4 &&
		    strcmp(n, name) == 0) {
			*off = v;
			*size = s;
			found = 1;
		}
	pclose(p);
	ck_assert_msg(found, "nm -S %s: no %s", t_ko, name);
}

/*
 * A region whose module table has t_mod's core at T_CORE (text T_TEXT
 * bytes) with tm_leaf and tm_caller, and, when "init", its init text at
 * T_INIT with tm_init.  *lenp gets the image's size.
 */
static uint8_t *
t_region(int init)
{
	static struct kt_dofimg dof;
	struct rgn_params p;
	struct kdt_err ke;
	uint8_t *b = calloc(1, T_RSIZE);
	uint64_t off, size;

	ck_assert_ptr_nonnull(b);
	kt_dof(&dof);
	memset(&p, 0, sizeof (p));
	p.rp_ncpu = 2;
	p.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	p.rp_probe_cap = 4;
	p.rp_epid_cap = 4;
	p.rp_modsize = 8192;
	p.rp_dof = &dof;
	p.rp_dofsz = sizeof (dof);
	p.rp_release = "6.1.0-kt-nosuchrelease";
	ck_assert_int_eq(rgn_init(b, T_RSIZE, &p, &ke), 0);
	ck_assert_int_eq(rgn_add_probe(b, 1, "dtrace", "", "", "BEGIN", &ke),
	    0);
	ck_assert_int_eq(rgn_add_epid(b, 1, 1, 0, 8, &ke), 0);
	/* .text is the object's first executable section: offset 0 */
	ck_assert_int_eq(rgn_mod_begin(b, "t_mod", T_CORE, 0x2000, T_TEXT,
	    0), 0);
	t_nm("tm_leaf", &off, &size);
	ck_assert_int_eq(rgn_mod_sym(b, T_CORE + off, size, "tm_leaf"), 0);
	t_nm("tm_caller", &off, &size);
	ck_assert_int_eq(rgn_mod_sym(b, T_CORE + off, size, "tm_caller"), 0);
	rgn_mod_end(b);
	if (init) {
		t_nm("tm_init", &off, &size);
		ck_assert_int_eq(rgn_mod_begin(b, "t_mod", T_INIT, 0x1000,
		    0x1000, RGN_MOD_F_INIT), 0);
		ck_assert_int_eq(rgn_mod_sym(b, T_INIT + off, size, "tm_init"),
		    0);
		rgn_mod_end(b);
	}
	return b;
}

/* The table of region "b" with --modules "dir"'s lines; messages in buf. */
static struct kc_symtab *
t_table(const uint8_t *b, const char *dir, int *rv, char *buf, size_t size)
{
	struct kc_symtab *t = kc_sym_new();
	char why[512];
	FILE *err;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_ge(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), 1);
	err = fmemopen(buf, size, "w");
	*rv = kc_sym_modlines_for_region(t, b, T_RSIZE, dir, 0, "kdt-extract",
	    err);
	fclose(err);
	return t;
}

/*
 * Every byte of function "fn" (section "sec", loaded at "base"): lines
 * equal to addr2line's.  Returns how many bytes had a line; *mark counts
 * those on line T_MARK.
 */
static int
t_compare(const struct kc_symtab *t, const char *fn, const char *sec,
    uint64_t base, int *mark)
{
	char ours[256], want[600];
	uint64_t off, size, pc, fa;
	int known = 0;

	t_nm(fn, &off, &size);
	ck_assert_uint_gt(size, 0);
	for (pc = base + off; pc < base + off + size; pc++) {
		fa = (pc > base + off ? pc - 1 : pc) - base;
		kt_addr2line(t_ko, sec, fa, want, sizeof (want));
		if (!kc_sym_srcline(t, pc, ours, sizeof (ours)))
			ours[0] = '\0';
		ck_assert_msg(strcmp(ours, want) == 0,
		    "%s+0x%llx: kc_sym_srcline \"%s\", addr2line -j %s \"%s\"",
		    fn, (unsigned long long)(pc - base - off), ours, sec, want);
		known += ours[0] != '\0';
		snprintf(want, sizeof (want), "t_mod.c:%d", T_MARK);
		*mark += strcmp(ours, want) == 0;
	}
	return known;
}

START_TEST(test_modlines_addr2line)
{
	struct kc_symtab *t;
	uint8_t *b = t_region(1);
	char buf[2048];
	int rv, mark = 0, init = 0;

	t = t_table(b, t_mods, &rv, buf, sizeof (buf));
	ck_assert_msg(rv == 1, "%d: %s", rv, buf);
	ck_assert_msg(strstr(buf, "source lines of module frames from ") !=
	    NULL && strstr(buf, "1 of the region's 1 modules") != NULL,
	    "%s", buf);
	ck_assert_int_gt(t_compare(t, "tm_leaf", ".text", T_CORE, &mark), 4);
	ck_assert_int_gt(t_compare(t, "tm_caller", ".text", T_CORE, &mark),
	    4);
	ck_assert_int_gt(mark, 0);
	ck_assert_int_gt(t_compare(t, "tm_init", ".init.text", T_INIT, &init),
	    2);
	ck_assert_int_eq(init, 0);
	kc_sym_free(t);
	free(b);
}
END_TEST

/* Init text the region does not place: a symbol there gets no line. */
START_TEST(test_modlines_unknown_section)
{
	struct kc_symtab *t;
	uint8_t *b = t_region(0);
	uint64_t off, size;
	char buf[2048], line[256];
	int rv;

	t = t_table(b, t_mods, &rv, buf, sizeof (buf));
	ck_assert_msg(rv == 1, "%d: %s", rv, buf);
	t_nm("tm_init", &off, &size);
	ck_assert_int_eq(kc_sym_add(t, T_INIT + off, size, "tm_init", "t_mod"),
	    0);
	kc_sym_finish(t);
	for (rv = 0; (uint64_t)rv < size; rv++)
		ck_assert_int_eq(kc_sym_srcline(t, T_INIT + off + rv, line,
		    sizeof (line)), 0);
	/* while .text still resolves */
	t_nm("tm_leaf", &off, &size);
	ck_assert_int_eq(kc_sym_srcline(t, T_CORE + off + 1, line,
	    sizeof (line)), 1);
	kc_sym_free(t);
	free(b);
}
END_TEST

/* A stack() frame in the module: module`function+0xoff [FILE:LINE]. */
START_TEST(test_modlines_frame)
{
	struct kc_symtab *t;
	uint8_t *b = t_region(1);
	uint64_t off, size, frames[2];
	char buf[2048], out[1024], want[600], line[256];
	FILE *f;
	int rv;

	t = t_table(b, t_mods, &rv, buf, sizeof (buf));
	ck_assert_int_eq(rv, 1);
	t_nm("tm_caller", &off, &size);
	frames[0] = T_CORE + off + 4;
	frames[1] = 0;
	ck_assert_int_eq(kc_sym_srcline(t, frames[0], line, sizeof (line)), 1);
	f = fmemopen(out, sizeof (out), "w");
	ck_assert_int_eq(kc_fmt_stack(f, t, (const uint8_t *)frames,
	    sizeof (frames), 2, 14), 0);
	fclose(f);
	snprintf(want, sizeof (want),
	    "\n              t_mod`tm_caller+0x4 [%s]\n", line);
	ck_assert_str_eq(out, want);
	kc_sym_free(t);
	free(b);
}
END_TEST

/* Bad input: each named, and the module goes on without lines. */
START_TEST(test_modlines_bad)
{
	struct kc_symtab *t;
	uint8_t *b = t_region(1);
	uint64_t off, size;
	char buf[2048], line[256];
	FILE *err;
	int rv;

	t = t_table(b, t_strip, &rv, buf, sizeof (buf));
	ck_assert_int_eq(rv, 0);
	ck_assert_msg(strstr(buf, "kdt-extract: --modules: ") != NULL &&
	    strstr(buf, "/stripped/a/t_mod.ko: no DWARF debugging information") != NULL &&
	    strstr(buf, "no source lines for module t_mod") != NULL &&
	    strstr(buf, "0 of the region's 1 modules (1 had a .ko there)") !=
	    NULL, "%s", buf);
	t_nm("tm_leaf", &off, &size);
	ck_assert_int_eq(kc_sym_srcline(t, T_CORE + off + 1, line,
	    sizeof (line)), 0);
	kc_sym_free(t);

	t = t_table(b, t_other, &rv, buf, sizeof (buf));
	ck_assert_int_eq(rv, 0);
	ck_assert_msg(strstr(buf, "/other/b/t_mod.ko: not the build that was loaded: its text is 0x") != NULL &&
	    strstr(buf, "the region's module table says 0x1000") != NULL,
	    "%s", buf);
	kc_sym_free(t);

	/* cut short: its section headers are beyond the end */
	t = t_table(b, t_trunc, &rv, buf, sizeof (buf));
	ck_assert_int_eq(rv, 0);
	ck_assert_msg(strstr(buf, "/trunc/t_mod.ko: damaged section headers (e_shoff 0x") != NULL &&
	    strstr(buf, "file size 200)") != NULL, "%s", buf);
	kc_sym_free(t);

	t = t_table(b, "/nonexistent/modules", &rv, buf, sizeof (buf));
	ck_assert_int_eq(rv, -1);
	ck_assert_str_eq(buf, "kdt-extract: --modules /nonexistent/modules: No such file or directory (a directory of NAME.ko files with DWARF, e.g. /usr/lib/debug/lib/modules/RELEASE)\n");
	kc_sym_free(t);

	t = t_table(b, t_ko, &rv, buf, sizeof (buf));
	ck_assert_int_eq(rv, -1);
	ck_assert_msg(strstr(buf, "t-mod.ko: not a directory") != NULL, "%s",
	    buf);
	kc_sym_free(t);
	free(b);

	/* a region without a module table: no table to attach lines to */
	b = kt_region_new(0);
	err = fmemopen(buf, sizeof (buf), "w");
	ck_assert_int_eq(kc_sym_modlines_for_region(NULL, b, KT_RSIZE, t_mods,
	    0, "kdt-extract", err), 0);
	fclose(err);
	ck_assert_msg(strncmp(buf, "kdt-extract: --modules /tmp/", 28) == 0 &&
	    strstr(buf, "/mods: the region has no module table: no module symbols to attach source lines to\n") != NULL,
	    "%s", buf);
	free(b);
}
END_TEST

/* kdt-extract --modules DIR on a raw region image, in-process. */
static int
t_extract(const char *dir, char *err, size_t errsz)
{
	char img[160], out[8192] = "", opt[200];
	char *argv[] = { "kdt-extract", opt, img, NULL };
	uint8_t *b = t_region(1);
	FILE *f, *fo, *fe;
	int rv;

	kt_region_rec(b, 0, 1, 42);
	snprintf(img, sizeof (img), "%s/region.img", t_dir);
	snprintf(opt, sizeof (opt), "--modules=%s", dir);
	f = fopen(img, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, T_RSIZE, f), T_RSIZE);
	fclose(f);
	free(b);
	fo = fmemopen(out, sizeof (out), "w");
	fe = fmemopen(err, errsz, "w");
	rv = cd_extract_main(3, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	/* the trace is printed in every case but bad usage */
	ck_assert_msg(rv == 2 || strstr(out, "42") != NULL, "%s", out);
	return rv;
}

START_TEST(test_modlines_extract_option)
{
	char err[4096];

	ck_assert_int_eq(t_extract(t_mods, err, sizeof (err)), 0);
	ck_assert_msg(strstr(err, "kdt-extract: source lines of module frames from ") != NULL &&
	    strstr(err, "(DWARF): 1 of the region's 1 modules") != NULL,
	    "%s", err);
	/* a bad .ko: a warning, the trace is still printed */
	ck_assert_int_eq(t_extract(t_other, err, sizeof (err)), 0);
	ck_assert_msg(strstr(err, "not the build that was loaded") != NULL,
	    "%s", err);
	/* no such directory: bad usage */
	ck_assert_int_eq(t_extract("/nonexistent/modules", err, sizeof (err)),
	    2);
	ck_assert_msg(strstr(err, "--modules /nonexistent/modules: ") != NULL,
	    "%s", err);
}
END_TEST

static Suite *
sym_modlines_suite(void)
{
	Suite *s = suite_create("sym_modlines");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	/* once, in the runner's process: the forked tests share the files */
	tcase_add_unchecked_fixture(tc, t_build, t_cleanup);
	tcase_add_test(tc, test_modlines_addr2line);
	tcase_add_test(tc, test_modlines_unknown_section);
	tcase_add_test(tc, test_modlines_frame);
	tcase_add_test(tc, test_modlines_bad);
	tcase_add_test(tc, test_modlines_extract_option);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(sym_modlines_suite)
