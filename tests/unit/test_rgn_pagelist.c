/*
 * test_rgn_pagelist.c -- unit tests of the page list (common/rgn.h, "Page
 * list"): a live session's vmalloc'd region, scattered over physical
 * memory, found and put back together from a synthetic dump.
 *
 * A region is made by the writer (kt_region.h, records on both CPUs),
 * given a page list with rgn_pagelist_init() as kdt.ko does, and its
 * pages are put at scattered frame numbers of a 2 MiB "physical memory"
 * full of noise: some runs of consecutive frames (read in one request),
 * the rest out of order.  rgn_pagelist_assemble() must give back the
 * exact image; kdt-extract (cd_extract_main(), on an ELF core of that
 * memory) must print its records, and label two live sessions in one
 * dump.  Corrupt lists -- an entry outside the dump, a page listed twice
 * (a loop), a stale table, a damaged descriptor, a newer version, entry 0
 * not where the header was found, a frame number beyond 2^40 -- must be
 * refused with the entry or field and the value.  Under the switch
 * policy the newer of a CPU's two buffers (region slot or spare) is the
 * one read.  The crash(8) extension (mdb_main() over a fake readmem)
 * follows the list the same way.  A region without a page list (every
 * region written before page lists) reads as before (test_extract.c and
 * test_mdb.c cover that path).
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "kt_core.h"
#include "kt_region.h"
#include "crashdump/cd.h"
#include "mdb-module/mdb.h"
#include "kt_extract.h"

#define T_MEM		(2u << 20)		/* "physical memory" */
#define T_NPFN		(T_MEM / RGN_PAGE)
#define T_RPAGES	(KT_RSIZE / RGN_PAGE)	/* 16 */

/* Where page i of a region goes: frame base + a scrambled order. */
static const uint32_t t_order[T_RPAGES] = {
	0, 9, 10, 11, 3, 15, 14, 2, 7, 1, 12, 13, 5, 4, 8, 6
};

struct t_live {
	uint8_t		*tl_img;	/* the region as the writer made it */
	uint64_t	tl_tbl[RGN_PL_PER_PAGE];	/* one table page */
	uint64_t	tl_tblpfn;
	uint64_t	tl_nspare;
	uint64_t	tl_pa;		/* page 0 */
};

static uint8_t *
t_noise(void)
{
	uint8_t *m = malloc(T_MEM);
	uint32_t i, x = 777;

	for (i = 0; i < T_MEM; i++) {
		x = x * 1103515245 + 12345;
		m[i] = (uint8_t)(x >> 16);
	}
	return m;
}

/*
 * A live region with frames from "base" (page i at base + 2 * t_order[i],
 * so runs are rare; "run" makes pages 1-3 consecutive frames) and its
 * table page at "tblpfn"; with "spare" the spare buffers follow at
 * base + 40 + i, and CPU 1's spare holds a newer record (43) than its
 * region slot (42).  Writes everything into mem.
 */
