/*
 * kio.h -- the /dev/kdt interface between kdt.ko and the consumer.
 *
 * /dev/kdt is root-only: mode 0600 and CAP_SYS_ADMIN checked at open.
 * Every open file is one consumer; any number may be open at once, each
 * with its own enabling, probes, buffers and options.
 *
 * Anonymous state.  The consumer asks with KIO_INFO; "kdt -a" claims the
 * anonymous state with KIO_CLAIM.  One claim per boot: a second claim
 * gets -EBUSY and kc_pid/ki_claim_pid name the claiming process; no
 * anonymous state gets -ENOENT (KIO_INFO's ki_anon and ki_reason say
 * why).  The claim makes the anonymous state the claiming file's
 * consumer state, exactly as KIO_ENABLE would have: read() reads its
 * region (the reserved region) and KIO_SNAP, KIO_STATUS and KIO_STOP
 * work on it (KIO_ENABLE and KIO_GO do not: it is enabled and has run
 * BEGIN at boot).  KIO_CLAIM returns what KIO_ENABLE would have
 * (struct kio_claim).  The claimed state belongs to the claiming file:
 * when it is closed (the claiming kdt exits, however it exits) the
 * state is stopped -- END fires, its record goes into the region -- and
 * freed; the region keeps everything it recorded (state STOPPED) until a
 * "-x region" session or the next boot's enabling reuses it, and
 * KIO_INFO goes on saying CLAIMED with the pid that had it.  There is no
 * deadman for the anonymous state, claimed or not.
 *
 * Snapshots of the claimed state (ring and fill policy; the region holds
 * no spare buffers, so switch is never in force there): kdt.ko keeps,
 * per CPU, the logical offset up to which it has handed records over (0
 * at the claim).  Each KIO_SNAP_BUF, running or stopped, hands over the
 * records committed since then: it reads rc_head, then rc_tail, copies
 * [max(cursor, rc_tail), rc_head) into the slot, and reads rc_tail again
 * (the writer moves rc_tail before it overwrites anything); the slot's
 * header says rc_tail = the first byte still valid after the copy,
 * rc_head = rc_reserve = the head read first.  So the first snapshot of
 * a CPU brings everything buffered since boot and every record is handed
 * over once; under ring policy records that the writer overwrote before
 * they were handed over are gone (a flight recorder keeps the newest),
 * under fill policy nothing is ever overwritten.  At the claim kdt.ko
 * gives the state spare aggregation buffers in kernel memory, and
 * KIO_SNAP_AGG switches them as for a live state: from the claim on the
 * aggregations belong to the consumer, and the region's aggregation area
 * holds only what was added since the last snapshot.
 *
 * A file that has neither enabled nor claimed anything reads the
 * reserved region.
 *
 * Previous boot's region (warm reboot).  When kdt.ko maps the reserved
 * region at load and finds there a valid region (rgn_open()) written
 * before this boot started (rh_created is earlier than the boot's wall
 * clock start, or rh_kaslr is not this boot's offset), it copies it into kernel memory before anything can
 * overwrite it (at most KIO_PREV_MAX bytes, and at most a quarter of
 * RAM) and offers the copy, read-only, as /dev/kdt-previous: a misc
 * device, mode 0400, root only (CAP_SYS_ADMIN), whose read()/llseek()
 * give the raw region image byte for byte -- kdt-extract reads it as a
 * raw region image, "kdt -a --previous" prints it.  If the copy cannot
 * be made, kdt.ko leaves the region as it is: the anonymous enabling and
 * "-x region" sessions are refused for this boot (the reason says so),
 * and /dev/kdt-previous reads the region in place.  The copy and the
 * device live until kdt.ko is unloaded.  KIO_INFO's ki_prev_size
 * is the image's size (0: none) and ki_prev_msg says what was found
 * (also when nothing was, and why).
 *
 * Live state (kdt -s / -n), in this order:
 *
 *   KIO_ENABLE  hand over the DOF: kdt.ko loads it (dof_load), matches
 *               every ECB's probe description against its providers,
 *               lays out a region in kernel memory (rgn.h layout, rh_phys
 *               0, one buffer per possible CPU), allocates the ECB runner
 *               and registers the probes -- which record nothing yet.  On
 *               failure the ioctl returns -errno and ken_msg says why
 *               (-ENOENT: ECB ken_badecb's description matched no probe
 *               and KIO_EN_ZDEFS was not given).  Once per file.
 *   read()      from then on the file reads that region image (header,
 *               metadata with the DOF, probe and EPID tables, per-CPU
 *               buffers).  The consumer reads it once, whole, as its
 *               mirror and decodes the mirror with rgn_open()/kc_dec.
 *   KIO_GO      fire dtrace:::BEGIN on the calling CPU, then let every
 *               probe record (ECB_ST_ACTIVE unless BEGIN called exit()).
 *   KIO_SNAP    KIO_SNAP_BUF: hand over CPU ks_cpu's principal buffer.
 *               Under bufpolicy=switch the CPU's buffer is switched with
 *               its spare (on that CPU, interrupts off; the new active
 *               buffer continues the logical offsets and carries the drop
 *               and error counts); under fill and ring only once the
 *               enabling is stopped (before that nothing is copied and
 *               ks_used is 0: ring and fill buffers are read once, at
 *               the end, as dtrace reads them).  The copy goes to ks_buf as the CPU's slot
 *               of the mirror: the 64-byte struct rgn_cpu at ks_buf, then
 *               the bytes of [rc_tail, rc_head) at their own positions
 *               (data offset L % rc_size after the header); other bytes
 *               of the slot are left alone.  ks_len must be at least
 *               RGN_CPU_HDRSIZE + rc_size (the region's rh_cpu_stride is
 *               enough).
 *               KIO_SNAP_AGG: switch CPU ks_cpu's aggregation buffer
 *               with its spare the same way (the new one carries
 *               ab_drops) and copy the old one's header and heap (struct
 *               agg_buf, then ab_heap_off + ab_heap_used bytes in all) to
 *               ks_buf; ks_len must be at least ken_aggsize; the consumer
 *               checks it with agg_buf_check() and merges it.  The old
 *               buffer is then emptied -- except a live state's buffers
 *               in its vmalloc'd region (rgn.h, "Aggregation totals"):
 *               the old one stays intact until the next KIO_SNAP_AGG of
 *               that CPU empties it and makes it active again, and its
 *               ab_interval tells the consumer which interval it holds.
 *               -ENOENT when the program has no aggregations.
 *               ks_used returns the bytes written.
 *   KIO_STATUS  the enabling's state and counters (struct kio_status).
 *               The consumer polls it: DRAINING means exit() was called.
 *   KIO_STOP    move to COOLDOWN, fire dtrace:::END on the calling CPU,
 *               STOPPED, then unregister every probe (after this returns
 *               no probe of this consumer runs anywhere).  The consumer
 *               then takes its last KIO_SNAPs.
 *   close()     stops if needed and frees everything.
 *
 * With KIO_EN_REGION the state's region is the reserved region instead of
 * kernel memory, so a panic during the session leaves the records where
 * kdt-extract finds them: a flight recorder, ring policy by default
 * (fill if asked; switch is refused: it needs buffers outside the region).
 * One state at a time may hold the reserved region, and not while an
 * anonymous enabling does (-EBUSY, ken_msg says who).  The buffer size is
 * what the region holds, whatever bufsize says.
 *
 * Listing (kdt -l): KIO_LIST matches one probe description exactly as
 * KIO_ENABLE would (the same provider code) and returns the matching
 * probes as struct rgn_probe entries, with kdt.ko's probe ids: ids are
 * global, as dtrace's (kmod/kd_cs.c): a probe keeps its id for kdt.ko's
 * life, every listing and every consumer's records show it, and a
 * probe's id is assigned the first time anything matches it.  KIO_PROBE
 * (for `kdt -i ID`) takes a struct rgn_probe with rp_id set and fills its
 * names: -ENOENT when no probe has (or ever had) that id; BEGIN, END and
 * ERROR are 1, 2 and 3.  Any file, any number of times.
 *
 * Every structure is fixed-width; sizes are pinned below.
 */
