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
 * a panic can leave them half written.  An image its source held only in
 * part is opened with rgn_open_gaps(): the header and metadata must be
 * whole, and a CPU buffer or optional area touching a gap is left out of
 * the rules and of every accessor, so nothing is decoded from the zeros
 * standing in for the missing bytes.
 */
#include "rgn.h"
#include "agg.h"
#include "dof_load.h"
#include "spec.h"	/* the speculation area (rgn_walk_spec) */

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
	    h->rh_meta_size) || off < RGN_META_V1SIZE)
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
	const struct rgn_meta *m = v->rv_meta;
	uint64_t off = m->rm_agg_off, sz, toff, tsz;
	uint32_t n = rgn_view_nagg(v);

	if (off == 0)
		return 0;
	if (RGN_META_HAS_AGGTOT(m) && m->rm_agg_nbuf != 0 &&
	    m->rm_agg_nbuf != 2 * h->rh_ncpu)
		return kdt_err_set(err, EINVAL, "RGN_AGGNBUF",
		    h->rh_meta_off + 144,
		    "aggregation buffer count %u is neither 0 nor 2 x %u CPUs",
		    m->rm_agg_nbuf, h->rh_ncpu);
	if (off % RGN_PAGE != 0 || off < h->rh_meta_off + h->rh_meta_size ||
	    off >= h->rh_cpu_off || h->rh_cpu_off - off < 8 + 8)
		return kdt_err_set(err, EINVAL, "RGN_AGGOFF", h->rh_meta_off + 56,
		    "aggregation area at offset 0x%llx must be page-aligned between the metadata end 0x%llx and the cpu areas at 0x%llx",
		    (unsigned long long)off,
		    (unsigned long long)(h->rh_meta_off + h->rh_meta_size),
		    (unsigned long long)h->rh_cpu_off);
	memcpy(&sz, v->rv_base + off + 8, sizeof (sz));	/* ab_size */
	if (sz == 0 || sz % RGN_PAGE != 0 ||
	    sz > (h->rh_cpu_off - off) / n)
		return kdt_err_set(err, EINVAL, "RGN_AGGSIZE", off + 8,
		    "aggregation buffers of 0x%llx bytes: %u of them must fit the 0x%llx bytes before the cpu areas, in whole pages",
		    (unsigned long long)sz, n,
		    (unsigned long long)(h->rh_cpu_off - off));
	if (!RGN_META_HAS_AGGTOT(m) || (toff = m->rm_aggtot_off) == 0)
		return 0;
	/* rule 16: the totals area, right after the buffers */
	tsz = m->rm_aggtot_size;
	if (m->rm_agg_nbuf == 0 || toff != off + (uint64_t)n * sz ||
	    tsz == 0 || tsz % (2 * RGN_PAGE) != 0 ||
	    tsz > h->rh_cpu_off - toff ||
	    tsz / 2 <= RGN_AGGTOT_HDRSIZE + 8ULL * h->rh_ncpu)
		return kdt_err_set(err, EINVAL, "RGN_AGGTOT",
		    h->rh_meta_off + 128,
		    "aggregation totals area at offset 0x%llx size 0x%llx must follow the %u aggregation buffers (0x%llx) as two slots of whole pages, each larger than 0x%llx bytes, before the cpu areas at 0x%llx",
		    (unsigned long long)toff, (unsigned long long)tsz, n,
		    (unsigned long long)(off + (uint64_t)n * sz),
		    (unsigned long long)(RGN_AGGTOT_HDRSIZE +
		    8ULL * h->rh_ncpu), (unsigned long long)h->rh_cpu_off);
	return 0;
}

static int rgn_check_specvar(const struct rgn_view *v, struct kdt_err *err);

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
	if (!(v->rv_lost & (1u << RGN_PART_AGGS)) &&
	    (rv = rgn_check_aggs(v, err)) != 0)
		return rv;
	if (v->rv_lost & (1u << RGN_PART_SPEC))
		return 0;		/* lost to a gap: left out */
	return rgn_check_specvar(v, err);	/* rule 15 */
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
		if (rgn_view_gap_cpu(v, i, NULL))
			continue;	/* left out: rgn_walk_cpu says so */
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
 * 11. The probe and EPID tables are 8-aligned, after struct rgn_meta (at
 *     least its first 64 bytes: rgn.h, "optional metadata fields") and
 *     inside the metadata area at full capacity; counts <= capacities.
 * 12. The DOF copy lies inside the metadata area and matches rm_dof_crc.
 * 13. Every cpu header has RGN_CPU_MAGIC, rc_cpu == its index and
 *     rc_size == rh_bufsize.
 * 14. An aggregation area (rm_agg_off != 0) is page-aligned between the
 *     metadata and the cpu areas and holds rh_ncpu buffers (2 * rh_ncpu
 *     when rm_agg_nbuf says so, its only other value) of CPU 0's
 *     ab_size, a page multiple.
 * 16. A totals area (rm_aggtot_off != 0, only when rgn_meta has it:
 *     RGN_META_HAS_AGGTOT, and with rm_agg_nbuf set) follows the
 *     aggregation buffers: two slots of whole pages, each larger than a
 *     slot header and its interval array, before the cpu areas.  The
 *     slots are checked when read (rgn_view_aggtot).
 * 15. The speculation and variable areas (rm_spec_off, rm_gvar_off != 0,
 *     only when rgn_meta has them: RGN_META_HAS_VARS) are whole pages
 *     after the metadata, ending at or before the cpu areas, the
 *     speculation area below the variable area; a dynamic store
 *     (rm_dvar_off != 0) lies inside the variable area.  Their contents
 *     are checked when read (rgn_walk_spec, dif_vstate_attach).
 *
 * With gaps (rgn_open_gaps), after rule 10: G1. no gap touches the
 * header page or the metadata area; G2. each optional area touching a
 * gap is marked lost (the speculation and variable areas together, as
 * rule 15 checks them together) and rules 14-16 skip it; rule 13 skips
 * the CPUs touching a gap.
 *
 * Afterwards every pointer in the view is inside [base, base + rh_size).
 */
int
rgn_open(struct rgn_view *v, const void *base, uint64_t len, uint64_t phys,
    struct kdt_err *err)
{
	return rgn_open_gaps(v, base, len, phys, NULL, 0, err);
}

int
rgn_view_gap(const struct rgn_view *v, uint64_t off, uint64_t len,
    struct rgn_gap *g)
{
	const struct rgn_gap *p;
	uint64_t lo, hi;
	uint32_t i;

	for (i = 0; i < v->rv_ngaps; i++) {
		p = &v->rv_gaps[i];
		lo = p->rg_off > off ? p->rg_off : off;
		hi = p->rg_off + p->rg_len < off + len ?
		    p->rg_off + p->rg_len : off + len;
		if (lo >= hi)
			continue;
		if (g != NULL) {
			g->rg_off = lo;
			g->rg_len = hi - lo;
			g->rg_why = p->rg_why;
		}
		return 1;
	}
	return 0;
}

int
rgn_view_gap_cpu(const struct rgn_view *v, uint32_t cpu,
    struct rgn_gap *g)
{
	const struct rgn_hdr *h = v->rv_hdr;

	if (h == NULL || cpu >= h->rh_ncpu)
		return 0;
	return rgn_view_gap(v, h->rh_cpu_off + (uint64_t)cpu *
	    h->rh_cpu_stride, RGN_CPU_HDRSIZE + h->rh_bufsize, g);
}

/* rgn_view_nagg() before rv_lost: what the metadata says. */
static uint32_t
rgn_nagg_raw(const struct rgn_view *v)
{
	const struct rgn_meta *m = v->rv_meta;

	if (RGN_META_HAS_AGGTOT(m) && m->rm_agg_nbuf != 0)
		return m->rm_agg_nbuf;
	return v->rv_hdr->rh_ncpu;
}

