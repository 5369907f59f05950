/*
 * test_dir_regions.c -- "kdt-extract DIR" (crashdump/cd_dir.c) on a dump
 * directory whose vmcore holds several regions: without kdt's
 * kdt-region.img the directory's vmcore is read as "kdt-extract VMCORE"
 * reads it, so every live session in it is printed, each under the
 * "== region N of M ==" line, not only the first one found.
 *
 * The vmcore is an ELF core of 2 MiB of noise "physical memory" holding
 * two live sessions' regions made by the writer (kt_region.h), each
 * vmalloc'd in the way kdt.ko lays them out: pages scattered over
 * memory, listed by a page-list table (rgn_pagelist_init(), common/
 * rgn.h).  The directory is laid out as kdump-tools 1.8.1 leaves it
 * (dump.STAMP and dmesg.STAMP).  Checked: stdout of -q (both sessions,
 * labelled), stdout and the note without -q, that "kdt-extract DIR" and
 * "kdt-extract DIR/dump.STAMP" print the same, and that one session's
 * broken page list still lets the other print, naming the broken one.
 *
 * With kdt's kdump hook's kdt-region.img beside the vmcore (a reserved
 * region's image, phys 0x10000000, which the vmcore lacks or holds), the
 * image's region is printed first and the vmcore's live sessions after
 * it, all labelled; a vmcore whose only region is the image's own prints
 * exactly what the image alone prints.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "kt_region.h"
#include "kt_core.h"
#include "crashdump/cd.h"

#define T_MEM		(2u << 20)		/* "physical memory" */
#define T_RPAGES	(KT_RSIZE / RGN_PAGE)	/* 16 */
#define T_STAMP		"202601020304"
#define T_OUTSZ		8192
#define T_RPHYS		0x10000000ULL	/* the reserved region's */

static uint8_t *
t_noise(void)
{
	uint8_t *m = malloc(T_MEM);
	uint32_t i, x = 4242;

	ck_assert_ptr_nonnull(m);
	for (i = 0; i < T_MEM; i++) {
		x = x * 1103515245 + 12345;
		m[i] = (uint8_t)(x >> 16);
	}
	return m;
}

/*
 * A live session tracing "val" on CPUs 0 and 1: its 16 pages at frames
 * base + 3 * (15 - i) (out of order, none adjacent), its page-list table
 * at frame tblpfn.  Returns the table's frame; the region is in mem.
 */
static void
t_live(uint8_t *mem, uint64_t base, uint64_t tblpfn, int64_t val)
{
	uint64_t tbl[RGN_PL_PER_PAGE], tp = tblpfn, i;
	struct rgn_hdr *h;
	struct kdt_err ke;
	uint8_t *img;

	img = kt_region_new(0);
	kt_region_rec(img, 0, 1, val);
	kt_region_rec(img, 1, 2, val);
	memset(tbl, 0, sizeof (tbl));
	for (i = 0; i < T_RPAGES; i++)
		tbl[i] = base + 3 * (T_RPAGES - 1 - i);
	ck_assert_int_eq(rgn_pagelist_tblpages(T_RPAGES, 0, 192), 1);
	ck_assert_int_eq(rgn_pagelist_init(img, tbl, 0, &tp, 1, &ke), 0);
	h = (struct rgn_hdr *)img;
	ck_assert_uint_eq(h->rh_phys, tbl[0] * RGN_PAGE);
	ck_assert_uint_ne(h->rh_pl_off, 0);
	for (i = 0; i < T_RPAGES; i++)
		memcpy(mem + tbl[i] * RGN_PAGE, img + i * RGN_PAGE, RGN_PAGE);
	memcpy(mem + tblpfn * RGN_PAGE, tbl, RGN_PAGE);
	free(img);
}

/* mem as an ELF vmcore at path (kt_core.h), "hi" at T_RPHYS if not NULL. */
static void
t_core(const uint8_t *mem, const char *path, const uint8_t *hi)
{
	struct kt_seg sg[2] = { { 0, T_MEM, mem }, { T_RPHYS, KT_RSIZE, hi } };

	kt_core_write(path, sg, hi != NULL ? 2 : 1, ET_CORE, KT_CORE_NOTE);
}

