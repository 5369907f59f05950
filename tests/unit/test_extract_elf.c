/*
 * test_extract_elf.c -- unit tests of the ELF memory source
 * (crashdump/cd_elf.c) on the layout "makedumpfile -E -d 31" writes from
 * a capture kernel's /proc/vmcore, as seen in tst.extract-kdump-elf:
 *
 *   - a PT_NOTE, then PT_LOADs for the kernel image (p_vaddr in the
 *     kernel text mapping, p_paddr where it was loaded) before the
 *     PT_LOADs of System RAM (p_vaddr in the direct map), which describe
 *     the kernel image's physical pages a second time
 *   - PT_LOADs cut short by excluded pages (p_filesz < p_memsz) and
 *     followed by a new PT_LOAD where kept pages resume; a PT_LOAD of
 *     excluded pages only (p_filesz 0, p_offset 0)
 *
 * A real region (kt_region.h) sits in physical memory that two PT_LOADs
 * describe.  kdt-extract must print it once, as from any dump (a region
 * found twice in the same memory was printed twice, labelled "region 1
 * of 2" and "region 2 of 2"); reads across the place where a range was
 * trimmed must return the memory; an address past p_filesz, or in the
 * PT_LOAD of excluded pages only, is not held (-ENXIO at that address),
 * never zeros, and the source says why (cs_hole).  The same file as a
 * flattened stream (makedumpfile -F -E) reads the same.  The files are
 * written at run time (no binary fixture).
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "kt_region.h"
#include "crashdump/cd.h"
#include "kt_extract.h"
#include "kt_core.h"

#define T_MEM		(2u << 20)		/* "physical memory" at 0 */
#define T_RPHYS		0x100000ULL		/* the region */
#define T_KTEXT		0xffffffff81000000ULL	/* kernel text mapping */
#define T_DMAP		0xff11000000000000ULL	/* direct map */

/* One PT_LOAD: p_filesz bytes of memory at p_paddr, p_memsz described. */
struct t_load {
	uint64_t	tl_vaddr;
	uint64_t	tl_paddr;
	uint64_t	tl_filesz;
	uint64_t	tl_memsz;
};

/*
 * -E's shape (the file comment).  Kept memory: 0x1000-0x9f000,
 * 0xa0000-0x120000 (the region inside), 0x180000-0x1e0000.  The kernel
 * image loads: 0xc0000-0x120000 (inside the direct map's, cut short at
 * the same page), and 0x1c0000-0x1e0000 (past the direct map's
 * 0x180000-0x1d0000: trimmed to 0x1d0000-0x1e0000).  Excluded:
 * 0x9f000-0x9fc00, 0x120000-0x140000, 0x140000-0x180000 (a PT_LOAD of
 * its own), 0x1d0000-0x1e0000 in the direct map's view only.
 */
static const struct t_load t_loads[] = {
	{ T_KTEXT, 0xc0000, 0x60000, 0x80000 },
	{ T_KTEXT + 0x100000, 0x1c0000, 0x20000, 0x20000 },
	{ T_DMAP + 0x1000, 0x1000, 0x9e000, 0x9ec00 },
	{ T_DMAP + 0xa0000, 0xa0000, 0x80000, 0xa0000 },
	{ T_DMAP + 0x140000, 0x140000, 0, 0x40000 },
	{ T_DMAP + 0x180000, 0x180000, 0x50000, 0x60000 },
};
#define T_NLOADS	(sizeof (t_loads) / sizeof (t_loads[0]))

static char t_path[64];

/* Noise, with the region (one BEGIN record, 42) at T_RPHYS. */
static uint8_t *
t_mem(void)
{
	uint8_t *m = malloc(T_MEM), *rg = kt_region_new(T_RPHYS);
	uint32_t i, x = 4242;

	ck_assert_ptr_nonnull(m);
	for (i = 0; i < T_MEM; i++) {
		x = x * 1103515245 + 12345;
		m[i] = (uint8_t)(x >> 16);
	}
	kt_region_rec(rg, 1, 1, 42);
	memcpy(m + T_RPHYS, rg, KT_RSIZE);
	free(rg);
	return m;
}