/*
 * The bytes of part "part" (RGN_PART_*) for gap tests: [*off, *off +
 * *len), 0 when the region has none.  The aggregation area is its
 * buffers (and totals) when CPU 0's buffer header reads, else everything
 * up to the next part.
 */
static int
rgn_part_range(const struct rgn_view *v, uint32_t part, uint64_t *off,
    uint64_t *len)
{
	const struct rgn_hdr *h = v->rv_hdr;
	const struct rgn_meta *m = v->rv_meta;
	int vars = RGN_META_HAS_VARS(m);
	uint64_t end, sz;

	*off = *len = 0;
	if (part == RGN_PART_SPEC && vars && m->rm_spec_off != 0) {
		*off = m->rm_spec_off;
		*len = m->rm_spec_size;
	} else if (part == RGN_PART_VARS && vars && m->rm_gvar_off != 0) {
		*off = m->rm_gvar_off;
		*len = m->rm_gvar_size;
	} else if (part == RGN_PART_AGGS && m->rm_agg_off != 0) {
		*off = m->rm_agg_off;
		end = h->rh_cpu_off;
		if (vars && m->rm_spec_off > *off && m->rm_spec_off < end)
			end = m->rm_spec_off;
		if (vars && m->rm_gvar_off > *off && m->rm_gvar_off < end)
			end = m->rm_gvar_off;
		if (end <= *off)
			return 0;
		*len = end - *off;
		if (*len >= 16 && !rgn_view_gap(v, *off, 16, NULL)) {
			memcpy(&sz, v->rv_base + *off + 8, sizeof (sz));
			if (sz != 0 && sz <= *len / rgn_nagg_raw(v))
				*len = sz * rgn_nagg_raw(v);
			if (RGN_META_HAS_AGGTOT(m) && m->rm_aggtot_off ==
			    *off + *len && m->rm_aggtot_size <= end -
			    m->rm_aggtot_off)
				*len += m->rm_aggtot_size;
		}
	}
	return *len != 0;
}

int
rgn_view_gap_area(const struct rgn_view *v, uint32_t part,
    const char **name, struct rgn_gap *g)
{
	static const char *const names[RGN_NPARTS] = {
		"aggregation buffers", "speculation area", "variable area"
	};
	uint64_t off, len;

	if (part >= RGN_NPARTS || !(v->rv_lost & (1u << part)) ||
	    !rgn_part_range(v, part, &off, &len))
		return 0;
	*name = names[part];
	return rgn_view_gap(v, off, len, g);
}

/*
 * Rules G1-G2 of an image with gaps: the header and the metadata area
 * are whole (else the image is refused, naming the first missing bytes);
 * each optional part touching a gap is marked lost (rv_lost) before it
 * is checked, so its rules and readers skip it.
 */
static int
rgn_check_gaps(struct rgn_view *v, struct kdt_err *err)
{
	const struct rgn_hdr *h = v->rv_hdr;
	struct rgn_gap g;
	uint64_t off, len;
	uint32_t part;

	if (rgn_view_gap(v, 0, h->rh_meta_off + h->rh_meta_size, &g))
		return kdt_err_set(err, ENODATA, "RGN_GAP", g.rg_off,
		    "region %s: bytes 0x%llx-0x%llx are not in the image (%s): without them nothing can be decoded",
		    g.rg_off < h->rh_meta_off ? "header page" : "metadata",
		    (unsigned long long)g.rg_off,
		    (unsigned long long)(g.rg_off + g.rg_len),
		    g.rg_why != NULL ? g.rg_why : "missing");
	for (part = 0; part < RGN_NPARTS; part++)
		if (rgn_part_range(v, part, &off, &len) &&
		    rgn_view_gap(v, off, len, NULL))
			v->rv_lost |= 1u << part;
	/* rule 15 checks both together: a lost one takes the other */
	if (v->rv_lost & (1u << RGN_PART_SPEC | 1u << RGN_PART_VARS))
		v->rv_lost |= 1u << RGN_PART_SPEC | 1u << RGN_PART_VARS;
	return 0;
}

int
rgn_open_gaps(struct rgn_view *v, const void *base, uint64_t len,
    uint64_t phys, const struct rgn_gap *gaps, uint32_t ngaps,
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
	v->rv_gaps = gaps;
	v->rv_ngaps = ngaps;
	rv = ngaps != 0 ? rgn_check_gaps(v, err) : 0;
	if (rv == 0)
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
	    (off = v->rv_meta->rm_agg_off) == 0 ||
	    (v->rv_lost & (1u << RGN_PART_AGGS)))
		return NULL;
	memcpy(&sz, v->rv_base + off + 8, sizeof (sz));	/* rule 14 */
	*len = sz;
	return v->rv_base + off + (uint64_t)cpu * sz;
}

/* ---- aggregation totals (rgn.h; begin) ---- */

uint32_t
rgn_view_nagg(const struct rgn_view *v)
{
	const struct rgn_meta *m = v->rv_meta;

	if (v->rv_hdr == NULL || m == NULL || m->rm_agg_off == 0 ||
	    (v->rv_lost & (1u << RGN_PART_AGGS)))
		return 0;
	if (RGN_META_HAS_AGGTOT(m) && m->rm_agg_nbuf != 0)
		return m->rm_agg_nbuf;
	return v->rv_hdr->rh_ncpu;
}

const void *
rgn_view_aggbuf(const struct rgn_view *v, uint32_t i, uint64_t *len)
{
	uint64_t off, sz;

	if (i >= rgn_view_nagg(v))
		return NULL;
	off = v->rv_meta->rm_agg_off;
	memcpy(&sz, v->rv_base + off + 8, sizeof (sz));	/* rule 14 */
	*len = sz;
	return v->rv_base + off + (uint64_t)i * sz;
}

/* Does the interval rule apply (a live state's buffers and spares)? */
static int
rgn_agg_rule(const struct rgn_view *v)
{
	return rgn_view_nagg(v) != 0 && RGN_META_HAS_AGGTOT(v->rv_meta) &&
	    v->rv_meta->rm_agg_nbuf != 0;
}

/* ab_interval of buffer "i" (read as bytes: not yet agg_buf_check'ed). */
static uint64_t
rgn_agg_ival(const struct rgn_view *v, uint32_t i)
{
	uint64_t len, ival;
	const uint8_t *b = rgn_view_aggbuf(v, i, &len);

	memcpy(&ival, b + 56, sizeof (ival));
	return ival;
}

/* The newest interval among CPU "cpu"'s two buffers. */
static uint64_t
rgn_agg_newest(const struct rgn_view *v, uint32_t cpu)
{
	uint64_t a = rgn_agg_ival(v, cpu);
	uint64_t b = rgn_agg_ival(v, cpu + v->rv_hdr->rh_ncpu);

	return a > b ? a : b;
}

/* Is slot "i" valid?  0, -ENOENT (never written or being written),
 * -EINVAL with "err" (damaged). */
