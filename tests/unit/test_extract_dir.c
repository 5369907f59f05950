/*
 * test_extract_dir.c -- unit tests of "kdt-extract DIR" (crashdump/
 * cd_dir.c): which names in a dump directory are vmcores and which the
 * region image kdt's kdump hook writes, and the whole tool run
 * in-process (cd_extract_main) on directories laid out as kdump-tools
 * 1.8.1 and kdumpctl leave them.
 *
 * The files are made at run time: a real region image from the writer
 * (kt_region.h, at phys 0x10000000, one BEGIN record tracing 42) saved
 * as kdt-region.img, and small ELF vmcores of noise memory -- without the
 * region (as /proc/vmcore is when the region was memmap= reserved), with
 * the same region, or with another boot's region at its address.  Every
 * case checks the exit status, stdout and the messages that name the
 * files used or looked for.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "kt_check.h"
#include "kt_core.h"
#include "kt_region.h"
#include "kdt_env.h"
#include "crashdump/cd.h"

#define T_RPHYS		0x10000000ULL
#define T_LOW		(1024 * 1024)

#define T_BEGIN_OUT \
	"CPU     ID                    FUNCTION:NAME\n" \
	"  1      1                           :BEGIN                42\n" \
	"\n"

static char t_dir[64];

static void
t_mkdir(void)
{
	snprintf(t_dir, sizeof (t_dir), "/tmp/kdt-test-dir-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(t_dir));
}

static void
t_rmdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof (cmd), "rm -rf '%s'", t_dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void
t_write(const char *name, const void *b, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof (path), "%s/%s", t_dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, n, f), n);
	fclose(f);
}

/* The region image (boot id byte 0 flipped when "other"). */
static uint8_t *
t_region(int other)
{
	uint8_t *b = kt_region_new(T_RPHYS);
	struct rgn_hdr *h = (struct rgn_hdr *)b;

	kt_region_rec(b, 1, 1, 42);
	if (other) {
		h->rh_bootid[0] ^= 0xff;
		h->rh_crc = 0;	/* rgn.h: the CRC is taken with rh_crc 0 */
		h->rh_crc = kenv_crc32(b, h->rh_hdrsize);
	}
	return b;
}

/*
 * An ELF vmcore "name" (PT_LOADs only, kt_core.h): noise at phys 0, and
 * at T_RPHYS "hi" (KT_RSIZE bytes) when not NULL.
 */
static void
t_vmcore(const char *name, const uint8_t *hi)
{
	uint8_t *low = malloc(T_LOW);
	struct kt_seg sg[2] = { { 0, T_LOW, low }, { T_RPHYS, KT_RSIZE, hi } };
	char path[256];
	uint32_t i, x = 777;

	ck_assert_ptr_nonnull(low);
	for (i = 0; i < T_LOW; i++) {
		x = x * 1103515245 + 12345;
		low[i] = (uint8_t)(x >> 16);
	}
	snprintf(path, sizeof (path), "%s/%s", t_dir, name);
	kt_core_write(path, sg, hi != NULL ? 2 : 1, ET_CORE, 0);
	free(low);
}

static void
t_image(const char *name, int other)
{
	uint8_t *b = t_region(other);

	t_write(name, b, KT_RSIZE);
	free(b);
}

