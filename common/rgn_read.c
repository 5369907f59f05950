/*
 * rgn_read.c -- the reader half of the reserved region (theory in rgn.h).
 *
 * Every consumer of a region image goes through this file: kdt-extract on
 * a crash dump (crashdump/), "kdt -a" on the image read from /dev/kdt and
 * the crash(8) extension, all via consumer/kc_print.c.  It is compiled
 * unchanged into kdt.ko too, so it only uses kdt_env.h services.
 *
 * The image is untrusted: it may come from a machine that died while
 * writing it, from a previous boot, or from a dump that was cut short.
 * rgn_open() is the validator; it enumerates its rules below and refuses
 * the image on the first broken one with an error record naming the
 * field, its value and the limit.  After a successful open, the header,
 * the metadata tables and the per-cpu headers may be trusted; the record
 * streams are still checked record by record by rgn_walk_cpu(), because
 * a panic can leave them half written.
 */
#include "rgn.h"
#include "dof_load.h"

#define RGN_MAX_CPUS	65536u

static uint64_t
rgn_bswap64(uint64_t v)
{
	return __builtin_bswap64(v);
}

/*
 * CRC of the header with rh_crc taken as 0.  The header is at most one
 * page (rule 4), so a private copy is cheap; it keeps the CRC a single
 * kenv_crc32() call in both environments.
 */
static int
rgn_hdr_crc(const uint8_t *base, uint32_t hdrsize, uint32_t *crc)
{
	struct rgn_hdr *h;
	uint8_t *copy;

	copy = kenv_zalloc(hdrsize);
	if (copy == NULL)
		return -ENOMEM;
	memcpy(copy, base, hdrsize);
	h = (struct rgn_hdr *)copy;
	h->rh_crc = 0;
	*crc = kenv_crc32(copy, hdrsize);
	kenv_free(copy);
	return 0;
}

/* Rules 1-3: magic, byte order, version. */
static int
rgn_check_ident(const struct rgn_hdr *h, struct kdt_err *err)
{
	uint64_t magic = rgn_magic();

	if (h->rh_magic == rgn_bswap64(magic) ||
	    h->rh_endian == RGN_ENDIAN_SWAPPED)
		return kdt_err_set(err, EPROTO, "RGN_ENDIAN", 14,
		    "region header was written on a machine of the other byte order (endian marker 0x%04x, expected 0x%04x)",
		    h->rh_endian, RGN_ENDIAN);
	if (h->rh_magic != magic)
		return kdt_err_set(err, EINVAL, "RGN_MAGIC", 0,
		    "region header magic 0x%016llx is not the kdt region magic",
		    (unsigned long long)h->rh_magic);
	if (h->rh_endian != RGN_ENDIAN)
		return kdt_err_set(err, EINVAL, "RGN_ENDIAN", 14,
		    "region header endian marker 0x%04x is neither 0x%04x nor 0x%04x",
		    h->rh_endian, RGN_ENDIAN, RGN_ENDIAN_SWAPPED);
	if (h->rh_version == 0 || h->rh_version > RGN_VERSION)
		return kdt_err_set(err, EPROTONOSUPPORT, "RGN_VERSION", 12,
		    "region version %u is not supported: this reader knows versions 1 to %u",
		    h->rh_version, RGN_VERSION);
	return 0;
}