static int
rgn_aggtot_check(const struct rgn_view *v, uint32_t i,
    const struct rgn_aggtot **tp, struct kdt_err *err)
{
	const struct rgn_meta *m = v->rv_meta;
	const uint32_t ncpu = v->rv_hdr->rh_ncpu;
	const uint64_t slot = m->rm_aggtot_size / 2;
	const uint64_t soff = m->rm_aggtot_off + i * slot;
	const uint8_t *p = v->rv_base + soff;
	struct rgn_aggtot t;
	uint64_t hdr = RGN_AGGTOT_HDRSIZE + 8ULL * ncpu, ival, newest;
	uint32_t crc, c;

	memcpy(&t, p, sizeof (t));
	if (t.at_magic == 0 && t.at_seq == 0)
		return -ENOENT;
	if (t.at_magic != RGN_AGGTOT_MAGIC)
		return kdt_err_set(err, EINVAL, "RGN_AGGTOT", soff,
		    "aggregation totals slot %u: magic 0x%08x is not 0x%08x",
		    i, t.at_magic, RGN_AGGTOT_MAGIC);
	if (t.at_seq == 0)
		return -ENOENT;
	if (t.at_ncpu != ncpu)
		return kdt_err_set(err, EINVAL, "RGN_AGGTOT", soff + 4,
		    "aggregation totals slot %u: %u CPUs, the region has %u",
		    i, t.at_ncpu, ncpu);
	if (t.at_len > slot - hdr || t.at_len < AGG_BUF_HDRSIZE)
		return kdt_err_set(err, EINVAL, "RGN_AGGTOT", soff + 16,
		    "aggregation totals slot %u: image of 0x%llx bytes is outside 0x%x..0x%llx, the room after the slot header",
		    i, (unsigned long long)t.at_len, AGG_BUF_HDRSIZE,
		    (unsigned long long)(slot - hdr));
	t.at_crc = 0;
	crc = kenv_crc32(&t, sizeof (t)) ^ kenv_crc32(p + sizeof (t),
	    hdr - sizeof (t) + t.at_len);
	memcpy(&t.at_crc, p + 32, sizeof (t.at_crc));
	if (crc != t.at_crc)
		return kdt_err_set(err, EBADMSG, "RGN_AGGTOT", soff + 32,
		    "aggregation totals slot %u (write %llu): CRC 0x%08x does not match the computed 0x%08x (torn or damaged)",
		    i, (unsigned long long)t.at_seq, t.at_crc, crc);
	for (c = 0; c < ncpu; c++) {
		memcpy(&ival, p + RGN_AGGTOT_HDRSIZE + 8ULL * c, 8);
		newest = rgn_agg_newest(v, c);
		if (ival != 0 && ival >= newest)
			return kdt_err_set(err, EINVAL, "RGN_AGGTOT",
			    soff + RGN_AGGTOT_HDRSIZE + 8ULL * c,
			    "aggregation totals slot %u: CPU %u's interval %llu is not below its newest buffer's interval %llu (an interval in the future)",
			    i, c, (unsigned long long)ival,
			    (unsigned long long)newest);
	}
	*tp = (const struct rgn_aggtot *)p;
	return 0;
}

int
rgn_view_aggtot(const struct rgn_view *v, struct rgn_aggtot_view *tv,
    struct kdt_err *note)
{
	const struct rgn_aggtot *t[2] = { NULL, NULL }, *best;
	struct kdt_err e[2];
	uint32_t i, w;

	memset(tv, 0, sizeof (*tv));
	note->ke_msg[0] = '\0';
	if (!rgn_agg_rule(v))
		return 0;
	tv->tv_rule = 1;
	if (v->rv_meta->rm_aggtot_off == 0)
		return 0;
	for (i = 0; i < 2; i++) {
		e[i].ke_msg[0] = '\0';
		(void) rgn_aggtot_check(v, i, &t[i], &e[i]);
	}
	w = t[1] != NULL && (t[0] == NULL || t[1]->at_seq > t[0]->at_seq);
	best = t[w];
	/* the damaged slot other than the one used, if any */
	for (i = 0; i < 2; i++)
		if (t[i] == NULL && e[i].ke_msg[0] != '\0') {
			*note = e[i];
			break;
		}
	if (best == NULL)
		return 0;
	tv->tv_ival = (const uint64_t *)(best + 1);
	tv->tv_img = (const struct agg_buf *)((const uint8_t *)(best + 1) +
	    8ULL * v->rv_hdr->rh_ncpu);
	tv->tv_len = best->at_len;
	tv->tv_left = best->at_left;
	tv->tv_seq = best->at_seq;
	tv->tv_slot = w;
	return 0;
}

/* g[cpu] of the totals (0: no totals). */
static uint64_t
rgn_agg_g(const struct rgn_aggtot_view *tv, uint32_t cpu)
{
	uint64_t g;

	if (tv == NULL || tv->tv_ival == NULL)
		return 0;
	memcpy(&g, &tv->tv_ival[cpu], sizeof (g));
	return g;
}

int
rgn_agg_take(const struct rgn_view *v, const struct rgn_aggtot_view *tv,
    uint32_t i)
{
	if (i >= rgn_view_nagg(v))
		return 0;
	if (!rgn_agg_rule(v))
		return 1;
	return rgn_agg_ival(v, i) > rgn_agg_g(tv, i % v->rv_hdr->rh_ncpu);
}

uint64_t
rgn_agg_missing(const struct rgn_view *v, const struct rgn_aggtot_view *tv,
    uint32_t cpu)
{
	uint64_t g, a, b, have;

	if (!rgn_agg_rule(v) || cpu >= v->rv_hdr->rh_ncpu)
		return 0;
	g = rgn_agg_g(tv, cpu);
	a = rgn_agg_ival(v, cpu);
	b = rgn_agg_ival(v, cpu + v->rv_hdr->rh_ncpu);
	if (a < b) {
		uint64_t x = a;

		a = b;
		b = x;
	}
	if (a <= g)
		return 0;
	have = 1 + (b > g && b != a);
	return a - g > have ? a - g - have : 0;
}

uint64_t
rgn_aggtot_word(const uint8_t *p, uint64_t i)
{
	uint64_t w;

	memcpy(&w, p + 8 * i, sizeof (w));
	return w;
}

/* The replay part: rules R1-R5 of rgn.h ("Aggregation totals"). */
int
rgn_view_aggtot_replay(const struct rgn_view *v,
    const struct rgn_aggtot_view *tv, struct rgn_aggtot_replay *tr,
    struct kdt_err *err)
{
	const uint32_t ncpu = v->rv_hdr->rh_ncpu;
	const uint64_t slot = v->rv_meta->rm_aggtot_size / 2;
	const uint64_t fixed = 16ULL * ncpu;
	const struct rgn_cpu *rc;
	struct rgn_aggtot t;
	const uint8_t *p, *x;
	uint64_t soff, pos, k, i;
	int64_t nv;
	uint32_t c;