static void
t_live(struct t_live *tl, uint8_t *mem, uint64_t base, uint64_t tblpfn,
    int spare, int64_t val)
{
	struct rgn_hdr *h;
	struct rgn_cpu *rc;
	struct rgn_rec *rr;
	struct kdt_err ke;
	uint8_t *sp = NULL;
	uint64_t i, stride;
	int64_t v2 = val + 1;

	memset(tl, 0, sizeof (*tl));
	tl->tl_img = kt_region_new(0);
	kt_region_rec(tl->tl_img, 0, 1, val);
	kt_region_rec(tl->tl_img, 1, 2, val);
	h = (struct rgn_hdr *)tl->tl_img;
	ck_assert_uint_eq(h->rh_pl_off, 0);	/* as every old image */
	stride = h->rh_cpu_stride;
	for (i = 0; i < T_RPAGES; i++)
		tl->tl_tbl[i] = base + 2 * t_order[i];
	tl->tl_tbl[2] = tl->tl_tbl[1] + 1;	/* a run: pages 1-3 */
	tl->tl_tbl[3] = tl->tl_tbl[1] + 2;
	if (spare) {
		tl->tl_nspare = h->rh_ncpu * stride / RGN_PAGE;
		sp = calloc(1, h->rh_ncpu * stride);
		for (i = 0; i < h->rh_ncpu; i++)
			memcpy(sp + i * stride, rgn_cpu(tl->tl_img, i),
			    RGN_CPU_HDRSIZE);
		/* CPU 1 switched to its spare, which got one more record */
		rc = (struct rgn_cpu *)(sp + stride);
		rc->rc_head = rc->rc_reserve = rc->rc_tail =
		    rgn_cpu(tl->tl_img, 1)->rc_head;
		rr = rgn_reserve(rc, DTRACEOPT_BUFPOLICY_RING, 8);
		ck_assert_ptr_nonnull(rr);
		memcpy(rr + 1, &v2, 8);
		rgn_commit(rc, rr, 1, 3);
		for (i = 0; i < tl->tl_nspare; i++)
			tl->tl_tbl[T_RPAGES + i] = base + 40 + i;
	}
	tl->tl_tblpfn = tblpfn;
	ck_assert_int_eq(rgn_pagelist_tblpages(T_RPAGES, tl->tl_nspare, 192),
	    1);
	ck_assert_int_eq(rgn_pagelist_init(tl->tl_img, tl->tl_tbl,
	    tl->tl_nspare, &tl->tl_tblpfn, 1, &ke), 0);
	tl->tl_pa = tl->tl_tbl[0] * RGN_PAGE;
	ck_assert_uint_eq(h->rh_phys, tl->tl_pa);
	ck_assert_uint_eq(h->rh_pl_off, 192);
	for (i = 0; i < T_RPAGES; i++)
		memcpy(mem + tl->tl_tbl[i] * RGN_PAGE,
		    tl->tl_img + i * RGN_PAGE, RGN_PAGE);
	for (i = 0; i < tl->tl_nspare; i++)
		memcpy(mem + tl->tl_tbl[T_RPAGES + i] * RGN_PAGE,
		    sp + i * RGN_PAGE, RGN_PAGE);
	memcpy(mem + tblpfn * RGN_PAGE, tl->tl_tbl, RGN_PAGE);
	free(sp);
}

/* The reader over mem: -ENXIO past its end, as a dump hole. */
static int
t_rd(void *arg, uint64_t pa, void *buf, uint64_t n)
{
	if (pa >= T_MEM || n > T_MEM - pa)
		return -ENXIO;
	memcpy(buf, (uint8_t *)arg + pa, n);
	return 0;
}

/* Assemble the region whose page 0 is at pa in mem; its status. */
static int
t_assemble(uint8_t *mem, uint64_t pa, uint8_t *img, struct kdt_err *ke)
{
	memset(ke, 0, sizeof (*ke));
	return rgn_pagelist_assemble(mem + pa, pa, t_rd, mem, img, ke);
}

/* Recompute the table and descriptor CRCs after a deliberate change. */
static void
t_fix_crcs(uint8_t *mem, const struct t_live *tl)
{
	uint8_t *d = mem + tl->tl_pa + 192;
	struct rgn_pagelist *pl = (void *)d;
	uint64_t nent = pl->rl_npages + pl->rl_nspare;

	pl->rl_tblcrc = kenv_crc32(mem + tl->tl_tblpfn * RGN_PAGE, nent * 8);
	pl->rl_crc = 0;
	pl->rl_crc = kenv_crc32(d, sizeof (*pl) + 8);
}

static uint64_t *
t_ent(uint8_t *mem, const struct t_live *tl, uint32_t i)
{
	return (uint64_t *)(mem + tl->tl_tblpfn * RGN_PAGE) + i;
}