/* The ELF core of t_loads over mem, as a temporary file; its path. */
static const char *
t_write(const uint8_t *mem)
{
	static const uint8_t note[64];
	uint64_t off = sizeof (Elf64_Ehdr) + (T_NLOADS + 1) *
	    sizeof (Elf64_Phdr);
	Elf64_Phdr ph;
	uint32_t i;
	FILE *f;
	int fd;

	snprintf(t_path, sizeof (t_path), "/tmp/kdt-test-elfE-XXXXXX");
	fd = mkstemp(t_path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	kt_core_ehdr(f, ET_CORE, T_NLOADS + 1);
	memset(&ph, 0, sizeof (ph));
	ph.p_type = PT_NOTE;
	ph.p_offset = off;
	ph.p_filesz = ph.p_memsz = sizeof (note);
	ck_assert_uint_eq(fwrite(&ph, sizeof (ph), 1, f), 1);
	off += sizeof (note);
	for (i = 0; i < T_NLOADS; i++) {
		memset(&ph, 0, sizeof (ph));
		ph.p_type = PT_LOAD;
		ph.p_flags = PF_R | PF_W | PF_X;
		/* makedumpfile: no file bytes, offset 0 */
		ph.p_offset = t_loads[i].tl_filesz != 0 ? off : 0;
		ph.p_vaddr = t_loads[i].tl_vaddr;
		ph.p_paddr = t_loads[i].tl_paddr;
		ph.p_filesz = t_loads[i].tl_filesz;
		ph.p_memsz = t_loads[i].tl_memsz;
		ck_assert_uint_eq(fwrite(&ph, sizeof (ph), 1, f), 1);
		off += t_loads[i].tl_filesz;
	}
	ck_assert_uint_eq(fwrite(note, 1, sizeof (note), f), sizeof (note));
	for (i = 0; i < T_NLOADS; i++)
		ck_assert_uint_eq(fwrite(mem + t_loads[i].tl_paddr, 1,
		    t_loads[i].tl_filesz, f), t_loads[i].tl_filesz);
	ck_assert_int_eq(fclose(f), 0);
	return t_path;
}

START_TEST(test_region_in_two_loads_is_printed_once)
{
	uint8_t *mem = t_mem();
	const char *path = t_write(mem);
	char out[4096], err[4096];

	ck_assert_int_eq(kt_extract(out, err, path, NULL), 0);
	ck_assert_str_eq(out,
	    "CPU     ID                    FUNCTION:NAME\n"
	    "  1      1                           :BEGIN                42\n"
	    "\n");
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(kt_extract(out, err, "-q", path), 0);
	ck_assert_str_eq(out, "42\n");
	unlink(path);
	free(mem);
}
END_TEST

START_TEST(test_ranges_hold_each_byte_once)
{
	static const uint64_t want[][2] = {	/* [pa, end) */
		{ 0x1000, 0x9f000 }, { 0xa0000, 0x120000 },
		{ 0x180000, 0x1d0000 }, { 0x1d0000, 0x1e0000 },
	};
	uint8_t *mem = t_mem(), *buf = malloc(0x20000);
	const char *path = t_write(mem);
	struct cd_src *s;
	uint64_t miss;
	uint32_t i;

	ck_assert_int_eq(cd_open(path, "test", &s, stderr), 0);
	ck_assert_str_eq(s->cs_format, "ELF vmcore");
	ck_assert_uint_eq(s->cs_nranges, 4);
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(s->cs_ranges[i].cr_pa, want[i][0]);
		ck_assert_uint_eq(s->cs_ranges[i].cr_pa +
		    s->cs_ranges[i].cr_size, want[i][1]);
	}
	ck_assert_uint_eq(s->cs_total, 0x9e000 + 0x80000 + 0x60000);
	/* the region, and across the place a range was trimmed */
	ck_assert_int_eq(cd_read_phys(s, T_RPHYS, buf, KT_RSIZE, &miss), 0);
	ck_assert_mem_eq(buf, mem + T_RPHYS, KT_RSIZE);
	ck_assert_int_eq(cd_read_phys(s, 0x1c8000, buf, 0x10000, &miss), 0);
	ck_assert_mem_eq(buf, mem + 0x1c8000, 0x10000);
	ck_assert_int_eq(cd_read_phys(s, 0x11f000, buf, 0x1000, &miss), 0);
	ck_assert_mem_eq(buf, mem + 0x11f000, 0x1000);
	/* excluded: past p_filesz, and a PT_LOAD of excluded pages only */
	ck_assert_int_eq(cd_read_phys(s, 0x11f000, buf, 0x2000, &miss),
	    -ENXIO);
	ck_assert_uint_eq(miss, 0x120000);
	ck_assert_int_eq(cd_read_phys(s, 0x150000, buf, 0x1000, &miss),
	    -ENXIO);
	ck_assert_uint_eq(miss, 0x150000);
	ck_assert_int_eq(cd_read_phys(s, 0x9f000, buf, 0x10, &miss), -ENXIO);
	ck_assert_ptr_nonnull(s->cs_hole);
	ck_assert_ptr_nonnull(strstr(s->cs_hole, "makedumpfile -d"));
	ck_assert_uint_eq(cd_hole_end(s, 0x120000), 0x180000);
	cd_close(s);
	unlink(path);
	free(buf);
	free(mem);
}
END_TEST

