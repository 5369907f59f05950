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
 * (between the metadata and rh_cpu_off, each part optional and in this
 * order: module table, aggregation buffers, aggregation totals,
 * speculation area, variable area -- see their sections)
 *
 * Aggregation buffers (optional; rm_agg_off != 0): one struct agg_buf per
 * CPU (agg.h has its layout), CPU c's at rm_agg_off + c * ab_size of CPU
 * 0's buffer (page-aligned, every CPU's the same size), between the
 * metadata and rh_cpu_off.  The anonymous enabling keeps its aggregations
 * there, so they survive a panic; a reader merges the CPUs' entries.  A
 * live (vmalloc'd) state keeps there its active buffers and their spares
 * (rm_agg_nbuf = 2 * rh_ncpu) and the consumer's merged totals: see
 * "Aggregation totals" at the end.  So does the anonymous enabling when
 * its region has room for them (kmod/kd_cs.c kd_anon_aggrgn): the spares
 * stay at interval 0 and the totals unwritten until "kdt -a" claims the
 * state and snapshots like a live consumer.
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
 *      184    4 rh_pl_off     offset of the page list descriptor    since v1
 *                             in page 0, 0 = none (see "Page list")
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
 *       64    8 rm_mod_off    offset from the region start of the
 *                             module table, 0 = none (optional)
 *       72    8 rm_mod_size   bytes of the module table area
 *       80    8 rm_spec_off   offset from the region start of the
 *                             speculation area, 0 = none (optional;
 *                             "speculations and variables" below)
 *       88    8 rm_spec_size  bytes of the speculation area
 *       96    8 rm_gvar_off   offset from the region start of the
 *                             variable area, 0 = none (optional)
 *      104    8 rm_gvar_size  bytes of the variable area
 *      112    8 rm_dvar_off   offset from the region start of the
 *                             dynamic-variable store inside the
 *                             variable area, 0 = none (optional)
 *      120    8 rm_dvar_size  bytes of that store
 *      128    8 rm_aggtot_off offset from the region start of the
 *                             aggregation totals area, 0 = none
 *                             (optional; "Aggregation totals" below)
 *      136    8 rm_aggtot_size bytes of that area: two slots of
 *                             rm_aggtot_size / 2 bytes
 *      144    4 rm_agg_nbuf   aggregation buffers at rm_agg_off: 0
 *                             (then rh_ncpu) or 2 * rh_ncpu
 *      148    4 rm_pad1       zero
 *      152    4 rm_kbid_len   bytes of rm_kbid in use, 1 to
 *                             RGN_BUILDID_MAX; 0 = not recorded
 *                             (optional, RGN_META_HAS_KBID; "Build
 *                             ids" below)
 *      156    4 rm_pad2       zero
 *      160   32 rm_kbid       GNU build id of the kernel that wrote
 *                             the region, zero-padded
 *
 * Build ids.  The region names the exact build that wrote it, so that a
 * reader given debug files (kdt-extract --vmlinux FILE --modules DIR)
 * can refuse those of another build of the same release (a rebuilt
 * package keeps uname -r): rm_kbid holds the NT_GNU_BUILD_ID note's
 * descriptor of the running vmlinux (what "readelf -n vmlinux" prints
 * as "Build ID"), each module table entry its .ko's (md_bidlen below).
 * A build id is 1 to RGN_BUILDID_MAX (32) bytes (GNU ld writes 20 for
 * sha1); a longer one is not recorded.  Not recorded (images from before
 * the fields, a kernel whose notes kdt.ko could not find, a module whose
 * note it could not find): the reader checks nothing and says so ("not
 * recorded"); a recorded id that differs from the file's makes the
 * reader refuse the file (rgn.h's readers: consumer/kc_sym.c).
 *
 * Optional metadata fields (rm_mod_*).  The probe table starts right
 * after struct rgn_meta, so rm_probe_off is the size of the rgn_meta the
 * writer knew: a field at offset O of size S exists iff rm_probe_off >=
 * O + S (RGN_META_HAS); images from before it have rm_probe_off 64 and a
 * reader takes the field as 0.  Readers that do not know a field skip it
 * through rm_probe_off.  No version change is needed for such a field.
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
	uint32_t	rh_pl_off;	/* page list descriptor, 0 = none */
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
	uint64_t	rm_mod_off;	/* module table, 0 = none */
	uint64_t	rm_mod_size;	/* its bytes */
	/* speculations and variables (optional, RGN_META_HAS_VARS) */
	uint64_t	rm_spec_off;	/* speculation area, 0 = none */
	uint64_t	rm_spec_size;
	uint64_t	rm_gvar_off;	/* variable area, 0 = none */
	uint64_t	rm_gvar_size;
	uint64_t	rm_dvar_off;	/* its dynamic store, 0 = none */
	uint64_t	rm_dvar_size;
	/* aggregation totals (optional, RGN_META_HAS_AGGTOT) */
	uint64_t	rm_aggtot_off;	/* totals area, 0 = none */
	uint64_t	rm_aggtot_size;	/* its bytes: two slots */
	uint32_t	rm_agg_nbuf;	/* buffers at rm_agg_off, 0: ncpu */
	uint32_t	rm_pad1;
	/* the kernel's build id (optional, RGN_META_HAS_KBID) */
	uint32_t	rm_kbid_len;	/* 0: not recorded */
	uint32_t	rm_pad2;
	uint8_t		rm_kbid[32];	/* RGN_BUILDID_MAX */
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
_Static_assert(sizeof (struct rgn_meta) == 192, "rgn_meta");
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
	uint64_t	rp_modsize;	/* module table bytes (page-rounded),
					   0: none (rgn.h, "module table") */
	uint64_t	rp_aggsize;	/* aggregation bytes per CPU in the
					   region (page-rounded), 0: none */
	uint64_t	rp_specarea;	/* speculation area bytes (page-
					   rounded; spec_area_size()), 0:
					   none */
	uint64_t	rp_vararea;	/* variable area bytes (page-rounded;
					   dif_vstate_size()), 0: none */
	uint32_t	rp_aggnbuf;	/* aggregation buffers: 0 (rp_ncpu)
					   or 2 * rp_ncpu (live state) */
	uint32_t	rp_pad2;
	uint64_t	rp_aggtot;	/* aggregation totals slot bytes
					   (page-rounded; the area holds
					   two), 0: none */
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
	const struct rgn_gap *rv_gaps;	/* rgn_open_gaps(): bytes missing */
	uint32_t	rv_ngaps;
	uint32_t	rv_lost;	/* 1 << RGN_PART_*: left out (gaps) */
};

/*
 * A part of an image that its source did not hold (a dump cut short, an
 * excluded page): rg_len bytes at region offset rg_off, zero in the
 * image, and why they are missing (a phrase, e.g. "excluded from the
 * dump").  A region read with gaps (rgn_open_gaps) is decoded in part:
 * the header, the metadata area and the DOF must be whole; a CPU buffer
 * (header and data) touching a gap is left out of rule 13 and of
 * rgn_walk_cpu(), which then fails naming it; the aggregation,
 * speculation and variable areas touching a gap are left out as if the
 * region had none (rgn_view_gap_area() says which part was lost, for the
 * reader to report).
 */
struct rgn_gap {
	uint64_t	rg_off;
	uint64_t	rg_len;
	const char	*rg_why;
};

/*
 * Validate the header, metadata and per-cpu headers of the image at
 * base[0, len).  "phys" is where the image was found (RGN_PHYS_ANY to skip
 * that check).  The rules are enumerated on the function.
 */
#define RGN_PHYS_ANY	((uint64_t)-1)
int rgn_open(struct rgn_view *v, const void *base, uint64_t len,
    uint64_t phys, struct kdt_err *err);
/* The same over an image with gaps[0, ngaps) missing (struct rgn_gap). */
int rgn_open_gaps(struct rgn_view *v, const void *base, uint64_t len,
    uint64_t phys, const struct rgn_gap *gaps, uint32_t ngaps,
    struct kdt_err *err);
/*
 * The first gap of v touching [off, off + len): 1 with *g set to that
 * gap clipped to the range, else 0.
 */
int rgn_view_gap(const struct rgn_view *v, uint64_t off, uint64_t len,
    struct rgn_gap *g);
/*
 * Parts lost to gaps, for reporting: part 0 .. (RGN_PART_* below) in
 * turn; 1 with *name ("aggregation buffers", ...) and *g (the gap
 * clipped to the part) for a part lost, 0 when the part is whole or the
 * region has none.  CPU buffers are asked about with rgn_view_gap_cpu.
 */
#define RGN_PART_AGGS	0
#define RGN_PART_SPEC	1
#define RGN_PART_VARS	2
#define RGN_NPARTS	3
int rgn_view_gap_area(const struct rgn_view *v, uint32_t part,
    const char **name, struct rgn_gap *g);
int rgn_view_gap_cpu(const struct rgn_view *v, uint32_t cpu,
    struct rgn_gap *g);

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
/*
 * The writer's view of the same: buffer "cpu" (CPU cpu's, or for cpu >=
 * rh_ncpu the spare of CPU cpu - rh_ncpu when rm_agg_nbuf says there
 * are spares), or NULL.
 */
void *rgn_agg(void *base, uint32_t cpu);
const struct rgn_epid *rgn_find_epid(const struct rgn_view *v, uint32_t epid);
const struct rgn_probe *rgn_find_probe(const struct rgn_view *v, uint32_t id);

/* ==== page list: live regions in ordinary kernel memory (begin) ==== */
/*
 * Page list.  A live session's region is vmalloc'd by kdt.ko: virtually
 * contiguous, physically one page here and one there.  A dump holds
 * physical memory, so a reader that found the header page by its magic
 * (page 0 of every region is one page: it is always found) still needs
 * to know where pages 1..n-1 are.  kdt.ko writes, at setup and never
 * again, the physical frame number (PFN, physical address / RGN_PAGE)
 * of every page into a table, and a descriptor of that table into page
 * 0; rh_pl_off (header offset 184, zero in every region written before
 * page lists, and in a reserved region, which is contiguous) gives the
 * descriptor's offset in page 0.  With a page list rh_phys is the
 * physical address of page 0, so rgn_open()'s rule 7 holds as for a
 * reserved region.
 *
 * Descriptor (struct rgn_pagelist at rh_pl_off: 8-aligned, at or after
 * rh_hdrsize, itself and its directory inside page 0):
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    4 rl_magic    RGN_PL_MAGIC ("kdpl" in memory order)
 *        4    2 rl_version  RGN_PL_VERSION = 1; a reader refuses a
 *                           higher version (it names both)
 *        6    2 rl_size     sizeof (struct rgn_pagelist) = 64; the
 *                           directory follows at rh_pl_off + rl_size
 *        8    8 rl_npages   region pages, rh_size / RGN_PAGE
 *       16    8 rl_nspare   pages of the spare principal buffers of the
 *                           switch policy, rh_ncpu * rh_cpu_stride /
 *                           RGN_PAGE, or 0 when there are none
 *       24    4 rl_ntbl     table pages, ceil((rl_npages + rl_nspare) /
 *                           RGN_PL_PER_PAGE)
 *       28    4 rl_tblcrc   CRC-32 of the rl_npages + rl_nspare table
 *                           entries (8 bytes each, in order)
 *       32   24 rl_pad      zero
 *       56    4 rl_pad2     zero
 *       60    4 rl_crc      CRC-32 of the descriptor and its directory
 *                           with rl_crc taken as 0
 *       64  8*n directory   rl_ntbl PFNs: the table pages, in order
 *
 * Table: RGN_PL_PER_PAGE (512) little 8-byte PFNs per table page; entry
 * i < rl_npages is region page i (entry 0 is page 0 itself), entry
 * rl_npages + j is spare page j.  CPU c's spare buffer is spare pages
 * [c * rh_cpu_stride / RGN_PAGE, (c + 1) * ...): a struct rgn_cpu and its
 * data, like the CPU's slot in the region.  Under the switch policy one
 * of the two is the CPU's active buffer; the writer continues logical
 * offsets across a switch, so the reader puts the spare in the slot when
 * its header is right (magic, cpu, size) and its rc_head is larger, or
 * equal with a smaller rc_tail (more records kept).  The table pages are
 * allocated with the region (past rh_size in the same vmalloc area) and
 * are in no other list.
 *
 * A reader follows nothing blindly: the descriptor CRC, then the table
 * CRC (a table torn or left over from a freed region does not match),
 * entry 0 equal to where the header was found, every PFN below 2^40
 * (RGN_PL_PFN_MAX: 52-bit physical addresses), no PFN twice among the
 * entries and table pages (a loop), and every page readable; the first
 * broken rule is reported with the entry or field, its value and the
 * limit.  Capacity: the directory holds up to (RGN_PAGE - rh_pl_off -
 * 64) / 8 table pages (about 470: 940 MiB of region and spares); kdt.ko
 * writes no page list for a larger region and says so.
 *
 * Version rules: a new field takes rl_pad space and a new rl_version; a
 * reader knowing version v reads any version <= v and refuses the rest.
 */
#define RGN_PL_MAGIC		0x6c70646bu	/* "kdpl" in memory order */
#define RGN_PL_VERSION		1
#define RGN_PL_PER_PAGE		(RGN_PAGE / 8)
#define RGN_PL_PFN_MAX		(1ULL << 40)

struct rgn_pagelist {
	uint32_t	rl_magic;
	uint16_t	rl_version;
	uint16_t	rl_size;
	uint64_t	rl_npages;
	uint64_t	rl_nspare;
	uint32_t	rl_ntbl;
	uint32_t	rl_tblcrc;
	uint8_t		rl_pad[24];
	uint32_t	rl_pad2;
	uint32_t	rl_crc;
};
_Static_assert(sizeof (struct rgn_pagelist) == 64, "rgn_pagelist");

/*
 * Writer: the table pages a region of "npages" pages with "nspare" spare
 * pages needs when its descriptor is at "off" in page 0, or 0 when the
 * directory cannot hold that many.
 */
uint32_t rgn_pagelist_tblpages(uint64_t npages, uint64_t nspare,
    uint32_t off);
/*
 * Writer: after rgn_init(), describe the region at "base" whose table
 * ("tbl", ntbl pages, entries filled by the caller: region pages then
 * nspare spare pages) is at the PFNs "tblpfn".  Writes the descriptor at
 * the first 64-aligned offset after the header, sets rh_pl_off and
 * rh_phys (tbl[0] * RGN_PAGE) and the header CRC.  Setup context.
 */
int rgn_pagelist_init(void *base, const uint64_t *tbl, uint64_t nspare,
    const uint64_t *tblpfn, uint32_t ntbl, struct kdt_err *err);

/* Reader's physical memory: 0, or -errno (-ENXIO: not in the dump). */
typedef int (*rgn_pl_read_fn)(void *arg, uint64_t pa, void *buf,
    uint64_t n);
/* Reader: does the header page "page0" carry a page list? */
int rgn_pagelist_present(const void *page0);
/*
 * Reader: reassemble the region whose page 0 ("page0", RGN_PAGE bytes,
 * header not yet trusted beyond rgn_probe_hdr()) was found at "pa", into
 * "img" (rh_size bytes), reading physical memory through "rd".  The
 * rules are in the comment above; the first broken one is reported in
 * "err" (its offset: the byte of page 0, or KDT_ERR_NOOFF for a table
 * entry, which the message names).  Afterwards rgn_open(img, pa) runs as
 * for a contiguous region.
 */
int rgn_pagelist_assemble(const void *page0, uint64_t pa, rgn_pl_read_fn rd,
    void *arg, uint8_t *img, struct kdt_err *err);
/*
 * The same, tolerating missing pages past the metadata area (rd says
 * -ENXIO): each is zeroed in img and told to gap (its region offset and
 * the physical address listed), for rgn_open_gaps().  A region with
 * spare buffers (switch policy) is still refused on the first missing
 * page: which copy of a CPU's buffer is newer cannot be told then.
 */
typedef void (*rgn_pl_gap_fn)(void *arg, uint64_t off, uint64_t pa);
int rgn_pagelist_assemble_gaps(const void *page0, uint64_t pa,
    rgn_pl_read_fn rd, void *arg, uint8_t *img, rgn_pl_gap_fn gap,
    void *garg, struct kdt_err *err);
/* ==== page list (end) ==== */

/*
 * ---- the module table (optional; rm_mod_off != 0) ----
 *
 * So that a reader can name addresses inside loadable modules without
 * any file from the dumped machine, kdt.ko records every module that is
 * loaded when the region is set up, and every module that loads later
 * while the enabling lives: its name, where its core image lies, and
 * its text symbols with their sizes (the module's own kallsyms table,
 * the only symbols stack(), %a, sym() and func() can produce there).
 * The area is page-aligned between the metadata and the aggregation
 * buffers (or the cpu areas), rm_mod_size bytes (a page multiple):
 *
 *   struct rgn_modarea (32 bytes), then entries, each 8-aligned:
 *   OFFSET SIZE DESCRIPTION
 *        0    4 ma_magic   RGN_MOD_MAGIC
 *        4    4 ma_nmods   entries published
 *        8    8 ma_used    bytes of published entries after the header
 *       16    4 ma_lost    modules left out: no room for their entry
 *       20    4 ma_trunc   modules whose symbols were cut short by room
 *       24    8 ma_pad     zero
 *
 *   struct rgn_mod (96 bytes), one per module, then md_nsyms symbols:
 *        0    8 md_base    start of the module's core image
 *        8    8 md_size    bytes of the core image
 *       16    8 md_text    bytes of text from md_base
 *       24    4 md_len     bytes of the entry with its symbols (8-mult.)
 *       28    4 md_nsyms   symbols that follow
 *       32    4 md_flags   RGN_MOD_F_*
 *       36    4 md_bidlen  bytes of the module's GNU build id, which
 *                          ends the entry (after the symbols, padded
 *                          to 8 bytes); 0 = not recorded (optional:
 *                          zero in images from before build ids,
 *                          where this was md_pad, always zero)
 *       40   56 md_name    module name, NUL-terminated
 *
 *   struct rgn_modsym (8 bytes) + name + NUL, padded to 8 bytes:
 *        0    4 ms_off     symbol address - md_base (< md_size)
 *        4    4 ms_size    bytes of the symbol (0 = unknown)
 *        8    - name       NUL-terminated, < RGN_MODSYM_NAMELEN bytes
 *
 *   then, when md_bidlen != 0, the build id: md_bidlen bytes (1 to
 *   RGN_BUILDID_MAX) zero-padded to 8, the last bytes of the entry
 *   (md_len - roundup(md_bidlen, 8) from the entry start).  The
 *   symbols end there.  The init text's entry (RGN_MOD_F_INIT) carries
 *   the same id as the core's.  Readers from before build ids read
 *   md_nsyms symbols and never reach it.
 *
 * Writer (kdt.ko, setup and module notifier, one writer at a time):
 * rgn_mod_begin() writes an entry after the published ones,
 * rgn_mod_sym() appends symbols to it, rgn_mod_end() publishes it:
 * write barrier, ma_used += md_len, barrier, ma_nmods++.  A reader
 * therefore trusts [0, ma_used) and never sees half an entry.  A module
 * that unloads keeps its entry, flagged RGN_MOD_F_GONE (records written
 * before the unload still name it).  A module that loads while the
 * enabling lives gets a second entry for its init text (RGN_MOD_F_INIT,
 * same name), flagged gone when the module goes live and the kernel
 * frees that text: records of its init function still resolve.  A
 * reader prefers the later entry
 * where a gone module's range overlaps a later one's.  When the area is
 * full, symbols are left out (RGN_MOD_F_TRUNC, ma_trunc++) and then
 * whole modules (ma_lost++): the reader says so.
 *
 *   +------------+--------------------------------+--------------+----
 *   | rgn_modarea| rgn_mod | modsym+name | ...    | rgn_mod | ...  | free
 *   +------------+--------------------------------+--------------+----
 *                |<------------ md_len ---------->|
 *                |<------------------ ma_used ------------------>|
 *
 * Worked example: module "loop" at 0xffffffffc0100000, core 0x8000
 * bytes of which 0x5000 text, one symbol lo_ioctl at +0x1000 of 0x200
 * bytes (tests/unit/test_sym_mod.c checks these bytes):
 *
 *   area:    6b 6d 6f 64 01 00 00 00  78 00 00 00 00 00 00 00
 *            00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
 *   entry:   00 00 10 c0 ff ff ff ff  00 80 00 00 00 00 00 00
 *            00 50 00 00 00 00 00 00  78 00 00 00 01 00 00 00
 *            00 00 00 00 00 00 00 00  6c 6f 6f 70 00 ... (56 bytes)
 *   symbol:  00 10 00 00 00 02 00 00  6c 6f 5f 69 6f 63 74 6c
 *            00 00 00 00 00 00 00 00
 */
#define RGN_MOD_MAGIC		0x646f6d6bu	/* "kmod" in memory order */
#define RGN_MOD_F_GONE		0x1	/* unloaded after it was recorded */
#define RGN_MOD_F_TRUNC		0x2	/* some symbols left out: no room */
#define RGN_MOD_F_INIT		0x4	/* the module's init text (freed, and
					   flagged gone, once it is live) */
#define RGN_MODSYM_NAMELEN	256
#define RGN_MOD_NAMELEN		56
/* Does rgn_meta hold rm_mod_*?  ("Optional metadata fields" above) */
#define RGN_META_V1SIZE		64	/* rgn_meta up to rm_agg_off */
#define RGN_META_HAS_MOD(m)	((m)->rm_probe_off >= 80)
/* Does rgn_meta hold rm_kbid_*?  ("Build ids" above) */
#define RGN_META_HAS_KBID(m)	((m)->rm_probe_off >= 192)
#define RGN_BUILDID_MAX		32

struct rgn_modarea {
	uint32_t	ma_magic;
	uint32_t	ma_nmods;
	uint64_t	ma_used;
	uint32_t	ma_lost;
	uint32_t	ma_trunc;
	uint64_t	ma_pad;
};

struct rgn_mod {
	uint64_t	md_base;
	uint64_t	md_size;
	uint64_t	md_text;
	uint32_t	md_len;
	uint32_t	md_nsyms;
	uint32_t	md_flags;
	uint32_t	md_bidlen;	/* build id bytes at the end, 0: none */
	char		md_name[RGN_MOD_NAMELEN];
};

struct rgn_modsym {
	uint32_t	ms_off;
	uint32_t	ms_size;
};

_Static_assert(sizeof (struct rgn_modarea) == 32, "rgn_modarea");
_Static_assert(sizeof (struct rgn_mod) == 96, "rgn_mod");
_Static_assert(sizeof (struct rgn_modsym) == 8, "rgn_modsym");

/*
 * Writer.  rgn_mod_begin: 0, or -ENOSPC (module lost, counted) or
 * -EINVAL (no module table; name too long).  rgn_mod_sym: 0, -ENOSPC
 * (symbol left out, the module flagged truncated) or -EINVAL (address
 * outside the module, empty or too long a name: skipped, not counted).
 * rgn_mod_end publishes the entry begun.  rgn_mod_gone flags the newest
 * live entry named "name" at "addr".  Setup context, one writer.
 */
int rgn_mod_begin(void *base, const char *name, uint64_t addr,
    uint64_t size, uint64_t text, uint32_t flags);
int rgn_mod_sym(void *base, uint64_t addr, uint64_t size, const char *name);
void rgn_mod_end(void *base);
void rgn_mod_gone(void *base, const char *name, uint64_t addr);
/*
 * Writer: end the entry begun with the module's build id ("len" bytes),
 * after its last symbol and before rgn_mod_end (no symbol can follow).
 * 0; -EINVAL (no entry or table, len 0 or above RGN_BUILDID_MAX, an id
 * already there: not recorded); -ENOSPC (no room: not recorded, the
 * reader says "not recorded").
 */
int rgn_mod_buildid(void *base, const void *id, uint32_t len);
/*
 * Writer: record the kernel's build id in the metadata (rm_kbid).
 * -EINVAL when len is 0 or above RGN_BUILDID_MAX (nothing recorded).
 * Setup context, before the region is published.
 */
int rgn_set_kbid(void *base, const void *id, uint32_t len);

/*
 * Reader.  rgn_mod_first() checks the area (0 with *ap NULL when the
 * region has none, -EINVAL with "err" when it is damaged); then
 * rgn_mod_next() steps through the published entries from *cursor
 * (start at 0): 1 with *mp, 0 at the end, -EINVAL with "err" for a
 * damaged entry; rgn_modsym_next() steps through one entry's symbols
 * from *scursor (start at 0): 1 with *sp and *namep, 0 at the end,
 * -EINVAL for a damaged symbol.
 */
int rgn_mod_first(const struct rgn_view *v, const struct rgn_modarea **ap,
    struct kdt_err *err);
int rgn_mod_next(const struct rgn_view *v, uint64_t *cursor,
    const struct rgn_mod **mp, struct kdt_err *err);
int rgn_modsym_next(const struct rgn_mod *m, uint64_t *scursor,
    const struct rgn_modsym **sp, const char **namep, struct kdt_err *err);
/*
 * Reader: the build id of an entry rgn_mod_next() returned (rule M4
 * checked its length): its bytes with *len, or NULL (*len 0) when the
 * entry records none.
 */
const uint8_t *rgn_mod_bid(const struct rgn_mod *m, uint32_t *len);
/*
 * Reader: the kernel's build id (rm_kbid): 1 with *idp and *lenp; 0
 * (*idp NULL, *lenp 0) when not recorded (an older image, or none
 * found); -EINVAL with "err" when rm_kbid_len exceeds RGN_BUILDID_MAX.
 */
int rgn_view_kbid(const struct rgn_view *v, const uint8_t **idp,
    uint32_t *lenp, struct kdt_err *err);

/*
 * ==== speculations and variables (optional parts; begin) ====
 *
 * A region-backed state (the anonymous enabling, or a live one with
 * -x region) keeps in the region what a panic must not take away:
 *
 *  - the speculation area (rm_spec_off, rm_spec_size): the whole state
 *    of the enabling's speculations, laid out by spec_create_in() as
 *    spec.h documents ("The speculation area": header, state words,
 *    buffer headers, buffers), so uncommitted speculative records can be
 *    shown after the panic (rgn_walk_spec);
 *  - the variable area (rm_gvar_off, rm_gvar_size): the enabling's
 *    struct dif_vstate area as dif_vstate_init() lays it out from the
 *    DOF (dif_vm.h, dif_dvar.c: variable tables, global scalar slots,
 *    global data blocks), ending with the dynamic-variable store of
 *    thread-locals and associative arrays (dif_dvar.h: header, buckets,
 *    chunks) at rm_dvar_off, rm_dvar_size bytes.  A reader rebuilds the
 *    layout from the DOF in the region (dif_vstate_attach), checks that
 *    the tables come out byte for byte and that the store starts where
 *    rm_dvar_off says, and only then decodes values (kdt-extract --vars).
 *
 * Both lie page-aligned between the aggregation buffers and totals (or
 * the module table, or the metadata) and rh_cpu_off, each a page multiple, the
 * speculation area first.  The fields exist iff rm_probe_off >= 128
 * (RGN_META_HAS_VARS; "Optional metadata fields"); in older images, and
 * for a state that keeps them in kernel memory, they are 0 and the
 * reader has none to show (it says so for --vars).  rgn_open() checks
 * the bounds (rule 15); the contents are checked when read, and a damaged
 * part is reported and left out, never decoded.
 */
#define RGN_META_HAS_VARS(m)	((m)->rm_probe_off >= 128)

/* Writer: the areas rgn_init() reserved (NULL, *len 0: none). */
void *rgn_spec_area(void *base, uint64_t *len);
void *rgn_var_area(void *base, uint64_t *len);
/*
 * Writer: after dif_vstate_init() over rgn_var_area(), record where its
 * dynamic store lies ("off" bytes into the variable area, "len" bytes;
 * off 0: none).  Setup context.
 */
void rgn_set_dvar(void *base, uint64_t off, uint64_t len);

/*
 * Reader: the areas of a view (NULL when absent).  For the variable area
 * *dvoff is the dynamic store's offset inside it (0: none) and *dvlen its
 * bytes.
 */
const void *rgn_view_spec(const struct rgn_view *v, uint64_t *len);
const void *rgn_view_vars(const struct rgn_view *v, uint64_t *len,
    uint64_t *dvoff, uint64_t *dvlen);

/* What a speculation buffer shown by rgn_walk_spec() is. */
#define RGN_SPEC_UNCOMMITTED	1	/* speculation active, no commit */
#define RGN_SPEC_COMMITTING	2	/* committed on another CPU, this
					   CPU's records not yet copied */

struct rgn_spec_cb {
	/* A buffer with records follows: id, cpu, RGN_SPEC_*, bytes. */
	int	(*sc_buf)(void *arg, uint32_t id, uint32_t cpu, uint32_t kind,
		    uint64_t used);
	/* One record of it (checked like rgn_walk_cpu's). */
	int	(*sc_rec)(void *arg, uint32_t id, uint32_t cpu,
		    const struct rgn_rec *rec, const uint8_t *payload,
		    uint64_t off);
	/* A damaged area, buffer or record.  id/cpu 0 for the area. */
	int	(*sc_bad)(void *arg, uint32_t id, uint32_t cpu, uint64_t off,
		    const char *what);
	void	*sc_arg;
};

/*
 * Walk the speculation area: every buffer that holds records of a
 * speculation never committed (state ACTIVE, ACTIVEONE or ACTIVEMANY,
 * buffer of the current generation) or committed but not yet copied
 * (COMMITTINGMANY, buffer pending commit), by id then CPU; discarded,
 * inactive and stale buffers are skipped.  The area header (magic, sizes
 * against rm_spec_size and rh_ncpu), every state word, every buffer's
 * sb_used and every record (size, EPID, payload size) are checked; the
 * first problem in a buffer is reported through sc_bad and ends that
 * buffer, a damaged header ends the walk.  Returns 0 (also when there is
 * no area), a callback's non-zero value or -EINVAL.
 */
int rgn_walk_spec(const struct rgn_view *v, const struct rgn_spec_cb *cb,
    struct kdt_err *err);
/* ==== speculations and variables (end) ==== */

/*
 * ==== aggregation totals (optional part; begin) ====
 *
 * A live state's consumer keeps the authoritative aggregations in its own
 * process: every aggrate it switches each CPU's aggregation buffer with
 * the spare (KIO_SNAP_AGG), copies the old one out and merges it into its
 * table (consumer/kc_agg.c), where clear() and trunc() act too.  A dump
 * holds no user memory, so for a live state kept in a vmalloc'd region
 * (page list above) the region also holds what is needed to print the
 * numbers the consumer would have printed at the moment of the panic:
 *
 *  - every aggregation buffer, active and spare: rm_agg_nbuf = 2 *
 *    rh_ncpu buffers at rm_agg_off, buffer c and buffer rh_ncpu + c both
 *    CPU c's (one active, one switched out), each with ab_interval (agg.h)
 *    the aggregation interval it collects.  CPU c's first active buffer
 *    has interval 1; a switch makes the spare, emptied, the active buffer
 *    of interval s + 1, and leaves the switched-out buffer of interval s
 *    intact until the next switch reuses it (kdt.ko sets the spare's
 *    interval to 0 before it empties it, so a torn reset is never
 *    counted).  Interval 0: never active, nothing to count;
 *  - the totals area (rm_aggtot_off, rm_aggtot_size, page-aligned right
 *    after the aggregation buffers): two slots of rm_aggtot_size / 2
 *    bytes.  After merging a round of snapshots the consumer hands its
 *    whole table to kdt.ko (KIO_AGGTOT, kio.h), which writes it into the
 *    slot not holding the newest totals.  A slot:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    4 at_magic   RGN_AGGTOT_MAGIC ("ktot" in memory order)
 *        4    4 at_ncpu    rh_ncpu
 *        8    8 at_seq     write number from 1; 0 = being written
 *       16    8 at_len     bytes of the table image (an agg_buf)
 *       24    8 at_left    table entries left out: no room in the slot
 *       32    4 at_crc     CRC-32 of the 64-byte header with at_crc
 *                          taken as 0, XOR the CRC-32 of the 8 * at_ncpu
 *                          + at_len bytes after it (not the replay part)
 *       36    4 at_xcrc    CRC-32 of the at_xlen replay bytes (0: none)
 *       40    8 at_xlen    bytes of the replay part after the image, 0 =
 *                          none (a slot written before replay existed)
 *       48   16 at_pad     zero
 *       64  8*n at_ival    per CPU: the last interval the table holds
 *                          (it holds all of CPU c's intervals <= it)
 *   64+8*n  len image      struct agg_buf (agg.h) with the table's
 *                          entries: ae_aggid the first aggregation of
 *                          the variable, the merged value; chains empty
 *   +len   16*n at_pos     replay part, per CPU c two 8-byte words: the
 *                          logical offset of the first principal-buffer
 *                          record whose aggregation actions the table
 *                          does not hold in full, and how many of that
 *                          record's clear/normalize/denormalize/trunc
 *                          actions it does hold (the record's first k)
 *   +16*n  8*m at_norm     per image entry, in image order: its
 *                          normalize() divisor as the consumer applies
 *                          it (kc_agg.c ke_normal; 1 = none), signed
 *                          64-bit; m = the image's ab_nents
 *
 *   Writer (kdt.ko, ioctl context, one writer): at_seq = 0, barrier,
 *   the rest, at_crc, barrier, at_seq = the other slot's at_seq + 1.
 *   The consumer writes the totals after every merge of snapshots,
 *   right after each aggregation action it carries out (the session
 *   snapshots once more then: kc_sess.c) and, for a program with such
 *   actions, after decoding a CPU's records (kc_kernel.c kk_snap_buf), so the table, the intervals and
 *   the positions describe one moment whenever the table has changed.
 *
 * Reader rule.  Totals = the valid slot with the larger at_seq (valid:
 * magic, at_ncpu = rh_ncpu, at_seq != 0, 64 + 8 * at_ncpu + at_len within
 * the slot, CRC, and no at_ival[c] at or above CPU c's newest buffer
 * interval: an interval in the future is a damaged slot) -- g[c] =
 * at_ival[c], or 0 for every CPU when no slot is valid.  The
 * aggregations are the totals merged with every buffer of CPU c whose
 * ab_interval > g[c].  CPU c needs intervals g[c] + 1 .. a (a: its newest
 * buffer's); it has at most two: when a - g[c] exceeds the buffers it has
 * in that range (the consumer snapshotted twice without writing totals,
 * or the totals are lost), those intervals are missing and the reader
 * says how many (rgn_agg_missing).  A slot's at_left says the totals
 * themselves are partial.  The rule holds at any moment of death: a
 * snapshot taken but not yet merged leaves interval s in the switched-out
 * buffer (s > g); totals written but not yet followed by a snapshot carry
 * g = s - 1 or s.  An image without these fields (rm_probe_off < 152,
 * RGN_META_HAS_AGGTOT) or with rm_agg_nbuf 0 (an anonymous state's
 * region without room for spares, region-backed live states): every
 * buffer counts, as before.
 *
 * Replay (bufpolicy=switch).  What a dump prints for a live state read
 * under switch is what its consumer would have printed had it done one
 * more round at the moment of the panic: that round decodes each CPU's
 * records from where it stopped, CPU 0 first, and before each
 * aggregation action (and printa()) snapshots every aggregation buffer,
 * so the reader takes the totals, merges the intervals after them (the
 * rule above), then carries out the actions of exactly the records at or
 * after at_pos[c] -- of the record at at_pos[c] those after its first k
 * -- in CPU then record order, and prints with at_norm's divisors.  (The
 * same holds for an anonymous state "kdt -a" claimed, RGN_F_ANON with a
 * totals slot written: its consumer too acts on records as they come, and
 * at_pos is a logical offset of the one ring or fill stream; an anonymous
 * region with no slot written replays every record.)  Its
 * checks, each failure named with the field, the value and the limit
 * (rgn_view_aggtot_replay):
 *   R1  at_xlen >= 16 * at_ncpu and at_xlen - 16 * at_ncpu a multiple
 *       of 8;
 *   R2  64 + 8 * at_ncpu + at_len + at_xlen within the slot;
 *   R3  at_xcrc matches;
 *   R4  at_pos[c] not past CPU c's rc_head (the newest buffer's), and
 *       k at most RGN_AGGTOT_SKIP_MAX;
 *   R5  every at_norm >= 1;
 *   R6  (the consumer, after agg_buf_check) m = the image's ab_nents.
 * A slot failing R1-R6, or one without a replay part (at_xlen 0), is
 * printed as before replay: totals and intervals, no action applied,
 * "aggregations partial" naming why.  An at_pos[c] below the tail of
 * the buffer the dump shows means records the consumer had taken but
 * not acted on are not in it: the rest is replayed, and the reader says
 * which offsets are missing.
 */
#define RGN_AGGTOT_SKIP_MAX	4096
#define RGN_META_HAS_AGGTOT(m)	((m)->rm_probe_off >= 152)
#define RGN_AGGTOT_MAGIC	0x746f746bu	/* "ktot" in memory order */
#define RGN_AGGTOT_HDRSIZE	64

struct rgn_aggtot {
	uint32_t	at_magic;
	uint32_t	at_ncpu;
	uint64_t	at_seq;
	uint64_t	at_len;
	uint64_t	at_left;
	uint32_t	at_crc;
	uint32_t	at_xcrc;	/* replay part's CRC */
	uint64_t	at_xlen;	/* replay part's bytes, 0: none */
	uint32_t	at_pad[4];
};
_Static_assert(sizeof (struct rgn_aggtot) == RGN_AGGTOT_HDRSIZE,
    "rgn_aggtot");

/*
 * Writer.  rgn_aggtot_begin: invalidate the slot to write (the older one)
 * and return where its at_ival array starts, followed by the image, with
 * *cap the bytes there; NULL when the region has no totals area.
 * rgn_aggtot_commit: publish that slot holding "len" image bytes after
 * the at_ival array, then "xlen" replay bytes (0: none), and "left"
 * entries left out; -EINVAL (with "err") when len + xlen does not fit
 * or the image is not an agg_buf of len bytes.  Ioctl context, one
 * writer.
 */
void *rgn_aggtot_begin(void *base, uint64_t *cap);
/* Writer: image bytes a slot holds after its at_ival array (0: none). */
uint64_t rgn_aggtot_cap(void *base);
int rgn_aggtot_commit(void *base, uint64_t len, uint64_t xlen,
    uint64_t left, struct kdt_err *err);

/* Reader: buffers at rm_agg_off (0: none). */
uint32_t rgn_view_nagg(const struct rgn_view *v);
/* Reader: buffer "i" (< rgn_view_nagg) and its bytes; CPU i % rh_ncpu's. */
const void *rgn_view_aggbuf(const struct rgn_view *v, uint32_t i,
    uint64_t *len);

struct agg_buf;

/* The totals a reader found (rgn_view_aggtot). */
struct rgn_aggtot_view {
	const struct agg_buf *tv_img;	/* NULL: no valid slot */
	uint64_t	tv_len;
	uint64_t	tv_left;	/* entries left out of the totals */
	uint64_t	tv_seq;
	uint32_t	tv_slot;
	uint32_t	tv_rule;	/* the rule applies (rm_agg_nbuf set) */
	const uint64_t	*tv_ival;	/* [rh_ncpu], NULL: none */
};

/*
 * Reader: the newest valid totals slot.  0 with "tv" filled (tv_img NULL
 * when there is none); a slot that is damaged (not merely never written)
 * is described in "note" (ke_msg non-empty), the other one still used.
 * Both slots are checked by the rule above; the image itself is then
 * agg_buf_check()'s against the DOF.
 */
int rgn_view_aggtot(const struct rgn_view *v, struct rgn_aggtot_view *tv,
    struct kdt_err *note);
/* The replay part of the totals a reader found (rgn_view_aggtot_replay). */
struct rgn_aggtot_replay {
	const uint8_t	*tr_pos;	/* at_pos: 2 * rh_ncpu words */
	const uint8_t	*tr_norm;	/* [tr_nnorm] 8-byte divisors */
	uint64_t	tr_nnorm;
};

/*
 * Reader: the replay part of totals "tv" (rule R1-R5 above).  1 with
 * "tr" filled; 0 when there is none (no totals, or a slot written
 * without one); -EINVAL or -EBADMSG with "err" naming the field, its
 * value and the limit.  Read words with rgn_aggtot_word().
 */
int rgn_view_aggtot_replay(const struct rgn_view *v,
    const struct rgn_aggtot_view *tv, struct rgn_aggtot_replay *tr,
    struct kdt_err *err);
/* Reader: 8-byte little word "i" at "p" (unaligned). */
uint64_t rgn_aggtot_word(const uint8_t *p, uint64_t i);
/* Reader: does buffer "i" count on top of totals "tv" (the rule)? */
int rgn_agg_take(const struct rgn_view *v, const struct rgn_aggtot_view *tv,
    uint32_t i);
/* Reader: intervals of CPU "cpu" neither in the totals nor in a buffer. */
uint64_t rgn_agg_missing(const struct rgn_view *v,
    const struct rgn_aggtot_view *tv, uint32_t cpu);
/* ==== aggregation totals (end) ==== */
#endif /* KDT_RGN_H */