	memset(tr, 0, sizeof (*tr));
	if (tv->tv_img == NULL || tv->tv_ival == NULL)
		return 0;
	p = (const uint8_t *)tv->tv_ival - RGN_AGGTOT_HDRSIZE;
	soff = (uint64_t)(p - v->rv_base);
	memcpy(&t, p, sizeof (t));
	if (t.at_xlen == 0)
		return 0;
	if (t.at_xlen < fixed || (t.at_xlen - fixed) % 8 != 0) /* R1 */
		return kdt_err_set(err, EINVAL, "RGN_AGGTOT", soff + 40,
		    "aggregation totals slot %u: at_xlen %llu is not 16 x %u CPUs plus 8 per entry",
		    tv->tv_slot, (unsigned long long)t.at_xlen, ncpu);
	/* R2 */
	if (t.at_xlen > slot - RGN_AGGTOT_HDRSIZE - 8ULL * ncpu - t.at_len)
		return kdt_err_set(err, EINVAL, "RGN_AGGTOT", soff + 40,
		    "aggregation totals slot %u: at_xlen %llu after the %llu-byte image exceeds the slot's 0x%llx bytes",
		    tv->tv_slot, (unsigned long long)t.at_xlen,
		    (unsigned long long)t.at_len, (unsigned long long)slot);
	x = p + RGN_AGGTOT_HDRSIZE + 8ULL * ncpu + t.at_len;
	if (kenv_crc32(x, t.at_xlen) != t.at_xcrc)	/* R3 */
		return kdt_err_set(err, EBADMSG, "RGN_AGGTOT", soff + 36,
		    "aggregation totals slot %u (write %llu): at_xcrc 0x%08x does not match the computed 0x%08x of its %llu replay bytes (torn or damaged)",
		    tv->tv_slot, (unsigned long long)tv->tv_seq, t.at_xcrc,
		    kenv_crc32(x, t.at_xlen),
		    (unsigned long long)t.at_xlen);
	for (c = 0; c < ncpu; c++) {	/* R4 */
		pos = rgn_aggtot_word(x, 2ULL * c);
		k = rgn_aggtot_word(x, 2ULL * c + 1);
		rc = rgn_view_cpu(v, c);
		if (!rgn_view_gap_cpu(v, c, NULL) && pos > rc->rc_head)
			return kdt_err_set(err, EINVAL, "RGN_AGGTOT",
			    KDT_ERR_NOOFF,
			    "aggregation totals slot %u: at_pos of CPU %u, logical offset 0x%llx, is past its buffer's head 0x%llx",
			    tv->tv_slot, c, (unsigned long long)pos,
			    (unsigned long long)rc->rc_head);
		if (k > RGN_AGGTOT_SKIP_MAX)
			return kdt_err_set(err, EINVAL, "RGN_AGGTOT",
			    KDT_ERR_NOOFF,
			    "aggregation totals slot %u: at_pos of CPU %u says %llu actions of one record were carried out, more than the limit of %u",
			    tv->tv_slot, c, (unsigned long long)k,
			    RGN_AGGTOT_SKIP_MAX);
	}
	tr->tr_pos = x;
	tr->tr_norm = x + fixed;
	tr->tr_nnorm = (t.at_xlen - fixed) / 8;
	for (i = 0; i < tr->tr_nnorm; i++) {	/* R5 */
		nv = (int64_t)rgn_aggtot_word(tr->tr_norm, i);
		if (nv < 1)
			return kdt_err_set(err, EINVAL, "RGN_AGGTOT",
			    KDT_ERR_NOOFF,
			    "aggregation totals slot %u: at_norm[%llu], the normalize() divisor of entry %llu, is %lld, below 1",
			    tv->tv_slot, (unsigned long long)i,
			    (unsigned long long)i, (long long)nv);
	}
	return 1;
}
/* ---- aggregation totals (end) ---- */


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
	if (rgn_view_gap_cpu(v, cpu, NULL))
		return kdt_err_set(err, ENODATA, "RGN_GAP", KDT_ERR_NOOFF,
		    "CPU %u's buffer is not whole in the image: left out",
		    cpu);
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

/*
 * ---- the module table (rgn.h, "module table") ----
 *
 * Rules, checked as the reader walks (rgn_open() leaves the table alone,
 * so a damaged table costs module names, never the trace):
 *  M1. rm_mod_* exist only when rm_probe_off >= 80 (RGN_META_HAS_MOD).
 *  M2. The area is whole pages, between the metadata end and rh_cpu_off.
 *  M3. ma_magic is RGN_MOD_MAGIC; ma_used is 8-aligned and fits the area.
 *  M4. An entry lies in [0, ma_used): md_len 8-aligned, at least one
 *      struct rgn_mod, 16 bytes per symbol and its build id (md_bidlen
 *      <= RGN_BUILDID_MAX, padded to 8); md_name NUL-terminated;
 *      md_text <= md_size < 4 GiB.
 *  M5. A symbol has 16 bytes or more inside its entry before the build
 *      id, a name of 1 to RGN_MODSYM_NAMELEN - 1 bytes NUL-terminated
 *      inside that, and ms_off < md_size.
 * Afterwards base + ms_off lies inside the module and names are strings.
 */

/* Rules M1-M3: the area; NULL when the region has none. */
int
rgn_mod_first(const struct rgn_view *v, const struct rgn_modarea **ap,
    struct kdt_err *err)
{
	const struct rgn_hdr *h = v->rv_hdr;
	const struct rgn_meta *m = v->rv_meta;
	const struct rgn_modarea *a;
	uint64_t off, size;

	*ap = NULL;
	if (h == NULL || m == NULL || !RGN_META_HAS_MOD(m) ||
	    (off = m->rm_mod_off) == 0)
		return 0;
	size = m->rm_mod_size;
	if (off % RGN_PAGE != 0 || size % RGN_PAGE != 0 ||
	    size < RGN_PAGE || off < h->rh_meta_off + h->rh_meta_size ||
	    off > h->rh_cpu_off || size > h->rh_cpu_off - off)
		return kdt_err_set(err, EINVAL, "RGN_MODOFF",
		    h->rh_meta_off + 64,
		    "module table of 0x%llx bytes at offset 0x%llx must be whole pages between the metadata end 0x%llx and the cpu areas at 0x%llx",
		    (unsigned long long)size, (unsigned long long)off,
		    (unsigned long long)(h->rh_meta_off + h->rh_meta_size),
		    (unsigned long long)h->rh_cpu_off);
	a = (const struct rgn_modarea *)(v->rv_base + off);
	if (a->ma_magic != RGN_MOD_MAGIC)
		return kdt_err_set(err, EINVAL, "RGN_MODMAGIC", off,
		    "module table at offset 0x%llx: magic 0x%08x, expected 0x%08x",
		    (unsigned long long)off, a->ma_magic, RGN_MOD_MAGIC);
	if (a->ma_used > size - sizeof (*a) || a->ma_used % 8 != 0)
		return kdt_err_set(err, EINVAL, "RGN_MODUSED", off + 8,
		    "module table at offset 0x%llx: %llu bytes in use, not a multiple of 8 or above its capacity of %llu",
		    (unsigned long long)off, (unsigned long long)a->ma_used,
		    (unsigned long long)(size - sizeof (*a)));
	*ap = a;
	return 0;
}

/* Rule M4: the entry at *cursor. */
int
rgn_mod_next(const struct rgn_view *v, uint64_t *cursor,
    const struct rgn_mod **mp, struct kdt_err *err)
{
	const struct rgn_modarea *a;
	const struct rgn_mod *md;
	uint64_t off = *cursor, aoff;
	int rv;

	if ((rv = rgn_mod_first(v, &a, err)) != 0 || a == NULL)
		return rv;
	if (off >= a->ma_used)
		return 0;
	aoff = v->rv_meta->rm_mod_off + sizeof (*a);
	md = (const struct rgn_mod *)((const uint8_t *)(a + 1) + off);
	if (a->ma_used - off < sizeof (*md) || md->md_len < sizeof (*md) ||
	    md->md_len % 8 != 0 || md->md_len > a->ma_used - off ||
	    md->md_bidlen > RGN_BUILDID_MAX ||
	    md->md_len - sizeof (*md) < (uint64_t)md->md_nsyms *
	    (sizeof (struct rgn_modsym) + 8) +
	    (((uint64_t)md->md_bidlen + 7) & ~(uint64_t)7) ||
	    strnlen(md->md_name, sizeof (md->md_name)) ==
	    sizeof (md->md_name) ||
	    md->md_text > md->md_size || md->md_size > 0xffffffffULL)
		return kdt_err_set(err, EINVAL, "RGN_MODENT", aoff + off,
		    "module table entry at offset 0x%llx (length %u, %u symbols, build id of %u bytes, size 0x%llx) is damaged: it must be 8-aligned, hold its symbols and a build id of at most %u bytes, end inside the %llu bytes in use and name a module",
		    (unsigned long long)(aoff + off), md->md_len,
		    md->md_nsyms, md->md_bidlen,
		    (unsigned long long)md->md_size, RGN_BUILDID_MAX,
		    (unsigned long long)a->ma_used);
	*cursor = off + md->md_len;
	*mp = md;
	return 1;
}