/* The same memory without the kernel image's loads: the same answers. */
START_TEST(test_without_duplicates_unchanged)
{
	uint8_t *mem = t_mem(), *buf = malloc(0x1000);
	const char *path;
	struct cd_src *s;
	uint64_t miss;
	char out[4096], err[4096];
	struct kt_seg sg = { 0, T_MEM, NULL };

	/* a /proc/vmcore copy of one RAM range: nothing to merge */
	sg.ks_data = mem;
	snprintf(t_path, sizeof (t_path), "/tmp/kdt-test-elfE-XXXXXX");
	path = kt_core_temp(t_path, &sg, 1, ET_CORE, 0);
	ck_assert_int_eq(cd_open(path, "test", &s, stderr), 0);
	ck_assert_uint_eq(s->cs_nranges, 1);
	ck_assert_uint_eq(s->cs_total, T_MEM);
	ck_assert_ptr_null(s->cs_hole);	/* p_filesz == p_memsz: no -d */
	ck_assert_int_eq(cd_read_phys(s, T_MEM, buf, 1, &miss), -ENXIO);
	cd_close(s);
	ck_assert_int_eq(kt_extract(out, err, "-q", path), 0);
	ck_assert_str_eq(out, "42\n");
	unlink(path);
	free(buf);
	free(mem);
}
END_TEST

static void
t_be64(FILE *fp, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--)
		fputc((int)(v >> (8 * i)) & 0xff, fp);
}

/*
 * A new flattened stream: "path" holds a mkstemp() template
 * (".../NAME-XXXXXX") and gets the name made; the makedumpfile header
 * (4096 bytes: the signature, type 1 and version 1 big-endian at 16 and
 * 24, as cd_flat.c reads them) is written.  The records are the
 * caller's, then the end marker and fclose().
 */
static FILE *
t_flat_open(char *path)
{
	uint8_t hdr[4096] = "makedumpfile";
	int fd = mkstemp(path);
	FILE *fp;

	ck_assert_msg(fd >= 0, "mkstemp %s failed", path);
	fp = fdopen(fd, "w");
	ck_assert_ptr_nonnull(fp);
	hdr[23] = 1;
	hdr[31] = 1;
	ck_assert_uint_eq(fwrite(hdr, 1, sizeof (hdr), fp), sizeof (hdr));
	return fp;
}

/*
 * The -E file as makedumpfile -F -E (Debian's kdump-tools with -E)
 * writes it: a flattened stream of records, here the ELF header's last
 * (garbage at offset 0 first: cd_flat.c, the record written later wins)
 * and then 5000 bytes each, so headers and memory all come through the
 * index.
 * Returns the new path; cut != 0 leaves out the record at logical "cut".
 */
static const char *
t_flatten(const char *elf, char *path, size_t pathsz, uint64_t cut)
{
	uint8_t *b, junk[5000];
	uint64_t len, off, n;
	FILE *in, *fp;

	in = fopen(elf, "r");
	ck_assert_ptr_nonnull(in);
	fseek(in, 0, SEEK_END);
	len = (uint64_t)ftell(in);
	rewind(in);
	b = malloc(len);
	ck_assert_uint_eq(fread(b, 1, len, in), len);
	fclose(in);
	snprintf(path, pathsz, "/tmp/kdt-test-elfF-XXXXXX");
	fp = t_flat_open(path);
	memset(junk, 0xee, sizeof (junk));
	t_be64(fp, 0);
	t_be64(fp, sizeof (Elf64_Ehdr));
	fwrite(junk, 1, sizeof (Elf64_Ehdr), fp);
	for (off = sizeof (Elf64_Ehdr); off < len; off += n) {
		n = len - off < sizeof (junk) ? len - off : sizeof (junk);
		if (cut != 0 && off <= cut && cut < off + n)
			continue;
		t_be64(fp, off);
		t_be64(fp, n);
		fwrite(b + off, 1, n, fp);
	}
	t_be64(fp, 0);
	t_be64(fp, sizeof (Elf64_Ehdr));
	fwrite(b, 1, sizeof (Elf64_Ehdr), fp);
	t_be64(fp, (uint64_t)-1);
	t_be64(fp, 0);
	ck_assert_int_eq(fclose(fp), 0);
	free(b);
	return path;
}