#ifndef KDT_KIO_H
#define KDT_KIO_H

#include "kdt_env.h"

#define KIO_VERSION	3

#define KIO_PREV_DEV	"/dev/kdt-previous"
#define KIO_PREV_MAX	(1ULL << 30)	/* bytes kdt.ko copies at most */

#define KIO_ANON_NONE		0	/* kdt.anon not set */
#define KIO_ANON_ACTIVE		1	/* enabled, not claimed */
#define KIO_ANON_CLAIMED	2	/* claimed by pid ki_claim_pid; when
					   ki_reason is set, it has ended */
#define KIO_ANON_FAILED		3	/* rejected at boot: see ki_reason */

struct kio_info {
	uint32_t	ki_version;	/* KIO_VERSION */
	uint32_t	ki_anon;	/* KIO_ANON_* */
	uint64_t	ki_region_phys;	/* 0 if no region */
	uint64_t	ki_region_size;
	uint32_t	ki_nprobes;	/* probes enabled */
	uint32_t	ki_claim_pid;	/* CLAIMED: the claiming process */
	char		ki_reason[256];	/* why not active, NUL-terminated */
	uint64_t	ki_prev_size;	/* /dev/kdt-previous bytes, 0: none */
	char		ki_prev_msg[256];	/* what was found (NUL-term.) */
};

