/*
 * test_mdb.c -- unit tests of the crash(8) extension's crash-free half
 * (mdb-module/mdb_src.c): its memory source over a debugger's reader and
 * the "kdt" command, run in-process through mdb_main() with a fake
 * readmem() -- crash itself is tested by tests/vm/scenarios/tst.crash-ext.
 *
 * The fake reader serves a few physical segments (low memory with noise
 * and a stale region copy, and a real region made by the writer through
 * kt_region.h at 0x10000000), fails like readmem(RETURN_ON_ERROR) on a
 * request touching anything else or a page marked missing, and counts its
 * calls.  The same segments are also written as an ELF core, and the
 * command must print exactly what kdt-extract prints for it (same stdout,
 * same stderr under the same program name, same status): found region,
 * -q, --merge, -p, a torn record, no region, a stale copy.  Then what only
 * the adapter does: a hole inside the region named page-exactly, a scan
 * in CD_CHUNK requests, spans merged, usage errors.
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

#define T_RPHYS		0x10000000ULL
#define T_STALE		0x40000ULL
#define T_LOW		(1024 * 1024)
#define T_OUT		8192

struct t_seg {
	uint64_t	ts_pa;
	uint64_t	ts_size;
	uint8_t		*ts_data;
};

/* The fake debugger: segments, an optional missing page, a call count. */
struct t_mem {
	struct t_seg	tm_seg[3];
	uint32_t	tm_nseg;
	uint64_t	tm_hole;	/* a missing page, or 0 */
	uint64_t	tm_calls;
	uint64_t	tm_maxreq;
};

static int
t_read(void *arg, uint64_t pa, void *buf, uint64_t n)
{
	struct t_mem *m = arg;
	uint32_t i;

	m->tm_calls++;
	if (n > m->tm_maxreq)
		m->tm_maxreq = n;
	if (m->tm_hole != 0 && pa < m->tm_hole + CD_PAGE &&
	    pa + n > m->tm_hole)
		return -1;
	for (i = 0; i < m->tm_nseg; i++) {
		const struct t_seg *sg = &m->tm_seg[i];

		if (pa >= sg->ts_pa && pa + n <= sg->ts_pa + sg->ts_size) {
			memcpy(buf, sg->ts_data + (pa - sg->ts_pa), n);
			return 0;
		}
	}
	return -1;
}

/* Low memory with noise and, if rg, a stale copy of the region. */
static void
t_mem_init(struct t_mem *m, const uint8_t *rg)
{
	uint8_t *low = malloc(T_LOW);
	uint32_t i, x = 777;

	memset(m, 0, sizeof (*m));
	for (i = 0; i < T_LOW; i++) {
		x = x * 1103515245 + 12345;
		low[i] = (uint8_t)(x >> 16);
	}
	if (rg != NULL)
		memcpy(low + T_STALE, rg, KT_RSIZE);
	m->tm_seg[0] = (struct t_seg){ 0, T_LOW, low };
	m->tm_nseg = 1;
	if (rg != NULL) {
		uint8_t *hi = malloc(2 * KT_RSIZE);

		memcpy(hi, rg, KT_RSIZE);
		memset(hi + KT_RSIZE, 0x5a, KT_RSIZE);
		m->tm_seg[1] = (struct t_seg){ T_RPHYS, 2 * KT_RSIZE, hi };
		m->tm_nseg = 2;
	}
}

static void
t_mem_fini(struct t_mem *m)
{
	uint32_t i;

	for (i = 0; i < m->tm_nseg; i++)
		free(m->tm_seg[i].ts_data);
}

/* The same memory as an ELF core (PT_LOADs only, kt_core.h). */
static void
t_write_core(const struct t_mem *m, char *path)
{
	struct kt_seg sg[3];
	uint32_t i;

	for (i = 0; i < m->tm_nseg; i++)
		sg[i] = (struct kt_seg){ m->tm_seg[i].ts_pa,
		    m->tm_seg[i].ts_size, m->tm_seg[i].ts_data };
	strcpy(path, "/tmp/kdt-test-mdb-XXXXXX");
	kt_core_temp(path, sg, m->tm_nseg, ET_CORE, 0);
}

