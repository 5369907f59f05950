/*
 * test_rgn_write.c -- unit tests of the region writer (common/rgn_write.c).
 *
 * The writer runs here exactly as in kdt.ko, over a malloc'd buffer instead
 * of the mapped region.  The tests check the header fields and layout that
 * rgn.h documents, the header CRC (against zlib, not against kenv_crc32),
 * the metadata tables, and the record stream under the ring and fill
 * policies: the exact bytes of rgn.h's worked example, padding at the end of
 * the buffer, tail advancement on wrap-around, drops, and recovery from a
 * damaged size at the tail.  The stream is checked with a small walker of
 * its own so that the writer is not tested only against rgn_read.c; one
 * round trip through rgn_read.c checks that the two halves agree.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kt_check.h"
#include "rgn.h"
#include "agg.h"
#include "dof.h"

#define T_SIZE		(1024 * 1024)
#define T_NCPU		3

static const uint8_t t_dof[] = { 0x7f, 'D', 'O', 'F', 2, 1, 1, 2, 8, 8,
	0, 0, 0, 0, 0, 0, 0xaa, 0xbb };

/* The tests' region parameters: T_NCPU CPUs, "policy", t_dof. */
static void
t_params(struct rgn_params *p, uint32_t policy)
{
	memset(p, 0, sizeof (*p));
	p->rp_phys = 0x10000000;
	p->rp_ncpu = T_NCPU;
	p->rp_policy = policy;
	p->rp_flags = RGN_F_ANON;
	p->rp_kaslr = 0x1e000000;
	p->rp_created = 1700000000000000000ULL;
	memset(p->rp_bootid, 0x5c, sizeof (p->rp_bootid));
	p->rp_release = "6.1.0-56-amd64";
	p->rp_dof = t_dof;
	p->rp_dofsz = sizeof (t_dof);
}

/* A region over a warm reboot's bytes (0xee everywhere). */
static void *
t_region(uint32_t policy, struct kdt_err *err, int *rv)
{
	struct rgn_params p;
	void *base = malloc(T_SIZE);

	memset(base, 0xee, T_SIZE);
	t_params(&p, policy);
	*rv = rgn_init(base, T_SIZE, &p, err);
	return base;
}

START_TEST(test_magic_bytes)
{
	uint64_t m = rgn_magic();
	const uint8_t *b = (const uint8_t *)&m;

	ck_assert_int_eq(b[0], 'K');
	ck_assert_int_eq(b[1], 'D');
	ck_assert_int_eq(b[2], 'T');
	ck_assert_int_eq(b[3], 'R');
	ck_assert_int_eq(b[4], 'G');
	ck_assert_int_eq(b[5], 'N');
	ck_assert_int_eq(b[6], 1);
	ck_assert_int_eq(b[7], 0);
}
END_TEST

START_TEST(test_init_header)
{
	struct kdt_err err;
	struct rgn_hdr h;
	int rv;
	uint8_t *base = t_region(DTRACEOPT_BUFPOLICY_RING, &err, &rv);
	struct rgn_hdr *rh = (struct rgn_hdr *)base;
	uint64_t meta_need;

	ck_assert_int_eq(rv, 0);
	ck_assert(rh->rh_magic == rgn_magic());
	ck_assert_uint_eq(rh->rh_hdrsize, 192);
	ck_assert_uint_eq(rh->rh_version, RGN_VERSION);
	ck_assert_uint_eq(rh->rh_endian, 0x1234);
	ck_assert_uint_eq(rh->rh_size, T_SIZE);
	ck_assert_uint_eq(rh->rh_phys, 0x10000000);
	ck_assert_uint_eq(rh->rh_bootid[15], 0x5c);
	ck_assert_uint_eq(rh->rh_ncpu, T_NCPU);
	ck_assert_uint_eq(rh->rh_flags, RGN_F_ANON);
	ck_assert_uint_eq(rh->rh_kaslr, 0x1e000000);
	ck_assert_uint_eq(rh->rh_policy, DTRACEOPT_BUFPOLICY_RING);
	ck_assert_str_eq(rh->rh_release, "6.1.0-56-amd64");
	ck_assert_uint_eq(rh->rh_meta_off, 4096);
	meta_need = 64 + 1024 * 328 + 1024 * 16 + sizeof (t_dof);
	ck_assert_uint_eq(rh->rh_meta_size, (meta_need + 4095) & ~4095ULL);
	ck_assert_uint_eq(rh->rh_cpu_off, rh->rh_meta_off + rh->rh_meta_size);
	ck_assert_uint_eq(rh->rh_cpu_stride,
	    ((T_SIZE - rh->rh_cpu_off) / T_NCPU) & ~4095ULL);
	ck_assert_uint_eq(rh->rh_bufsize, rh->rh_cpu_stride - 64);
	memcpy(&h, rh, sizeof (h));
	h.rh_crc = 0;
	ck_assert_uint_eq(rh->rh_crc,
	    crc32(0, (const Bytef *)&h, sizeof (h)));
	free(base);
}
END_TEST