static int
t_run3(char *out, char *err, const char *a1, const char *a2,
    const char *a3)
{
	char *argv[5] = { "kdt-extract", (char *)a1, (char *)a2, (char *)a3,
	    NULL };
	FILE *fo, *fe;
	int rv, argc = a3 != NULL ? 4 : a2 != NULL ? 3 : 2;

	memset(out, 0, T_OUTSZ);
	memset(err, 0, T_OUTSZ);
	fo = fmemopen(out, T_OUTSZ, "w");
	fe = fmemopen(err, T_OUTSZ, "w");
	rv = cd_extract_main(argc, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	return rv;
}

static int
t_run(char *out, char *err, const char *a1, const char *a2)
{
	return t_run3(out, err, a1, a2, NULL);
}

/* kt_region.h's state id, the same in both sessions' headers */
#define T_ID	"0123456789abcdeffedcba9876543210"

START_TEST(test_dir_prints_every_live_session)
{
	char dir[64], core[128], dmesg[128], cmd[160];
	char out[T_OUTSZ], err[T_OUTSZ], out2[T_OUTSZ], err2[T_OUTSZ];
	uint8_t *mem = t_noise();
	FILE *f;

	snprintf(dir, sizeof (dir), "/tmp/kdt-test-dirrg-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(core, sizeof (core), "%s/dump." T_STAMP, dir);
	snprintf(dmesg, sizeof (dmesg), "%s/dmesg." T_STAMP, dir);
	f = fopen(dmesg, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[    0.000000] Linux version 6.1.0-56-amd64\n", f);
	fclose(f);

	/* sessions at frames 100.. (phys 0x91000) and 200.. (0xf5000) */
	t_live(mem, 100, 300, 42);
	t_live(mem, 200, 310, 7);
	t_core(mem, core, NULL);

	ck_assert_int_eq(t_run(out, err, "-q", dir), 0);
	ck_assert_str_eq(out,
	    "== region 1 of 2: live session, state id " T_ID ", at phys 0x91000 ==\n"
	    "4242\n"
	    "\n== region 2 of 2: live session, state id " T_ID ", at phys 0xf5000 ==\n"
	    "77\n");
	ck_assert_str_eq(err, "");

	/* the directory prints what the vmcore alone prints */
	ck_assert_int_eq(t_run(out2, err2, "-q", core), 0);
	ck_assert_str_eq(out, out2);

	/* without -q: dtrace's text, and which file was read */
	ck_assert_int_eq(t_run(out, err, dir, NULL), 0);
	ck_assert_int_eq(t_run(out2, err2, core, NULL), 0);
	ck_assert_str_eq(out, out2);
	ck_assert_ptr_nonnull(strstr(out, "== region 1 of 2: live session"));
	ck_assert_ptr_nonnull(strstr(out, "\n== region 2 of 2: live session"));
	ck_assert_ptr_nonnull(strstr(out, ":BEGIN                42\n"));
	ck_assert_ptr_nonnull(strstr(out, ":BEGIN                 7\n"));
	snprintf(cmd, sizeof (cmd),
	    "kdt-extract: %s: no kdt-region.img: looking for the region in dump." T_STAMP " (ELF vmcore)\n",
	    dir);
	if (strstr(err, cmd) == NULL)
		ck_abort_msg("no note naming the vmcore; err: %s", err);

	/* --phys picks one region: only it, without a label */
	ck_assert_int_eq(t_run3(out, err, dir, "--phys", "0xf5000"), 0);
	ck_assert_ptr_null(strstr(out, "== region"));
	ck_assert_ptr_nonnull(strstr(out, ":BEGIN                 7\n"));
	ck_assert_ptr_null(strstr(out, ":BEGIN                42\n"));

	/* the second session's table broken: the first is still printed */
	*(uint64_t *)(mem + 310 * RGN_PAGE + 8 * 3) ^= 1;
	t_core(mem, core, NULL);
	ck_assert_int_eq(t_run(out, err, "-q", dir), 0);
	ck_assert_str_eq(out, "4242\n");
	if (strstr(err, "1 live region not read: live region at phys 0xf5000: page list table CRC") == NULL)
		ck_abort_msg("the broken session is not named; err: %s", err);

	snprintf(cmd, sizeof (cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(mem);
}
END_TEST

/* A reserved region's image as the kdump hook saves it: BEGIN traced 99. */
static uint8_t *
t_image(void)
{
	uint8_t *b = kt_region_new(T_RPHYS);

	kt_region_rec(b, 1, 1, 99);
	return b;
}

static void
t_put(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_dir_image_then_live_sessions)
{
	char dir[64], core[128], img[128], cmd[320], want[1024];
	char out[T_OUTSZ], err[T_OUTSZ], out2[T_OUTSZ], err2[T_OUTSZ];
	uint8_t *mem = t_noise(), *im = t_image();

	snprintf(dir, sizeof (dir), "/tmp/kdt-test-dirim-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(core, sizeof (core), "%s/dump." T_STAMP, dir);
	snprintf(img, sizeof (img), "%s/kdt-region.img", dir);
	t_put(img, im, KT_RSIZE);

	/* the vmcore holds only the image's region: the image's output */
	t_core(mem, core, im);
	ck_assert_int_eq(t_run(out, err, "-q", dir), 0);
	ck_assert_int_eq(t_run(out2, err2, "-q", img), 0);
	ck_assert_str_eq(out, out2);
	ck_assert_str_eq(out, "99\n");
	ck_assert_str_eq(err, "");

	/* two live sessions besides: the image first, then each of them */
	t_live(mem, 100, 300, 42);
	t_live(mem, 200, 310, 7);
	snprintf(want, sizeof (want),
	    "== region 1 of 3: reserved region, boot id " T_ID ", at phys 0x10000000 ==\n"
	    "99\n"
	    "\n== region 2 of 3: live session, state id " T_ID ", at phys 0x91000 ==\n"
	    "4242\n"
	    "\n== region 3 of 3: live session, state id " T_ID ", at phys 0xf5000 ==\n"
	    "77\n");
	t_core(mem, core, NULL);	/* memmap= region left out */
	ck_assert_int_eq(t_run(out, err, "-q", dir), 0);
	ck_assert_str_eq(out, want);
	ck_assert_str_eq(err, "");
	t_core(mem, core, im);		/* ... or in it: not printed twice */
	ck_assert_int_eq(t_run(out, err, "-q", dir), 0);
	ck_assert_str_eq(out, want);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(t_run(out, err, dir, NULL), 0);
	snprintf(cmd, sizeof (cmd),
	    "kdt-extract: %s: also holds 2 more kdt regions (live sessions keep theirs in kernel memory): printed after the image's\n",
	    core);
	if (strstr(err, cmd) == NULL)
		ck_abort_msg("no note on the vmcore's regions; err: %s", err);
	ck_assert_ptr_nonnull(strstr(out, ":BEGIN                99\n"));
	ck_assert_ptr_nonnull(strstr(out, ":BEGIN                 7\n"));

	/* JSON: the labels go to stderr, stdout stays JSON lines */
	ck_assert_int_eq(t_run(out, err, "--format=json", dir), 0);
	ck_assert_ptr_null(strstr(out, "== region"));
	ck_assert_ptr_nonnull(strstr(err, "== region 3 of 3: live session"));

	snprintf(cmd, sizeof (cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(im);
	free(mem);
}
END_TEST

static Suite *
dir_regions_suite(void)
{
	Suite *s = suite_create("dir_regions");
	TCase *tc = tcase_create("dir");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_dir_prints_every_live_session);
	tcase_add_test(tc, test_dir_image_then_live_sessions);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(dir_regions_suite)