struct t_res {
	char	tr_out[T_OUT];
	char	tr_err[T_OUT];
	int	tr_rv;
};

static void
t_res_open(struct t_res *r, FILE **fo, FILE **fe)
{
	memset(r, 0, sizeof (*r));
	*fo = fmemopen(r->tr_out, T_OUT - 1, "w");
	*fe = fmemopen(r->tr_err, T_OUT - 1, "w");
}

/* "kdt ARGS" over m (its segments as the spans), as program "prog". */
static void
t_kdt(struct t_mem *m, const char *name, const char *prog,
    const char *const *args, struct t_res *r)
{
	struct mdb_span sp[3];
	struct mdb_dbg md = { name, t_read, m, sp, m->tm_nseg };
	char *argv[8] = { "kdt" };
	int argc = 1;
	FILE *fo, *fe;
	uint32_t i;

	for (i = 0; i < m->tm_nseg; i++)
		sp[i] = (struct mdb_span){ m->tm_seg[i].ts_pa,
		    m->tm_seg[i].ts_size };
	while (args != NULL && args[argc - 1] != NULL && argc < 7) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	t_res_open(r, &fo, &fe);
	r->tr_rv = mdb_main(argc, argv, prog, &md, fo, fe);
	fclose(fo);
	fclose(fe);
}

/* "kdt-extract ARGS PATH". */
static void
t_extract(const char *path, const char *const *args, struct t_res *r)
{
	char *argv[8] = { "kdt-extract" };
	int argc = 1;
	FILE *fo, *fe;

	while (args != NULL && args[argc - 1] != NULL && argc < 6) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	argv[argc++] = (char *)path;
	t_res_open(r, &fo, &fe);
	r->tr_rv = cd_extract_main(argc, argv, fo, fe);
	fclose(fo);
	fclose(fe);
}

/* kdt with kargs and kdt-extract with eargs must print the same. */
static void
t_same(struct t_mem *m, const char *const *kargs, const char *const *eargs)
{
	static struct t_res k, e;
	char path[64];

	t_write_core(m, path);
	t_kdt(m, path, "kdt-extract", kargs, &k);
	t_extract(path, eargs, &e);
	unlink(path);
	ck_assert_str_eq(k.tr_out, e.tr_out);
	ck_assert_str_eq(k.tr_err, e.tr_err);
	ck_assert_int_eq(k.tr_rv, e.tr_rv);
}

START_TEST(test_same_as_kdt_extract)
{
	uint8_t *rg = kt_region_new(T_RPHYS);
	const char *q[] = { "-q", NULL }, *m[] = { "-m", NULL };
	const char *merge[] = { "--merge", NULL };
	const char *p[] = { "-p", "10000000", NULL };
	const char *p0x[] = { "-p", "0x10000000", "-q", NULL };
	const char *phys[] = { "--phys", "0x10000000", NULL };
	const char *physq[] = { "--phys", "0x10000000", "-q", NULL };
	struct t_mem mem;
	struct t_res r;

	kt_region_rec(rg, 1, 5, 42);
	kt_region_rec(rg, 0, 7, 43);
	kt_region_rec(rg, 1, 9, 44);
	t_mem_init(&mem, rg);
	t_same(&mem, NULL, NULL);
	t_same(&mem, q, q);
	t_same(&mem, m, merge);
	t_same(&mem, merge, merge);
	t_same(&mem, p, phys);
	t_same(&mem, p0x, physq);
	/* and what it is: the records, after the stale copy was skipped */
	t_kdt(&mem, "dump", "kdt", NULL, &r);
	ck_assert_int_eq(r.tr_rv, 0);
	ck_assert_str_eq(r.tr_out,
	    "CPU     ID                    FUNCTION:NAME\n"
	    "  0      1                           :BEGIN                43\n"
	    "  1      1                           :BEGIN                42\n"
	    "  1      1                           :BEGIN                44\n"
	    "\n");
	ck_assert_str_eq(r.tr_err, "");
	t_mem_fini(&mem);
	free(rg);
}
END_TEST

