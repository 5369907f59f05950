/*
 * test_extract.c -- unit tests of kdt-extract (crashdump/): the ELF memory
 * source, the region locator and the whole tool, run in-process through
 * cd_extract_main().
 *
 * Each test writes a small synthetic ELF core file at run time (kt_core.h,
 * no binary fixtures): an ELF64 header, PT_NOTE and PT_LOAD program
 * headers, noise memory, a real region made by the writer
 * (common/rgn_write.c, through kt_region.h) at physical address
 * 0x10000000 holding a hand-built one-ECB DOF (BEGIN, trace of a 64-bit
 * value), and optionally a stale full copy of the region at another
 * address, which the locator must skip.  Broken inputs -- no
 * region, a dump cut in the middle of the region, not ELF, a truncated
 * ELF header, an ELF that is not a core -- must give a clear message and
 * a non-zero status, never a crash (the build runs under ASan/UBSan).
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "kt_core.h"
#include "kt_region.h"
#include "crashdump/cd.h"

#define T_RSIZE		KT_RSIZE
#define T_RPHYS		0x10000000ULL
#define T_STALE		0x40000ULL
#define T_LOW		(1024 * 1024)	/* bytes of low memory at phys 0 */

/* A region at T_RPHYS with one BEGIN record on cpu 1 tracing "val". */
static uint8_t *
t_region(int64_t val)
{
	uint8_t *b = kt_region_new(T_RPHYS);

	kt_region_rec(b, 1, 1, val);
	return b;
}

/* ---- synthetic ELF cores (kt_core.h) ---- */

static char t_path[64];

/* A core of sg[0..n): a PT_NOTE, then the PT_LOADs, as /proc/vmcore. */
static const char *
t_write_core(const struct kt_seg *sg, uint32_t n, uint16_t type)
{
	snprintf(t_path, sizeof (t_path), "/tmp/kdt-test-core-XXXXXX");
	return kt_core_temp(t_path, sg, n, type, KT_CORE_NOTE);
}

/* Low memory: pseudo-random noise, with a stale region copy if given. */
static uint8_t *
t_lowmem(const uint8_t *stale)
{
	uint8_t *m = malloc(T_LOW);
	uint32_t i, x = 12345;

	for (i = 0; i < T_LOW; i++) {
		x = x * 1103515245 + 12345;
		m[i] = (uint8_t)(x >> 16);
	}
	if (stale != NULL)
		memcpy(m + T_STALE, stale, T_RSIZE);
	return m;
}

/* A dump with low memory (stale copy inside) and the region + 64K. */
static const char *
t_good_core(void)
{
	uint8_t *rg = t_region(42), *low = t_lowmem(rg);
	uint8_t *hi = calloc(1, T_RSIZE * 2);
	struct kt_seg sg[2] = { { 0, T_LOW, low }, { T_RPHYS, T_RSIZE * 2,
	    hi } };
	const char *path;

	memcpy(hi, rg, T_RSIZE);
	memset(hi + T_RSIZE, 0x5a, T_RSIZE);
	path = t_write_core(sg, 2, ET_CORE);
	free(rg);
	free(low);
	free(hi);
	return path;
}

