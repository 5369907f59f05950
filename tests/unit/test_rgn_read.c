/*
 * test_rgn_read.c -- unit tests of the region reader (common/rgn_read.c).
 *
 * Region images are built in memory with the writer (common/rgn_write.c),
 * exactly as kdt.ko builds them, then damaged one field at a time to check
 * that rgn_open() rejects each broken rule with its tag (the header CRC is
 * recomputed after a damage so that the rule under test, not the CRC,
 * trips).  The walk tests check ordered records, a wrapped ring with pad
 * records, a torn record left by a reserve without commit, and that a
 * corrupt size or EPID stops the walk of that cpu with one report.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kt_check.h"
#include "rgn.h"
#include "dof.h"

#define T_SIZE		(64 * 1024)
#define T_SMALL		(3 * 4096)	/* header, metadata, one cpu page */
#define T_PHYS		0x10000000ULL

static const uint8_t t_dof[] = { 0x7f, 'D', 'O', 'F', 2, 1, 1, 2, 8, 8,
	0, 0, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0x44 };

/* Build a region of "size" bytes: probes 1 and 2, EPIDs 1 (8) and 2 (24). */
static uint8_t *
t_region(uint64_t size, uint32_t ncpu, uint32_t policy)
{
	struct rgn_params p;
	struct kdt_err ke;
	uint8_t *base = malloc(size);

	memset(base, 0xee, size);
	memset(&p, 0, sizeof (p));
	p.rp_phys = T_PHYS;
	p.rp_ncpu = ncpu;
	p.rp_policy = policy;
	p.rp_probe_cap = 4;
	p.rp_epid_cap = 4;
	p.rp_release = "6.1.0-56-amd64";
	p.rp_dof = t_dof;
	p.rp_dofsz = sizeof (t_dof);
	ck_assert_int_eq(rgn_init(base, size, &p, &ke), 0);
	ck_assert_int_eq(rgn_add_probe(base, 1, "dtrace", "", "", "BEGIN",
	    &ke), 0);
	ck_assert_int_eq(rgn_add_probe(base, 2, "fbt", "kernel",
	    "do_init_module", "entry", &ke), 0);
	ck_assert_int_eq(rgn_add_epid(base, 1, 1, 0, 8, &ke), 0);
	ck_assert_int_eq(rgn_add_epid(base, 2, 2, 1, 24, &ke), 0);
	return base;
}

/* Append one record whose payload bytes all equal "fill". */
static uint64_t
t_put(uint8_t *base, uint32_t cpu, uint32_t epid, uint32_t payload,
    uint8_t fill)
{
	const struct rgn_hdr *h = (const void *)base;
	struct rgn_cpu *rc = rgn_cpu(base, cpu);
	struct rgn_rec *rr = rgn_reserve(rc, h->rh_policy, payload);
	uint64_t loff = rc->rc_reserve - RGN_REC_HDRSIZE - payload;

	ck_assert_ptr_nonnull(rr);
	memset(rr + 1, fill, payload);
	rgn_commit(rc, rr, epid, 1000 + fill);
	return loff;
}

static void
t_fix_crc(uint8_t *base)
{
	struct rgn_hdr *h = (void *)base;

	h->rh_crc = 0;
	h->rh_crc = (uint32_t)crc32(0, base, h->rh_hdrsize);
}

static struct rgn_meta *
t_meta(uint8_t *base)
{
	return (void *)(base + ((struct rgn_hdr *)base)->rh_meta_off);
}

/* Expect rgn_open to fail with "tag" and a message containing "text". */
static void
t_reject(const uint8_t *base, uint64_t len, uint64_t phys, const char *tag,
    const char *text)
{
	struct rgn_view v;
	struct kdt_err ke;

	memset(&ke, 0, sizeof (ke));
	ck_assert_int_lt(rgn_open(&v, base, len, phys, &ke), 0);
	ck_assert_str_eq(ke.ke_tag, tag);
	ck_assert_msg(strstr(ke.ke_msg, text) != NULL,
	    "message \"%s\" lacks \"%s\"", ke.ke_msg, text);
	ck_assert_ptr_null(v.rv_hdr);
}