/* Rules 4-5: header size, zero tail, CRC. */
static int
rgn_check_hdrsize(const uint8_t *base, uint64_t len, struct kdt_err *err)
{
	const struct rgn_hdr *h = (const void *)base;
	uint32_t i, crc;
	int rv;

	if (h->rh_hdrsize < sizeof (*h) || h->rh_hdrsize > RGN_PAGE)
		return kdt_err_set(err, EINVAL, "RGN_HDRSIZE", 8,
		    "region header size %u is outside [%u, %llu]",
		    h->rh_hdrsize, (unsigned)sizeof (*h),
		    (unsigned long long)RGN_PAGE);
	if (h->rh_hdrsize > len)
		return kdt_err_set(err, EINVAL, "RGN_TRUNC", 8,
		    "region header size %u exceeds the 0x%llx bytes available",
		    h->rh_hdrsize, (unsigned long long)len);
	for (i = sizeof (*h); i < h->rh_hdrsize; i++)
		if (base[i] != 0)
			return kdt_err_set(err, EINVAL, "RGN_HDRTAIL", i,
			    "region header byte %u of %u is 0x%02x: a header longer than %u bytes must have a zero tail",
			    i, h->rh_hdrsize, base[i], (unsigned)sizeof (*h));
	rv = rgn_hdr_crc(base, h->rh_hdrsize, &crc);
	if (rv != 0)
		return kdt_err_set(err, -rv, "RGN_NOMEM", KDT_ERR_NOOFF,
		    "no memory for a %u-byte header copy", h->rh_hdrsize);
	if (crc != h->rh_crc)
		return kdt_err_set(err, EBADMSG, "RGN_CRC", 188,
		    "region header CRC 0x%08x does not match the computed 0x%08x",
		    h->rh_crc, crc);
	return 0;
}

/* Rules 6-8: size against what we hold, physical address, policy. */
static int
rgn_check_place(const struct rgn_hdr *h, uint64_t len, uint64_t phys,
    struct kdt_err *err)
{
	if (h->rh_size > len)
		return kdt_err_set(err, ENODATA, "RGN_TRUNC", 16,
		    "region is 0x%llx bytes but only 0x%llx bytes are available (image truncated)",
		    (unsigned long long)h->rh_size, (unsigned long long)len);
	if (phys != RGN_PHYS_ANY && h->rh_phys != phys)
		return kdt_err_set(err, EADDRNOTAVAIL, "RGN_PHYS", 24,
		    "region header says phys 0x%llx but it was found at phys 0x%llx (a stale copy?)",
		    (unsigned long long)h->rh_phys,
		    (unsigned long long)phys);
	if (h->rh_policy > DTRACEOPT_BUFPOLICY_SWITCH)
		return kdt_err_set(err, EINVAL, "RGN_POLICY", 180,
		    "region buffer policy %u is above the largest known %u",
		    h->rh_policy, DTRACEOPT_BUFPOLICY_SWITCH);
	return 0;
}

/* Rule 9: the metadata area, page-aligned, after the header. */
static int
rgn_check_meta_area(const struct rgn_hdr *h, struct kdt_err *err)
{
	if (h->rh_meta_off < h->rh_hdrsize || h->rh_meta_off % RGN_PAGE ||
	    h->rh_meta_size < sizeof (struct rgn_meta) ||
	    h->rh_meta_size % RGN_PAGE ||
	    !kdt_range_ok(h->rh_meta_off, h->rh_meta_size, h->rh_size))
		return kdt_err_set(err, EINVAL, "RGN_META", 72,
		    "metadata area at offset 0x%llx size 0x%llx must be page-aligned, after the %u-byte header and inside the 0x%llx-byte region",
		    (unsigned long long)h->rh_meta_off,
		    (unsigned long long)h->rh_meta_size, h->rh_hdrsize,
		    (unsigned long long)h->rh_size);
	return 0;
}

