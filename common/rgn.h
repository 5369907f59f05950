/*
 * rgn.h -- the reserved region: kdt's flight recorder, self-describing.
 *
 * The region is a physically contiguous range reserved at boot (memmap=)
 * that kdt.ko maps and fills.  After a panic it is read back from a dump
 * (crashdump/), from /dev/kdt (kdt -a) or from the debugger (mdb-module/),
 * always through rgn_read.c.  A reader needs the region bytes and nothing
 * else: no symbols, no debuginfo, no pointer is ever stored -- only offsets
 * from the region start.  The writer side is rgn_write.c (used by kdt.ko).
 *
 * Layout (all offsets from the region start; every part page-aligned):
 *
 *   0            rh_meta_off                 rh_cpu_off
 *   +------------+---------------------------+------+-----------------+-----
 *   | rgn_hdr    | rgn_meta | probes | epids | aggs | cpu 0           | cpu 1
 *   | (page)     |          |        | | DOF |      | rgn_cpu | data  |
 *   +------------+---------------------------+------+-----------------+-----
 *                                                   |<- rh_cpu_stride ->|
 *
 * Aggregation buffers (optional; rm_agg_off != 0): one struct agg_buf per
 * CPU (agg.h has its layout), CPU c's at rm_agg_off + c * ab_size of CPU
 * 0's buffer (page-aligned, every CPU's the same size), between the
 * metadata and rh_cpu_off.  The anonymous enabling keeps its aggregations
 * there, so they survive a panic; a reader merges the CPUs' entries.
 *
 * Region header (struct rgn_hdr), written once when the region is set up;
 * rh_crc covers the first rh_hdrsize bytes with rh_crc taken as 0:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    8 rh_magic      RGN_MAGIC (see rgn_magic())          since v1
 *        8    4 rh_hdrsize    sizeof (struct rgn_hdr) = 192         since v1
 *       12    2 rh_version    RGN_VERSION = 1                       since v1
 *       14    2 rh_endian     0x1234 in the writer's byte order     since v1
 *       16    8 rh_size       region bytes                          since v1
 *       24    8 rh_phys       physical address of byte 0            since v1
 *       32   16 rh_bootid     random id of the boot that wrote it   since v1
 *       48    4 rh_ncpu       number of per-CPU buffers             since v1
 *       52    4 rh_flags      RGN_F_*                               since v1
 *       56    8 rh_kaslr      kernel text relocation offset         since v1
 *       64    8 rh_created    wall-clock ns at setup                since v1
 *       72    8 rh_meta_off   offset of struct rgn_meta             since v1
 *       80    8 rh_meta_size  bytes reserved for metadata           since v1
 *       88    8 rh_cpu_off    offset of cpu 0's struct rgn_cpu      since v1
 *       96    8 rh_cpu_stride bytes from one cpu to the next        since v1
 *      104    8 rh_bufsize    data bytes per cpu (rc_size)          since v1
 *      112   65 rh_release    kernel release (uname -r), NUL-padded since v1
 *      177    3 rh_pad0       zero                                  since v1
 *      180    4 rh_policy     DTRACEOPT_BUFPOLICY_* of the buffers  since v1
 *      184    4 rh_pad1       zero                                  since v1
 *      188    4 rh_crc        CRC-32 of the header, rh_crc = 0      since v1
 *
 * Metadata (struct rgn_meta at rh_meta_off).  Written at setup and grown
 * as probes are matched (a module that loads later adds probes); counts
 * are published after their entries (write barrier), so a reader sees only
 * complete entries.  The DOF is the enabling exactly as kdt.ko loaded it:
 * the reader runs dof_load() on it to learn every ECB's record layout.
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    4 rm_probe_cap  capacity of the probe table
 *        4    4 rm_nprobes    entries in use
 *        8    4 rm_epid_cap   capacity of the EPID table
 *       12    4 rm_nepids     entries in use
 *       16    8 rm_probe_off  offset of the probe table (from rgn_meta)
 *       24    8 rm_epid_off   offset of the EPID table (from rgn_meta)
 *       32    8 rm_dof_off    offset of the DOF copy (from rgn_meta)
 *       40    8 rm_dof_size   DOF bytes
 *       48    4 rm_dof_crc    CRC-32 of the DOF bytes
 *       52    4 rm_state      RGN_STATE_* of the enabling
 *       56    8 rm_agg_off    offset from the region start of the
 *                             aggregation buffers, 0 = none (0 in
 *                             images written before they existed)
 *
 * Probe table entry (struct rgn_probe, 328 bytes): probe id and its four
 * NUL-padded name parts.  EPID table entry (struct rgn_epid, 16 bytes):
 * EPID, probe id, index of the ECB in the DOF, payload bytes per record.
 *
 * Per-CPU buffer header (struct rgn_cpu at rh_cpu_off + cpu * rh_cpu_stride;
 * its data follows at + RGN_CPU_HDRSIZE):
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    4 rc_magic    RGN_CPU_MAGIC
 *        4    4 rc_cpu      cpu number
 *        8    8 rc_size     data bytes (multiple of 8)
 *       16    8 rc_head     logical bytes committed
 *       24    8 rc_reserve  logical bytes reserved (> rc_head: a record
 *                           was being written, i.e. torn if we died)
 *       32    8 rc_tail     logical offset of the oldest retained record
 *       40    8 rc_drops    records dropped on this cpu
 *       48    8 rc_errors   probe-context faults on this cpu
 *       56    8 rc_pad      zero
 *
 * The record stream.  Logical offsets grow forever; a logical offset L
 * lives at data[L % rc_size].  Records are 8-aligned, never straddle the
 * end of the data area (the writer pads to the end first) and always lie
 * in [rc_tail, rc_head).  Each record:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    4 rr_epid       EPID, or RGN_EPID_PAD (then only rr_size
 *                             is meaningful: skip rr_size bytes)
 *        4    4 rr_size       bytes of the whole record, multiple of 8,
 *                             >= 8 for a pad, >= 16 otherwise
 *        8    8 rr_timestamp  ns, monotonic clock                  
 *       16    - payload       the ECB's layout (dof_load.h), le_size bytes
 *
 * Error records.  When a predicate or action faults, the runner abandons
 * the ECB's record and writes instead a record with rr_epid =
 * RGN_EPID_ERROR whose payload is a struct rgn_errrec (24 bytes): the
 * EPID that faulted, the action (0 = predicate, n = action #n), the DIF
 * instruction index (or (uint32_t)-1), the fault code (DTRACEFLT_*) and
 * the offending address or value.  The consumer prints dtrace's "error on
 * enabled probe ID" message from it.  (since v1)
 *
 * Ring policy: to make room the writer advances rc_tail over the oldest
 * records before it reserves.  Fill policy: when the record does not fit
 * without overwriting, it is dropped (rc_drops++).  Commit protocol (one
 * writer per cpu, interrupts off): rc_tail, then rc_reserve, barrier, write
 * the record, barrier, rc_head = rc_reserve.
 *
 * Worked example: cpu 0 after one BEGIN record (EPID 1, payload 8 bytes)
 * at timestamp 0x3b9aca00, data area of 0x1000 bytes:
 *
 *   rgn_cpu: 75 70 63 6b 00 00 00 00  00 10 00 00 00 00 00 00
 *            18 00 00 00 00 00 00 00  18 00 00 00 00 00 00 00
 *            00 00 00 00 00 00 00 00  ... (drops, errors, pad = 0)
 *   data:    01 00 00 00 18 00 00 00  00 ca 9a 3b 00 00 00 00
 *            <8 payload bytes>
 */