START_TEST(test_open_good)
{
	uint8_t *b = t_region(T_SIZE, 2, DTRACEOPT_BUFPOLICY_RING);
	struct rgn_view v;
	struct kdt_err ke;

	ck_assert_int_eq(rgn_open(&v, b, T_SIZE, T_PHYS, &ke), 0);
	ck_assert_int_eq(rgn_open(&v, b, T_SIZE + 4096, RGN_PHYS_ANY, &ke),
	    0);
	ck_assert_uint_eq(v.rv_meta->rm_nprobes, 2);
	ck_assert_mem_eq(v.rv_dof, t_dof, sizeof (t_dof));
	ck_assert_str_eq(rgn_find_probe(&v, 2)->rp_func, "do_init_module");
	ck_assert_ptr_null(rgn_find_probe(&v, 9));
	ck_assert_uint_eq(rgn_find_epid(&v, 2)->re_size, 24);
	ck_assert_ptr_null(rgn_find_epid(&v, 0));
	ck_assert_ptr_null(rgn_find_epid(&v, 3));
	ck_assert_uint_eq(rgn_view_cpu(&v, 1)->rc_cpu, 1);
	ck_assert_ptr_null(rgn_view_cpu(&v, 2));
	ck_assert_int_eq(rgn_probe_hdr(b, 4096), 1);
	free(b);
}
END_TEST

START_TEST(test_reject_magic_endian_version)
{
	uint8_t *b = t_region(T_SIZE, 1, DTRACEOPT_BUFPOLICY_RING);
	struct rgn_hdr *h = (void *)b;
	struct rgn_hdr save = *h;

	h->rh_magic ^= 1;
	t_reject(b, T_SIZE, T_PHYS, "RGN_MAGIC", "magic");
	ck_assert_int_eq(rgn_probe_hdr(b, 4096), 0);
	*h = save;
	h->rh_magic = __builtin_bswap64(h->rh_magic);
	h->rh_endian = RGN_ENDIAN_SWAPPED;
	t_reject(b, T_SIZE, T_PHYS, "RGN_ENDIAN", "other byte order");
	ck_assert_int_eq(rgn_probe_hdr(b, 4096), 1);
	*h = save;
	h->rh_version = RGN_VERSION + 1;
	t_fix_crc(b);
	t_reject(b, T_SIZE, T_PHYS, "RGN_VERSION", "version 2");
	free(b);
}
END_TEST

START_TEST(test_reject_crc_and_hdrsize)
{
	uint8_t *b = t_region(T_SIZE, 1, DTRACEOPT_BUFPOLICY_RING);
	struct rgn_hdr *h = (void *)b;
	struct rgn_view v;
	struct kdt_err ke;

	h->rh_release[0] ^= 0x20;
	t_reject(b, T_SIZE, T_PHYS, "RGN_CRC", "CRC");
	ck_assert_int_eq(rgn_probe_hdr(b, 4096), 0);
	h->rh_release[0] ^= 0x20;
	/* A longer header from a newer writer: zero tail is fine. */
	h->rh_hdrsize = 256;
	t_fix_crc(b);
	ck_assert_int_eq(rgn_open(&v, b, T_SIZE, T_PHYS, &ke), 0);
	b[200] = 1;
	t_fix_crc(b);
	t_reject(b, T_SIZE, T_PHYS, "RGN_HDRTAIL", "zero tail");
	b[200] = 0;
	h->rh_hdrsize = 100;
	t_fix_crc(b);
	t_reject(b, T_SIZE, T_PHYS, "RGN_HDRSIZE", "100");
	free(b);
}
END_TEST

START_TEST(test_reject_truncated_and_phys)
{
	uint8_t *b = t_region(T_SIZE, 1, DTRACEOPT_BUFPOLICY_RING);

	t_reject(b, T_SIZE - 4096, T_PHYS, "RGN_TRUNC",
	    "0x10000 bytes but only 0xf000");
	t_reject(b, 100, T_PHYS, "RGN_TRUNC", "shorter than the 192-byte");
	t_reject(b, T_SIZE, T_PHYS + 0x1000000, "RGN_PHYS",
	    "found at phys 0x11000000");
	free(b);
}
END_TEST

START_TEST(test_reject_offsets)
{
	uint8_t *b = t_region(T_SIZE, 2, DTRACEOPT_BUFPOLICY_RING);
	struct rgn_hdr *h = (void *)b;
	struct rgn_hdr save = *h;

	h->rh_meta_off += 8;
	t_fix_crc(b);
	t_reject(b, T_SIZE, T_PHYS, "RGN_META", "page-aligned");
	*h = save;
	h->rh_cpu_off += 4096 * 4;
	t_fix_crc(b);
	t_reject(b, T_SIZE, T_PHYS, "RGN_CPUS", "inside the 0x10000-byte");
	*h = save;
	h->rh_bufsize = h->rh_cpu_stride;
	t_fix_crc(b);
	t_reject(b, T_SIZE, T_PHYS, "RGN_BUFSIZE", "stride");
	*h = save;
	h->rh_ncpu = 0;
	t_fix_crc(b);
	t_reject(b, T_SIZE, T_PHYS, "RGN_NCPU", "cpu count 0");
	*h = save;
	h->rh_size = T_SIZE * 4;
	t_fix_crc(b);
	t_reject(b, T_SIZE, T_PHYS, "RGN_TRUNC", "truncated");
	free(b);
}
END_TEST