/* Rule 10: the per-cpu areas, page-aligned, after the metadata. */
static int
rgn_check_cpu_area(const struct rgn_hdr *h, struct kdt_err *err)
{
	uint64_t meta_end = h->rh_meta_off + h->rh_meta_size;

	if (h->rh_ncpu == 0 || h->rh_ncpu > RGN_MAX_CPUS)
		return kdt_err_set(err, EINVAL, "RGN_NCPU", 48,
		    "region cpu count %u is outside [1, %u]", h->rh_ncpu,
		    RGN_MAX_CPUS);
	if (h->rh_bufsize == 0 || h->rh_bufsize % 8 ||
	    h->rh_bufsize > h->rh_size ||
	    h->rh_cpu_stride < RGN_CPU_HDRSIZE + h->rh_bufsize ||
	    h->rh_cpu_stride % RGN_PAGE)
		return kdt_err_set(err, EINVAL, "RGN_BUFSIZE", 104,
		    "cpu buffer size 0x%llx must be a non-zero multiple of 8 and fit with its %u-byte header in the page-aligned stride 0x%llx",
		    (unsigned long long)h->rh_bufsize, RGN_CPU_HDRSIZE,
		    (unsigned long long)h->rh_cpu_stride);
	if (h->rh_cpu_off < meta_end || h->rh_cpu_off % RGN_PAGE ||
	    h->rh_cpu_off > h->rh_size ||
	    h->rh_cpu_stride > (h->rh_size - h->rh_cpu_off) / h->rh_ncpu)
		return kdt_err_set(err, EINVAL, "RGN_CPUS", 88,
		    "%u cpu buffers of stride 0x%llx at offset 0x%llx must be page-aligned, after the metadata end 0x%llx and inside the 0x%llx-byte region",
		    h->rh_ncpu, (unsigned long long)h->rh_cpu_stride,
		    (unsigned long long)h->rh_cpu_off,
		    (unsigned long long)meta_end,
		    (unsigned long long)h->rh_size);
	return 0;
}

/* Rule 11: one metadata table inside the metadata area, count <= cap. */
static int
rgn_check_table(const struct rgn_hdr *h, const char *what, uint64_t off,
    uint32_t cap, uint32_t n, uint32_t entsize, struct kdt_err *err)
{
	if (off % 8 || !kdt_range_ok(off, (uint64_t)cap * entsize,
	    h->rh_meta_size) || off < sizeof (struct rgn_meta))
		return kdt_err_set(err, EINVAL, "RGN_TABLE",
		    h->rh_meta_off + off,
		    "%s table at metadata offset 0x%llx with capacity %u x %u bytes is not 8-aligned inside the 0x%llx-byte metadata area",
		    what, (unsigned long long)off, cap, entsize,
		    (unsigned long long)h->rh_meta_size);
	if (n > cap)
		return kdt_err_set(err, EINVAL, "RGN_COUNT", KDT_ERR_NOOFF,
		    "%s table holds %u entries, above its capacity %u",
		    what, n, cap);
	return 0;
}

/*
 * Rule 14: the aggregation area, if any: page-aligned between the
 * metadata and the cpu areas, CPU 0's buffer size a page multiple that
 * fits rh_ncpu times.  (The buffers' contents are agg_buf_check()'s.)
 */
static int
rgn_check_aggs(const struct rgn_view *v, struct kdt_err *err)
{
	const struct rgn_hdr *h = v->rv_hdr;
	uint64_t off = v->rv_meta->rm_agg_off, sz;

	if (off == 0)
		return 0;
	if (off % RGN_PAGE != 0 || off < h->rh_meta_off + h->rh_meta_size ||
	    off >= h->rh_cpu_off || h->rh_cpu_off - off < 8 + 8)
		return kdt_err_set(err, EINVAL, "RGN_AGGOFF", h->rh_meta_off + 56,
		    "aggregation area at offset 0x%llx must be page-aligned between the metadata end 0x%llx and the cpu areas at 0x%llx",
		    (unsigned long long)off,
		    (unsigned long long)(h->rh_meta_off + h->rh_meta_size),
		    (unsigned long long)h->rh_cpu_off);
	memcpy(&sz, v->rv_base + off + 8, sizeof (sz));	/* ab_size */
	if (sz == 0 || sz % RGN_PAGE != 0 ||
	    sz > (h->rh_cpu_off - off) / h->rh_ncpu)
		return kdt_err_set(err, EINVAL, "RGN_AGGSIZE", off + 8,
		    "aggregation buffers of 0x%llx bytes: %u of them must fit the 0x%llx bytes before the cpu areas, in whole pages",
		    (unsigned long long)sz, h->rh_ncpu,
		    (unsigned long long)(h->rh_cpu_off - off));
	return 0;
}