START_TEST(test_init_meta_and_cpus)
{
	struct kdt_err err;
	int rv;
	uint8_t *base = t_region(DTRACEOPT_BUFPOLICY_FILL, &err, &rv);
	struct rgn_hdr *rh = (struct rgn_hdr *)base;
	struct rgn_meta *m = (struct rgn_meta *)(base + rh->rh_meta_off);
	struct rgn_cpu *rc;
	uint32_t cpu;

	ck_assert_int_eq(rv, 0);
	ck_assert_uint_eq(m->rm_probe_cap, RGN_PROBE_CAP_DEFAULT);
	ck_assert_uint_eq(m->rm_epid_cap, RGN_EPID_CAP_DEFAULT);
	ck_assert_uint_eq(m->rm_nprobes, 0);
	ck_assert_uint_eq(m->rm_nepids, 0);
	ck_assert_uint_eq(m->rm_state, RGN_STATE_EMPTY);
	ck_assert_uint_eq(m->rm_dof_size, sizeof (t_dof));
	ck_assert_int_eq(memcmp((uint8_t *)m + m->rm_dof_off, t_dof,
	    sizeof (t_dof)), 0);
	ck_assert_uint_eq(m->rm_dof_crc, crc32(0, t_dof, sizeof (t_dof)));
	for (cpu = 0; cpu < T_NCPU; cpu++) {
		rc = rgn_cpu(base, cpu);
		ck_assert_ptr_eq(rc, base + rh->rh_cpu_off +
		    cpu * rh->rh_cpu_stride);
		ck_assert_uint_eq(rc->rc_magic, RGN_CPU_MAGIC);
		ck_assert_uint_eq(rc->rc_cpu, cpu);
		ck_assert_uint_eq(rc->rc_size, rh->rh_bufsize);
		ck_assert_uint_eq(rc->rc_head, 0);
		ck_assert_uint_eq(rc->rc_tail, 0);
		ck_assert_uint_eq(rc->rc_drops, 0);
	}
	ck_assert_ptr_null(rgn_cpu(base, T_NCPU));
	rgn_set_state(base, RGN_STATE_ACTIVE);
	ck_assert_uint_eq(m->rm_state, RGN_STATE_ACTIVE);
	free(base);
}
END_TEST

START_TEST(test_init_too_small_is_enospc)
{
	struct rgn_params p;
	struct kdt_err err;
	void *base = malloc(64 * 4096);

	memset(&p, 0, sizeof (p));
	p.rp_ncpu = 4;
	p.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	p.rp_probe_cap = 8;
	p.rp_epid_cap = 8;
	/* header + 1 meta page + 4 cpu pages = 6 pages needed, 5 given */
	ck_assert_int_eq(rgn_init(base, 5 * 4096, &p, &err), -ENOSPC);
	ck_assert_str_eq(err.ke_tag, "RGN_SIZE");
	ck_assert_ptr_nonnull(strstr(err.ke_msg, "0x5000"));
	ck_assert_ptr_nonnull(strstr(err.ke_msg, "0x6000"));
	ck_assert_int_eq(rgn_init(base, 6 * 4096, &p, &err), 0);
	ck_assert_uint_eq(((struct rgn_hdr *)base)->rh_bufsize, 4096 - 64);
	p.rp_policy = DTRACEOPT_BUFPOLICY_SWITCH;
	ck_assert_int_eq(rgn_init(base, 6 * 4096, &p, &err), -EINVAL);
	ck_assert_str_eq(err.ke_tag, "RGN_POLICY");
	free(base);
}
END_TEST