_Static_assert(sizeof (struct kio_info) == 552, "kio_info");

/* KIO_CLAIM's answer: what KIO_ENABLE returns for a live state. */
struct kio_claim {
	uint32_t	kc_ncpu;	/* per-CPU buffers in the region */
	uint32_t	kc_policy;	/* DTRACEOPT_BUFPOLICY_* in force */
	uint64_t	kc_rgnsize;	/* bytes of the region image */
	uint64_t	kc_aggsize;	/* aggregation buffer bytes per CPU,
					   0 without aggregations */
	uint32_t	kc_nprobes;	/* probes enabled */
	uint32_t	kc_nmatched;	/* (ECB, probe) pairs */
	uint32_t	kc_pid;		/* -EBUSY: who has the claim */
	uint32_t	kc_pad;
	char		kc_msg[256];	/* why it failed */
};

_Static_assert(sizeof (struct kio_claim) == 296, "kio_claim");

#define KIO_EN_DESTRUCTIVE	0x1	/* -w: destructive actions allowed */
#define KIO_EN_ZDEFS		0x2	/* -Z: descriptions may match nothing */
#define KIO_EN_REGION		0x4	/* -x region: buffers in the reserved
					   region (see below) */

struct kio_enable {
	uint64_t	ken_dof;	/* in: user address of the DOF */
	uint64_t	ken_dofsz;	/* in: its bytes */
	uint32_t	ken_flags;	/* in: KIO_EN_* */
	uint32_t	ken_ncpu;	/* out: per-CPU buffers in the region */
	uint64_t	ken_rgnsize;	/* out: bytes of the region image */
	uint64_t	ken_aggsize;	/* out: aggregation buffer bytes per
					   CPU, 0 without aggregations */
	uint32_t	ken_nprobes;	/* out: distinct probes enabled */
	uint32_t	ken_nmatched;	/* out: (ECB, probe) pairs: dtrace's
					   "matched N probes" */
	uint32_t	ken_policy;	/* out: DTRACEOPT_BUFPOLICY_* in force */
	uint32_t	ken_badecb;	/* out: the ECB that failed, or ~0 */
	char		ken_msg[256];	/* out: why it failed, or notices */
	uint64_t	ken_uprobes;	/* in: user address of struct
					   kio_uprobe[ken_nuprobes] */
	uint32_t	ken_nuprobes;	/* in: at most KIO_UPROBES_MAX */
	uint32_t	ken_resized;	/* out: KIO_RS_*, what bufresize=auto
					   lowered and how often bufsize was
					   halved (was padding: a kdt.ko
					   from before leaves it 0) */
};

/*
 * ken_resized.  Under bufresize=auto (dtrace's default) kdt.ko halves
 * bufsize or aggsize until the buffers fit (a quarter of RAM per kind at
 * most, and what the allocator gives); the consumer then says so, as
 * dtrace does ("buffer size lowered to 2m"), with the size in force:
 * the requested bufsize (KIO_BUFSIZE_DEFAULT if the DOF sets none)
 * shifted right by KIO_RS_BUFSHIFT(ken_resized) -- the region header's
 * rh_bufsize is that rounded up to whole pages -- and ken_aggsize.
 * bufresize=manual fails the KIO_ENABLE instead, ken_msg saying why.
 */