/* Rules 11-12: the tables and the DOF copy. */
static int
rgn_check_meta(struct rgn_view *v, struct kdt_err *err)
{
	const struct rgn_hdr *h = v->rv_hdr;
	const struct rgn_meta *m = v->rv_meta;
	uint32_t crc;
	int rv;

	rv = rgn_check_table(h, "probe", m->rm_probe_off, m->rm_probe_cap,
	    m->rm_nprobes, sizeof (struct rgn_probe), err);
	if (rv == 0)
		rv = rgn_check_table(h, "EPID", m->rm_epid_off,
		    m->rm_epid_cap, m->rm_nepids, sizeof (struct rgn_epid),
		    err);
	if (rv != 0)
		return rv;
	if (!kdt_range_ok(m->rm_dof_off, m->rm_dof_size, h->rh_meta_size) ||
	    (m->rm_dof_size != 0 && m->rm_dof_off < sizeof (*m)))
		return kdt_err_set(err, EINVAL, "RGN_DOF", h->rh_meta_off + 32,
		    "DOF copy at metadata offset 0x%llx size 0x%llx is outside the 0x%llx-byte metadata area",
		    (unsigned long long)m->rm_dof_off,
		    (unsigned long long)m->rm_dof_size,
		    (unsigned long long)h->rh_meta_size);
	v->rv_dof = (const uint8_t *)m + m->rm_dof_off;
	crc = kenv_crc32(v->rv_dof, m->rm_dof_size);
	if (crc != m->rm_dof_crc)
		return kdt_err_set(err, EBADMSG, "RGN_DOFCRC",
		    h->rh_meta_off + 48,
		    "DOF copy CRC 0x%08x does not match the computed 0x%08x",
		    m->rm_dof_crc, crc);
	v->rv_probes = (const void *)((const uint8_t *)m + m->rm_probe_off);
	v->rv_epids = (const void *)((const uint8_t *)m + m->rm_epid_off);
	return rgn_check_aggs(v, err);
}

/* Rule 13: every per-cpu header has the magic, its number and the size. */
static int
rgn_check_cpus(const struct rgn_view *v, struct kdt_err *err)
{
	const struct rgn_hdr *h = v->rv_hdr;
	const struct rgn_cpu *rc;
	uint64_t off;
	uint32_t i;

	for (i = 0; i < h->rh_ncpu; i++) {
		off = h->rh_cpu_off + (uint64_t)i * h->rh_cpu_stride;
		rc = rgn_view_cpu(v, i);
		if (rc->rc_magic != RGN_CPU_MAGIC || rc->rc_cpu != i ||
		    rc->rc_size != h->rh_bufsize)
			return kdt_err_set(err, EINVAL, "RGN_CPUHDR", off,
			    "cpu %u buffer header at offset 0x%llx has magic 0x%08x (expected 0x%08x), cpu %u, size 0x%llx (expected 0x%llx)",
			    i, (unsigned long long)off, rc->rc_magic,
			    RGN_CPU_MAGIC, rc->rc_cpu,
			    (unsigned long long)rc->rc_size,
			    (unsigned long long)h->rh_bufsize);
	}
	return 0;
}