START_TEST(test_add_probe_and_epid)
{
	struct kdt_err err;
	int rv;
	uint8_t *base = t_region(DTRACEOPT_BUFPOLICY_RING, &err, &rv);
	struct rgn_hdr *rh = (struct rgn_hdr *)base;
	struct rgn_meta *m = (struct rgn_meta *)(base + rh->rh_meta_off);
	struct rgn_probe *rp = (struct rgn_probe *)((uint8_t *)m +
	    m->rm_probe_off);
	struct rgn_epid *re = (struct rgn_epid *)((uint8_t *)m +
	    m->rm_epid_off);
	char longname[200];

	ck_assert_int_eq(rv, 0);
	ck_assert_int_eq(rgn_add_probe(base, 1, "dtrace", "", "", "BEGIN",
	    &err), 0);
	ck_assert_int_eq(rgn_add_probe(base, 4, "fbt", "kernel",
	    "do_init_module", "entry", &err), 0);
	ck_assert_uint_eq(m->rm_nprobes, 2);
	ck_assert_uint_eq(rp[0].rp_id, 1);
	ck_assert_str_eq(rp[0].rp_name, "BEGIN");
	ck_assert_str_eq(rp[1].rp_func, "do_init_module");
	ck_assert_uint_eq(rp[1].rp_func[127], 0);
	ck_assert_int_eq(rgn_add_epid(base, 2, 4, 1, 8, &err), 0);
	ck_assert_uint_eq(m->rm_nepids, 1);
	ck_assert_uint_eq(re[0].re_epid, 2);
	ck_assert_uint_eq(re[0].re_probe, 4);
	ck_assert_uint_eq(re[0].re_ecb, 1);
	ck_assert_uint_eq(re[0].re_size, 8);

	memset(longname, 'f', sizeof (longname));
	longname[128] = '\0';
	ck_assert_int_eq(rgn_add_probe(base, 5, "fbt", "kernel", longname,
	    "entry", &err), -ENAMETOOLONG);
	ck_assert_uint_eq(m->rm_nprobes, 2);
	m->rm_nepids = m->rm_epid_cap;
	ck_assert_int_eq(rgn_add_epid(base, 9, 4, 0, 8, &err), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err.ke_msg, "capacity of 1024"));
	free(base);
}
END_TEST

/* A bare cpu buffer with "size" data bytes, as rgn_init would set it up. */
static struct rgn_cpu *
t_cpu(uint64_t size)
{
	struct rgn_cpu *rc = calloc(1, RGN_CPU_HDRSIZE + size);

	rc->rc_magic = RGN_CPU_MAGIC;
	rc->rc_size = size;
	return rc;
}

static uint8_t *
t_data(struct rgn_cpu *rc)
{
	return (uint8_t *)rc + RGN_CPU_HDRSIZE;
}

/* Write one record whose payload bytes are all "fill". */
static int
t_put(struct rgn_cpu *rc, uint32_t policy, uint32_t epid, uint32_t payload,
    uint8_t fill, uint64_t ts)
{
	struct rgn_rec *rec = rgn_reserve(rc, policy, payload);

	if (rec == NULL)
		return -1;
	ck_assert_uint_eq(rc->rc_reserve > rc->rc_head, 1);
	memset(rec + 1, fill, payload);
	rgn_commit(rc, rec, epid, ts);
	ck_assert_uint_eq(rc->rc_reserve, rc->rc_head);
	return 0;
}

/*
 * Walk [rc_tail, rc_head) and check every record; returns the number of
 * non-pad records and stores the EPIDs seen in "epids".
 */
static int
t_walk(struct rgn_cpu *rc, uint32_t *epids, int max)
{
	uint64_t l = rc->rc_tail;
	struct rgn_rec *r;
	int n = 0;

	ck_assert_uint_le(rc->rc_head - rc->rc_tail, rc->rc_size);
	while (l < rc->rc_head) {
		r = (struct rgn_rec *)(t_data(rc) + l % rc->rc_size);
		ck_assert_uint_ge(r->rr_size, 8);
		ck_assert_uint_eq(r->rr_size % 8, 0);
		ck_assert_uint_le(l % rc->rc_size + r->rr_size, rc->rc_size);
		if (r->rr_epid != RGN_EPID_PAD) {
			ck_assert_uint_ge(r->rr_size, 16);
			ck_assert_int_lt(n, max);
			epids[n++] = r->rr_epid;
		} else {
			/* a pad always runs to the end of the buffer */
			ck_assert_uint_eq(l % rc->rc_size + r->rr_size,
			    rc->rc_size);
		}
		l += r->rr_size;
	}
	ck_assert_uint_eq(l, rc->rc_head);
	return n;
}