#define KIO_RS_BUF	0x1	/* principal buffers: bufsize lowered */
#define KIO_RS_AGG	0x2	/* aggregation buffers: aggsize lowered */
#define KIO_RS_BUFSHIFT(r)	(((r) >> 8) & 0x3f)	/* halvings */
/*
 * dynvarsize likewise (a live state whose variables are in kernel
 * memory: their whole state, dif_vstate_size(), at most a quarter of
 * RAM): the one in force is the requested dynvarsize (ECB_DYNVARSIZE_
 * DEFAULT if the DOF sets none) shifted right by KIO_RS_DYNSHIFT.
 */
#define KIO_RS_DYN	0x4	/* variables: dynvarsize lowered */
#define KIO_RS_DYNSHIFT(r)	(((r) >> 16) & 0x3f)	/* halvings */
#define KIO_BUFSIZE_DEFAULT	(4ULL << 20)	/* a live state's bufsize
						   when the DOF has none */

_Static_assert(sizeof (struct kio_enable) == 328, "kio_enable");

/*
 * User-space probes (the pid and USDT providers).  kdt.ko cannot read a
 * process's ELF files, so the consumer does: for every probe description
 * naming a process's functions (pid1234:libc.so.6:malloc:entry) or its
 * USDT probes (myprov1234:::request-start, from .note.stapsdt notes) it
 * resolves the file and the file offset of each probed instruction and
 * hands the list over with KIO_ENABLE.  kdt.ko's pid provider matches
 * the ECBs' descriptions against the names in this list exactly as it
 * matches its own probes, and arms each one with a uprobe on (file,
 * offset), filtered to the one process.
 *
 * Arguments: a function probe (ku_nargs 0) takes arg0..arg5 from the
 * argument registers of the x86-64 SysV ABI; a return probe sets arg0 to
 * the function's address and arg1 to the return value (rax).  A USDT
 * probe describes each argument (the note's "size@operand" spec,
 * translated by the consumer): a register's value, a constant, or
 * memory at register + displacement, read fault-safe.
 */
#define KIO_UPROBES_MAX		65536
#define KIO_UP_RETURN		0x1	/* a return probe (uretprobe) */
#define KIO_UP_NARGS		6

#define KIO_UA_NONE	0
#define KIO_UA_REG	1	/* the register's value */
#define KIO_UA_MEM	2	/* memory at register + ua_off */
#define KIO_UA_CONST	3	/* ua_off itself */

/* Registers by their slot in x86-64's struct pt_regs. */
#define KIO_REG_R15	0
#define KIO_REG_R14	1
#define KIO_REG_R13	2
#define KIO_REG_R12	3
#define KIO_REG_RBP	4
#define KIO_REG_RBX	5
#define KIO_REG_R11	6
#define KIO_REG_R10	7
#define KIO_REG_R9	8
#define KIO_REG_R8	9
#define KIO_REG_RAX	10
#define KIO_REG_RCX	11
#define KIO_REG_RDX	12
#define KIO_REG_RSI	13
#define KIO_REG_RDI	14
#define KIO_REG_RIP	16
#define KIO_REG_RSP	19
#define KIO_REG_NONE	0xff	/* _MEM without a base register */

struct kio_uparg {
	uint8_t		ua_kind;	/* KIO_UA_* */
	uint8_t		ua_reg;		/* KIO_REG_* */
	int8_t		ua_size;	/* 1, 2, 4, 8; negative: signed */
	uint8_t		ua_pad[5];
	int64_t		ua_off;		/* _MEM: displacement; _CONST: value */
};

_Static_assert(sizeof (struct kio_uparg) == 16, "kio_uparg");

struct kio_uprobe {
	uint32_t	ku_pid;		/* the process (its tgid) */
	uint32_t	ku_flags;	/* KIO_UP_* */
	uint64_t	ku_offset;	/* file offset of the instruction */
	uint64_t	ku_refctr;	/* file offset of the USDT semaphore
					   (incremented while armed), or 0 */
	uint64_t	ku_addr;	/* its virtual address in the process
					   (for messages and arg0 of return) */
	uint32_t	ku_nargs;	/* USDT arguments in ku_args; 0: the
					   function's argument registers */
	uint32_t	ku_pad;
	struct kio_uparg ku_args[KIO_UP_NARGS];
	char		ku_path[256];	/* absolute path of the object file */
	char		ku_prov[64];	/* the probe's name */
	char		ku_mod[64];
	char		ku_func[128];
	char		ku_name[64];
};

_Static_assert(sizeof (struct kio_uprobe) == 712, "kio_uprobe");