/*
 * Validate a region image.  Rules, in the order they are checked:
 *
 *  0. At least sizeof (struct rgn_hdr) bytes are present.
 *  1. rh_magic is rgn_magic(); a byte-swapped magic or endian marker
 *     means "written on a machine of the other byte order".
 *  2. rh_endian is RGN_ENDIAN.
 *  3. 1 <= rh_version <= RGN_VERSION (a newer version is named).
 *  4. sizeof (struct rgn_hdr) <= rh_hdrsize <= one page and <= len; the
 *     bytes of a longer header beyond the fields we know are zero.
 *  5. rh_crc is the CRC-32 of the rh_hdrsize header bytes, rh_crc = 0.
 *  6. rh_size <= len (else: truncated image, both sizes named).
 *  7. rh_phys == phys unless phys is RGN_PHYS_ANY.
 *  8. rh_policy is a known buffer policy.
 *  9. The metadata area is page-aligned, after the header, inside
 *     rh_size and at least one struct rgn_meta.
 * 10. 1 <= rh_ncpu <= 65536; rh_bufsize is a non-zero multiple of 8;
 *     the page-aligned stride holds a cpu header plus rh_bufsize; the
 *     page-aligned cpu areas start after the metadata and end inside
 *     rh_size.
 * 11. The probe and EPID tables are 8-aligned, after struct rgn_meta and
 *     inside the metadata area at full capacity; counts <= capacities.
 * 12. The DOF copy lies inside the metadata area and matches rm_dof_crc.
 * 13. Every cpu header has RGN_CPU_MAGIC, rc_cpu == its index and
 *     rc_size == rh_bufsize.
 * 14. An aggregation area (rm_agg_off != 0) is page-aligned between the
 *     metadata and the cpu areas and holds rh_ncpu buffers of CPU 0's
 *     ab_size, a page multiple.
 *
 * Afterwards every pointer in the view is inside [base, base + rh_size).
 */
int
rgn_open(struct rgn_view *v, const void *base, uint64_t len, uint64_t phys,
    struct kdt_err *err)
{
	const struct rgn_hdr *h = base;
	int rv;

	memset(v, 0, sizeof (*v));
	if (len < sizeof (*h))
		return kdt_err_set(err, ENODATA, "RGN_TRUNC", 0,
		    "region image of %llu bytes is shorter than the %u-byte header",
		    (unsigned long long)len, (unsigned)sizeof (*h));
	rv = rgn_check_ident(h, err);
	if (rv == 0)
		rv = rgn_check_hdrsize(base, len, err);
	if (rv == 0)
		rv = rgn_check_place(h, len, phys, err);
	if (rv == 0)
		rv = rgn_check_meta_area(h, err);
	if (rv == 0)
		rv = rgn_check_cpu_area(h, err);
	if (rv != 0)
		return rv;
	v->rv_base = base;
	v->rv_len = len;
	v->rv_hdr = h;
	v->rv_meta = (const void *)((const uint8_t *)base + h->rh_meta_off);
	rv = rgn_check_meta(v, err);
	if (rv == 0)
		rv = rgn_check_cpus(v, err);
	if (rv != 0)
		memset(v, 0, sizeof (*v));
	return rv;
}

/*
 * Quiet sniff used while scanning memory: 1 when a plausible region
 * header starts at p (magic in either byte order with the matching
 * endian marker, a known-looking version and header size), and, for a
 * native header that fits in len, its CRC is right.  Never reports.
 */
int
rgn_probe_hdr(const void *p, uint64_t len)
{
	const struct rgn_hdr *h = p;
	uint64_t magic;
	uint32_t crc;

	if (len < sizeof (*h))
		return 0;
	magic = rgn_magic();
	if (h->rh_magic == rgn_bswap64(magic))
		return h->rh_endian == RGN_ENDIAN_SWAPPED;
	if (h->rh_magic != magic || h->rh_endian != RGN_ENDIAN ||
	    h->rh_version == 0)
		return 0;
	if (h->rh_hdrsize < sizeof (*h) || h->rh_hdrsize > RGN_PAGE)
		return 0;
	if (h->rh_hdrsize > len)
		return 1;
	if (rgn_hdr_crc(p, h->rh_hdrsize, &crc) != 0)
		return 1;
	return crc == h->rh_crc;
}

const struct rgn_cpu *
rgn_view_cpu(const struct rgn_view *v, uint32_t cpu)
{
	const struct rgn_hdr *h = v->rv_hdr;

	if (h == NULL || cpu >= h->rh_ncpu)
		return NULL;
	return (const void *)(v->rv_base + h->rh_cpu_off +
	    (uint64_t)cpu * h->rh_cpu_stride);
}