START_TEST(test_reassembles_scattered_region)
{
	uint8_t *mem = t_noise(), *img = malloc(KT_RSIZE);
	struct t_live tl;
	struct kdt_err ke;
	struct rgn_view v;

	t_live(&tl, mem, 100, 300, 0, 42);
	ck_assert_int_eq(rgn_pagelist_present(mem + tl.tl_pa), 1);
	ck_assert_int_eq(t_assemble(mem, tl.tl_pa, img, &ke), 0);
	ck_assert_mem_eq(img, tl.tl_img, KT_RSIZE);
	ck_assert_int_eq(rgn_open(&v, img, KT_RSIZE, tl.tl_pa, &ke), 0);
	/* the contiguous bytes at page 0 are not the region */
	ck_assert_int_ne(rgn_open(&v, mem + tl.tl_pa, KT_RSIZE, tl.tl_pa,
	    &ke), 0);
	free(tl.tl_img);
	free(img);
	free(mem);
}
END_TEST

/* Break one thing, expect tag and a message fragment. */
static void
t_expect(uint8_t *mem, const struct t_live *tl, const char *tag,
    const char *msg)
{
	uint8_t *img = malloc(KT_RSIZE);
	struct kdt_err ke;

	ck_assert_int_ne(t_assemble(mem, tl->tl_pa, img, &ke), 0);
	ck_assert_str_eq(ke.ke_tag, tag);
	if (strstr(ke.ke_msg, msg) == NULL)
		ck_abort_msg("message \"%s\" lacks \"%s\"", ke.ke_msg, msg);
	free(img);
}

START_TEST(test_corrupt_lists_are_refused)
{
	uint8_t *mem = t_noise();
	struct rgn_pagelist *pl;
	struct t_live tl;
	uint64_t save;

	t_live(&tl, mem, 100, 300, 0, 42);
	pl = (void *)(mem + tl.tl_pa + 192);

	/* an entry outside the dump, table CRC right: named, not read */
	save = *t_ent(mem, &tl, 5);
	*t_ent(mem, &tl, 5) = T_NPFN + 7;
	t_fix_crcs(mem, &tl);
	t_expect(mem, &tl, "RGN_PLREAD",
	    "page list entry 5 (region page 5) names pfn 0x207 (phys 0x207000), which is not in the dump");

	/* a page listed twice: a loop */
	*t_ent(mem, &tl, 5) = *t_ent(mem, &tl, 9);
	t_fix_crcs(mem, &tl);
	t_expect(mem, &tl, "RGN_PLLOOP",
	    "page list entry 5 (region page 5) and entry 9 (region page 9) both name pfn 0x");
	/* ... or a region page that is the table page itself */
	*t_ent(mem, &tl, 5) = tl.tl_tblpfn;
	t_fix_crcs(mem, &tl);
	t_expect(mem, &tl, "RGN_PLLOOP", "and table page 0 both name pfn 0x12c");

	/* a frame number no machine has */
	*t_ent(mem, &tl, 5) = 1ULL << 41;
	t_fix_crcs(mem, &tl);
	t_expect(mem, &tl, "RGN_PLPFN",
	    "page list entry 5 (region page 5) is pfn 0x20000000000, beyond the largest pfn 0xffffffffff");

	/* a stale or torn table: its CRC no longer matches */
	*t_ent(mem, &tl, 5) = save + 1;
	t_expect(mem, &tl, "RGN_PLTBLCRC", "page list table CRC 0x");
	*t_ent(mem, &tl, 5) = save;

	/* entry 0 is not where the header is */
	save = *t_ent(mem, &tl, 0);
	*t_ent(mem, &tl, 0) = save + 1;
	t_fix_crcs(mem, &tl);
	t_expect(mem, &tl, "RGN_PLFIRST",
	    "page list entry 0 is pfn 0x65 but the region header was found at phys 0x64000 (pfn 0x64)");
	*t_ent(mem, &tl, 0) = save;
	t_fix_crcs(mem, &tl);

	/* the descriptor: damaged, newer, miscounted, table page outside */
	pl->rl_npages ^= 0x100;
	t_expect(mem, &tl, "RGN_PLCRC", "page list descriptor CRC 0x");
	t_fix_crcs(mem, &tl);
	t_expect(mem, &tl, "RGN_PLCOUNT",
	    "page list counts 272 region and 0 spare pages do not match the 0x10000-byte region (16 pages)");
	pl->rl_npages ^= 0x100;
	pl->rl_version = 2;
	t_expect(mem, &tl, "RGN_PLVERSION",
	    "page list version 2 is not supported: this reader knows versions 1 to 1");
	pl->rl_version = 1;
	pl->rl_magic ^= 1;
	t_expect(mem, &tl, "RGN_PLMAGIC", "page list magic 0x6c70646a");
	pl->rl_magic ^= 1;
	*(uint64_t *)(pl + 1) = T_NPFN + 1;	/* the directory */
	t_fix_crcs(mem, &tl);
	t_expect(mem, &tl, "RGN_PLREAD",
	    "page list table page 0 names pfn 0x201 (phys 0x201000), which is not in the dump");
	*(uint64_t *)(pl + 1) = tl.tl_tblpfn;
	pl->rl_ntbl = 600;
	t_fix_crcs(mem, &tl);
	t_expect(mem, &tl, "RGN_PLSIZE",
	    "page list descriptor of 64 bytes with 600 table pages does not fit page 0");
	pl->rl_ntbl = 1;
	t_fix_crcs(mem, &tl);
	/* mended, it reads again */
	{
		uint8_t *img = malloc(KT_RSIZE);
		struct kdt_err ke;

		ck_assert_int_eq(t_assemble(mem, tl.tl_pa, img, &ke), 0);
		ck_assert_mem_eq(img, tl.tl_img, KT_RSIZE);
		free(img);
	}
	free(tl.tl_img);
	free(mem);
}
END_TEST