START_TEST(test_same_messages)
{
	uint8_t *rg = kt_region_new(T_RPHYS);
	const char *stale[] = { "-p", "40000", NULL };
	const char *estale[] = { "--phys", "0x40000", NULL };
	struct t_mem mem;
	struct t_res r;

	/* a torn record: reserved on cpu 0, never committed */
	kt_region_rec(rg, 1, 5, 42);
	ck_assert_ptr_nonnull(rgn_reserve(rgn_cpu(rg, 0),
	    DTRACEOPT_BUFPOLICY_RING, 8));
	t_mem_init(&mem, rg);
	t_same(&mem, NULL, NULL);
	t_kdt(&mem, "dump", "kdt", NULL, &r);
	ck_assert_ptr_nonnull(strstr(r.tr_err, "kdt: dump: region at phys 0x10000000: cpu 0"));
	ck_assert_ptr_nonnull(strstr(r.tr_err, "record torn by the panic"));
	t_same(&mem, stale, estale);
	t_mem_fini(&mem);
	/* no region at all: the same message, the same MiB scanned */
	t_mem_init(&mem, NULL);
	t_same(&mem, NULL, NULL);
	t_kdt(&mem, "dump", "kdt", NULL, &r);
	ck_assert_int_eq(r.tr_rv, 1);
	ck_assert_str_eq(r.tr_err, "kdt: dump: no kdt region found in 1 MiB of physical memory (was the kernel booted with memmap=... and kdt.region=...?); see kdt-extract(1), DIAGNOSTICS\n");
	ck_assert_str_eq(r.tr_out, "");
	t_mem_fini(&mem);
	free(rg);
}
END_TEST

START_TEST(test_hole_in_region)
{
	uint8_t *rg = kt_region_new(T_RPHYS);
	const char *p[] = { "-p", "10000000", NULL };
	struct t_mem mem;
	struct t_res r;

	kt_region_rec(rg, 1, 5, 42);
	t_mem_init(&mem, rg);
	/* a page of CPU 0's buffer: left out, CPU 1 printed (partial) */
	mem.tm_hole = T_RPHYS + 0x8000;
	t_kdt(&mem, "dump", "kdt", NULL, &r);
	ck_assert_int_eq(r.tr_rv, 3);
	ck_assert_str_eq(r.tr_err, "kdt: dump: region at phys 0x10000000: CPU 0's buffer: bytes 0x8000-0x9000 not in the dump (crash cannot read it from the dump); its records are left out\n"
	    "kdt: dump: region at phys 0x10000000: partial: 1 part of the region not in the dump (above) left out; everything else is printed\n");
	ck_assert_ptr_nonnull(strstr(r.tr_out, ":BEGIN                42\n"));
	t_kdt(&mem, "dump", "kdt", p, &r);
	ck_assert_int_eq(r.tr_rv, 3);
	ck_assert_ptr_nonnull(strstr(r.tr_err, "CPU 0's buffer: bytes 0x8000-0x9000 not in the dump (crash cannot read it from the dump)"));
	/* a page of the metadata: nothing can be decoded */
	mem.tm_hole = T_RPHYS + 0x1000;
	t_kdt(&mem, "dump", "kdt", p, &r);
	ck_assert_int_eq(r.tr_rv, 1);
	ck_assert_str_eq(r.tr_err, "kdt: dump: region at phys 0x10000000-0x10010000 is not entirely in the dump: phys 0x10001000-0x10002000 is missing (crash cannot read it from the dump); see kdt-extract(1), DIAGNOSTICS\n");
	/* a missing header page */
	mem.tm_hole = T_RPHYS;
	t_kdt(&mem, "dump", "kdt", p, &r);
	ck_assert_str_eq(r.tr_err, "kdt: dump: no region header at phys 0x10000000: phys 0x10000000 is not in the dump; see kdt-extract(1), DIAGNOSTICS\n");
	/* a hole in low memory only costs a page-by-page rescan */
	mem.tm_hole = 0x3000;
	t_kdt(&mem, "dump", "kdt", NULL, &r);
	ck_assert_int_eq(r.tr_rv, 0);
	ck_assert_str_eq(r.tr_err, "");
	t_mem_fini(&mem);
	/* ... and is no error when there is no region at all */
	t_mem_init(&mem, NULL);
	mem.tm_hole = 0x3000;
	t_kdt(&mem, "dump", "kdt", NULL, &r);
	ck_assert_int_eq(r.tr_rv, 1);
	ck_assert_str_eq(r.tr_err, "kdt: dump: no kdt region found in 1 MiB of physical memory (was the kernel booted with memmap=... and kdt.region=...?); see kdt-extract(1), DIAGNOSTICS\n");
	t_mem_fini(&mem);
	free(rg);
}
END_TEST