#ifndef KDT_RGN_H
#define KDT_RGN_H

#include "kdt_env.h"
#include "kdt_err.h"

#define RGN_VERSION		1
#define RGN_ENDIAN		0x1234
#define RGN_ENDIAN_SWAPPED	0x3412
#define RGN_PAGE		4096ULL
#define RGN_CPU_MAGIC		0x6b637075	/* "upck" in memory order */
#define RGN_CPU_HDRSIZE		64
#define RGN_EPID_PAD		0
#define RGN_EPID_ERROR		0xffffffffu
#define RGN_REC_HDRSIZE		16
#define RGN_PROBE_CAP_DEFAULT	1024
#define RGN_EPID_CAP_DEFAULT	1024

#define RGN_F_ANON		0x1	/* an anonymous enabling wrote it */

#define RGN_STATE_EMPTY		0	/* set up, no enabling yet */
#define RGN_STATE_ACTIVE	1	/* probes enabled and recording */
#define RGN_STATE_STOPPED	2	/* enabling stopped */
#define RGN_STATE_FAILED	3	/* enabling rejected */

struct rgn_hdr {
	uint64_t	rh_magic;
	uint32_t	rh_hdrsize;
	uint16_t	rh_version;
	uint16_t	rh_endian;
	uint64_t	rh_size;
	uint64_t	rh_phys;
	uint8_t		rh_bootid[16];
	uint32_t	rh_ncpu;
	uint32_t	rh_flags;
	uint64_t	rh_kaslr;
	uint64_t	rh_created;
	uint64_t	rh_meta_off;
	uint64_t	rh_meta_size;
	uint64_t	rh_cpu_off;
	uint64_t	rh_cpu_stride;
	uint64_t	rh_bufsize;
	char		rh_release[65];
	uint8_t		rh_pad0[3];
	uint32_t	rh_policy;
	uint32_t	rh_pad1;
	uint32_t	rh_crc;
};