/* Run kdt-extract with up to 4 arguments; collect out and err. */
static int
t_run(char *out, char *err, const char *a1, const char *a2, const char *a3,
    const char *a4)
{
	char *argv[6] = { "kdt-extract", (char *)a1, (char *)a2, (char *)a3,
	    (char *)a4, NULL };
	int argc = 1, rv;
	FILE *fo, *fe;

	memset(out, 0, 4096);
	memset(err, 0, 4096);
	fo = fmemopen(out, 4096, "w");
	fe = fmemopen(err, 4096, "w");

	while (argc < 5 && argv[argc] != NULL)
		argc++;
	rv = cd_extract_main(argc, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	return rv;
}

#define T_BEGIN_OUT \
	"CPU     ID                    FUNCTION:NAME\n" \
	"  1      1                           :BEGIN                42\n" \
	"\n"

START_TEST(test_finds_region_skips_stale_copy)
{
	const char *path = t_good_core();
	char out[4096], err[4096];

	ck_assert_int_eq(t_run(out, err, path, NULL, NULL, NULL), 0);
	ck_assert_str_eq(out, T_BEGIN_OUT);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(t_run(out, err, "-q", path, NULL, NULL), 0);
	ck_assert_str_eq(out, "42\n");
	ck_assert_int_eq(t_run(out, err, path, "--phys", "0x10000000", NULL),
	    0);
	ck_assert_str_eq(out, T_BEGIN_OUT);
	ck_assert_int_eq(t_run(out, err, path, "--phys", "0x40000", NULL), 1);
	ck_assert_ptr_nonnull(strstr(err, "found at phys 0x40000 (a stale copy?)"));
	unlink(path);
}
END_TEST

START_TEST(test_no_region)
{
	uint8_t *low = t_lowmem(NULL);
	struct kt_seg sg[1] = { { 0, T_LOW, low } };
	const char *path = t_write_core(sg, 1, ET_CORE);
	char out[4096], err[4096], want[512];

	ck_assert_int_eq(t_run(out, err, path, NULL, NULL, NULL), 1);
	snprintf(want, sizeof (want), "kdt-extract: %s: no kdt region found in 1 MiB of physical memory (was the kernel booted with memmap=... and kdt.region=...?); see kdt-extract(1), DIAGNOSTICS\n",
	    path);
	ck_assert_str_eq(err, want);
	ck_assert_str_eq(out, "");
	unlink(path);
	free(low);
}
END_TEST

START_TEST(test_dump_cut_in_region)
{
	const char *path = t_good_core();
	char out[4096], err[4096];
	off_t keep;

	/* ehdr + 3 phdrs + note + low memory + half the region */
	keep = sizeof (Elf64_Ehdr) + 3 * sizeof (Elf64_Phdr) + 64 + T_LOW +
	    T_RSIZE / 2;
	ck_assert_int_eq(truncate(path, keep), 0);
	/* past the metadata: both CPUs' buffers are cut, each is named */
	ck_assert_int_eq(t_run(out, err, path, NULL, NULL, NULL), 3);
	ck_assert_msg(strstr(err, "region at phys 0x10000000: CPU 0's buffer: bytes 0x8000-0x9000 not in the dump (truncated at phys 0x10008000: the dump ends there); its records are left out\n") != NULL,
	    "%s", err);
	ck_assert_msg(strstr(err, "CPU 1's buffer: bytes 0x9000-0x10000 not in the dump (truncated at phys 0x10008000: the dump ends there)") != NULL,
	    "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "partial: 2 parts of the region not in the dump (above) left out"));
	ck_assert_str_eq(out, "\n");
	/* in the metadata: nothing can be decoded (test_extract_gaps.c) */
	ck_assert_int_eq(truncate(path, keep - T_RSIZE / 2 + 0x1100), 0);
	ck_assert_int_eq(t_run(out, err, path, NULL, NULL, NULL), 1);
	ck_assert_ptr_nonnull(strstr(err, "region at phys 0x10000000-0x10010000 is cut off: the dump ends at phys 0x10001100"));
	ck_assert_str_eq(out, "");
	unlink(path);
}
END_TEST

/*
 * Cut in the program header table, and before the region (in low
 * memory, below the stale copy): each says the dump is truncated and
 * where (tst.extract-truncated does the same on a real QEMU dump).
 */
START_TEST(test_dump_cut_in_phdrs_and_before_region)
{
	const char *path = t_good_core();
	char out[4096], err[4096], want[512];
	off_t keep = sizeof (Elf64_Ehdr) + sizeof (Elf64_Phdr) + 20;

	ck_assert_int_eq(truncate(path, keep), 0);
	ck_assert_int_eq(t_run(out, err, path, NULL, NULL, NULL), 1);
	snprintf(want, sizeof (want), "kdt-extract: %s: truncated program header table: 3 headers of 56 bytes at file offset 0x40 end at 0xe8, past the end of the file (%lld bytes)\n",
	    path, (long long)keep);
	ck_assert_str_eq(err, want);
	ck_assert_str_eq(out, "");
	unlink(path);

	path = t_good_core();
	keep = sizeof (Elf64_Ehdr) + 3 * sizeof (Elf64_Phdr) + 64 + 0x20000;
	ck_assert_int_eq(truncate(path, keep), 0);
	ck_assert_int_eq(t_run(out, err, path, NULL, NULL, NULL), 1);
	ck_assert_msg(strstr(err, "no kdt region found in 0 MiB of physical memory, and the dump is truncated: it ends at phys 0x20000, short of what its headers describe") != NULL,
	    "%s", err);
	ck_assert_int_eq(t_run(out, err, path, "--phys", "0x10000000", NULL),
	    1);
	ck_assert_msg(strstr(err, "no region header at phys 0x10000000: phys 0x10000000 is not in the dump, which is truncated: it ends at phys 0x20000") != NULL,
	    "%s", err);
	ck_assert_str_eq(out, "");
	unlink(path);
}
END_TEST

START_TEST(test_not_elf_and_truncated_header)
{
	char out[4096], err[4096], want[512];
	FILE *f;
	int fd;

	snprintf(t_path, sizeof (t_path), "/tmp/kdt-test-core-XXXXXX");
	fd = mkstemp(t_path);
	f = fdopen(fd, "w");
	fputs("hello world, not a dump", f);
	fclose(f);
	ck_assert_int_eq(t_run(out, err, t_path, NULL, NULL, NULL), 1);
	snprintf(want, sizeof (want), "kdt-extract: %s: not an ELF core dump, kdump-compressed dump or kdt region image (first bytes 0x68656c6c6f20776f); supported: ELF vmcore",
	    t_path);
	ck_assert_ptr_nonnull(strstr(err, want));
	ck_assert_ptr_nonnull(strstr(err, "kdump-compressed (makedumpfile"));
	ck_assert_ptr_nonnull(strstr(err, "raw kdt region image"));
	f = fopen(t_path, "w");
	fwrite("\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\4\0", 1, 18, f);
	fclose(f);
	ck_assert_int_eq(t_run(out, err, t_path, NULL, NULL, NULL), 1);
	ck_assert_ptr_nonnull(strstr(err, "truncated ELF header: the file is 18 bytes, an ELF64 header needs 64"));
	unlink(t_path);
	ck_assert_int_eq(t_run(out, err, t_path, NULL, NULL, NULL), 1);
	ck_assert_ptr_nonnull(strstr(err, "cannot open: No such file"));
}
END_TEST

START_TEST(test_elf_not_core_and_usage)
{
	uint8_t *low = t_lowmem(NULL);
	struct kt_seg sg[1] = { { 0, 4096, low } };
	const char *path = t_write_core(sg, 1, ET_EXEC);
	char out[4096], err[4096];

	ck_assert_int_eq(t_run(out, err, path, NULL, NULL, NULL), 1);
	ck_assert_ptr_nonnull(strstr(err, "ELF file of type 2 is not a core dump"));
	unlink(path);
	free(low);
	ck_assert_int_eq(t_run(out, err, NULL, NULL, NULL, NULL), 2);
	ck_assert_ptr_nonnull(strstr(err, "usage: kdt-extract DUMP"));
	ck_assert_int_eq(t_run(out, err, "-h", NULL, NULL, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: kdt-extract DUMP"));
	ck_assert_int_eq(t_run(out, err, "x", "--phys", "0x123", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err, "--phys 0x123: not a page-aligned"));
	ck_assert_int_eq(t_run(out, err, "x", "-z", NULL, NULL), 2);
	ck_assert_ptr_nonnull(strstr(err, "unknown option -z"));
}
END_TEST

static Suite *
extract_suite(void)
{
	Suite *s = suite_create("extract");
	TCase *tc = tcase_create("elf");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_finds_region_skips_stale_copy);
	tcase_add_test(tc, test_no_region);
	tcase_add_test(tc, test_dump_cut_in_region);
	tcase_add_test(tc, test_dump_cut_in_phdrs_and_before_region);
	tcase_add_test(tc, test_not_elf_and_truncated_header);
	tcase_add_test(tc, test_elf_not_core_and_usage);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(extract_suite)
