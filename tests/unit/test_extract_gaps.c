/*
 * test_extract_gaps.c -- kdt-extract on a region the dump holds only in
 * part (rgn.h, struct rgn_gap; crashdump/cd_scan.c, cd_read_gaps): the
 * header, metadata and DOF must be whole, a CPU buffer or optional area
 * that is cut or missing is reported with its byte range and why, and
 * everything else is printed with exit status 3 (partial).
 *
 * Each test builds a real 2-CPU region (kt_region.h: rgn_write.c's
 * bytes) with one BEGIN record per CPU -- 7 on CPU 0, 42 on CPU 1 --
 * and a synthetic ELF core around it (kt_core.h), then takes pages away:
 * a file cut inside CPU 1's buffer, CPU 0's pages left out of the
 * PT_LOADs (as makedumpfile's exclusion does), a cut inside the
 * metadata (still refused, with the old message), a raw image cut short,
 * a live session's page-listed region whose CPU 1 pages are not in the
 * dump (through kdt-extract and through the crash(8) extension's
 * readmem() source, mdb_main()); and rgn_open_gaps() directly for the rules (a gap over the header is
 * refused, one over a CPU is left out and rgn_walk_cpu says so).
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "kt_check.h"
#include "kt_core.h"
#include "kt_region.h"
#include "crashdump/cd.h"
#include "mdb-module/mdb.h"
#include "kt_extract.h"
#include "kdt_env.h"	/* kenv_crc32: resealing the header */

#define T_RPHYS		0x10000000ULL

static char t_path[64];

/* The region with one record on each CPU. */
static uint8_t *
t_region(void)
{
	uint8_t *b = kt_region_new(T_RPHYS);

	kt_region_rec(b, 0, 1, 7);
	kt_region_rec(b, 1, 2, 42);
	return b;
}

static const struct rgn_hdr *
t_hdr(const uint8_t *b)
{
	return (const struct rgn_hdr *)b;
}

/* Region offset of CPU c's buffer header. */
static uint64_t
t_cpu_off(const uint8_t *b, uint32_t c)
{
	return t_hdr(b)->rh_cpu_off + (uint64_t)c * t_hdr(b)->rh_cpu_stride;
}

/* A core of sg[0..n) (a PT_NOTE first, as /proc/vmcore). */
static const char *
t_core(const struct kt_seg *sg, uint32_t n)
{
	snprintf(t_path, sizeof (t_path), "/tmp/kdt-test-gaps-XXXXXX");
	return kt_core_temp(t_path, sg, n, ET_CORE, KT_CORE_NOTE);
}

#define T_CPU0_OUT \
	"CPU     ID                    FUNCTION:NAME\n" \
	"  0      1                           :BEGIN                 7\n" \
	"\n"
#define T_CPU1_OUT \
	"CPU     ID                    FUNCTION:NAME\n" \
	"  1      1                           :BEGIN                42\n" \
	"\n"

/* The file ends half way into CPU 1's buffer: CPU 0 is printed. */
START_TEST(test_cut_in_cpu1)
{
	uint8_t *rg = t_region();
	struct kt_seg sg[1] = { { T_RPHYS, KT_RSIZE, rg } };
	uint64_t c1 = t_cpu_off(rg, 1), cut = c1 + 0x1000;
	const char *path = t_core(sg, 1);
	char out[4096], err[4096], want[512];

	ck_assert_uint_lt(cut, KT_RSIZE);
	ck_assert_int_eq(truncate(path, sizeof (Elf64_Ehdr) + 2 *
	    sizeof (Elf64_Phdr) + KT_CORE_NOTESZ + cut), 0);
	ck_assert_int_eq(kt_extract(out, err, path, NULL), 3);
	ck_assert_str_eq(out, T_CPU0_OUT);
	snprintf(want, sizeof (want), "kdt-extract: %s: region at phys 0x10000000: CPU 1's buffer: bytes 0x%llx-0x%llx not in the dump (truncated at phys 0x%llx: the dump ends there); its records are left out\n",
	    path, (unsigned long long)cut,
	    (unsigned long long)(c1 + t_hdr(rg)->rh_cpu_stride),
	    (unsigned long long)(T_RPHYS + cut));
	ck_assert_msg(strstr(err, want) != NULL, "%s", err);
	ck_assert_msg(strstr(err, "partial: 1 part of the region not in the dump (above) left out; everything else is printed\n") != NULL,
	    "%s", err);
	/* -q: only what the actions print, still partial */
	ck_assert_int_eq(kt_extract(out, err, "-q", path), 3);
	ck_assert_str_eq(out, "7\n");
	/* the export formats: CPU 0's record, CPU 1 reported, partial */
	ck_assert_int_eq(kt_extract(out, err, "--format=json", path), 3);
	ck_assert_msg(strstr(out, "\"cpu\":0") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "CPU 1's buffer is not whole") != NULL,
	    "%s", out);
	ck_assert_msg(strstr(err, "partial: 1 part of the region not in the dump (above) left out; everything else is exported\n") != NULL,
	    "%s", err);
	unlink(path);
	free(rg);
}
END_TEST