struct rgn_meta {
	uint32_t	rm_probe_cap;
	uint32_t	rm_nprobes;
	uint32_t	rm_epid_cap;
	uint32_t	rm_nepids;
	uint64_t	rm_probe_off;
	uint64_t	rm_epid_off;
	uint64_t	rm_dof_off;
	uint64_t	rm_dof_size;
	uint32_t	rm_dof_crc;
	uint32_t	rm_state;
	uint64_t	rm_agg_off;
};

struct rgn_probe {
	uint32_t	rp_id;
	uint32_t	rp_pad;
	char		rp_prov[64];
	char		rp_mod[64];
	char		rp_func[128];
	char		rp_name[64];
};

struct rgn_epid {
	uint32_t	re_epid;
	uint32_t	re_probe;	/* probe id */
	uint32_t	re_ecb;		/* index into the DOF's ECBs */
	uint32_t	re_size;	/* payload bytes (le_size) */
};

struct rgn_cpu {
	uint32_t	rc_magic;
	uint32_t	rc_cpu;
	uint64_t	rc_size;
	uint64_t	rc_head;
	uint64_t	rc_reserve;
	uint64_t	rc_tail;
	uint64_t	rc_drops;
	uint64_t	rc_errors;
	uint64_t	rc_pad;
};

struct rgn_rec {
	uint32_t	rr_epid;
	uint32_t	rr_size;
	uint64_t	rr_timestamp;
};

struct rgn_errrec {
	uint32_t	ee_epid;	/* EPID of the ECB that faulted */
	uint32_t	ee_act;		/* 0 = predicate, n = action #n */
	uint32_t	ee_pc;		/* DIF instruction index, or -1 */
	uint32_t	ee_fault;	/* DTRACEFLT_* */
	uint64_t	ee_addr;	/* offending address or value */
};

_Static_assert(sizeof (struct rgn_hdr) == 192, "rgn_hdr");
_Static_assert(sizeof (struct rgn_errrec) == 24, "rgn_errrec");
_Static_assert(sizeof (struct rgn_meta) == 64, "rgn_meta");
_Static_assert(sizeof (struct rgn_probe) == 328, "rgn_probe");
_Static_assert(sizeof (struct rgn_epid) == 16, "rgn_epid");
_Static_assert(sizeof (struct rgn_cpu) == RGN_CPU_HDRSIZE, "rgn_cpu");
_Static_assert(sizeof (struct rgn_rec) == RGN_REC_HDRSIZE, "rgn_rec");

/*
 * The magic.  Its value is never a literal in our binaries: it is computed
 * at run time from two halves, one of them read through a volatile, so a
 * scan of memory or of a dump never matches kdt's own code or data -- only
 * a real region header.
 */
uint64_t rgn_magic(void);

/* ---- writer side (rgn_write.c; kdt.ko and the unit tests) ---- */

struct rgn_params {
	uint64_t	rp_phys;
	uint32_t	rp_ncpu;
	uint32_t	rp_policy;	/* ring or fill */
	uint32_t	rp_probe_cap;
	uint32_t	rp_epid_cap;
	uint32_t	rp_flags;	/* RGN_F_* */
	uint32_t	rp_pad;
	uint64_t	rp_aggsize;	/* aggregation bytes per CPU in the
					   region (page-rounded), 0: none */
	uint64_t	rp_kaslr;
	uint64_t	rp_created;
	uint8_t		rp_bootid[16];
	const char	*rp_release;
	const void	*rp_dof;
	uint64_t	rp_dofsz;
};

/*
 * Lay out and initialise a region of "size" bytes at "base" (mapped
 * memory).  -ENOSPC when the metadata and one page per cpu do not fit,
 * with "err" giving the sizes.  Setup context.
 */