/* Rule M5: the symbol at *scursor of an entry rule M4 passed. */
int
rgn_modsym_next(const struct rgn_mod *md, uint64_t *scursor,
    const struct rgn_modsym **sp, const char **namep, struct kdt_err *err)
{
	const uint8_t *p = (const uint8_t *)md;
	uint64_t off = *scursor != 0 ? *scursor : sizeof (*md);
	/* the symbols end where the build id starts (rule M4) */
	uint64_t end = md->md_len - (((uint64_t)md->md_bidlen + 7) &
	    ~(uint64_t)7);
	const struct rgn_modsym *ms;
	const char *name;
	uint64_t max;
	size_t len;

	if (off >= end)
		return 0;
	ms = (const struct rgn_modsym *)(p + off);
	name = (const char *)(ms + 1);
	max = end - off - sizeof (*ms);
	if (end - off < sizeof (*ms) + 8 ||
	    (len = strnlen(name, max < RGN_MODSYM_NAMELEN ? max :
	    RGN_MODSYM_NAMELEN)) == 0 || len >= max ||
	    len >= RGN_MODSYM_NAMELEN || ms->ms_off >= md->md_size)
		return kdt_err_set(err, EINVAL, "RGN_MODSYM", KDT_ERR_NOOFF,
		    "module %s: symbol at entry offset 0x%llx (address offset 0x%x) is damaged: it needs a name shorter than %u bytes inside the entry's %u bytes and an address inside the module's 0x%llx",
		    md->md_name, (unsigned long long)off, ms->ms_off,
		    RGN_MODSYM_NAMELEN, (unsigned)end,
		    (unsigned long long)md->md_size);
	*scursor = off + ((sizeof (*ms) + len + 1 + 7) & ~(uint64_t)7);
	*sp = ms;
	*namep = name;
	return 1;
}

const uint8_t *
rgn_mod_bid(const struct rgn_mod *md, uint32_t *len)
{
	*len = md->md_bidlen;
	if (md->md_bidlen == 0)
		return NULL;
	return (const uint8_t *)md + md->md_len -
	    (((uint64_t)md->md_bidlen + 7) & ~(uint64_t)7);
}

int
rgn_view_kbid(const struct rgn_view *v, const uint8_t **idp,
    uint32_t *lenp, struct kdt_err *err)
{
	const struct rgn_meta *m = v->rv_meta;

	*idp = NULL;
	*lenp = 0;
	if (m == NULL || !RGN_META_HAS_KBID(m) || m->rm_kbid_len == 0)
		return 0;
	if (m->rm_kbid_len > RGN_BUILDID_MAX)
		return kdt_err_set(err, EINVAL, "RGN_KBID",
		    v->rv_hdr->rh_meta_off + 152,
		    "the kernel's build id is %u bytes long, above the limit of %u",
		    m->rm_kbid_len, RGN_BUILDID_MAX);
	*idp = m->rm_kbid;
	*lenp = m->rm_kbid_len;
	return 1;
}

/* ==== page list: live regions in ordinary kernel memory (begin) ==== */

int
rgn_pagelist_present(const void *page0)
{
	return ((const struct rgn_hdr *)page0)->rh_pl_off != 0;
}

/* Sift-down of a heap of (pfn, index) pairs ordered by pfn. */
static void
rgn_pl_sift(uint64_t (*a)[2], uint64_t i, uint64_t n)
{
	uint64_t c, t0, t1;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && a[c + 1][0] > a[c][0])
			c++;
		if (a[i][0] >= a[c][0])
			return;
		t0 = a[i][0], t1 = a[i][1];
		a[i][0] = a[c][0], a[i][1] = a[c][1];
		a[c][0] = t0, a[c][1] = t1;
	}
}

/* Name a table position: "entry 12 (region page 12)" and the like. */
static void
rgn_pl_name(char *buf, uint32_t size, uint64_t i, uint64_t npages,
    uint64_t nent)
{
	if (i >= nent)
		snprintf(buf, size, "table page %llu",
		    (unsigned long long)(i - nent));
	else if (i < npages)
		snprintf(buf, size, "entry %llu (region page %llu)",
		    (unsigned long long)i, (unsigned long long)i);
	else
		snprintf(buf, size, "entry %llu (spare page %llu)",
		    (unsigned long long)i, (unsigned long long)(i - npages));
}

/*
 * No PFN may appear twice among the entries and the table pages: a page
 * listed twice is a loop or a table that is not ours.  Heap sort of
 * (pfn, position) pairs, then one pass for neighbours.
 */
static int
rgn_pl_dups(const uint64_t *ent, uint64_t nent, const uint64_t *dir,
    uint32_t ntbl, uint64_t npages, struct kdt_err *err)
{
	uint64_t n = nent + ntbl, i, t0, t1;
	uint64_t (*a)[2];
	char x[64], y[64];

	a = kenv_zalloc(n * sizeof (*a));
	if (a == NULL)
		return kdt_err_set(err, ENOMEM, "RGN_NOMEM", KDT_ERR_NOOFF,
		    "no memory to check a page list of %llu entries",
		    (unsigned long long)n);
	for (i = 0; i < n; i++) {
		a[i][0] = i < nent ? ent[i] : dir[i - nent];
		a[i][1] = i;
	}
	for (i = n / 2; i-- > 0;)
		rgn_pl_sift(a, i, n);
	for (i = n; i-- > 1;) {
		t0 = a[0][0], t1 = a[0][1];
		a[0][0] = a[i][0], a[0][1] = a[i][1];
		a[i][0] = t0, a[i][1] = t1;
		rgn_pl_sift(a, 0, i);
	}
	for (i = 1; i < n; i++)
		if (a[i][0] == a[i - 1][0])
			break;
	if (i < n) {
		t0 = a[i - 1][1] < a[i][1] ? a[i - 1][1] : a[i][1];
		t1 = a[i - 1][1] < a[i][1] ? a[i][1] : a[i - 1][1];
		rgn_pl_name(x, sizeof (x), t0, npages, nent);
		rgn_pl_name(y, sizeof (y), t1, npages, nent);
		t0 = a[i][0];
		kenv_free(a);
		return kdt_err_set(err, ELOOP, "RGN_PLLOOP", KDT_ERR_NOOFF,
		    "page list %s and %s both name pfn 0x%llx: a page listed twice (a loop or a table that is not this region's)",
		    x, y, (unsigned long long)t0);
	}
	kenv_free(a);
	return 0;
}