/* kdt-extract [a1] DIR; out and err collected. */
static int
t_run(char *out, char *err, const char *a1)
{
	char *argv[4] = { "kdt-extract", (char *)a1, t_dir, NULL };
	int argc = 3, rv;
	FILE *fo, *fe;

	if (a1 == NULL) {
		argv[1] = t_dir;
		argv[2] = NULL;
		argc = 2;
	}
	memset(out, 0, 4096);
	memset(err, 0, 4096);
	fo = fmemopen(out, 4096, "w");
	fe = fmemopen(err, 4096, "w");
	rv = cd_extract_main(argc, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	return rv;
}

/* err must contain the formatted text (t_dir substituted for each %s). */
static void
t_has(const char *err, const char *fmt)
{
	char want[1024];

	snprintf(want, sizeof (want), fmt, t_dir, t_dir, t_dir);
	if (strstr(err, want) == NULL)
		ck_abort_msg("stderr lacks \"%s\"; it is:\n%s", want, err);
}

START_TEST(test_classify)
{
	static const struct { const char *n; int k; } t[] = {
		{ "dump.202611211003", CD_DN_VMCORE },
		{ "vmcore.202611211003", CD_DN_VMCORE },
		{ "vmcore", CD_DN_VMCORE },
		{ "vmcore.flat", CD_DN_VMCORE },
		{ "dump.202611211003.gz", CD_DN_VMCORE_PACKED },
		{ "dump.202611211003.xz", CD_DN_VMCORE_PACKED },
		{ "dump.202611211003.zip", CD_DN_OTHER },
		{ "vmcore.202611211003.gz", CD_DN_OTHER },
		{ "dump-incomplete", CD_DN_VMCORE_PARTIAL },
		{ "dump-incomplete.lz4", CD_DN_VMCORE_PARTIAL },
		{ "vmcore-incomplete", CD_DN_VMCORE_PARTIAL },
		{ "kdt-region.img", CD_DN_IMAGE },
		{ "kdt-region.img.incomplete", CD_DN_IMAGE_PARTIAL },
		{ "kdt-region.imgx", CD_DN_OTHER },
		{ "dmesg.202611211003", CD_DN_OTHER },
		{ "vmcore-dmesg.txt", CD_DN_OTHER },
		{ "dump.", CD_DN_OTHER },
		{ "dump.x1", CD_DN_OTHER },
		{ "kexec_cmd", CD_DN_OTHER },
	};
	size_t i;

	for (i = 0; i < sizeof (t) / sizeof (t[0]); i++)
		ck_assert_msg(cd_dir_classify(t[i].n) == t[i].k,
		    "%s: %d, want %d", t[i].n, cd_dir_classify(t[i].n),
		    t[i].k);
}
END_TEST

START_TEST(test_scan_picks)
{
	struct cd_dir d;
	char path[512];

	t_mkdir();
	t_write("dmesg.202611211003", "x", 1);
	t_write("dump.202611211003", "x", 1);
	t_write("dump.202611211004", "x", 1);
	t_write("kdt-region.img", "x", 1);
	ck_assert_int_eq(mkdir(strcat(strcpy(path, t_dir), "/202611201200"),
	    0700), 0);
	ck_assert_int_eq(cd_dir_scan(t_dir, &d, "kdt-extract", stderr), 0);
	ck_assert_str_eq(d.dd_vmcore, "dump.202611211004");
	ck_assert_uint_eq(d.dd_nvmcores, 1);
	ck_assert_str_eq(d.dd_image, "kdt-region.img");
	ck_assert_str_eq(d.dd_subdir, "202611201200");
	cd_dir_path(&d, "x", path, sizeof (path));
	ck_assert_str_eq(path + strlen(t_dir), "/x");
	t_rmdir();

	/* only an incomplete vmcore: used, remembered as incomplete */
	t_mkdir();
	t_write("vmcore-incomplete", "x", 1);
	t_write("vmcore-dmesg.txt", "x", 1);
	ck_assert_int_eq(cd_dir_scan(t_dir, &d, "kdt-extract", stderr), 0);
	ck_assert_str_eq(d.dd_vmcore, "vmcore-incomplete");
	ck_assert_str_eq(d.dd_partial, "vmcore-incomplete");
	ck_assert_str_eq(d.dd_image, "");
	t_rmdir();
}
END_TEST

/* The usual case: the vmcore lacks the region, the image has it. */
START_TEST(test_image_and_vmcore)
{
	char out[4096], err[4096];

	t_mkdir();
	t_vmcore("dump.202611211003", NULL);
	t_write("dmesg.202611211003", "log\n", 4);
	t_image("kdt-region.img", 0);
	ck_assert_int_eq(t_run(out, err, NULL), 0);
	ck_assert_str_eq(out, T_BEGIN_OUT);
	t_has(err, "kdt-extract: %s: the trace from kdt-region.img, the context from dump.202611211003 (ELF vmcore)\n");
	t_has(err, "kdt-extract: %s/dump.202611211003: does not hold the region's phys 0x10000000-0x10010000 (kexec leaves memmap= reserved memory out of /proc/vmcore): the trace is the image's\n");
	t_has(err, "kdt-extract: %s/kdt-region.img: raw region image written by kernel 6.1.0-kt-test, boot id 0123456789abcdeffedcba9876543210, region was at phys 0x10000000\n");
	ck_assert_int_eq(t_run(out, err, "-q"), 0);
	ck_assert_str_eq(out, "42\n");
	ck_assert_str_eq(err, "");
	t_rmdir();
}
END_TEST

/* The vmcore holds the region too: same boot, or another one. */
START_TEST(test_vmcore_holds_region)
{
	uint8_t *same = t_region(0), *other = t_region(1);
	char out[4096], err[4096];

	t_mkdir();
	t_vmcore("vmcore", same);
	t_image("kdt-region.img", 0);
	ck_assert_int_eq(t_run(out, err, NULL), 0);
	ck_assert_str_eq(out, T_BEGIN_OUT);
	t_has(err, "%s/vmcore: also holds the region (phys 0x10000000, boot id 0123456789abcdeffedcba9876543210): the image is used");
	t_vmcore("vmcore", other);
	ck_assert_int_eq(t_run(out, err, NULL), 0);
	ck_assert_str_eq(out, T_BEGIN_OUT);
	t_has(err, "%s/vmcore: warning: holds at phys 0x10000000 the region of boot id fe23456789abcdeffedcba9876543210, the image is of boot id 0123456789abcdeffedcba9876543210: the image may not be of this crash\n");
	/* the warning is not quietened by -q */
	ck_assert_int_eq(t_run(out, err, "-q"), 0);
	t_has(err, "warning: holds at phys 0x10000000 the region of boot id fe");
	t_rmdir();

	/* no image: the region found in the vmcore itself */
	t_mkdir();
	t_vmcore("vmcore", same);
	ck_assert_int_eq(t_run(out, err, NULL), 0);
	ck_assert_str_eq(out, T_BEGIN_OUT);
	t_has(err, "kdt-extract: %s: no kdt-region.img: looking for the region in vmcore (ELF vmcore)\n");
	t_rmdir();
	free(same);
	free(other);
}
END_TEST

/* A vmcore without the region and no image: say what was looked for. */
START_TEST(test_vmcore_without_region)
{
	char out[4096], err[4096];

	t_mkdir();
	t_vmcore("dump.202611211003", NULL);
	t_write("kdt-region.img.incomplete", "x", 1);
	ck_assert_int_eq(t_run(out, err, NULL), 1);
	ck_assert_str_eq(out, "");
	t_has(err, "kdt-extract: %s/dump.202611211003: no kdt region found in 1 MiB of physical memory");
	t_has(err, "kdt-extract: %s: no kdt region: dump.202611211003 does not hold it and there is no %s/kdt-region.img, where kdt's kdump hook (/usr/lib/kdt/kdt-kdump-save, installed by kdt -A) copies the crashed kernel's region; kexec leaves a memmap= region out of /proc/vmcore, so only that copy holds the trace; see kdt-extract(1), DIAGNOSTICS\n");
	t_has(err, "kdt-extract: %s: kdt-region.img.incomplete is the hook's unfinished copy (the capture kernel stopped while writing it): not used\n");
	t_rmdir();
}
END_TEST

START_TEST(test_image_only_and_bad_image)
{
	char out[4096], err[4096];

	t_mkdir();
	t_image("kdt-region.img", 0);
	ck_assert_int_eq(t_run(out, err, NULL), 0);
	ck_assert_str_eq(out, T_BEGIN_OUT);
	t_has(err, "kdt-extract: %s: the trace from kdt-region.img; no vmcore beside it\n");
	t_rmdir();

	/* an image that is a vmcore: refused, naming what it is */
	t_mkdir();
	t_vmcore("kdt-region.img", NULL);
	ck_assert_int_eq(t_run(out, err, NULL), 1);
	t_has(err, "kdt-extract: %s/kdt-region.img: is not the raw region image kdt's kdump hook writes but a dump (ELF vmcore)\n");
	t_rmdir();

	/* an image cut short: the raw reader's message */
	t_mkdir();
	t_image("kdt-region.img", 0);
	{
		char p[256];

		snprintf(p, sizeof (p), "%s/kdt-region.img", t_dir);
		ck_assert_int_eq(truncate(p, KT_RSIZE / 2), 0);
		/* past the metadata: what it holds is printed, partial */
		ck_assert_int_eq(t_run(out, err, NULL), 3);
		t_has(err, "raw region image is truncated: its header says 65536 bytes, the file has 32768: what it holds is printed\n");
		t_has(err, "CPU 1's buffer: bytes 0x9000-0x10000 not in the dump (beyond the end of the image (file truncated?)); its records are left out\n");
		/* in the metadata: refused */
		ck_assert_int_eq(truncate(p, 0x1100), 0);
	}
	ck_assert_int_eq(t_run(out, err, NULL), 1);
	t_has(err, "raw region image is truncated: its header says 65536 bytes, the file has 4352; see kdt-extract(1), DIAGNOSTICS\n");
	t_rmdir();
}
END_TEST

START_TEST(test_not_a_dump_dir)
{
	char out[4096], err[4096], sub[256];

	t_mkdir();
	t_write("kexec_cmd", "x", 1);
	snprintf(sub, sizeof (sub), "%s/202611211003", t_dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	ck_assert_int_eq(t_run(out, err, NULL), 1);
	t_has(err, "kdt-extract: %s: no vmcore (dump.STAMP, vmcore.STAMP, vmcore, vmcore.flat) and no kdt-region.img: not a kdump directory\n");
	t_has(err, "kdt-extract: %s: is it KDUMP_COREDIR? name one dump's directory, e.g. %s/202611211003\n");
	t_rmdir();

	t_mkdir();
	t_write("dump.202611211003.xz", "x", 1);
	ck_assert_int_eq(t_run(out, err, NULL), 1);
	t_has(err, "kdt-extract: %s/dump.202611211003.xz: compressed by kdump-tools (KDUMP_COMPRESSION): decompress it first");
	t_rmdir();
}
END_TEST

static Suite *
extract_dir_suite(void)
{
	Suite *s = suite_create("extract_dir");
	TCase *tc = tcase_create("dir");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_classify);
	tcase_add_test(tc, test_scan_picks);
	tcase_add_test(tc, test_image_and_vmcore);
	tcase_add_test(tc, test_vmcore_holds_region);
	tcase_add_test(tc, test_vmcore_without_region);
	tcase_add_test(tc, test_image_only_and_bad_image);
	tcase_add_test(tc, test_not_a_dump_dir);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(extract_dir_suite)