START_TEST(test_worked_example_bytes)
{
	static const uint8_t want_hdr[48] = {
		0x75, 0x70, 0x63, 0x6b, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t want_rec[24] = {
		0x01, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00,
		0x00, 0xca, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00,
		0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
	};
	struct rgn_cpu *rc = t_cpu(0x1000);

	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, 1, 8, 0x11,
	    0x3b9aca00), 0);
	ck_assert_int_eq(memcmp(rc, want_hdr, sizeof (want_hdr)), 0);
	ck_assert_uint_eq(rc->rc_errors, 0);
	ck_assert_uint_eq(rc->rc_pad, 0);
	ck_assert_int_eq(memcmp(t_data(rc), want_rec, sizeof (want_rec)), 0);
	free(rc);
}
END_TEST

START_TEST(test_payload_rounded_to_8)
{
	struct rgn_cpu *rc = t_cpu(0x1000);
	uint32_t e[4];

	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_FILL, 3, 5, 1, 1), 0);
	ck_assert_uint_eq(rc->rc_head, 24);
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_FILL, 4, 0, 1, 2), 0);
	ck_assert_uint_eq(rc->rc_head, 40);
	ck_assert_int_eq(t_walk(rc, e, 4), 2);
	ck_assert_uint_eq(e[1], 4);
	free(rc);
}
END_TEST

START_TEST(test_ring_wraps_pads_and_advances_tail)
{
	struct rgn_cpu *rc = t_cpu(256);
	uint32_t e[16], i;
	struct rgn_rec *pad;
	int n;

	/* 40-byte records: 6 fit (240), the 7th needs a 16-byte pad */
	for (i = 1; i <= 6; i++)
		ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, i, 24,
		    (uint8_t)i, i), 0);
	ck_assert_uint_eq(rc->rc_head, 240);
	ck_assert_uint_eq(rc->rc_tail, 0);
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, 7, 24, 7, 7), 0);
	pad = (struct rgn_rec *)(t_data(rc) + 240);
	ck_assert_uint_eq(pad->rr_epid, RGN_EPID_PAD);
	ck_assert_uint_eq(pad->rr_size, 16);
	ck_assert_uint_eq(rc->rc_head, 256 + 40);
	/* records 1 (0..40) had to go; record 2 starts at 40 */
	ck_assert_uint_eq(rc->rc_tail, 40);
	ck_assert_uint_eq(((struct rgn_rec *)t_data(rc))->rr_epid, 7);
	n = t_walk(rc, e, 16);
	ck_assert_int_eq(n, 6);
	ck_assert_uint_eq(e[0], 2);
	ck_assert_uint_eq(e[5], 7);
	ck_assert_uint_eq(rc->rc_drops, 0);

	/* many more laps: the stream stays consistent, newest kept */
	for (i = 8; i <= 100; i++)
		ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, i,
		    8 + (i % 5) * 8, (uint8_t)i, i), 0);
	n = t_walk(rc, e, 16);
	ck_assert_int_ge(n, 4);
	ck_assert_uint_eq(e[n - 1], 100);
	for (i = 1; i < (uint32_t)n; i++)
		ck_assert_uint_eq(e[i], e[i - 1] + 1);
	ck_assert_uint_eq(rc->rc_drops, 0);
	free(rc);
}
END_TEST

START_TEST(test_ring_pad_of_8_bytes)
{
	struct rgn_cpu *rc = t_cpu(64);
	uint32_t e[4];
	struct rgn_rec *pad;

	/* 56 bytes used, 8 left: a 24-byte record needs an 8-byte pad */
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, 1, 40, 1, 1), 0);
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, 2, 8, 2, 2), 0);
	pad = (struct rgn_rec *)(t_data(rc) + 56);
	ck_assert_uint_eq(pad->rr_epid, RGN_EPID_PAD);
	ck_assert_uint_eq(pad->rr_size, 8);
	ck_assert_uint_eq(rc->rc_tail, 56);
	ck_assert_uint_eq(rc->rc_head, 88);
	ck_assert_int_eq(t_walk(rc, e, 4), 1);
	ck_assert_uint_eq(e[0], 2);
	free(rc);
}
END_TEST