/* The descriptor in page 0: place, identity, CRC and counts. */
static int
rgn_pl_desc(const uint8_t *page0, struct rgn_pagelist *pl,
    const uint64_t **dir, struct kdt_err *err)
{
	const struct rgn_hdr *h = (const void *)page0;
	uint64_t off = h->rh_pl_off, nent, spare, want;
	uint32_t crc;
	uint8_t *copy;

	if (off % 8 || off < h->rh_hdrsize ||
	    off + sizeof (*pl) > RGN_PAGE)
		return kdt_err_set(err, EINVAL, "RGN_PLOFF", 184,
		    "page list descriptor offset 0x%llx must be 8-aligned, at or after the %u-byte header and leave %u bytes in page 0",
		    (unsigned long long)off, h->rh_hdrsize,
		    (unsigned)sizeof (*pl));
	memcpy(pl, page0 + off, sizeof (*pl));
	if (pl->rl_magic != RGN_PL_MAGIC)
		return kdt_err_set(err, EINVAL, "RGN_PLMAGIC", off,
		    "page list magic 0x%08x at page 0 offset 0x%llx is not 0x%08x",
		    pl->rl_magic, (unsigned long long)off, RGN_PL_MAGIC);
	if (pl->rl_version == 0 || pl->rl_version > RGN_PL_VERSION)
		return kdt_err_set(err, EPROTONOSUPPORT, "RGN_PLVERSION",
		    off + 4,
		    "page list version %u is not supported: this reader knows versions 1 to %u",
		    pl->rl_version, RGN_PL_VERSION);
	if (pl->rl_size < sizeof (*pl) || pl->rl_ntbl == 0 ||
	    off + pl->rl_size + (uint64_t)pl->rl_ntbl * 8 > RGN_PAGE)
		return kdt_err_set(err, EINVAL, "RGN_PLSIZE", off + 6,
		    "page list descriptor of %u bytes with %u table pages does not fit page 0 from offset 0x%llx (descriptor at least %u bytes, at least one table page)",
		    pl->rl_size, pl->rl_ntbl, (unsigned long long)off,
		    (unsigned)sizeof (*pl));
	copy = kenv_zalloc(RGN_PAGE);	/* not on a kernel stack */
	if (copy == NULL)
		return kdt_err_set(err, ENOMEM, "RGN_NOMEM", KDT_ERR_NOOFF,
		    "no memory for a copy of the page list descriptor");
	memcpy(copy, page0 + off, pl->rl_size + (uint64_t)pl->rl_ntbl * 8);
	memset(copy + offsetof(struct rgn_pagelist, rl_crc), 0, 4);
	crc = kenv_crc32(copy, pl->rl_size + (uint64_t)pl->rl_ntbl * 8);
	kenv_free(copy);
	if (crc != pl->rl_crc)
		return kdt_err_set(err, EBADMSG, "RGN_PLCRC", off + 60,
		    "page list descriptor CRC 0x%08x does not match the computed 0x%08x",
		    pl->rl_crc, crc);
	spare = h->rh_ncpu * h->rh_cpu_stride / RGN_PAGE;
	if (h->rh_size % RGN_PAGE || pl->rl_npages != h->rh_size / RGN_PAGE ||
	    (pl->rl_nspare != 0 && pl->rl_nspare != spare))
		return kdt_err_set(err, EINVAL, "RGN_PLCOUNT", off + 8,
		    "page list counts %llu region and %llu spare pages do not match the 0x%llx-byte region (%llu pages) and its %u cpu strides of 0x%llx (0 or %llu spare pages)",
		    (unsigned long long)pl->rl_npages,
		    (unsigned long long)pl->rl_nspare,
		    (unsigned long long)h->rh_size,
		    (unsigned long long)(h->rh_size / RGN_PAGE), h->rh_ncpu,
		    (unsigned long long)h->rh_cpu_stride,
		    (unsigned long long)spare);
	nent = pl->rl_npages + pl->rl_nspare;
	want = (nent + RGN_PL_PER_PAGE - 1) / RGN_PL_PER_PAGE;
	if (pl->rl_ntbl != want)
		return kdt_err_set(err, EINVAL, "RGN_PLCOUNT", off + 24,
		    "page list has %u table pages; %llu entries need %llu",
		    pl->rl_ntbl, (unsigned long long)nent,
		    (unsigned long long)want);
	*dir = (const uint64_t *)(page0 + off + pl->rl_size);
	return 0;
}

/* Read one listed page (pfn) or report which entry does not read. */
static int
rgn_pl_page(rgn_pl_read_fn rd, void *arg, uint64_t pfn, void *buf,
    uint64_t n, uint64_t pos, uint64_t npages, uint64_t nent,
    struct kdt_err *err)
{
	char x[64];
	int rv;

	rgn_pl_name(x, sizeof (x), pos, npages, nent);
	if (pfn >= RGN_PL_PFN_MAX)
		return kdt_err_set(err, EINVAL, "RGN_PLPFN", KDT_ERR_NOOFF,
		    "page list %s is pfn 0x%llx, beyond the largest pfn 0x%llx",
		    x, (unsigned long long)pfn,
		    (unsigned long long)(RGN_PL_PFN_MAX - 1));
	rv = rd(arg, pfn * RGN_PAGE, buf, n);
	if (rv != 0)
		return kdt_err_set(err, -rv == ENXIO ? ENODATA : -rv,
		    "RGN_PLREAD", KDT_ERR_NOOFF,
		    "page list %s names pfn 0x%llx (phys 0x%llx), which %s",
		    x, (unsigned long long)pfn,
		    (unsigned long long)(pfn * RGN_PAGE),
		    rv == -ENXIO ? "is not in the dump" : "does not read");
	return 0;
}

/* Under switch: does CPU c's spare hold its newer records?  Then copy. */
static int
rgn_pl_spare(const struct rgn_hdr *h, const uint64_t *ent,
    const struct rgn_pagelist *pl, uint32_t c, rgn_pl_read_fn rd,
    void *arg, uint8_t *img, struct kdt_err *err)
{
	uint64_t spp = h->rh_cpu_stride / RGN_PAGE, first, i;
	uint8_t *slot = img + h->rh_cpu_off + (uint64_t)c * h->rh_cpu_stride;
	const struct rgn_cpu *cur = (const void *)slot;
	struct rgn_cpu sp;
	uint64_t nent = pl->rl_npages + pl->rl_nspare;
	int rv;

	first = pl->rl_npages + (uint64_t)c * spp;
	rv = rgn_pl_page(rd, arg, ent[first], &sp, sizeof (sp), first,
	    pl->rl_npages, nent, err);
	if (rv != 0)
		return rv;
	if (sp.rc_magic != RGN_CPU_MAGIC || sp.rc_cpu != c ||
	    sp.rc_size != h->rh_bufsize || sp.rc_head < cur->rc_head ||
	    (sp.rc_head == cur->rc_head && sp.rc_tail >= cur->rc_tail))
		return 0;	/* not set up, or the region's is newer */
	for (i = 0; i < spp; i++) {
		rv = rgn_pl_page(rd, arg, ent[first + i], slot + i * RGN_PAGE,
		    RGN_PAGE, first + i, pl->rl_npages, nent, err);
		if (rv != 0)
			return rv;
	}
	return 0;
}

/*
 * Rules, in order: the descriptor (offset, magic, version, size, CRC,
 * counts), each table page readable, the table CRC, entry 0 is where
 * the header was found, no PFN twice, every page readable; then, with
 * spare pages, each CPU's newer buffer in its slot.
 */
int
rgn_pagelist_assemble(const void *page0, uint64_t pa, rgn_pl_read_fn rd,
    void *arg, uint8_t *img, struct kdt_err *err)
{
	return rgn_pagelist_assemble_gaps(page0, pa, rd, arg, img, NULL, NULL,
	    err);
}