START_TEST(test_reject_meta)
{
	uint8_t *b = t_region(T_SIZE, 2, DTRACEOPT_BUFPOLICY_RING);
	struct rgn_meta *m = t_meta(b);
	struct rgn_meta save = *m;

	m->rm_nepids = m->rm_epid_cap + 1;
	t_reject(b, T_SIZE, T_PHYS, "RGN_COUNT", "above its capacity 4");
	*m = save;
	m->rm_probe_cap = 1000000;
	t_reject(b, T_SIZE, T_PHYS, "RGN_TABLE", "probe table");
	*m = save;
	m->rm_dof_size = ((struct rgn_hdr *)b)->rh_meta_size;
	t_reject(b, T_SIZE, T_PHYS, "RGN_DOF", "outside");
	*m = save;
	m->rm_dof_crc ^= 1;
	t_reject(b, T_SIZE, T_PHYS, "RGN_DOFCRC", "DOF copy CRC");
	*m = save;
	rgn_cpu(b, 1)->rc_magic = 0;
	t_reject(b, T_SIZE, T_PHYS, "RGN_CPUHDR", "cpu 1 buffer header");
	rgn_cpu(b, 1)->rc_magic = RGN_CPU_MAGIC;
	rgn_cpu(b, 1)->rc_size -= 8;
	t_reject(b, T_SIZE, T_PHYS, "RGN_CPUHDR", "cpu 1 buffer header");
	free(b);
}
END_TEST

/* ---- walking ---- */

struct t_walk {
	uint32_t	tw_n;
	uint32_t	tw_epid[512];
	uint8_t		tw_fill[512];
	uint64_t	tw_loff[512];
	uint32_t	tw_nbad;
	uint64_t	tw_badoff;
	char		tw_bad[256];
};

static int
t_on_rec(void *arg, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff)
{
	struct t_walk *tw = arg;

	ck_assert_uint_ne(rec->rr_epid, RGN_EPID_PAD);
	if (tw->tw_n < 512) {
		tw->tw_epid[tw->tw_n] = rec->rr_epid;
		tw->tw_fill[tw->tw_n] = payload[0];
		tw->tw_loff[tw->tw_n] = loff;
	}
	tw->tw_n++;
	return 0;
}

static int
t_on_bad(void *arg, uint32_t cpu, uint64_t loff, const char *what)
{
	struct t_walk *tw = arg;

	tw->tw_nbad++;
	tw->tw_badoff = loff;
	snprintf(tw->tw_bad, sizeof (tw->tw_bad), "%s", what);
	return 0;
}

static void
t_walk(uint8_t *b, uint64_t size, uint32_t cpu, struct t_walk *tw)
{
	struct rgn_walk_cb cb = { t_on_rec, t_on_bad, tw };
	struct rgn_view v;
	struct kdt_err ke;

	memset(tw, 0, sizeof (*tw));
	ck_assert_int_eq(rgn_open(&v, b, size, T_PHYS, &ke), 0);
	ck_assert_int_eq(rgn_walk_cpu(&v, cpu, &cb, &ke), 0);
}

