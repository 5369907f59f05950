/*
 * rgn_write.c -- the writer half of the reserved region (theory in rgn.h).
 *
 * kdt.ko calls rgn_init() once when it maps the region, rgn_add_probe() and
 * rgn_add_epid() while it enables probes, and rgn_reserve()/rgn_commit()
 * from probe context for every record.  The unit test
 * tests/unit/test_rgn_write.c drives the same code over a malloc'd buffer.
 * The reader half is rgn_read.c; both follow the layout documented in
 * rgn.h and nothing else.
 *
 * Setup (rgn_init) lays the region out front to back: the header page, the
 * metadata area (struct rgn_meta, probe table, EPID table, DOF copy, rounded
 * up to pages), then ncpu equal per-CPU slots.  The header is built in a
 * local copy and written with its magic last, so a scan of a half-written
 * region never finds a header.
 *
 * Recording (rgn_reserve/rgn_commit) follows the commit protocol of rgn.h:
 * the writer owns its cpu's buffer with interrupts off, publishes rc_tail
 * and rc_reserve, writes the record, and only then moves rc_head.  A reader
 * therefore trusts [rc_tail, rc_head) and reports a record in
 * [rc_head, rc_reserve) as torn.
 */
#include "rgn.h"
#include "agg.h"
#include "dof.h"

/*
 * The magic is the bytes "KDTRGN" 01 00 read as a native 64-bit word.  Each
 * 32-bit half is stored XORed with a key that is read through a volatile,
 * so the compiler cannot fold the value into a literal in any binary.
 */
static volatile const uint32_t rgn_magic_key = 0xa5c3e196U;
static const uint32_t rgn_magic_lo = 0x5254444bU ^ 0xa5c3e196U;
static const uint32_t rgn_magic_hi = 0x00014e47U ^ 0xa5c3e196U;

uint64_t
rgn_magic(void)
{
	uint32_t key = rgn_magic_key;

	return ((uint64_t)(rgn_magic_hi ^ key) << 32) |
	    (uint64_t)(rgn_magic_lo ^ key);
}