int
rgn_pagelist_assemble_gaps(const void *page0, uint64_t pa,
    rgn_pl_read_fn rd, void *arg, uint8_t *img, rgn_pl_gap_fn gap,
    void *garg, struct kdt_err *err)
{
	const struct rgn_hdr *h = page0;
	struct rgn_pagelist pl;
	struct rgn_view v;
	const uint64_t *dir = NULL;
	uint64_t *ent = NULL, nent, i, n, first = 0, meta_end;
	uint32_t crc, k, c;
	int rv, r;

	rv = rgn_pl_desc(page0, &pl, &dir, err);
	if (rv != 0)
		return rv;
	nent = pl.rl_npages + pl.rl_nspare;
	ent = kenv_zalloc((uint64_t)pl.rl_ntbl * RGN_PAGE);
	if (ent == NULL)
		return kdt_err_set(err, ENOMEM, "RGN_NOMEM", KDT_ERR_NOOFF,
		    "no memory for a page list of %u table pages",
		    pl.rl_ntbl);
	for (k = 0; k < pl.rl_ntbl; k++)
		if ((rv = rgn_pl_page(rd, arg, dir[k], ent + (uint64_t)k *
		    RGN_PL_PER_PAGE, RGN_PAGE, nent + k, pl.rl_npages, nent,
		    err)) != 0)
			goto out;
	crc = kenv_crc32(ent, nent * 8);
	if (crc != pl.rl_tblcrc) {
		rv = kdt_err_set(err, EBADMSG, "RGN_PLTBLCRC",
		    h->rh_pl_off + 28,
		    "page list table CRC 0x%08x does not match the computed 0x%08x (a table torn, overwritten or left over from a freed region)",
		    pl.rl_tblcrc, crc);
		goto out;
	}
	if (ent[0] != pa / RGN_PAGE || pa % RGN_PAGE) {
		rv = kdt_err_set(err, EINVAL, "RGN_PLFIRST", KDT_ERR_NOOFF,
		    "page list entry 0 is pfn 0x%llx but the region header was found at phys 0x%llx (pfn 0x%llx)",
		    (unsigned long long)ent[0], (unsigned long long)pa,
		    (unsigned long long)(pa / RGN_PAGE));
		goto out;
	}
	for (i = 0; i < nent; i++)
		if (ent[i] >= RGN_PL_PFN_MAX)
			break;
	if (i < nent) {
		rv = rgn_pl_page(rd, arg, ent[i], NULL, 0, i, pl.rl_npages,
		    nent, err);
		goto out;
	}
	if ((rv = rgn_pl_dups(ent, nent, dir, pl.rl_ntbl, pl.rl_npages,
	    err)) != 0)
		goto out;
	/* pages past the metadata may be missing (gap != NULL): rgn.h */
	meta_end = h->rh_meta_off + h->rh_meta_size;
	if (meta_end < h->rh_meta_off)
		meta_end = (uint64_t)-1;
	/* physically consecutive pages are read in one request */
	for (i = 0; i < pl.rl_npages; i += n) {
		for (n = 1; i + n < pl.rl_npages && n < 256 &&
		    ent[i + n] == ent[i] + n; n++)
			;
		if (rd(arg, ent[i] * RGN_PAGE, img + i * RGN_PAGE,
		    n * RGN_PAGE) != 0) {
			/* find and name the page that does not read */
			for (; n > 0; i++, n--) {
				r = rd(arg, ent[i] * RGN_PAGE,
				    img + i * RGN_PAGE, RGN_PAGE);
				if (r == 0)
					continue;
				if (r == -ENXIO && gap != NULL &&
				    i * RGN_PAGE >= meta_end) {
					memset(img + i * RGN_PAGE, 0,
					    RGN_PAGE);
					gap(garg, i * RGN_PAGE,
					    ent[i] * RGN_PAGE);
					if (first == 0)
						first = i;
					continue;
				}
				if ((rv = rgn_pl_page(rd, arg, ent[i],
				    img + i * RGN_PAGE, RGN_PAGE, i,
				    pl.rl_npages, nent, err)) != 0)
					goto out;
			}
			n = 0;
		}
	}
	if (pl.rl_nspare == 0)
		goto out;	/* rv is 0 */
	/* spares are matched to complete buffers only: refuse as before */
	if (first != 0) {
		rv = rgn_pl_page(rd, arg, ent[first], NULL, 0, first,
		    pl.rl_npages, nent, err);
		if (rv == 0)
			rv = kdt_err_set(err, ENODATA, "RGN_PLREAD",
			    KDT_ERR_NOOFF,
			    "page list entry %llu does not read and the region has spare buffers",
			    (unsigned long long)first);
		goto out;
	}
	/* the spares' places come from the layout: validate it first */
	if ((rv = rgn_open(&v, img, h->rh_size, pa, err)) != 0)
		goto out;
	for (c = 0; c < v.rv_hdr->rh_ncpu; c++)	/* the validated header */
		if ((rv = rgn_pl_spare(v.rv_hdr, ent, &pl, c, rd, arg, img,
		    err)) != 0)
			goto out;
	rv = 0;
out:
	kenv_free(ent);
	return rv;
}
/* ==== page list (end) ==== */

/*
 * ==== speculations and variables (rgn.h; begin) ====
 */

/* Rule 15: one optional area [off, off + size) in whole pages. */
static int
rgn_check_part(const struct rgn_hdr *h, const char *what, uint32_t field,
    uint64_t off, uint64_t size, uint64_t lo, struct kdt_err *err)
{
	if (off == 0)
		return 0;
	if (off % RGN_PAGE != 0 || size % RGN_PAGE != 0 || size == 0 ||
	    off < lo || off > h->rh_cpu_off || size > h->rh_cpu_off - off)
		return kdt_err_set(err, EINVAL, "RGN_SPECVAR",
		    h->rh_meta_off + field,
		    "%s area of 0x%llx bytes at offset 0x%llx must be whole pages between offset 0x%llx and the cpu areas at 0x%llx",
		    what, (unsigned long long)size, (unsigned long long)off,
		    (unsigned long long)lo, (unsigned long long)h->rh_cpu_off);
	return 0;
}

static int
rgn_check_specvar(const struct rgn_view *v, struct kdt_err *err)
{
	const struct rgn_hdr *h = v->rv_hdr;
	const struct rgn_meta *m = v->rv_meta;
	uint64_t lo = h->rh_meta_off + h->rh_meta_size;
	int rv;

	if (!RGN_META_HAS_VARS(m))
		return 0;
	rv = rgn_check_part(h, "speculation", 80, m->rm_spec_off,
	    m->rm_spec_size, lo, err);
	if (rv == 0)
		rv = rgn_check_part(h, "variable", 96, m->rm_gvar_off,
		    m->rm_gvar_size, m->rm_spec_off != 0 ?
		    m->rm_spec_off + m->rm_spec_size : lo, err);
	if (rv != 0)
		return rv;
	if (m->rm_dvar_off != 0 && (m->rm_gvar_off == 0 ||
	    m->rm_dvar_off <= m->rm_gvar_off ||
	    m->rm_dvar_off % 8 != 0 ||
	    m->rm_dvar_off - m->rm_gvar_off >= m->rm_gvar_size ||
	    m->rm_dvar_size > m->rm_gvar_size -
	    (m->rm_dvar_off - m->rm_gvar_off)))
		return kdt_err_set(err, EINVAL, "RGN_DVAR", h->rh_meta_off + 112,
		    "dynamic variable store of 0x%llx bytes at offset 0x%llx is not 8-aligned inside the variable area of 0x%llx bytes at 0x%llx",
		    (unsigned long long)m->rm_dvar_size,
		    (unsigned long long)m->rm_dvar_off,
		    (unsigned long long)m->rm_gvar_size,
		    (unsigned long long)m->rm_gvar_off);
	return 0;
}

const void *
rgn_view_spec(const struct rgn_view *v, uint64_t *len)
{
	const struct rgn_meta *m = v->rv_meta;

	*len = 0;
	if (m == NULL || !RGN_META_HAS_VARS(m) || m->rm_spec_off == 0 ||
	    (v->rv_lost & (1u << RGN_PART_SPEC)))
		return NULL;
	*len = m->rm_spec_size;
	return v->rv_base + m->rm_spec_off;
}