int rgn_init(void *base, uint64_t size, const struct rgn_params *p,
    struct kdt_err *err);
/*
 * The region size rgn_init() needs to give each of p->rp_ncpu CPUs at
 * least "bufsize" data bytes with p's table capacities and DOF.
 */
uint64_t rgn_size_for(const struct rgn_params *p, uint64_t bufsize);
/* Add a probe / an EPID to the metadata tables.  Setup context. */
int rgn_add_probe(void *base, uint32_t id, const char *prov, const char *mod,
    const char *func, const char *name, struct kdt_err *err);
int rgn_add_epid(void *base, uint32_t epid, uint32_t probe, uint32_t ecb,
    uint32_t size, struct kdt_err *err);
void rgn_set_state(void *base, uint32_t state);
struct rgn_cpu *rgn_cpu(void *base, uint32_t cpu);

/*
 * Reserve room for a record of "payload" bytes on "rc" and return where to
 * write it (the header is filled by rgn_commit), or NULL when it is dropped
 * (rc_drops is bumped).  Probe context: no locks, no allocation, no
 * sleeping; the caller has interrupts off and is the only writer of rc.
 */
struct rgn_rec *rgn_reserve(struct rgn_cpu *rc, uint32_t policy,
    uint32_t payload);
void rgn_commit(struct rgn_cpu *rc, struct rgn_rec *rec, uint32_t epid,
    uint64_t timestamp);

/* ---- reader side (rgn_read.c; every consumer) ---- */

/*
 * A validated view of a region image held in memory.  Produced by
 * rgn_open(); afterwards rv_hdr and rv_meta may be trusted (offsets in
 * range, tables inside the metadata area, counts within capacity).
 */
struct rgn_view {
	const uint8_t	*rv_base;
	uint64_t	rv_len;		/* bytes available (may be < rh_size
					   for a truncated image: then open
					   fails) */
	const struct rgn_hdr *rv_hdr;
	const struct rgn_meta *rv_meta;
	const struct rgn_probe *rv_probes;
	const struct rgn_epid *rv_epids;
	const uint8_t	*rv_dof;
};

/*
 * Validate the header, metadata and per-cpu headers of the image at
 * base[0, len).  "phys" is where the image was found (RGN_PHYS_ANY to skip
 * that check).  The rules are enumerated on the function.
 */
#define RGN_PHYS_ANY	((uint64_t)-1)
int rgn_open(struct rgn_view *v, const void *base, uint64_t len,
    uint64_t phys, struct kdt_err *err);

/* Quick test used while scanning: does a header start at "p"? */
int rgn_probe_hdr(const void *p, uint64_t len);

/* What rgn_walk_cpu reports for each record (or problem). */
struct rgn_walk_cb {
	/* A record; payload points at rr_size - 16 bytes. 0 = continue. */
	int	(*wc_rec)(void *arg, uint32_t cpu, const struct rgn_rec *rec,
		    const uint8_t *payload, uint64_t loff);
	/* A torn or corrupt spot: what and where.  0 = continue. */
	int	(*wc_bad)(void *arg, uint32_t cpu, uint64_t loff,
		    const char *what);
	void	*wc_arg;
};

/*
 * Walk cpu "cpu"'s records oldest to newest.  Corruption stops the walk
 * of that cpu after reporting it through wc_bad; a record being written
 * at the time of death (rc_reserve > rc_head) is reported as torn.
 */
int rgn_walk_cpu(const struct rgn_view *v, uint32_t cpu,
    const struct rgn_walk_cb *cb, struct kdt_err *err);
const struct rgn_cpu *rgn_view_cpu(const struct rgn_view *v, uint32_t cpu);
/*
 * CPU "cpu"'s aggregation buffer image and its bytes (*len), or NULL
 * when the region has none.  rgn_open() checked the area's bounds; the
 * buffer itself is checked by agg_buf_check() against the DOF.
 */
const void *rgn_view_agg(const struct rgn_view *v, uint32_t cpu,
    uint64_t *len);
/* The writer's view of the same: CPU "cpu"'s buffer, or NULL. */
void *rgn_agg(void *base, uint32_t cpu);
const struct rgn_epid *rgn_find_epid(const struct rgn_view *v, uint32_t epid);
const struct rgn_probe *rgn_find_probe(const struct rgn_view *v, uint32_t id);

#endif /* KDT_RGN_H */