START_TEST(test_fill_drops_when_full)
{
	struct rgn_cpu *rc = t_cpu(256);
	uint32_t e[16], i;

	for (i = 1; i <= 6; i++)
		ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_FILL, i, 24,
		    (uint8_t)i, i), 0);
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_FILL, 7, 24, 7, 7), -1);
	ck_assert_uint_eq(rc->rc_drops, 1);
	ck_assert_uint_eq(rc->rc_head, 240);
	ck_assert_uint_eq(rc->rc_reserve, 240);
	/* a small one still fits exactly */
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_FILL, 8, 0, 0, 8), 0);
	ck_assert_uint_eq(rc->rc_head, 256);
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_FILL, 9, 0, 0, 9), -1);
	ck_assert_uint_eq(rc->rc_drops, 2);
	ck_assert_uint_eq(rc->rc_tail, 0);
	ck_assert_int_eq(t_walk(rc, e, 16), 7);
	ck_assert_uint_eq(e[0], 1);
	ck_assert_uint_eq(e[6], 8);
	free(rc);
}
END_TEST

START_TEST(test_oversized_record_dropped)
{
	struct rgn_cpu *rc = t_cpu(256);

	ck_assert_ptr_null(rgn_reserve(rc, DTRACEOPT_BUFPOLICY_RING, 241));
	ck_assert_ptr_null(rgn_reserve(rc, DTRACEOPT_BUFPOLICY_FILL,
	    0xffffffffU));
	ck_assert_uint_eq(rc->rc_drops, 2);
	ck_assert_uint_eq(rc->rc_reserve, 0);
	/* exactly the buffer size is fine */
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, 1, 240, 1, 1), 0);
	ck_assert_uint_eq(rc->rc_head, 256);
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, 2, 240, 2, 2), 0);
	ck_assert_uint_eq(rc->rc_tail, 256);
	ck_assert_uint_eq(rc->rc_head, 512);
	free(rc);
}
END_TEST

START_TEST(test_ring_corrupt_tail_resets)
{
	struct rgn_cpu *rc = t_cpu(256);
	uint32_t e[16], i;

	for (i = 1; i <= 6; i++)
		ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, i, 24,
		    (uint8_t)i, i), 0);
	/* damage the oldest record's size */
	((struct rgn_rec *)t_data(rc))->rr_size = 12;
	ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, 7, 24, 7, 7), 0);
	ck_assert_uint_eq(rc->rc_tail, 256);
	ck_assert_int_eq(t_walk(rc, e, 16), 1);
	ck_assert_uint_eq(e[0], 7);
	/* a zero size must not loop either */
	((struct rgn_rec *)t_data(rc))->rr_size = 0;
	for (i = 8; i <= 14; i++)
		ck_assert_int_eq(t_put(rc, DTRACEOPT_BUFPOLICY_RING, i, 24,
		    (uint8_t)i, i), 0);
	ck_assert_int_ge(t_walk(rc, e, 16), 1);
	free(rc);
}
END_TEST

struct t_seen {
	uint32_t	ts_n;
	uint32_t	ts_bad;
	uint32_t	ts_epid[8];
};

static int
t_seen_rec(void *arg, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff)
{
	struct t_seen *ts = arg;

	if (ts->ts_n < 8)
		ts->ts_epid[ts->ts_n] = rec->rr_epid;
	ts->ts_n++;
	return 0;
}

static int
t_seen_bad(void *arg, uint32_t cpu, uint64_t loff, const char *what)
{
	((struct t_seen *)arg)->ts_bad++;
	return 0;
}