START_TEST(test_scan_reads_in_chunks)
{
	const uint64_t size = 64ULL << 20;
	struct t_mem mem;
	struct t_res r;

	memset(&mem, 0, sizeof (mem));
	mem.tm_seg[0] = (struct t_seg){ 0, size, calloc(1, size) };
	mem.tm_nseg = 1;
	t_kdt(&mem, "dump", "kdt", NULL, &r);
	ck_assert_int_eq(r.tr_rv, 1);
	ck_assert_ptr_nonnull(strstr(r.tr_err, "no kdt region found in 64 MiB"));
	ck_assert_uint_eq(mem.tm_calls, size / CD_CHUNK);
	ck_assert_uint_eq(mem.tm_maxreq, CD_CHUNK);
	t_mem_fini(&mem);
}
END_TEST

START_TEST(test_spans_merged)
{
	struct mdb_span sp[4] = { { 0x100000, 0x200000 }, { 0, 0x9f000 },
	    { 0x80000, 0x20000 }, { 0x300000, 0x1000 } };
	struct mdb_dbg md = { "dump", t_read, NULL, sp, 4 };
	struct cd_src *s = mdb_src_new(&md);

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->cs_nranges, 2);
	ck_assert_uint_eq(s->cs_ranges[0].cr_pa, 0);
	ck_assert_uint_eq(s->cs_ranges[0].cr_size, 0xa0000);
	ck_assert_uint_eq(s->cs_ranges[1].cr_pa, 0x100000);
	ck_assert_uint_eq(s->cs_ranges[1].cr_size, 0x201000);
	ck_assert_uint_eq(s->cs_total, 0x2a1000);
	cd_close(s);
}
END_TEST

START_TEST(test_usage)
{
	const char *bad[] = { "-x", NULL }, *odd[] = { "-p", "123", NULL };
	const char *junk[] = { "-p", "zz", NULL }, *pos[] = { "dump", NULL };
	const char *nop[] = { "-p", NULL };
	struct t_mem mem;
	struct t_res r;

	t_mem_init(&mem, NULL);
	t_kdt(&mem, "dump", "kdt", bad, &r);
	ck_assert_int_eq(r.tr_rv, 2);
	ck_assert_str_eq(r.tr_err, "kdt: unexpected argument -x\n");
	t_kdt(&mem, "dump", "kdt", odd, &r);
	ck_assert_int_eq(r.tr_rv, 2);
	ck_assert_str_eq(r.tr_err, "kdt: -p 123: not a page-aligned physical address (hex, e.g. 10000000)\n");
	t_kdt(&mem, "dump", "kdt", junk, &r);
	ck_assert_int_eq(r.tr_rv, 2);
	t_kdt(&mem, "dump", "kdt", pos, &r);
	ck_assert_int_eq(r.tr_rv, 2);
	t_kdt(&mem, "dump", "kdt", nop, &r);
	ck_assert_int_eq(r.tr_rv, 2);
	ck_assert_uint_eq(mem.tm_calls, 0);
	t_mem_fini(&mem);
}
END_TEST

static Suite *
mdb_suite(void)
{
	Suite *s = suite_create("mdb");
	TCase *tc = tcase_create("crash extension");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_same_as_kdt_extract);
	tcase_add_test(tc, test_same_messages);
	tcase_add_test(tc, test_hole_in_region);
	tcase_add_test(tc, test_scan_reads_in_chunks);
	tcase_add_test(tc, test_spans_merged);
	tcase_add_test(tc, test_usage);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(mdb_suite)