const void *
rgn_view_vars(const struct rgn_view *v, uint64_t *len, uint64_t *dvoff,
    uint64_t *dvlen)
{
	const struct rgn_meta *m = v->rv_meta;

	*len = *dvoff = *dvlen = 0;
	if (m == NULL || !RGN_META_HAS_VARS(m) || m->rm_gvar_off == 0 ||
	    (v->rv_lost & (1u << RGN_PART_VARS)))
		return NULL;
	*len = m->rm_gvar_size;
	if (m->rm_dvar_off != 0) {
		*dvoff = m->rm_dvar_off - m->rm_gvar_off;
		*dvlen = m->rm_dvar_size;
	}
	return v->rv_base + m->rm_gvar_off;
}

/* The area header: consistent with itself, the region and rm_spec_size. */
static int
rgn_spec_hdr_ok(const struct rgn_view *v, const struct spec_area *sa,
    uint64_t len, char *msg, uint32_t msgsz)
{
	uint64_t n = (uint64_t)sa->sa_nspec * sa->sa_ncpu;
	uint64_t words = (sizeof (*sa) + 16ULL * sa->sa_nspec + 7) & ~7ULL;

	if (sa->sa_magic != SPEC_AREA_MAGIC) {
		snprintf(msg, msgsz, "speculation area magic 0x%08x, expected 0x%08x",
		    sa->sa_magic, SPEC_AREA_MAGIC);
		return 1;
	}
	if (sa->sa_hdrsize != sizeof (*sa) || sa->sa_ncpu !=
	    v->rv_hdr->rh_ncpu || sa->sa_nspec == 0 ||
	    sa->sa_nspec > 65536 || sa->sa_bufsize % 8 != 0 ||
	    sa->sa_bufsize > (64ULL << 20) || sa->sa_size > len ||
	    sa->sa_bufoff != words ||
	    sa->sa_dataoff != words + n * sizeof (struct spec_buf) ||
	    sa->sa_dataoff > sa->sa_size ||
	    n * sa->sa_bufsize > sa->sa_size - sa->sa_dataoff) {
		snprintf(msg, msgsz, "speculation area header is inconsistent: %u speculations x %u cpus (region: %u) of %llu bytes, header %u bytes, buffer headers at 0x%llx, data at 0x%llx, %llu bytes used of the 0x%llx-byte area",
		    sa->sa_nspec, sa->sa_ncpu, v->rv_hdr->rh_ncpu,
		    (unsigned long long)sa->sa_bufsize, sa->sa_hdrsize,
		    (unsigned long long)sa->sa_bufoff,
		    (unsigned long long)sa->sa_dataoff,
		    (unsigned long long)sa->sa_size,
		    (unsigned long long)len);
		return 1;
	}
	return 0;
}

/* Check and hand out the records of one buffer. */
static int
rgn_spec_buf(const struct rgn_view *v, const struct rgn_spec_cb *cb,
    uint32_t id, uint32_t cpu, uint32_t kind, const uint8_t *data,
    uint64_t used, uint64_t bufsize)
{
	const struct rgn_rec *rr;
	const struct rgn_epid *ep;
	uint64_t off;
	char msg[256];
	int rv;

	if (used > bufsize || used % 8 != 0) {
		snprintf(msg, sizeof (msg), "buffer holds %llu bytes, not a multiple of 8 up to its size %llu",
		    (unsigned long long)used, (unsigned long long)bufsize);
		return cb->sc_bad != NULL ?
		    cb->sc_bad(cb->sc_arg, id, cpu, 0, msg) : 0;
	}
	if (cb->sc_buf != NULL &&
	    (rv = cb->sc_buf(cb->sc_arg, id, cpu, kind, used)) != 0)
		return rv;
	for (off = 0; off < used; off += rr->rr_size) {
		rr = (const struct rgn_rec *)(data + off);
		ep = NULL;
		if (used - off < RGN_REC_HDRSIZE ||
		    rr->rr_size < RGN_REC_HDRSIZE || rr->rr_size % 8 != 0 ||
		    rr->rr_size > used - off)
			snprintf(msg, sizeof (msg), "record size %u is not a multiple of 8 in [16, %llu]",
			    used - off < RGN_REC_HDRSIZE ? 0 : rr->rr_size,
			    (unsigned long long)(used - off));
		else if ((ep = rgn_find_epid(v, rr->rr_epid)) == NULL)
			snprintf(msg, sizeof (msg), "record EPID %u is not in the %u-entry EPID table",
			    rr->rr_epid, v->rv_meta->rm_nepids);
		else if (rr->rr_size != ((RGN_REC_HDRSIZE +
		    (uint64_t)ep->re_size + 7) & ~7ULL)) {
			snprintf(msg, sizeof (msg), "record size %u for EPID %u differs from the %u bytes its layout needs",
			    rr->rr_size, rr->rr_epid,
			    (uint32_t)((RGN_REC_HDRSIZE + ep->re_size + 7) &
			    ~7u));
			ep = NULL;
		}
		if (ep == NULL)
			return cb->sc_bad != NULL ?
			    cb->sc_bad(cb->sc_arg, id, cpu, off, msg) : 0;
		if (cb->sc_rec != NULL && (rv = cb->sc_rec(cb->sc_arg, id,
		    cpu, rr, (const uint8_t *)(rr + 1), off)) != 0)
			return rv;
	}
	return 0;
}

int
rgn_walk_spec(const struct rgn_view *v, const struct rgn_spec_cb *cb,
    struct kdt_err *err)
{
	const struct spec_area *sa;
	const struct spec_buf *sb;
	const uint32_t *state, *gen;
	uint32_t id, cpu, st, kind;
	uint64_t len;
	char msg[384];
	int rv;

	(void)err;
	if ((sa = rgn_view_spec(v, &len)) == NULL)
		return 0;
	if (sa->sa_magic == 0 && sa->sa_size == 0)
		return 0;	/* reserved, never set up */
	if (rgn_spec_hdr_ok(v, sa, len, msg, sizeof (msg)))
		return cb->sc_bad != NULL ?
		    cb->sc_bad(cb->sc_arg, 0, 0, 0, msg) : 0;
	state = (const uint32_t *)(sa + 1);
	gen = state + 3 * sa->sa_nspec;
	for (id = 1; id <= sa->sa_nspec; id++) {
		st = state[id - 1];
		if (st > SPEC_DISCARDING) {
			snprintf(msg, sizeof (msg), "speculation %u has state %u, above the highest state %u",
			    id, st, SPEC_DISCARDING);
			if (cb->sc_bad != NULL &&
			    (rv = cb->sc_bad(cb->sc_arg, id, 0, 0, msg)) != 0)
				return rv;
			continue;
		}
		if (st != SPEC_ACTIVE && st != SPEC_ACTIVEONE &&
		    st != SPEC_ACTIVEMANY && st != SPEC_COMMITTINGMANY)
			continue;
		for (cpu = 0; cpu < sa->sa_ncpu; cpu++) {
			sb = (const struct spec_buf *)((const uint8_t *)sa +
			    sa->sa_bufoff) + (uint64_t)(id - 1) * sa->sa_ncpu +
			    cpu;
			if (sb->sb_used == 0 || sb->sb_gen != gen[id - 1])
				continue;
			if (st == SPEC_COMMITTINGMANY) {
				if (sb->sb_pend != SPEC_PEND_COMMIT)
					continue;
				kind = RGN_SPEC_COMMITTING;
			} else {
				kind = RGN_SPEC_UNCOMMITTED;
			}
			rv = rgn_spec_buf(v, cb, id, cpu, kind,
			    (const uint8_t *)sa + sa->sa_dataoff +
			    ((uint64_t)(id - 1) * sa->sa_ncpu + cpu) *
			    sa->sa_bufsize, sb->sb_used, sa->sa_bufsize);
			if (rv != 0)
				return rv;
		}
	}
	return 0;
}
/* ==== speculations and variables (end) ==== */