const void *
rgn_view_agg(const struct rgn_view *v, uint32_t cpu, uint64_t *len)
{
	const struct rgn_hdr *h = v->rv_hdr;
	uint64_t off, sz;

	if (h == NULL || v->rv_meta == NULL || cpu >= h->rh_ncpu ||
	    (off = v->rv_meta->rm_agg_off) == 0)
		return NULL;
	memcpy(&sz, v->rv_base + off + 8, sizeof (sz));	/* rule 14 */
	*len = sz;
	return v->rv_base + off + (uint64_t)cpu * sz;
}

/* EPIDs are allocated densely from 1, so try slot epid - 1 first. */
const struct rgn_epid *
rgn_find_epid(const struct rgn_view *v, uint32_t epid)
{
	uint32_t i, n = v->rv_meta->rm_nepids;

	if (epid != 0 && epid <= n && v->rv_epids[epid - 1].re_epid == epid)
		return &v->rv_epids[epid - 1];
	for (i = 0; i < n; i++)
		if (v->rv_epids[i].re_epid == epid)
			return &v->rv_epids[i];
	return NULL;
}

const struct rgn_probe *
rgn_find_probe(const struct rgn_view *v, uint32_t id)
{
	uint32_t i, n = v->rv_meta->rm_nprobes;

	for (i = 0; i < n; i++)
		if (v->rv_probes[i].rp_id == id)
			return &v->rv_probes[i];
	return NULL;
}

/* Report one problem; returns what the callback says (0 = go on). */
static int
rgn_report(const struct rgn_walk_cb *cb, uint32_t cpu, uint64_t loff,
    const char *what)
{
	if (cb->wc_bad == NULL)
		return 0;
	return cb->wc_bad(cb->wc_arg, cpu, loff, what);
}