/* What the writer produces, rgn_read.c (the one reader) accepts. */
START_TEST(test_reader_round_trip)
{
	struct t_seen seen;
	struct rgn_walk_cb cb = { t_seen_rec, t_seen_bad, &seen };
	struct kdt_err err;
	struct rgn_view v;
	struct rgn_rec *rec;
	int rv;
	uint8_t *base = t_region(DTRACEOPT_BUFPOLICY_RING, &err, &rv);

	ck_assert_int_eq(rv, 0);
	ck_assert_int_eq(rgn_add_probe(base, 1, "dtrace", "", "", "BEGIN",
	    &err), 0);
	ck_assert_int_eq(rgn_add_epid(base, 1, 1, 0, 8, &err), 0);
	ck_assert_int_eq(t_put(rgn_cpu(base, 1), DTRACEOPT_BUFPOLICY_RING, 1,
	    8, 1, 100), 0);
	ck_assert_int_eq(t_put(rgn_cpu(base, 1), DTRACEOPT_BUFPOLICY_RING, 1,
	    8, 2, 200), 0);
	/* a third record reserved but never committed: torn */
	rec = rgn_reserve(rgn_cpu(base, 1), DTRACEOPT_BUFPOLICY_RING, 8);
	ck_assert_ptr_nonnull(rec);
	ck_assert_int_eq(rgn_open(&v, base, T_SIZE, 0x10000000, &err), 0);
	ck_assert_uint_eq(v.rv_meta->rm_nprobes, 1);
	ck_assert_ptr_nonnull(rgn_find_epid(&v, 1));
	memset(&seen, 0, sizeof (seen));
	ck_assert_int_eq(rgn_walk_cpu(&v, 1, &cb, &err), 0);
	ck_assert_uint_eq(seen.ts_n, 2);
	ck_assert_uint_eq(seen.ts_epid[1], 1);
	ck_assert_uint_eq(seen.ts_bad, 1);
	free(base);
}
END_TEST

/*
 * rgn_init() over a warm reboot's bytes (0xee everywhere) zeroes only what
 * readers take as "nothing yet": the probe and EPID tables' unused
 * capacity and the module table past ma_used keep the old bytes, and the
 * reader, which stops at the counts, sees exactly what was added.
 */
START_TEST(test_init_over_stale_bytes)
{
	const struct rgn_probe *rp;
	const struct rgn_modarea *a;
	const struct rgn_mod *md;
	const uint8_t *slot;
	struct rgn_params p;
	struct kdt_err err;
	struct rgn_view v;
	uint64_t cur = 0;
	uint8_t *base = malloc(T_SIZE);
	uint32_t i;

	ck_assert_ptr_nonnull(base);
	memset(base, 0xee, T_SIZE);
	t_params(&p, DTRACEOPT_BUFPOLICY_RING);
	p.rp_probe_cap = 8;
	p.rp_epid_cap = 8;
	p.rp_modsize = 16384;
	ck_assert_int_eq(rgn_init(base, T_SIZE, &p, &err), 0);
	ck_assert_int_eq(rgn_add_probe(base, 1, "dtrace", "", "", "BEGIN",
	    &err), 0);
	ck_assert_int_eq(rgn_add_probe(base, 2, "fbt", "kernel", "vfs_read",
	    "entry", &err), 0);
	ck_assert_int_eq(rgn_add_epid(base, 1, 1, 0, 8, &err), 0);
	ck_assert_int_eq(rgn_add_epid(base, 2, 2, 0, 8, &err), 0);
	ck_assert_int_eq(rgn_mod_begin(base, "xor", 0xffffffffc0000000ULL,
	    0x3000, 0x1000, 0), 0);
	ck_assert_int_eq(rgn_mod_sym(base, 0xffffffffc0000010ULL, 0x20,
	    "xor_init"), 0);
	rgn_mod_end(base);

	ck_assert_int_eq(rgn_open(&v, base, T_SIZE, 0x10000000, &err), 0);
	ck_assert_uint_eq(v.rv_meta->rm_nprobes, 2);
	ck_assert_uint_eq(v.rv_meta->rm_nepids, 2);
	rp = rgn_find_probe(&v, 2);
	ck_assert_ptr_nonnull(rp);
	ck_assert_str_eq(rp->rp_func, "vfs_read");
	ck_assert_ptr_null(rgn_find_probe(&v, 3));
	ck_assert_ptr_nonnull(rgn_find_epid(&v, 2));
	ck_assert_ptr_null(rgn_find_epid(&v, 3));
	ck_assert_int_eq(rgn_mod_first(&v, &a, &err), 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->ma_nmods, 1);
	ck_assert_int_eq(rgn_mod_next(&v, &cur, &md, &err), 1);
	ck_assert_str_eq(md->md_name, "xor");
	ck_assert_uint_eq(md->md_nsyms, 1);
	ck_assert_int_eq(rgn_mod_next(&v, &cur, &md, &err), 0);
	/* the old bytes are still there, past the counts */
	slot = (const uint8_t *)v.rv_meta + v.rv_meta->rm_probe_off +
	    2 * sizeof (struct rgn_probe);
	for (i = 0; i < sizeof (struct rgn_probe); i++)
		ck_assert_uint_eq(slot[i], 0xee);
	slot = (const uint8_t *)(a + 1) + a->ma_used;
	ck_assert_uint_eq(slot[0], 0xee);
	free(base);
}
END_TEST