START_TEST(test_switch_spare_is_read_when_newer)
{
	uint8_t *mem = t_noise(), *img = malloc(KT_RSIZE);
	const struct rgn_cpu *rc;
	struct t_live tl;
	struct kdt_err ke;
	struct rgn_view v;
	int64_t val;

	t_live(&tl, mem, 100, 300, 1, 42);
	ck_assert_uint_eq(tl.tl_nspare, 2 * ((struct rgn_hdr *)tl.tl_img)->rh_cpu_stride / RGN_PAGE);
	ck_assert_int_eq(t_assemble(mem, tl.tl_pa, img, &ke), 0);
	ck_assert_int_eq(rgn_open(&v, img, KT_RSIZE, tl.tl_pa, &ke), 0);
	/* CPU 0: its region slot; CPU 1: the spare, with the newer record */
	ck_assert_mem_eq(rgn_view_cpu(&v, 0), rgn_cpu(tl.tl_img, 0),
	    ((struct rgn_hdr *)img)->rh_cpu_stride);
	rc = rgn_view_cpu(&v, 1);
	ck_assert_uint_eq(rc->rc_tail, 24);
	ck_assert_uint_eq(rc->rc_head, 48);
	memcpy(&val, (const uint8_t *)rc + RGN_CPU_HDRSIZE + 24 + 16, 8);
	ck_assert_int_eq(val, 43);
	free(tl.tl_img);
	free(img);
	free(mem);
}
END_TEST

/* ---- end to end: kdt-extract on an ELF core of that memory ---- */

static char t_path[64];

/* mem (T_MEM bytes at phys 0) as a vmcore: a PT_NOTE and one PT_LOAD. */
static const char *
t_core(const uint8_t *mem)
{
	struct kt_seg sg = { 0, T_MEM, mem };

	snprintf(t_path, sizeof (t_path), "/tmp/kdt-test-plcore-XXXXXX");
	return kt_core_temp(t_path, &sg, 1, ET_CORE, KT_CORE_NOTE);
}