static uint64_t
rgn_roundup(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

static struct rgn_hdr *
rgn_hdr(void *base)
{
	return (struct rgn_hdr *)base;
}

static struct rgn_meta *
rgn_meta(void *base)
{
	uint64_t off = rgn_hdr(base)->rh_meta_off;

	return (struct rgn_meta *)((uint8_t *)base + off);
}

/*
 * Place the tables inside the metadata area: struct rgn_meta, the probe
 * table, the EPID table, the DOF copy, each 8-aligned.  Returns the bytes
 * the area needs before page rounding.
 */
static uint64_t
rgn_meta_layout(struct rgn_meta *m, uint32_t pcap, uint32_t ecap,
    uint64_t dofsz)
{
	m->rm_probe_cap = pcap;
	m->rm_epid_cap = ecap;
	m->rm_probe_off = sizeof (struct rgn_meta);
	m->rm_epid_off = m->rm_probe_off +
	    (uint64_t)pcap * sizeof (struct rgn_probe);
	m->rm_dof_off = rgn_roundup(m->rm_epid_off +
	    (uint64_t)ecap * sizeof (struct rgn_epid), 8);
	m->rm_dof_size = dofsz;
	return m->rm_dof_off + dofsz;
}

static int
rgn_check_params(uint64_t size, const struct rgn_params *p,
    struct kdt_err *err)
{
	if (p->rp_ncpu == 0)
		return kdt_err_set(err, EINVAL, "RGN_NCPU", KDT_ERR_NOOFF,
		    "region: cpu count 0 is below the minimum of 1");
	if (p->rp_policy != DTRACEOPT_BUFPOLICY_RING &&
	    p->rp_policy != DTRACEOPT_BUFPOLICY_FILL)
		return kdt_err_set(err, EINVAL, "RGN_POLICY", KDT_ERR_NOOFF,
		    "region: buffer policy %u is neither ring (%u) nor fill (%u)",
		    p->rp_policy, DTRACEOPT_BUFPOLICY_RING,
		    DTRACEOPT_BUFPOLICY_FILL);
	if (size > ((uint64_t)1 << 48) || (size & (RGN_PAGE - 1)) != 0)
		return kdt_err_set(err, EINVAL, "RGN_SIZE", KDT_ERR_NOOFF,
		    "region: size 0x%llx is not a multiple of 0x%llx or exceeds 0x%llx",
		    (unsigned long long)size, (unsigned long long)RGN_PAGE,
		    (unsigned long long)1 << 48);
	if (p->rp_dofsz > DOF_MAX_SIZE)
		return kdt_err_set(err, E2BIG, "RGN_DOF", KDT_ERR_NOOFF,
		    "region: DOF of %llu bytes exceeds the limit of %u bytes",
		    (unsigned long long)p->rp_dofsz, DOF_MAX_SIZE);
	return 0;
}

/* Fill the header copy "h" from the parameters and the computed layout. */
static void
rgn_fill_hdr(struct rgn_hdr *h, uint64_t size, const struct rgn_params *p)
{
	uint32_t i;

	h->rh_hdrsize = sizeof (struct rgn_hdr);
	h->rh_version = RGN_VERSION;
	h->rh_endian = RGN_ENDIAN;
	h->rh_size = size;
	h->rh_phys = p->rp_phys;
	memcpy(h->rh_bootid, p->rp_bootid, sizeof (h->rh_bootid));
	h->rh_ncpu = p->rp_ncpu;
	h->rh_flags = p->rp_flags;
	h->rh_kaslr = p->rp_kaslr;
	h->rh_created = p->rp_created;
	h->rh_policy = p->rp_policy;
	for (i = 0; p->rp_release != NULL && p->rp_release[i] != '\0' &&
	    i < sizeof (h->rh_release) - 1; i++)
		h->rh_release[i] = p->rp_release[i];
}

static void
rgn_init_cpus(void *base, const struct rgn_hdr *h)
{
	struct rgn_cpu *rc;
	uint32_t cpu;

	for (cpu = 0; cpu < h->rh_ncpu; cpu++) {
		rc = (struct rgn_cpu *)((uint8_t *)base + h->rh_cpu_off +
		    cpu * h->rh_cpu_stride);
		memset(rc, 0, sizeof (*rc));
		rc->rc_magic = RGN_CPU_MAGIC;
		rc->rc_cpu = cpu;
		rc->rc_size = h->rh_bufsize;
	}
}

uint64_t
rgn_size_for(const struct rgn_params *p, uint64_t bufsize)
{
	struct rgn_meta m;
	uint32_t pcap, ecap;
	uint64_t stride;

	pcap = p->rp_probe_cap != 0 ? p->rp_probe_cap : RGN_PROBE_CAP_DEFAULT;
	ecap = p->rp_epid_cap != 0 ? p->rp_epid_cap : RGN_EPID_CAP_DEFAULT;
	stride = rgn_roundup(rgn_roundup(bufsize, 8) + RGN_CPU_HDRSIZE,
	    RGN_PAGE) + rgn_roundup(p->rp_aggsize, RGN_PAGE) *
	    (p->rp_aggnbuf > p->rp_ncpu ? 2 : 1);
	return RGN_PAGE + rgn_roundup(rgn_meta_layout(&m, pcap, ecap,
	    p->rp_dofsz), RGN_PAGE) + rgn_roundup(p->rp_modsize, RGN_PAGE) +
	    (p->rp_aggsize != 0 && p->rp_aggnbuf > p->rp_ncpu ?
	    2 * rgn_roundup(p->rp_aggtot, RGN_PAGE) : 0) +	/* totals */
	    rgn_roundup(p->rp_specarea, RGN_PAGE) +	/* speculations */
	    rgn_roundup(p->rp_vararea, RGN_PAGE) +	/* and variables */
	    (uint64_t)p->rp_ncpu * stride;
}

/*
 * ---- speculations and variables (rgn.h; begin) ----
 * Reserve the speculation and variable areas at rh_cpu_off (page
 * multiples, the speculation area first).  Their contents are laid out
 * later by spec_create_in() and dif_vstate_init() in kdt.ko; rgn_init()
 * leaves them zeroed, which a reader takes as "not set up yet".
 */
static int
rgn_init_specvar(struct rgn_hdr *h, struct rgn_meta *m, uint64_t size,
    const struct rgn_params *p, struct kdt_err *err)
{
	uint64_t sp = rgn_roundup(p->rp_specarea, RGN_PAGE);
	uint64_t va = rgn_roundup(p->rp_vararea, RGN_PAGE);

	if (sp > size || va > size || h->rh_cpu_off + sp + va > size)
		return kdt_err_set(err, ENOSPC, "RGN_SIZE", KDT_ERR_NOOFF,
		    "region: size 0x%llx cannot hold a speculation area of 0x%llx and a variable area of 0x%llx bytes after offset 0x%llx",
		    (unsigned long long)size, (unsigned long long)sp,
		    (unsigned long long)va, (unsigned long long)h->rh_cpu_off);
	if (sp != 0) {
		m->rm_spec_off = h->rh_cpu_off;
		m->rm_spec_size = sp;
		h->rh_cpu_off += sp;
	}
	if (va != 0) {
		m->rm_gvar_off = h->rh_cpu_off;
		m->rm_gvar_size = va;
		h->rh_cpu_off += va;
	}
	return 0;
}

void *
rgn_spec_area(void *base, uint64_t *len)
{
	struct rgn_meta *m = rgn_meta(base);

	*len = m->rm_spec_off != 0 ? m->rm_spec_size : 0;
	return m->rm_spec_off != 0 ? (uint8_t *)base + m->rm_spec_off : NULL;
}

void *
rgn_var_area(void *base, uint64_t *len)
{
	struct rgn_meta *m = rgn_meta(base);

	*len = m->rm_gvar_off != 0 ? m->rm_gvar_size : 0;
	return m->rm_gvar_off != 0 ? (uint8_t *)base + m->rm_gvar_off : NULL;
}

void
rgn_set_dvar(void *base, uint64_t off, uint64_t len)
{
	struct rgn_meta *m = rgn_meta(base);

	if (m->rm_gvar_off == 0 || off == 0 || off >= m->rm_gvar_size ||
	    len > m->rm_gvar_size - off)
		return;
	m->rm_dvar_size = len;
	kenv_wmb();
	KENV_WRITE_ONCE(m->rm_dvar_off, m->rm_gvar_off + off);
}
/* ---- speculations and variables (end) ---- */

int
rgn_init(void *base, uint64_t size, const struct rgn_params *p,
    struct kdt_err *err)
{
	struct rgn_hdr h;
	struct rgn_meta m;
	uint64_t need, stride, astride, tot, aend, epend, zoff;
	uint32_t pcap, ecap, cpu, nagg;
	int rv;

	if ((rv = rgn_check_params(size, p, err)) != 0)
		return rv;
	pcap = p->rp_probe_cap != 0 ? p->rp_probe_cap : RGN_PROBE_CAP_DEFAULT;
	ecap = p->rp_epid_cap != 0 ? p->rp_epid_cap : RGN_EPID_CAP_DEFAULT;
	memset(&h, 0, sizeof (h));
	memset(&m, 0, sizeof (m));
	need = rgn_meta_layout(&m, pcap, ecap, p->rp_dofsz);
	h.rh_meta_off = RGN_PAGE;
	h.rh_meta_size = rgn_roundup(need, RGN_PAGE);
	h.rh_cpu_off = h.rh_meta_off + h.rh_meta_size;
	if (p->rp_modsize != 0) {	/* the module table (rgn.h) */
		m.rm_mod_off = h.rh_cpu_off;
		m.rm_mod_size = rgn_roundup(p->rp_modsize, RGN_PAGE);
		h.rh_cpu_off += m.rm_mod_size;
	}
	astride = rgn_roundup(p->rp_aggsize, RGN_PAGE);
	nagg = p->rp_aggnbuf > p->rp_ncpu ? 2 * p->rp_ncpu : p->rp_ncpu;
	tot = astride != 0 && nagg != p->rp_ncpu ?	/* totals: live only */
	    rgn_roundup(p->rp_aggtot, RGN_PAGE) : 0;
	if (astride != 0) {
		if (astride > size / nagg || tot > size / 2 ||
		    h.rh_cpu_off + nagg * astride + 2 * tot > size)
			return kdt_err_set(err, ENOSPC, "RGN_SIZE",
			    KDT_ERR_NOOFF,
			    "region: size 0x%llx cannot hold %u aggregation buffers of 0x%llx bytes and totals of 2 x 0x%llx",
			    (unsigned long long)size, nagg,
			    (unsigned long long)astride,
			    (unsigned long long)tot);
		m.rm_agg_off = h.rh_cpu_off;
		h.rh_cpu_off += (uint64_t)nagg * astride;
		if (nagg != p->rp_ncpu)
			m.rm_agg_nbuf = nagg;
		if (tot != 0) {		/* rgn.h, "Aggregation totals" */
			m.rm_aggtot_off = h.rh_cpu_off;
			m.rm_aggtot_size = 2 * tot;
			h.rh_cpu_off += 2 * tot;
		}
	}
	/* speculations and variables (rgn.h): after the aggregations */
	if ((rv = rgn_init_specvar(&h, &m, size, p, err)) != 0)
		return rv;
	stride = h.rh_cpu_off < size ?
	    ((size - h.rh_cpu_off) / p->rp_ncpu) & ~(RGN_PAGE - 1) : 0;
	if (stride < RGN_PAGE)
		return kdt_err_set(err, ENOSPC, "RGN_SIZE", KDT_ERR_NOOFF,
		    "region: size 0x%llx is below the 0x%llx bytes needed for header, metadata (0x%llx) and one page for each of %u cpus",
		    (unsigned long long)size,
		    (unsigned long long)(h.rh_cpu_off + p->rp_ncpu * RGN_PAGE),
		    (unsigned long long)h.rh_meta_size, p->rp_ncpu);
	h.rh_cpu_stride = stride;
	h.rh_bufsize = stride - RGN_CPU_HDRSIZE;
	rgn_fill_hdr(&h, size, p);

	/*
	 * Zero what a reader takes as "nothing yet": the header page, the
	 * metadata's fixed part (counts 0), the module table's header
	 * (ma_used 0), each totals slot's header (magic 0: never written;
	 * a warm reboot's region may hold the last boot's slots), the
	 * speculation and variable areas.  Not what readers look at only
	 * below a count: the probe and EPID tables past rm_nprobes and
	 * rm_nepids (rgn_add_probe and rgn_add_epid zero each entry they
	 * add), the module table past ma_used, the aggregation buffers
	 * (agg_buf_init() zeroes a buffer's header and chains, and nothing
	 * reads its heap past ab_heap_used), as the principal buffers past
	 * rc_head.  Under icount every byte of a memset is a guest
	 * instruction: the tables' capacity (KD_MOD_HEADROOM probes, 368
	 * KiB) and a reserved region's module table (128 KiB in 2 MiB) were
	 * ~0.5 M of an anonymous enabling's arming (bench/README.md, boot).
	 */
	epend = m.rm_epid_off + (uint64_t)ecap * sizeof (struct rgn_epid);
	memset(base, 0, h.rh_meta_off + sizeof (m));
	memset((uint8_t *)base + h.rh_meta_off + epend, 0,
	    m.rm_dof_off - epend);
	zoff = h.rh_meta_off + h.rh_meta_size;
	if (m.rm_mod_off != 0) {
		memset((uint8_t *)base + m.rm_mod_off, 0,
		    sizeof (struct rgn_modarea));
		zoff = m.rm_mod_off + m.rm_mod_size;
	}
	if (astride == 0) {
		memset((uint8_t *)base + zoff, 0, h.rh_cpu_off - zoff);
	} else {
		memset((uint8_t *)base + zoff, 0, m.rm_agg_off - zoff);
		for (cpu = 0; cpu < 2 && tot != 0; cpu++)
			memset((uint8_t *)base + m.rm_aggtot_off + cpu * tot, 0,
			    RGN_AGGTOT_HDRSIZE);
		aend = m.rm_agg_off + (uint64_t)nagg * astride + 2 * tot;
		memset((uint8_t *)base + aend, 0, h.rh_cpu_off - aend);
	}
	if (p->rp_dofsz != 0)
		memcpy((uint8_t *)base + h.rh_meta_off + m.rm_dof_off,
		    p->rp_dof, p->rp_dofsz);
	m.rm_dof_crc = kenv_crc32(p->rp_dof, p->rp_dofsz);
	m.rm_state = RGN_STATE_EMPTY;
	memcpy((uint8_t *)base + h.rh_meta_off, &m, sizeof (m));
	if (m.rm_mod_off != 0)
		((struct rgn_modarea *)((uint8_t *)base +
		    m.rm_mod_off))->ma_magic = RGN_MOD_MAGIC;
	rgn_init_cpus(base, &h);
	for (cpu = 0; astride != 0 && cpu < nagg; cpu++)
		if ((rv = agg_buf_init((uint8_t *)base + m.rm_agg_off +
		    cpu * astride, astride, cpu % p->rp_ncpu, err)) != 0)
			return rv;
	/* a live state's first active buffers collect interval 1 (rgn.h) */
	for (cpu = 0; nagg != p->rp_ncpu && cpu < p->rp_ncpu; cpu++)
		((struct agg_buf *)((uint8_t *)base + m.rm_agg_off +
		    cpu * astride))->ab_interval = 1;

	h.rh_magic = rgn_magic();
	h.rh_crc = kenv_crc32(&h, sizeof (h));
	/* Everything but the magic first; the magic makes the header real. */
	memcpy((uint8_t *)base + sizeof (h.rh_magic),
	    (uint8_t *)&h + sizeof (h.rh_magic),
	    sizeof (h) - sizeof (h.rh_magic));
	kenv_wmb();
	KENV_WRITE_ONCE(rgn_hdr(base)->rh_magic, h.rh_magic);
	return 0;
}

/* Copy "src" into the fixed field "dst" of "size" bytes, NUL-padded. */
static int
rgn_put_name(char *dst, uint32_t size, const char *src)
{
	uint32_t i;

	for (i = 0; src[i] != '\0'; i++) {
		if (i == size - 1)
			return -1;
		dst[i] = src[i];
	}
	for (; i < size; i++)
		dst[i] = '\0';
	return 0;
}

int
rgn_add_probe(void *base, uint32_t id, const char *prov, const char *mod,
    const char *func, const char *name, struct kdt_err *err)
{
	struct rgn_meta *m = rgn_meta(base);
	struct rgn_probe *rp;
	uint32_t n = m->rm_nprobes;

	if (n >= m->rm_probe_cap)
		return kdt_err_set(err, ENOSPC, "RGN_PROBES", KDT_ERR_NOOFF,
		    "region: probe %u (%s:%s:%s:%s) exceeds the probe table capacity of %u",
		    id, prov, mod, func, name, m->rm_probe_cap);
	rp = (struct rgn_probe *)((uint8_t *)m + m->rm_probe_off) + n;
	memset(rp, 0, sizeof (*rp));
	rp->rp_id = id;
	if (rgn_put_name(rp->rp_prov, sizeof (rp->rp_prov), prov) != 0 ||
	    rgn_put_name(rp->rp_mod, sizeof (rp->rp_mod), mod) != 0 ||
	    rgn_put_name(rp->rp_func, sizeof (rp->rp_func), func) != 0 ||
	    rgn_put_name(rp->rp_name, sizeof (rp->rp_name), name) != 0)
		return kdt_err_set(err, ENAMETOOLONG, "RGN_PROBES",
		    KDT_ERR_NOOFF,
		    "region: probe %u (%s:%s:%s:%s) has a name part longer than its field (63/63/127/63 characters)",
		    id, prov, mod, func, name);
	kenv_wmb();
	KENV_WRITE_ONCE(m->rm_nprobes, n + 1);
	return 0;
}

int
rgn_add_epid(void *base, uint32_t epid, uint32_t probe, uint32_t ecb,
    uint32_t size, struct kdt_err *err)
{
	struct rgn_meta *m = rgn_meta(base);
	struct rgn_epid *re;
	uint32_t n = m->rm_nepids;

	if (n >= m->rm_epid_cap)
		return kdt_err_set(err, ENOSPC, "RGN_EPIDS", KDT_ERR_NOOFF,
		    "region: EPID %u (probe %u, ECB %u) exceeds the EPID table capacity of %u",
		    epid, probe, ecb, m->rm_epid_cap);
	re = (struct rgn_epid *)((uint8_t *)m + m->rm_epid_off) + n;
	re->re_epid = epid;
	re->re_probe = probe;
	re->re_ecb = ecb;
	re->re_size = size;
	kenv_wmb();
	KENV_WRITE_ONCE(m->rm_nepids, n + 1);
	return 0;
}

void
rgn_set_state(void *base, uint32_t state)
{
	kenv_wmb();
	KENV_WRITE_ONCE(rgn_meta(base)->rm_state, state);
}

struct rgn_cpu *
rgn_cpu(void *base, uint32_t cpu)
{
	struct rgn_hdr *h = rgn_hdr(base);

	if (cpu >= h->rh_ncpu)
		return NULL;
	return (struct rgn_cpu *)((uint8_t *)base + h->rh_cpu_off +
	    cpu * h->rh_cpu_stride);
}

static uint8_t *
rgn_data(struct rgn_cpu *rc)
{
	return (uint8_t *)rc + RGN_CPU_HDRSIZE;
}

/*
 * Ring policy: advance "tail" over whole records until [tail, end) fits in
 * the buffer.  A size found at the tail that cannot be a record (below 8,
 * not a multiple of 8, past the buffer or past the committed head) means
 * the stream is damaged: give up on the old records and start the stream
 * at "start", where the new record goes.
 * Probe context: no locks, no allocation, no sleeping.
 */
static uint64_t
rgn_ring_tail(struct rgn_cpu *rc, uint64_t tail, uint64_t head,
    uint64_t start, uint64_t end)
{
	uint64_t bsize = rc->rc_size;
	uint32_t sz;

	while (end - tail > bsize && tail < head) {
		sz = ((struct rgn_rec *)(rgn_data(rc) + tail % bsize))->rr_size;
		if (sz < 8 || (sz & 7) != 0 || sz > bsize || sz > head - tail)
			return start;
		tail += sz;
	}
	/* Only the pad before "start" is left to discard. */
	if (end - tail > bsize)
		tail = start;
	return tail;
}

/*
 * Make room for a record of "payload" bytes (padding to the buffer end
 * first if it would straddle it) and publish rc_tail and rc_reserve.
 * Probe context: no locks, no allocation, no sleeping.
 */
struct rgn_rec *
rgn_reserve(struct rgn_cpu *rc, uint32_t policy, uint32_t payload)
{
	uint64_t bsize = rc->rc_size;
	uint64_t head = rc->rc_head;
	uint64_t tail = rc->rc_tail;
	uint64_t size, pad, start, end;
	struct rgn_rec *pr;

	size = rgn_roundup((uint64_t)payload + RGN_REC_HDRSIZE, 8);
	if (size > bsize) {
		KENV_WRITE_ONCE(rc->rc_drops, rc->rc_drops + 1);
		return NULL;
	}
	pad = bsize - head % bsize;
	if (pad >= size)
		pad = 0;
	start = head + pad;
	end = start + size;
	if (end - tail > bsize) {
		if (policy != DTRACEOPT_BUFPOLICY_RING) {
			KENV_WRITE_ONCE(rc->rc_drops, rc->rc_drops + 1);
			return NULL;
		}
		tail = rgn_ring_tail(rc, tail, head, start, end);
	}
	KENV_WRITE_ONCE(rc->rc_tail, tail);
	KENV_WRITE_ONCE(rc->rc_reserve, end);
	kenv_wmb();
	if (pad != 0) {
		pr = (struct rgn_rec *)(rgn_data(rc) + head % bsize);
		pr->rr_epid = RGN_EPID_PAD;
		pr->rr_size = (uint32_t)pad;
		if (pad >= RGN_REC_HDRSIZE)
			pr->rr_timestamp = 0;
	}
	return (struct rgn_rec *)(rgn_data(rc) + start % bsize);
}

/*
 * Fill the record header and publish the record by moving rc_head.
 * Probe context: no locks, no allocation, no sleeping.
 */
void
rgn_commit(struct rgn_cpu *rc, struct rgn_rec *rec, uint32_t epid,
    uint64_t timestamp)
{
	uint64_t bsize = rc->rc_size;
	uint64_t reserve = rc->rc_reserve;
	uint64_t off = (uint64_t)((uint8_t *)rec - rgn_data(rc));
	uint64_t endoff = reserve % bsize;

	/* The record ends at "reserve" and never straddles the buffer end. */
	if (endoff == 0)
		endoff = bsize;
	rec->rr_epid = epid;
	rec->rr_size = (uint32_t)(endoff - off);
	rec->rr_timestamp = timestamp;
	kenv_wmb();
	KENV_WRITE_ONCE(rc->rc_head, reserve);
}

void *
rgn_agg(void *base, uint32_t cpu)
{
	const struct rgn_hdr *h = rgn_hdr(base);
	const struct rgn_meta *m = rgn_meta(base);
	const struct agg_buf *ab0;

	if (m->rm_agg_off == 0 || cpu >= (m->rm_agg_nbuf != 0 ?
	    m->rm_agg_nbuf : h->rh_ncpu))
		return NULL;
	ab0 = (const struct agg_buf *)((uint8_t *)base + m->rm_agg_off);
	return (uint8_t *)base + m->rm_agg_off + cpu * ab0->ab_size;
}

/* ---- aggregation totals (rgn.h; begin) ---- */

/* Slot "i" of the totals area. */
static struct rgn_aggtot *
rgn_aggtot_slot(void *base, uint32_t i)
{
	const struct rgn_meta *m = rgn_meta(base);

	return (struct rgn_aggtot *)((uint8_t *)base + m->rm_aggtot_off +
	    (uint64_t)i * (m->rm_aggtot_size / 2));
}

/* The slot to write next: never written, or the older one. */
static uint32_t
rgn_aggtot_next(void *base)
{
	const struct rgn_aggtot *a = rgn_aggtot_slot(base, 0);
	const struct rgn_aggtot *b = rgn_aggtot_slot(base, 1);

	return a->at_seq > b->at_seq ? 1 : 0;
}

void *
rgn_aggtot_begin(void *base, uint64_t *cap)
{
	const struct rgn_meta *m = rgn_meta(base);
	const uint32_t ncpu = rgn_hdr(base)->rh_ncpu;
	struct rgn_aggtot *t;
	uint64_t hdr = RGN_AGGTOT_HDRSIZE + 8ULL * ncpu;

	*cap = 0;
	if (m->rm_aggtot_off == 0 || m->rm_aggtot_size / 2 <= hdr)
		return NULL;
	t = rgn_aggtot_slot(base, rgn_aggtot_next(base));
	KENV_WRITE_ONCE(t->at_seq, 0);
	kenv_wmb();
	*cap = m->rm_aggtot_size / 2 - RGN_AGGTOT_HDRSIZE;
	return t + 1;
}

uint64_t
rgn_aggtot_cap(void *base)
{
	const struct rgn_meta *m = rgn_meta(base);
	const uint64_t hdr = RGN_AGGTOT_HDRSIZE +
	    8ULL * rgn_hdr(base)->rh_ncpu;

	if (m->rm_aggtot_off == 0 || m->rm_aggtot_size / 2 <= hdr)
		return 0;
	return m->rm_aggtot_size / 2 - hdr;
}

int
rgn_aggtot_commit(void *base, uint64_t len, uint64_t xlen, uint64_t left,
    struct kdt_err *err)
{
	const struct rgn_meta *m = rgn_meta(base);
	const uint32_t ncpu = rgn_hdr(base)->rh_ncpu;
	const uint32_t i = rgn_aggtot_next(base);
	struct rgn_aggtot *t, *o, h;
	const struct agg_buf *ab;
	uint64_t cap, seq;

	if (m->rm_aggtot_off == 0)
		return kdt_err_set(err, EINVAL, "RGN_AGGTOT", KDT_ERR_NOOFF,
		    "region: no aggregation totals area");
	t = rgn_aggtot_slot(base, i);
	o = rgn_aggtot_slot(base, 1 - i);
	cap = m->rm_aggtot_size / 2 - RGN_AGGTOT_HDRSIZE - 8ULL * ncpu;
	ab = (const struct agg_buf *)((uint8_t *)(t + 1) + 8ULL * ncpu);
	if (len < AGG_BUF_HDRSIZE || len > cap || ab->ab_magic !=
	    AGG_BUF_MAGIC || ab->ab_size != len ||
	    ab->ab_heap_off + ab->ab_heap_used > len)
		return kdt_err_set(err, EINVAL, "RGN_AGGTOT", KDT_ERR_NOOFF,
		    "aggregation totals: image of %llu bytes (ab_size %llu) is not an aggregation buffer of at most %llu bytes",
		    (unsigned long long)len,
		    (unsigned long long)(len >= AGG_BUF_HDRSIZE ?
		    ab->ab_size : 0), (unsigned long long)cap);
	if (xlen > cap - len)
		return kdt_err_set(err, EINVAL, "RGN_AGGTOT", KDT_ERR_NOOFF,
		    "aggregation totals: %llu replay bytes after the %llu-byte image exceed the %llu bytes of the slot",
		    (unsigned long long)xlen, (unsigned long long)len,
		    (unsigned long long)cap);
	/* the header as it will read, CRC'd here; at_seq goes in last */
	memset(&h, 0, sizeof (h));
	h.at_magic = RGN_AGGTOT_MAGIC;
	h.at_ncpu = ncpu;
	h.at_seq = o->at_seq + 1;
	h.at_len = len;
	h.at_left = left;
	h.at_xlen = xlen;
	h.at_xcrc = xlen != 0 ? kenv_crc32((const uint8_t *)(t + 1) +
	    8ULL * ncpu + len, xlen) : 0;
	h.at_crc = kenv_crc32(&h, sizeof (h)) ^ kenv_crc32(t + 1,
	    8ULL * ncpu + len);
	seq = h.at_seq;
	h.at_seq = 0;
	memcpy(t, &h, sizeof (h));
	kenv_wmb();
	KENV_WRITE_ONCE(t->at_seq, seq);
	return 0;
}
/* ---- aggregation totals (end) ---- */

/* ==== page list: live regions in ordinary kernel memory (begin) ==== */

/* Where the descriptor goes: the first 64-aligned byte after the header. */
static uint32_t
rgn_pl_off(uint32_t hdrsize)
{
	return (hdrsize + 63) & ~63u;
}

uint32_t
rgn_pagelist_tblpages(uint64_t npages, uint64_t nspare, uint32_t off)
{
	uint64_t n = npages + nspare, ntbl;

	if (off + sizeof (struct rgn_pagelist) > RGN_PAGE)
		return 0;
	ntbl = (n + RGN_PL_PER_PAGE - 1) / RGN_PL_PER_PAGE;
	if (ntbl == 0 || ntbl > (RGN_PAGE - off -
	    sizeof (struct rgn_pagelist)) / 8)
		return 0;
	return (uint32_t)ntbl;
}

int
rgn_pagelist_init(void *base, const uint64_t *tbl, uint64_t nspare,
    const uint64_t *tblpfn, uint32_t ntbl, struct kdt_err *err)
{
	struct rgn_hdr *h = rgn_hdr(base);
	struct rgn_pagelist pl;
	uint64_t npages = h->rh_size / RGN_PAGE;
	uint32_t off = rgn_pl_off(h->rh_hdrsize);
	uint8_t *d;

	if (ntbl == 0 || rgn_pagelist_tblpages(npages, nspare, off) != ntbl)
		return kdt_err_set(err, E2BIG, "RGN_PLSIZE", KDT_ERR_NOOFF,
		    "page list: %llu region and %llu spare pages need %u table pages, not %u (the directory in page 0 holds at most %llu)",
		    (unsigned long long)npages, (unsigned long long)nspare,
		    rgn_pagelist_tblpages(npages, nspare, off), ntbl,
		    (unsigned long long)((RGN_PAGE - off - sizeof (pl)) / 8));
	memset(&pl, 0, sizeof (pl));
	pl.rl_magic = RGN_PL_MAGIC;
	pl.rl_version = RGN_PL_VERSION;
	pl.rl_size = sizeof (pl);
	pl.rl_npages = npages;
	pl.rl_nspare = nspare;
	pl.rl_ntbl = ntbl;
	pl.rl_tblcrc = kenv_crc32(tbl, (npages + nspare) * 8);
	d = (uint8_t *)base + off;
	memcpy(d, &pl, sizeof (pl));
	memcpy(d + sizeof (pl), tblpfn, (uint64_t)ntbl * 8);
	pl.rl_crc = kenv_crc32(d, sizeof (pl) + (uint64_t)ntbl * 8);
	memcpy(d + offsetof(struct rgn_pagelist, rl_crc), &pl.rl_crc,
	    sizeof (pl.rl_crc));
	/* the header last, its CRC after every field it covers */
	h->rh_phys = tbl[0] * RGN_PAGE;
	h->rh_pl_off = off;
	h->rh_crc = 0;
	h->rh_crc = kenv_crc32(h, h->rh_hdrsize);
	return 0;
}
/* ==== page list (end) ==== */

/* ---- the module table (rgn.h, "module table") ---- */

static struct rgn_modarea *
rgn_modarea(void *base)
{
	struct rgn_meta *m = rgn_meta(base);

	if (m->rm_mod_off == 0)
		return NULL;
	return (struct rgn_modarea *)((uint8_t *)base + m->rm_mod_off);
}

/* The entry being written: the first byte after the published ones. */
static struct rgn_mod *
rgn_mod_pending(struct rgn_modarea *a)
{
	return (struct rgn_mod *)((uint8_t *)(a + 1) + a->ma_used);
}

/* Bytes of the area after its header. */
static uint64_t
rgn_mod_room(void *base)
{
	return rgn_meta(base)->rm_mod_size - sizeof (struct rgn_modarea);
}

int
rgn_mod_begin(void *base, const char *name, uint64_t addr, uint64_t size,
    uint64_t text, uint32_t flags)
{
	struct rgn_modarea *a = rgn_modarea(base);
	struct rgn_mod *md;

	if (a == NULL)
		return -EINVAL;
	if (a->ma_used + sizeof (*md) > rgn_mod_room(base)) {
		a->ma_lost++;
		return -ENOSPC;
	}
	md = rgn_mod_pending(a);
	memset(md, 0, sizeof (*md));
	if (rgn_put_name(md->md_name, sizeof (md->md_name), name) != 0)
		return -EINVAL;
	md->md_base = addr;
	md->md_size = size;
	md->md_text = text <= size ? text : size;
	md->md_flags = flags & RGN_MOD_F_INIT;
	md->md_len = sizeof (*md);
	return 0;
}

int
rgn_mod_sym(void *base, uint64_t addr, uint64_t size, const char *name)
{
	struct rgn_modarea *a = rgn_modarea(base);
	struct rgn_modsym *ms;
	struct rgn_mod *md;
	uint64_t len, need;
	char *dst;

	if (a == NULL)
		return -EINVAL;
	md = rgn_mod_pending(a);
	len = strlen(name);
	/* the build id ends the entry: no symbol after it */
	if (len == 0 || len >= RGN_MODSYM_NAMELEN || addr < md->md_base ||
	    addr - md->md_base >= md->md_size || md->md_bidlen != 0)
		return -EINVAL;
	need = rgn_roundup(sizeof (*ms) + len + 1, 8);
	if (a->ma_used + md->md_len + need > rgn_mod_room(base)) {
		if ((md->md_flags & RGN_MOD_F_TRUNC) == 0)
			a->ma_trunc++;
		md->md_flags |= RGN_MOD_F_TRUNC;
		return -ENOSPC;
	}
	ms = (struct rgn_modsym *)((uint8_t *)md + md->md_len);
	ms->ms_off = (uint32_t)(addr - md->md_base);
	ms->ms_size = size > 0xffffffffULL ? 0 : (uint32_t)size;
	dst = (char *)(ms + 1);
	memcpy(dst, name, len);
	memset(dst + len, 0, need - sizeof (*ms) - len);
	md->md_len += (uint32_t)need;
	md->md_nsyms++;
	return 0;
}

int
rgn_mod_buildid(void *base, const void *id, uint32_t len)
{
	struct rgn_modarea *a = rgn_modarea(base);
	struct rgn_mod *md;
	uint64_t need;
	uint8_t *dst;

	if (a == NULL || len == 0 || len > RGN_BUILDID_MAX)
		return -EINVAL;
	md = rgn_mod_pending(a);
	if (md->md_len < sizeof (*md) || md->md_bidlen != 0)
		return -EINVAL;
	need = rgn_roundup(len, 8);
	if (a->ma_used + md->md_len + need > rgn_mod_room(base))
		return -ENOSPC;
	dst = (uint8_t *)md + md->md_len;
	memcpy(dst, id, len);
	memset(dst + len, 0, need - len);
	md->md_len += (uint32_t)need;
	md->md_bidlen = len;
	return 0;
}

int
rgn_set_kbid(void *base, const void *id, uint32_t len)
{
	struct rgn_meta *m = rgn_meta(base);

	if (len == 0 || len > RGN_BUILDID_MAX)
		return -EINVAL;
	memset(m->rm_kbid, 0, sizeof (m->rm_kbid));
	memcpy(m->rm_kbid, id, len);
	m->rm_kbid_len = len;
	return 0;
}

void
rgn_mod_end(void *base)
{
	struct rgn_modarea *a = rgn_modarea(base);

	if (a == NULL)
		return;
	kenv_wmb();
	KENV_WRITE_ONCE(a->ma_used, a->ma_used + rgn_mod_pending(a)->md_len);
	kenv_wmb();
	KENV_WRITE_ONCE(a->ma_nmods, a->ma_nmods + 1);
}

void
rgn_mod_gone(void *base, const char *name, uint64_t addr)
{
	struct rgn_modarea *a = rgn_modarea(base);
	struct rgn_mod *md, *last = NULL;
	uint64_t off;

	if (a == NULL)
		return;
	for (off = 0; off < a->ma_used; off += md->md_len) {
		md = (struct rgn_mod *)((uint8_t *)(a + 1) + off);
		if (md->md_len < sizeof (*md))
			break;
		if (md->md_base == addr &&
		    (md->md_flags & RGN_MOD_F_GONE) == 0 &&
		    strncmp(md->md_name, name, sizeof (md->md_name)) == 0)
			last = md;
	}
	if (last != NULL)
		last->md_flags |= RGN_MOD_F_GONE;
}