START_TEST(test_flattened_elf)
{
	uint8_t *mem = t_mem(), *buf = malloc(0x20000);
	const char *elf = t_write(mem);
	char flat[64], out[4096], err[4096];
	struct cd_src *s;
	uint64_t miss;

	t_flatten(elf, flat, sizeof (flat), 0);
	ck_assert_int_eq(cd_open(flat, "test", &s, stderr), 0);
	ck_assert_str_eq(s->cs_format, "ELF vmcore (flattened)");
	ck_assert_uint_eq(s->cs_nranges, 4);
	ck_assert_uint_eq(s->cs_total, 0x9e000 + 0x80000 + 0x60000);
	ck_assert_int_eq(cd_read_phys(s, T_RPHYS, buf, KT_RSIZE, &miss), 0);
	ck_assert_mem_eq(buf, mem + T_RPHYS, KT_RSIZE);
	ck_assert_int_eq(cd_read_phys(s, 0x1c8000, buf, 0x10000, &miss), 0);
	ck_assert_mem_eq(buf, mem + 0x1c8000, 0x10000);
	ck_assert_int_eq(cd_read_phys(s, 0x150000, buf, 0x1000, &miss),
	    -ENXIO);
	cd_close(s);
	ck_assert_int_eq(kt_extract(out, err, "-q", flat), 0);
	ck_assert_str_eq(out, "42\n");
	ck_assert_str_eq(err, "");
	unlink(flat);
	/* the record holding the program headers left out: said, exit 1 */
	t_flatten(elf, flat, sizeof (flat), sizeof (Elf64_Ehdr));
	ck_assert_int_ne(kt_extract(out, err, "-q", flat), 0);
	ck_assert_ptr_nonnull(strstr(err, "flattened ELF vmcore: the program header table"));
	ck_assert_ptr_nonnull(strstr(err, flat));
	unlink(flat);
	unlink(elf);
	free(buf);
	free(mem);
}
END_TEST

/*
 * A flattened stream whose one PT_LOAD spans 2^44 logical bytes, all but
 * the last 8 in no record (a damaged stream; fuzz_dump): only what the
 * records hold is a range, so the region scan has 8 bytes to look at,
 * not 16 TiB (it walked them: 26 s, and days for 2^56).
 */
START_TEST(test_flattened_elf_sparse)
{
	uint8_t zero[8] = { 0 };
	uint64_t big = 1ULL << 44;
	char path[] = "/tmp/kdt-test-elfS-XXXXXX", out[4096], err[4096];
	struct cd_src *s;
	Elf64_Phdr ph;
	FILE *fp;

	memset(&ph, 0, sizeof (ph));
	ph.p_type = PT_LOAD;
	ph.p_offset = 0x1000;
	ph.p_filesz = ph.p_memsz = big;
	fp = t_flat_open(path);
	t_be64(fp, 0);
	t_be64(fp, sizeof (Elf64_Ehdr) + sizeof (ph));
	kt_core_ehdr(fp, ET_CORE, 1);
	fwrite(&ph, 1, sizeof (ph), fp);
	t_be64(fp, 0x1000 + big - 8);
	t_be64(fp, 8);
	fwrite(zero, 1, 8, fp);
	t_be64(fp, (uint64_t)-1);
	t_be64(fp, 0);
	ck_assert_int_eq(fclose(fp), 0);

	ck_assert_int_eq(cd_open(path, "test", &s, stderr), 0);
	ck_assert_uint_eq(s->cs_nranges, 1);
	ck_assert_uint_eq(s->cs_ranges[0].cr_pa, big - 8);
	ck_assert_uint_eq(s->cs_total, 8);
	cd_close(s);
	ck_assert_int_eq(kt_extract(out, err, "-q", path), 1);
	ck_assert_msg(strstr(err, "no kdt region found in 0 MiB of physical memory") != NULL, "%s", err);
	unlink(path);
}
END_TEST

static Suite *
extract_elf_suite(void)
{
	Suite *s = suite_create("extract_elf");
	TCase *tc = tcase_create("makedumpfile-E");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_region_in_two_loads_is_printed_once);
	tcase_add_test(tc, test_ranges_hold_each_byte_once);
	tcase_add_test(tc, test_without_duplicates_unchanged);
	tcase_add_test(tc, test_flattened_elf);
	tcase_add_test(tc, test_flattened_elf_sparse);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(extract_elf_suite)