#define KIO_SNAP_BUF	1
#define KIO_SNAP_AGG	2

struct kio_snap {
	uint32_t	ks_cpu;		/* in */
	uint32_t	ks_what;	/* in: KIO_SNAP_* */
	uint64_t	ks_buf;		/* in: user address */
	uint64_t	ks_len;		/* in: its bytes */
	uint64_t	ks_used;	/* out: bytes written */
};

_Static_assert(sizeof (struct kio_snap) == 32, "kio_snap");

/*
 * KIO_AGGTOT (rgn.h, "Aggregation totals"): after merging a round of
 * KIO_SNAP_AGG, the consumer of a live state whose aggregation buffers
 * are in its region hands its merged table over, so that a crash dump
 * holds the totals.  kt_buf points at kt_ncpu 64-bit intervals (per CPU
 * the ab_interval of the last snapshot merged, 0: none) followed by
 * kt_len bytes of an agg_buf image of the table (ab_size = kt_len);
 * kt_left counts the table entries left out of it for want of room;
 * kt_xlen replay bytes follow the image (rgn.h: at_pos, at_norm; 0:
 * none, as a consumer from before replay sends).  kdt.ko copies it
 * all into the older totals slot and publishes it last.  kt_len 0
 * only asks: kt_cap returns the bytes a slot holds after the
 * intervals, for the image and the replay bytes together.
 * -ENOENT: the state has no totals area (an anonymous one whose region
 * had no room for it, region-backed, no aggregations, or a kdt.ko from
 * before; the consumer stops calling);
 * -EINVAL: kt_ncpu is not the state's CPU count or the image is not an
 * agg_buf of kt_len bytes; -E2BIG: kt_len + kt_xlen is over kt_cap
 * (returned).
 */
struct kio_aggtot {
	uint64_t	kt_buf;		/* in: user address */
	uint64_t	kt_len;		/* in: image bytes, 0: ask */
	uint64_t	kt_left;	/* in: entries left out */
	uint64_t	kt_cap;		/* out: image bytes a slot holds */
	uint32_t	kt_ncpu;	/* in: intervals at kt_buf */
	uint32_t	kt_xlen;	/* in: replay bytes after the image */
};

_Static_assert(sizeof (struct kio_aggtot) == 40, "kio_aggtot");

struct kio_status {
	uint32_t	kst_state;	/* ECB_ST_* (ecb.h) */
	uint32_t	kst_exited;	/* exit() was called */
	int32_t		kst_status;	/* its value */
	uint32_t	kst_ncpu;
	uint64_t	kst_drops;	/* principal drops, all CPUs */
	uint64_t	kst_aggdrops;	/* aggregation drops, all CPUs */
	uint64_t	kst_dyndrops;	/* dynamic-variable drops */
	uint64_t	kst_specdrops;	/* speculation drops */
	uint64_t	kst_specbusy;
	uint64_t	kst_specunavail;
	uint64_t	kst_dblerrors;	/* faults inside ERROR ECBs */
	uint64_t	kst_errors;	/* faults */
	uint64_t	kst_missed;	/* firings the kernel could not hand
					   to kdt (kretprobe instances
					   exhausted, re-entry): drops too */
	uint64_t	kst_flags;	/* KIO_ST_* */
	uint64_t	kst_deadman;	/* the deadman's timeout in seconds
					   in force for this state, 0: none
					   (was padding: a kdt.ko from
					   before leaves 0; its timeout is
					   KIO_DEADMAN_SEC) */
	uint64_t	kst_sigdrops;	/* raise()/stop() requests dropped,
					   all CPUs (was padding: 0 from a
					   kdt.ko from before) */
};

/*
 * The deadman: a live state whose consumer has not been heard from (any
 * ioctl) for the deadman timeout (kdt.ko's parameter deadman_timeout,
 * KIO_DEADMAN_SEC unless set; checked every deadman_interval_ms; the
 * values in force at KIO_GO hold for the state's life, kst_deadman
 * reports the timeout) while the kernel still runs its timers --
 * the consumer is starved, typically by the probe effect itself -- is
 * stopped: its probes stop recording at once (STOPPED), kdt.ko logs it,
 * and KIO_STATUS sets KIO_ST_DEADMAN.  dtrace reports this as "Abort due
 * to systemic unresponsiveness".  The anonymous state has no consumer to
 * wait for and no deadman.
 */