/* rgn_size_for() gives rgn_init() room for the asked bufsize and aggs. */
START_TEST(test_size_for_and_aggs)
{
	struct rgn_params p;
	struct kdt_err err;
	struct rgn_view v;
	const struct agg_buf *ab;
	uint64_t size, len;
	void *base;
	uint32_t cpu;

	memset(&p, 0, sizeof (p));
	p.rp_ncpu = T_NCPU;
	p.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	p.rp_probe_cap = 100;
	p.rp_epid_cap = 200;
	p.rp_aggsize = 10000;		/* rounded up to 3 pages */
	p.rp_dof = t_dof;
	p.rp_dofsz = sizeof (t_dof);
	size = rgn_size_for(&p, 50000);
	base = calloc(1, size);
	ck_assert_int_eq(rgn_init(base, size, &p, &err), 0);
	ck_assert_uint_ge(((struct rgn_hdr *)base)->rh_bufsize, 50000);
	ck_assert_int_eq(rgn_open(&v, base, size, RGN_PHYS_ANY, &err), 0);
	for (cpu = 0; cpu < T_NCPU; cpu++) {
		ab = rgn_view_agg(&v, cpu, &len);
		ck_assert_ptr_nonnull(ab);
		ck_assert_ptr_eq(ab, rgn_agg(base, cpu));
		ck_assert_uint_eq(len, 3 * 4096);
		ck_assert_uint_eq(ab->ab_cpu, cpu);
		ck_assert_uint_eq(ab->ab_magic, AGG_BUF_MAGIC);
		ck_assert((const uint8_t *)ab + len <=
		    (const uint8_t *)base + v.rv_hdr->rh_cpu_off);
	}
	ck_assert_ptr_null(rgn_view_agg(&v, T_NCPU, &len));
	/* A bad aggregation size is refused by the reader (rule 14). */
	((struct agg_buf *)rgn_agg(base, 0))->ab_size = 4095;
	ck_assert_int_ne(rgn_open(&v, base, size, RGN_PHYS_ANY, &err), 0);
	ck_assert_str_eq(err.ke_tag, "RGN_AGGSIZE");
	free(base);
	/* Without aggregations there is no area. */
	p.rp_aggsize = 0;
	size = rgn_size_for(&p, 50000);
	base = calloc(1, size);
	ck_assert_int_eq(rgn_init(base, size, &p, &err), 0);
	ck_assert_int_eq(rgn_open(&v, base, size, RGN_PHYS_ANY, &err), 0);
	ck_assert_ptr_null(rgn_view_agg(&v, 0, &len));
	ck_assert_uint_ge(((struct rgn_hdr *)base)->rh_bufsize, 50000);
	free(base);
}
END_TEST

static Suite *
rgn_write_suite(void)
{
	Suite *s = suite_create("rgn_write");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_magic_bytes);
	tcase_add_test(tc, test_init_header);
	tcase_add_test(tc, test_init_meta_and_cpus);
	tcase_add_test(tc, test_init_too_small_is_enospc);
	tcase_add_test(tc, test_add_probe_and_epid);
	tcase_add_test(tc, test_worked_example_bytes);
	tcase_add_test(tc, test_payload_rounded_to_8);
	tcase_add_test(tc, test_ring_wraps_pads_and_advances_tail);
	tcase_add_test(tc, test_ring_pad_of_8_bytes);
	tcase_add_test(tc, test_fill_drops_when_full);
	tcase_add_test(tc, test_oversized_record_dropped);
	tcase_add_test(tc, test_ring_corrupt_tail_resets);
	tcase_add_test(tc, test_reader_round_trip);
	tcase_add_test(tc, test_init_over_stale_bytes);
	tcase_add_test(tc, test_size_for_and_aggs);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(rgn_write_suite)