/* CPU 0's pages are not in the dump (two PT_LOADs around them). */
START_TEST(test_cpu0_excluded)
{
	uint8_t *rg = t_region();
	uint64_t c0 = t_cpu_off(rg, 0), c1 = t_cpu_off(rg, 1);
	struct kt_seg sg[2] = { { T_RPHYS, c0, rg },
	    { T_RPHYS + c1, KT_RSIZE - c1, rg + c1 } };
	const char *path = t_core(sg, 2);
	char out[4096], err[4096], want[512];

	ck_assert_int_eq(kt_extract(out, err, path, NULL), 3);
	ck_assert_str_eq(out, T_CPU1_OUT);
	snprintf(want, sizeof (want), "CPU 0's buffer: bytes 0x%llx-0x%llx not in the dump (not held by the dump); its records are left out\n",
	    (unsigned long long)c0, (unsigned long long)c1);
	ck_assert_msg(strstr(err, want) != NULL, "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "partial: 1 part of the region"));
	/* --merge leaves it out too */
	ck_assert_int_eq(kt_extract(out, err, path, "--merge"), 3);
	ck_assert_str_eq(out, T_CPU1_OUT);
	unlink(path);
	free(rg);
}
END_TEST

/* A cut in the metadata: nothing can be decoded, the old message. */
START_TEST(test_cut_in_meta_refused)
{
	uint8_t *rg = t_region();
	struct kt_seg sg[1] = { { T_RPHYS, KT_RSIZE, rg } };
	uint64_t cut = t_hdr(rg)->rh_meta_off + 0x100;
	const char *path = t_core(sg, 1);
	char out[4096], err[4096];

	ck_assert_int_eq(truncate(path, sizeof (Elf64_Ehdr) + 2 *
	    sizeof (Elf64_Phdr) + KT_CORE_NOTESZ + cut), 0);
	ck_assert_int_eq(kt_extract(out, err, path, NULL), 1);
	ck_assert_msg(strstr(err, "region at phys 0x10000000-0x10010000 is cut off: the dump ends at phys 0x") != NULL,
	    "%s", err);
	ck_assert_str_eq(out, "");
	unlink(path);
	free(rg);
}
END_TEST

/* The first "len" bytes of the image "rg" as a file: its path (t_path). */
static const char *
t_raw_file(const uint8_t *rg, uint64_t len)
{
	FILE *f;
	int fd;

	snprintf(t_path, sizeof (t_path), "/tmp/kdt-test-gaps-XXXXXX");
	fd = mkstemp(t_path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(rg, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	return t_path;
}

/* A raw image cut inside CPU 1's buffer: CPU 0 is printed. */
START_TEST(test_raw_image_cut)
{
	uint8_t *rg = t_region();
	uint64_t c1 = t_cpu_off(rg, 1);
	char out[4096], err[4096], want[512];

	ck_assert_int_eq(kt_extract(out, err, t_raw_file(rg, c1 + 0x800),
	    NULL), 3);
	ck_assert_str_eq(out, T_CPU0_OUT);
	ck_assert_msg(strstr(err, "raw region image is truncated: its header says 65536 bytes, the file has") != NULL,
	    "%s", err);
	snprintf(want, sizeof (want), "CPU 1's buffer: bytes 0x%llx-0x%llx not in the dump (beyond the end of the image (file truncated?))",
	    (unsigned long long)c1, (unsigned long long)KT_RSIZE);
	ck_assert_msg(strstr(err, want) != NULL, "%s", err);
	unlink(t_path);
	free(rg);
}
END_TEST

/*
 * A raw image whose header claims 8 GiB (its CRC resealed: a damaged or
 * hostile file), cut inside CPU 1's buffer: what the file holds is
 * printed, and what the header claims beyond it costs neither memory
 * nor time (it was an 8 GiB malloc and memset: fuzz_dump's
 * out-of-memory finding).
 */
START_TEST(test_raw_image_claims_gigabytes)
{
	uint8_t *rg = t_region();
	struct rgn_hdr *h = (struct rgn_hdr *)rg;
	uint64_t c1 = t_cpu_off(rg, 1);
	char out[4096], err[4096];
	struct rusage r0, r1;
	const char *path;

	h->rh_size = 8ULL << 30;
	h->rh_crc = 0;	/* rgn.h: the CRC is taken with rh_crc 0 */
	h->rh_crc = kenv_crc32(rg, h->rh_hdrsize);
	path = t_raw_file(rg, c1 + 0x800);
	ck_assert_int_eq(getrusage(RUSAGE_SELF, &r0), 0);
	ck_assert_int_eq(kt_extract(out, err, path, NULL), 3);
	ck_assert_int_eq(getrusage(RUSAGE_SELF, &r1), 0);
	ck_assert_str_eq(out, T_CPU0_OUT);
	ck_assert_msg(strstr(err, "raw region image is truncated: its header says 8589934592 bytes, the file has") != NULL,
	    "%s", err);
	/* ru_maxrss is in KiB: the image's pages the file did not fill stay unmapped */
	ck_assert_msg(r1.ru_maxrss - r0.ru_maxrss < 64 * 1024,
	    "peak RSS grew by %ld KiB", r1.ru_maxrss - r0.ru_maxrss);
	unlink(t_path);
	free(rg);
}
END_TEST

static int
t_on_rec(void *arg, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff)
{
	(void)cpu, (void)rec, (void)payload, (void)loff;
	(*(int *)arg)++;
	return 0;
}

static int
t_on_bad(void *arg, uint32_t cpu, uint64_t loff, const char *what)
{
	(void)arg, (void)cpu, (void)loff, (void)what;
	return 0;
}

/* rgn_open_gaps()'s rules, on the image itself. */
START_TEST(test_open_gaps_rules)
{
	uint8_t *rg = t_region();
	uint64_t c0 = t_cpu_off(rg, 0);
	struct rgn_gap hdr = { 0x100, 0x10, "gone" };
	struct rgn_gap cpu = { c0 + 0x2000, 0x1000, "excluded" };
	struct rgn_view v;
	struct kdt_err ke;
	struct rgn_gap g;
	int n = 0;
	struct rgn_walk_cb cb = { t_on_rec, t_on_bad, &n };

	ck_assert_int_eq(rgn_open_gaps(&v, rg, KT_RSIZE, T_RPHYS, &hdr, 1,
	    &ke), -ENODATA);
	ck_assert_str_eq(ke.ke_tag, "RGN_GAP");
	ck_assert_str_eq(ke.ke_msg, "region header page: bytes 0x100-0x110 are not in the image (gone): without them nothing can be decoded");
	/* CPU 0's header zeroed, as a reader leaves a page it lacks */
	memset(rg + c0, 0, 64);
	ck_assert_int_ne(rgn_open(&v, rg, KT_RSIZE, T_RPHYS, &ke), 0);
	ck_assert_str_eq(ke.ke_tag, "RGN_CPUHDR");
	cpu.rg_off = c0;
	ck_assert_int_eq(rgn_open_gaps(&v, rg, KT_RSIZE, T_RPHYS, &cpu, 1,
	    &ke), 0);
	ck_assert_int_eq(rgn_view_gap_cpu(&v, 0, &g), 1);
	ck_assert_uint_eq(g.rg_off, c0);
	ck_assert_uint_eq(g.rg_len, 0x1000);
	ck_assert_str_eq(g.rg_why, "excluded");
	ck_assert_int_eq(rgn_view_gap_cpu(&v, 1, &g), 0);
	ck_assert_int_lt(rgn_walk_cpu(&v, 0, &cb, &ke), 0);
	ck_assert_str_eq(ke.ke_msg, "CPU 0's buffer is not whole in the image: left out");
	ck_assert_int_eq(rgn_walk_cpu(&v, 1, &cb, &ke), 0);
	ck_assert_int_eq(n, 1);
	free(rg);
}
END_TEST

/* ---- a live session's region: pages named by its page list ---- */

#define T_MEM		(2u << 20)
#define T_BASE		100	/* region page i at pfn T_BASE + i */
#define T_TBL		300	/* the table page */

/* 2 MiB of memory with the page-listed region; *c1 is CPU 1's offset. */
static uint8_t *
t_live_mem(uint64_t *c1)
{
	uint8_t *mem = calloc(1, T_MEM), *img = kt_region_new(0);
	uint64_t tbl[RGN_PAGE / 8], tblpfn = T_TBL, i;
	struct kdt_err ke;

	memset(tbl, 0, sizeof (tbl));
	kt_region_rec(img, 0, 1, 7);
	kt_region_rec(img, 1, 2, 42);
	for (i = 0; i < KT_RSIZE / RGN_PAGE; i++)
		tbl[i] = T_BASE + i;
	ck_assert_int_eq(rgn_pagelist_init(img, tbl, 0, &tblpfn, 1, &ke), 0);
	memcpy(mem + T_BASE * RGN_PAGE, img, KT_RSIZE);
	memcpy(mem + T_TBL * RGN_PAGE, tbl, RGN_PAGE);
	*c1 = t_cpu_off(img, 1);
	free(img);
	return mem;
}

/* readmem() of the fake crash(8): -ENXIO outside the spans given. */
static const struct mdb_span *t_spans;

static int
t_crash_read(void *arg, uint64_t pa, void *buf, uint64_t n)
{
	uint32_t i;

	for (i = 0; i < 2; i++)
		if (pa >= t_spans[i].ms_pa &&
		    pa + n <= t_spans[i].ms_pa + t_spans[i].ms_size) {
			memcpy(buf, (uint8_t *)arg + pa, n);
			return 0;
		}
	return -ENXIO;
}

START_TEST(test_live_region_page_missing)
{
	uint64_t c1, hole;
	uint8_t *mem = t_live_mem(&c1);
	struct kt_seg sg[2];
	struct mdb_span sp[2];
	struct mdb_dbg md = { "dump", t_crash_read, NULL, sp, 2 };
	char out[4096], err[4096], want[512], *argv[2] = { "kdt", "-q" };
	const char *path;
	FILE *fo, *fe;

	/* the dump lacks CPU 1's pages: [hole, end of the region) */
	hole = T_BASE * RGN_PAGE + c1;
	sg[0].ks_pa = 0;
	sg[0].ks_size = hole;
	sg[0].ks_data = mem;
	sg[1].ks_pa = (T_BASE * RGN_PAGE) + KT_RSIZE;
	sg[1].ks_size = T_MEM - sg[1].ks_pa;
	sg[1].ks_data = mem + sg[1].ks_pa;
	path = t_core(sg, 2);
	ck_assert_int_eq(kt_extract(out, err, "-q", path), 3);
	ck_assert_str_eq(out, "7\n");
	snprintf(want, sizeof (want), "kdt-extract: %s: region at phys 0x64000: CPU 1's buffer: bytes 0x%llx-0x%llx not in the dump (not held by the dump); its records are left out\n",
	    path, (unsigned long long)c1, (unsigned long long)KT_RSIZE);
	ck_assert_msg(strstr(err, want) != NULL, "%s", err);
	unlink(path);

	/* the crash(8) extension reads through the same code */
	sp[0].ms_pa = 0;
	sp[0].ms_size = hole;
	sp[1].ms_pa = sg[1].ks_pa;
	sp[1].ms_size = sg[1].ks_size;
	t_spans = sp;
	md.md_arg = mem;
	memset(out, 0, sizeof (out));
	memset(err, 0, sizeof (err));
	fo = fmemopen(out, sizeof (out), "w");
	fe = fmemopen(err, sizeof (err), "w");
	ck_assert_int_eq(mdb_main(2, argv, "kdt", &md, fo, fe), 3);
	fclose(fo);
	fclose(fe);
	ck_assert_str_eq(out, "7\n");
	snprintf(want, sizeof (want), "CPU 1's buffer: bytes 0x%llx-0x%llx not in the dump (",
	    (unsigned long long)c1, (unsigned long long)KT_RSIZE);
	ck_assert_msg(strstr(err, want) != NULL, "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "partial: 1 part of the region"));
	free(mem);
}
END_TEST

/*
 * The optional areas: a gap in the aggregation buffers, or in the
 * speculation or variable area, leaves that part out (the readers see
 * no such area) and rgn_view_gap_area() names it with the missing bytes.
 */
START_TEST(test_open_gaps_areas)
{
	static struct kt_dofimg dof;
	struct rgn_params p;
	struct rgn_view v;
	struct kdt_err ke;
	struct rgn_gap gap, g;
	const struct rgn_meta *m;
	const char *name;
	uint64_t size, len, dvoff, dvlen;
	uint8_t *b;

	kt_dof(&dof);
	memset(&p, 0, sizeof (p));
	p.rp_phys = RGN_PHYS_ANY;
	p.rp_ncpu = 2;
	p.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	p.rp_probe_cap = 4;
	p.rp_epid_cap = 4;
	p.rp_aggsize = 2 * RGN_PAGE;
	p.rp_specarea = 2 * RGN_PAGE;
	p.rp_vararea = 2 * RGN_PAGE;
	p.rp_dof = &dof;
	p.rp_dofsz = sizeof (dof);
	p.rp_release = "6.1.0-kt-test";
	size = rgn_size_for(&p, 2 * RGN_PAGE);
	b = calloc(1, size);
	p.rp_phys = 0x10000000;
	ck_assert_int_eq(rgn_init(b, size, &p, &ke), 0);
	ck_assert_int_eq(rgn_open(&v, b, size, RGN_PHYS_ANY, &ke), 0);
	m = v.rv_meta;
	ck_assert_uint_ne(m->rm_agg_off, 0);
	ck_assert_uint_ne(m->rm_spec_off, 0);
	ck_assert_uint_ne(m->rm_gvar_off, 0);
	ck_assert_ptr_nonnull(rgn_view_agg(&v, 0, &len));
	ck_assert_ptr_nonnull(rgn_view_spec(&v, &len));

	/* CPU 1's aggregation buffer is missing */
	ck_assert_ptr_nonnull(rgn_view_agg(&v, 1, &len));
	gap.rg_off = m->rm_agg_off + len;
	gap.rg_len = RGN_PAGE;
	gap.rg_why = "excluded";
	ck_assert_int_eq(rgn_open_gaps(&v, b, size, RGN_PHYS_ANY, &gap, 1,
	    &ke), 0);
	ck_assert_ptr_null(rgn_view_agg(&v, 0, &len));
	ck_assert_uint_eq(rgn_view_nagg(&v), 0);
	ck_assert_ptr_nonnull(rgn_view_spec(&v, &len));
	ck_assert_int_eq(rgn_view_gap_area(&v, RGN_PART_AGGS, &name, &g), 1);
	ck_assert_str_eq(name, "aggregation buffers");
	ck_assert_uint_eq(g.rg_off, gap.rg_off);
	ck_assert_uint_eq(g.rg_len, RGN_PAGE);
	ck_assert_int_eq(rgn_view_gap_area(&v, RGN_PART_SPEC, &name, &g), 0);
	ck_assert_int_eq(rgn_view_gap_cpu(&v, 0, &g), 0);

	/* the variable area is missing: it and the speculations go */
	gap.rg_off = m->rm_gvar_off;
	ck_assert_int_eq(rgn_open_gaps(&v, b, size, RGN_PHYS_ANY, &gap, 1,
	    &ke), 0);
	ck_assert_ptr_nonnull(rgn_view_agg(&v, 0, &len));
	ck_assert_ptr_null(rgn_view_vars(&v, &len, &dvoff, &dvlen));
	ck_assert_ptr_null(rgn_view_spec(&v, &len));
	ck_assert_int_eq(rgn_view_gap_area(&v, RGN_PART_VARS, &name, &g), 1);
	ck_assert_str_eq(name, "variable area");
	ck_assert_int_eq(rgn_view_gap_area(&v, RGN_PART_SPEC, &name, &g), 0);

	/* the metadata is missing: refused */
	gap.rg_off = v.rv_hdr->rh_meta_off;
	ck_assert_int_eq(rgn_open_gaps(&v, b, size, RGN_PHYS_ANY, &gap, 1,
	    &ke), -ENODATA);
	ck_assert_msg(strstr(ke.ke_msg, "region metadata: bytes 0x") != NULL,
	    "%s", ke.ke_msg);
	free(b);
}
END_TEST

static Suite *
gaps_suite(void)
{
	Suite *s = suite_create("extract_gaps");
	TCase *tc = tcase_create("gaps");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_cut_in_cpu1);
	tcase_add_test(tc, test_cpu0_excluded);
	tcase_add_test(tc, test_cut_in_meta_refused);
	tcase_add_test(tc, test_raw_image_claims_gigabytes);
	tcase_add_test(tc, test_raw_image_cut);
	tcase_add_test(tc, test_open_gaps_rules);
	tcase_add_test(tc, test_live_region_page_missing);
	tcase_add_test(tc, test_open_gaps_areas);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(gaps_suite)