#define KIO_DEADMAN_SEC		30	/* default deadman_timeout */
#define KIO_ST_DEADMAN		0x1

_Static_assert(sizeof (struct kio_status) == 112, "kio_status");

struct kio_list {
	char		kl_prov[64];	/* in: the description, each part a */
	char		kl_mod[64];	/* glob, "" matching anything */
	char		kl_func[128];
	char		kl_name[64];
	uint64_t	kl_buf;		/* in: user array of struct rgn_probe */
	uint32_t	kl_cap;		/* in: entries it holds */
	uint32_t	kl_count;	/* out: matches (may exceed kl_cap:
					   call again with a larger array) */
};

_Static_assert(sizeof (struct kio_list) == 336, "kio_list");

/*
 * KIO_REHEARSE: what arming an anonymous enabling will cost at boot,
 * measured on this kernel now (kdt -A --estimate, anon/an_rehearse.c).
 * kdt.ko loads the DOF and enables it as kd_anon.c does at boot -- the
 * anonymous state's path: the kernel symbol hints kr_ksh (0: none), a
 * region of kr_rgnsize bytes (vmalloc'd here, laid out by rgn_init as
 * the reserved one is), the bulk ftrace arming from KD_FBT_FTRACE_ANON
 * probes -- then stops and frees it at once: nothing records (no KIO_GO:
 * probes are armed but inactive, as between KIO_ENABLE and KIO_GO), the
 * real anonymous state and region are not touched, the file gets no
 * state.  kr_arm_ns is the time of what the kernel log's "DOF loaded"
 * to "probes enabled" spans at boot (bench/run-boot-overhead's arm
 * column): matching, the region, the runner, arming; kr_load_ns the
 * DOF's loading before it; kr_ftrace_ns the kernel's one ftrace update
 * among the arming (kr_nfuncs functions), 0 without one.  Fails like
 * KIO_ENABLE (kr_msg says why, kr_badecb the ECB that matched nothing),
 * and on a region size outside [KIO_REHEARSE_RGNMIN, a quarter of RAM].
 */
struct kio_rehearse {
	uint64_t	kr_dof;		/* in: user address of the DOF */
	uint64_t	kr_dofsz;	/* in: its bytes */
	uint64_t	kr_ksh;		/* in: the hints (common/ksh.h), 0 */
	uint64_t	kr_kshsz;	/* in: their bytes, at most
					   KIO_REHEARSE_KSHMAX */
	uint64_t	kr_rgnsize;	/* in: the region kdt -A reserves */
	uint64_t	kr_load_ns;	/* out */
	uint64_t	kr_arm_ns;	/* out */
	uint64_t	kr_ftrace_ns;	/* out */
	uint32_t	kr_nfuncs;	/* out: in the ftrace update */
	uint32_t	kr_nprobes;	/* out: probes armed */
	uint32_t	kr_nmatched;	/* out: (ECB, probe) pairs */
	uint32_t	kr_badecb;	/* out: as ken_badecb, or ~0 */
	char		kr_msg[256];	/* out: why it failed */
};

_Static_assert(sizeof (struct kio_rehearse) == 336, "kio_rehearse");

#define KIO_REHEARSE_RGNMIN	(1ULL << 20)
#define KIO_REHEARSE_KSHMAX	(64ULL << 20)

#define KIO_MAGIC	'k'
#define KIO_INFO	_IOR(KIO_MAGIC, 1, struct kio_info)
#define KIO_CLAIM	_IOR(KIO_MAGIC, 2, struct kio_claim)
#define KIO_ENABLE	_IOWR(KIO_MAGIC, 3, struct kio_enable)
#define KIO_GO		_IO(KIO_MAGIC, 4)
#define KIO_STOP	_IO(KIO_MAGIC, 5)
#define KIO_SNAP	_IOWR(KIO_MAGIC, 6, struct kio_snap)
#define KIO_STATUS	_IOR(KIO_MAGIC, 7, struct kio_status)
#define KIO_LIST	_IOWR(KIO_MAGIC, 8, struct kio_list)
#define KIO_PROBE	_IOWR(KIO_MAGIC, 9, struct rgn_probe)
#define KIO_AGGTOT	_IOWR(KIO_MAGIC, 10, struct kio_aggtot)
#define KIO_REHEARSE	_IOWR(KIO_MAGIC, 11, struct kio_rehearse)

#endif /* KDT_KIO_H */