static int
rgn_bad(const struct rgn_walk_cb *cb, uint32_t cpu, uint64_t loff,
    char *buf, uint32_t size, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static int
rgn_bad(const struct rgn_walk_cb *cb, uint32_t cpu, uint64_t loff,
    char *buf, uint32_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return rgn_report(cb, cpu, loff, buf);
}

/*
 * Check one record header at logical offset loff (data offset off) with
 * "left" committed bytes from loff on.  Returns 0 with *ep set (NULL for
 * a pad or an error record, whose size must be that of struct
 * rgn_errrec), or 1 after filling msg with what is wrong.
 */
static int
rgn_check_rec(const struct rgn_view *v, const struct rgn_rec *rr,
    uint64_t off, uint64_t left, const struct rgn_epid **ep, char *msg,
    uint32_t msgsz)
{
	uint64_t room = v->rv_hdr->rh_bufsize - off;
	uint32_t sz = rr->rr_size;

	*ep = NULL;
	if (sz < 8 || sz % 8 || sz > left || sz > room) {
		snprintf(msg, msgsz, "record size %u is not a multiple of 8 in [8, %llu] (committed bytes left 0x%llx, bytes to the data end 0x%llx)",
		    sz, (unsigned long long)(left < room ? left : room),
		    (unsigned long long)left, (unsigned long long)room);
		return 1;
	}
	if (rr->rr_epid == RGN_EPID_PAD)
		return 0;
	if (rr->rr_epid == RGN_EPID_ERROR) {
		if (sz == RGN_REC_HDRSIZE + sizeof (struct rgn_errrec))
			return 0;
		snprintf(msg, msgsz, "error record size %u differs from the %u bytes of an error record",
		    sz, (uint32_t)(RGN_REC_HDRSIZE +
		    sizeof (struct rgn_errrec)));
		return 1;
	}
	*ep = rgn_find_epid(v, rr->rr_epid);
	if (*ep == NULL) {
		snprintf(msg, msgsz, "record EPID %u is not in the %u-entry EPID table",
		    rr->rr_epid, v->rv_meta->rm_nepids);
		return 1;
	}
	if (sz != RGN_REC_HDRSIZE + (uint64_t)(*ep)->re_size) {
		snprintf(msg, msgsz, "record size %u for EPID %u differs from the %u bytes its layout needs",
		    sz, rr->rr_epid, RGN_REC_HDRSIZE + (*ep)->re_size);
		return 1;
	}
	return 0;
}

/* The cpu header's cursors must describe a possible ring state. */
static int
rgn_check_cursors(const struct rgn_cpu *rc, uint64_t head, uint64_t tail,
    char *msg, uint32_t msgsz)
{
	if (tail > head || head - tail > rc->rc_size || head % 8 ||
	    tail % 8) {
		snprintf(msg, msgsz, "buffer cursors are corrupt: tail 0x%llx, head 0x%llx, size 0x%llx (need tail <= head, head - tail <= size, both 8-aligned)",
		    (unsigned long long)tail, (unsigned long long)head,
		    (unsigned long long)rc->rc_size);
		return 1;
	}
	return 0;
}

/* After the committed records: was one being written when we died? */
static int
rgn_walk_torn(const struct rgn_walk_cb *cb, uint32_t cpu,
    const struct rgn_cpu *rc, uint64_t head, uint64_t tail, char *msg,
    uint32_t msgsz)
{
	uint64_t resv = KENV_READ_ONCE(rc->rc_reserve);

	if (resv == head)
		return 0;
	if (resv > head && resv - tail <= rc->rc_size)
		return rgn_bad(cb, cpu, head, msg, msgsz,
		    "record torn by the panic: %llu bytes reserved at logical offset 0x%llx, not committed",
		    (unsigned long long)(resv - head),
		    (unsigned long long)head);
	return rgn_bad(cb, cpu, head, msg, msgsz,
	    "reserve cursor 0x%llx is inconsistent with head 0x%llx, tail 0x%llx and size 0x%llx",
	    (unsigned long long)resv, (unsigned long long)head,
	    (unsigned long long)tail, (unsigned long long)rc->rc_size);
}

/*
 * Walk [rc_tail, rc_head) oldest to newest.  Each record is checked by
 * rgn_check_rec() before it is handed out, so wc_rec may trust rr_size
 * and the EPID (error records, rr_epid RGN_EPID_ERROR, are handed out
 * too, with their struct rgn_errrec payload).  The first bad record is
 * reported and ends this cpu's walk (a corrupt size leaves no way to
 * find the next record).  Returns
 * 0, the non-zero value a callback returned to stop, or -EINVAL for a
 * cpu number out of range.
 */
int
rgn_walk_cpu(const struct rgn_view *v, uint32_t cpu,
    const struct rgn_walk_cb *cb, struct kdt_err *err)
{
	const struct rgn_cpu *rc = rgn_view_cpu(v, cpu);
	const uint8_t *data;
	const struct rgn_rec *rr;
	const struct rgn_epid *ep;
	uint64_t head, tail, loff, off;
	char msg[256];
	int rv;

	if (rc == NULL)
		return kdt_err_set(err, EINVAL, "RGN_CPU", KDT_ERR_NOOFF,
		    "cpu %u is not below the region's cpu count %u", cpu,
		    v->rv_hdr == NULL ? 0 : v->rv_hdr->rh_ncpu);
	data = (const uint8_t *)rc + RGN_CPU_HDRSIZE;
	head = KENV_READ_ONCE(rc->rc_head);
	tail = KENV_READ_ONCE(rc->rc_tail);
	if (rgn_check_cursors(rc, head, tail, msg, sizeof (msg)))
		return rgn_report(cb, cpu, tail, msg);
	for (loff = tail; loff < head; loff += rr->rr_size) {
		off = loff % rc->rc_size;
		rr = (const void *)(data + off);
		if (rgn_check_rec(v, rr, off, head - loff, &ep, msg,
		    sizeof (msg)))
			return rgn_report(cb, cpu, loff, msg);
		if (rr->rr_epid == RGN_EPID_PAD || cb->wc_rec == NULL)
			continue;
		rv = cb->wc_rec(cb->wc_arg, cpu, rr,
		    (const uint8_t *)rr + RGN_REC_HDRSIZE, loff);
		if (rv != 0)
			return rv;
	}
	return rgn_walk_torn(cb, cpu, rc, head, tail, msg, sizeof (msg));
}