START_TEST(test_walk_ordered)
{
	uint8_t *b = t_region(T_SIZE, 2, DTRACEOPT_BUFPOLICY_FILL);
	struct t_walk tw;
	struct rgn_walk_cb cb = { t_on_rec, t_on_bad, &tw };
	struct rgn_view v;
	struct kdt_err ke;

	t_put(b, 1, 1, 8, 0xa1);
	t_put(b, 1, 2, 24, 0xa2);
	t_put(b, 1, 1, 8, 0xa3);
	t_walk(b, T_SIZE, 1, &tw);
	ck_assert_uint_eq(tw.tw_n, 3);
	ck_assert_uint_eq(tw.tw_nbad, 0);
	ck_assert_uint_eq(tw.tw_epid[1], 2);
	ck_assert_uint_eq(tw.tw_fill[0], 0xa1);
	ck_assert_uint_eq(tw.tw_fill[2], 0xa3);
	ck_assert_uint_eq(tw.tw_loff[1], 24);
	ck_assert_uint_eq(tw.tw_loff[2], 24 + 40);
	t_walk(b, T_SIZE, 0, &tw);
	ck_assert_uint_eq(tw.tw_n, 0);
	ck_assert_int_eq(rgn_open(&v, b, T_SIZE, T_PHYS, &ke), 0);
	ck_assert_int_eq(rgn_walk_cpu(&v, 2, &cb, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "RGN_CPU");
	free(b);
}
END_TEST

/*
 * One data page of 4032 bytes and 40-byte records: 100 fit, so every wrap
 * leaves a 32-byte pad record at the end.  After 350 records the walk must
 * return the newest ones, consecutive, ending with the last.
 */
START_TEST(test_walk_wrapped_ring_with_pads)
{
	uint8_t *b = t_region(T_SMALL, 1, DTRACEOPT_BUFPOLICY_RING);
	const struct rgn_cpu *rc = rgn_cpu(b, 0);
	struct t_walk tw;
	uint32_t i;

	for (i = 0; i < 350; i++)
		t_put(b, 0, 2, 24, (uint8_t)i);
	ck_assert_uint_gt(rc->rc_tail, 0);
	t_walk(b, T_SMALL, 0, &tw);
	ck_assert_uint_eq(tw.tw_nbad, 0);
	ck_assert_uint_ge(tw.tw_n, 90);
	ck_assert_uint_le(tw.tw_n, 100);
	for (i = 1; i < tw.tw_n; i++)
		ck_assert_uint_eq(tw.tw_fill[i], (uint8_t)(tw.tw_fill[i - 1] +
		    1));
	ck_assert_uint_eq(tw.tw_fill[tw.tw_n - 1], (uint8_t)349);
	free(b);
}
END_TEST

START_TEST(test_walk_torn_record)
{
	uint8_t *b = t_region(T_SIZE, 1, DTRACEOPT_BUFPOLICY_RING);
	struct rgn_cpu *rc = rgn_cpu(b, 0);
	struct t_walk tw;

	t_put(b, 0, 1, 8, 1);
	ck_assert_ptr_nonnull(rgn_reserve(rc, DTRACEOPT_BUFPOLICY_RING, 24));
	t_walk(b, T_SIZE, 0, &tw);
	ck_assert_uint_eq(tw.tw_n, 1);
	ck_assert_uint_eq(tw.tw_nbad, 1);
	ck_assert_uint_eq(tw.tw_badoff, 24);
	ck_assert_str_eq(tw.tw_bad, "record torn by the panic: 40 bytes reserved at logical offset 0x18, not committed");
	free(b);
}
END_TEST

START_TEST(test_walk_corrupt_stops)
{
	uint8_t *b = t_region(T_SIZE, 1, DTRACEOPT_BUFPOLICY_RING);
	struct rgn_cpu *rc = rgn_cpu(b, 0);
	uint8_t *data = (uint8_t *)rc + RGN_CPU_HDRSIZE;
	struct rgn_rec *second;
	struct t_walk tw;

	t_put(b, 0, 1, 8, 1);
	second = (void *)(data + t_put(b, 0, 1, 8, 2));
	t_put(b, 0, 1, 8, 3);
	second->rr_size = 12;
	t_walk(b, T_SIZE, 0, &tw);
	ck_assert_uint_eq(tw.tw_n, 1);
	ck_assert_uint_eq(tw.tw_nbad, 1);
	ck_assert_uint_eq(tw.tw_badoff, 24);
	ck_assert_ptr_nonnull(strstr(tw.tw_bad, "record size 12"));
	second->rr_size = 24;
	second->rr_epid = 7;
	t_walk(b, T_SIZE, 0, &tw);
	ck_assert_uint_eq(tw.tw_n, 1);
	ck_assert_ptr_nonnull(strstr(tw.tw_bad, "EPID 7 is not in the 2-entry"));
	second->rr_epid = 2;
	t_walk(b, T_SIZE, 0, &tw);
	ck_assert_ptr_nonnull(strstr(tw.tw_bad, "differs from the 40 bytes"));
	second->rr_epid = 1;
	rc->rc_tail = rc->rc_head + 8;
	t_walk(b, T_SIZE, 0, &tw);
	ck_assert_uint_eq(tw.tw_n, 0);
	ck_assert_ptr_nonnull(strstr(tw.tw_bad, "cursors are corrupt"));
	free(b);
}
END_TEST

static Suite *
rgn_read_suite(void)
{
	Suite *s = suite_create("rgn_read");
	TCase *tc = tcase_create("open");

	tcase_add_test(tc, test_open_good);
	tcase_add_test(tc, test_reject_magic_endian_version);
	tcase_add_test(tc, test_reject_crc_and_hdrsize);
	tcase_add_test(tc, test_reject_truncated_and_phys);
	tcase_add_test(tc, test_reject_offsets);
	tcase_add_test(tc, test_reject_meta);
	suite_add_tcase(s, tc);
	tc = tcase_create("walk");
	tcase_add_test(tc, test_walk_ordered);
	tcase_add_test(tc, test_walk_wrapped_ring_with_pads);
	tcase_add_test(tc, test_walk_torn_record);
	tcase_add_test(tc, test_walk_corrupt_stops);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(rgn_read_suite)