START_TEST(test_extract_one_and_two_live_sessions)
{
	uint8_t *mem = t_noise(), id[16];
	struct t_live a, b;
	char out[4096], err[4096], want[1024];
	const char *path;

	t_live(&a, mem, 100, 300, 0, 42);
	path = t_core(mem);
	ck_assert_int_eq(kt_extract(out, err, "-q", path), 0);
	ck_assert_str_eq(out, "4242\n");	/* -q: trace() adds no newline */
	ck_assert_str_eq(err, "");
	unlink(path);

	/* a second session: another state id, pages elsewhere */
	t_live(&b, mem, 160, 310, 0, 7);
	memcpy(id, ((struct rgn_hdr *)b.tl_img)->rh_bootid, 16);
	path = t_core(mem);
	ck_assert_int_eq(kt_extract(out, err, "-q", path), 0);
	snprintf(want, sizeof (want),
	    "== region 1 of 2: live session, state id 0123456789abcdeffedcba9876543210, at phys 0x64000 ==\n"
	    "4242\n"
	    "\n== region 2 of 2: live session, state id 0123456789abcdeffedcba9876543210, at phys 0xa0000 ==\n"
	    "77\n");
	ck_assert_str_eq(out, want);
	ck_assert_str_eq(err, "");
	unlink(path);

	/* one list broken: the other is printed, the broken one named */
	*(uint64_t *)(mem + b.tl_tblpfn * RGN_PAGE + 8 * 3) ^= 1;
	path = t_core(mem);
	ck_assert_int_eq(kt_extract(out, err, "-q", path), 0);
	ck_assert_str_eq(out, "4242\n");
	if (strstr(err, "1 live region not read: live region at phys 0xa0000: page list table CRC") == NULL)
		ck_abort_msg("err: %s", err);
	unlink(path);
	free(a.tl_img);
	free(b.tl_img);
	free(mem);
}
END_TEST

/* ---- the crash(8) extension: readmem(PHYSADDR) over the same memory ---- */

static int t_reads;

static int
t_crash_read(void *arg, uint64_t pa, void *buf, uint64_t n)
{
	t_reads++;
	return t_rd(arg, pa, buf, n);
}

START_TEST(test_crash_extension_follows_the_list)
{
	uint8_t *mem = t_noise();
	struct mdb_span sp = { 0, T_MEM };
	struct mdb_dbg md = { "dump", t_crash_read, NULL, &sp, 1 };
	char out[4096], err[4096], *argv[2] = { "kdt", "-q" };
	struct t_live a;
	FILE *fo, *fe;

	t_live(&a, mem, 100, 300, 1, 42);	/* CPU 1 on its spare */
	md.md_arg = mem;
	memset(out, 0, sizeof (out));
	memset(err, 0, sizeof (err));
	fo = fmemopen(out, sizeof (out), "w");
	fe = fmemopen(err, sizeof (err), "w");
	ck_assert_int_eq(mdb_main(2, argv, "kdt", &md, fo, fe), 0);
	fclose(fo);
	fclose(fe);
	ck_assert_str_eq(out, "4243\n");	/* CPU 1: the spare's record */
	ck_assert_str_eq(err, "");
	ck_assert_int_gt(t_reads, 0);
	free(a.tl_img);
	free(mem);
}
END_TEST

static Suite *
pagelist_suite(void)
{
	Suite *s = suite_create("rgn_pagelist");
	TCase *tc = tcase_create("pagelist");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_reassembles_scattered_region);
	tcase_add_test(tc, test_corrupt_lists_are_refused);
	tcase_add_test(tc, test_switch_spare_is_read_when_newer);
	tcase_add_test(tc, test_extract_one_and_two_live_sessions);
	tcase_add_test(tc, test_crash_extension_follows_the_list);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(pagelist_suite)
