/*
 * spec.h -- speculations: per-CPU speculative buffers and their state
 * machine (reference 3.5).
 *
 * Who calls it: only the ECB runner (common/ecb.c) in probe context, for
 * the speculation() subroutine and the speculate(), commit() and
 * discard() actions, plus spec_create()/spec_destroy() at setup.  It is
 * compiled unchanged into kdt.ko and into the userspace engine.
 *
 * An enabling has ss_nspec speculations (option nspec, default 1), each
 * with one buffer of ss_size bytes (option specsize) per CPU.  A buffer
 * holds whole records laid out exactly like the principal buffer's
 * (struct rgn_rec header, then the ECB's payload), packed from offset 0
 * to sb_used, so committing is copying records one by one into the
 * principal buffer with rgn_reserve()/rgn_commit() and the commit-time
 * timestamp.
 *
 * States of speculation id (1..nspec), one 32-bit word each, changed only
 * by compare-and-swap so CPUs race safely without a lock:
 *
 *	INACTIVE --speculation()--> ACTIVE --speculate() on cpu c--> ACTIVEONE
 *	ACTIVEONE --speculate() on another cpu--> ACTIVEMANY
 *	ACTIVE/ACTIVEONE --commit()/discard() with nothing elsewhere--> INACTIVE
 *	ACTIVEMANY (or data on another cpu) --commit()--> COMMITTINGMANY
 *	                                    --discard()--> DISCARDING
 *	COMMITTINGMANY/DISCARDING --last cpu drained (spec_clean)--> INACTIVE
 *
 * The CPU that commits copies its own buffer at once; the other CPUs'
 * buffers are marked pending and each CPU drains its own pending buffers
 * in spec_clean(), which the runner calls at the start of every firing on
 * that CPU (and a consumer may call from a cleanrate timer).  A buffer is
 * only ever written or drained by its own CPU, so buffers need no lock.
 * Each speculation() bumps the id's generation; a buffer whose data is of
 * an older generation (a record appended while another CPU was claiming
 * the commit, too late to be marked) is emptied on its next use and never
 * committed, so stale data cannot leak into a later speculation.
 *
 * Counters (kept by the caller, per CPU, reported by the consumer with
 * dtrace's wording, reference 5.1): speculative drops (a record that did
 * not fit in specsize), failed speculations because buffers are busy
 * (committing or discarding) or unavailable (all active).
 *
 * The speculation area.  Everything above -- state words, buffer headers
 * and the buffers -- lives in one area of spec_area_size() bytes, either
 * allocated by spec_create() or handed over by spec_create_in(): kdt.ko
 * gives a region-backed state (anonymous, or -x region) the region's
 * speculation part (rgn.h rm_spec_off), so an uncommitted speculation
 * survives a panic and kdt-extract can show it.  The area holds no
 * pointer; offsets are from the area start, native byte order:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    4 sa_magic    SPEC_AREA_MAGIC ("spec" in memory order)
 *        4    4 sa_nspec    speculations (ids 1..sa_nspec)
 *        8    4 sa_ncpu     buffers per speculation
 *       12    4 sa_hdrsize  sizeof (struct spec_area) = 48
 *       16    8 sa_bufsize  bytes per buffer (multiple of 8)
 *       24    8 sa_size     bytes of the whole area
 *       32    8 sa_bufoff   offset of the buffer headers
 *       40    8 sa_dataoff  offset of buffer 0's data
 *       48    - words       4 x sa_nspec uint32_t: SPEC_* state, owner
 *                           (cpu + 1 of ACTIVEONE), buffers left to
 *                           drain, generation -- each array sa_nspec long
 *   sa_bufoff   struct spec_buf [sa_nspec x sa_ncpu], id-major (16 bytes:
 *                           sb_used, sb_pend, sb_gen)
 *   sa_dataoff  buffer (id, cpu) at sa_dataoff + ((id - 1) * sa_ncpu +
 *                           cpu) * sa_bufsize: whole records (struct
 *                           rgn_rec + payload) packed in [0, sb_used)
 *
 * What a reader of a dead area can tell (rgn_read.c, rgn_walk_spec):
 * a speculation whose state is ACTIVE, ACTIVEONE or ACTIVEMANY was never
 * committed -- its buffers whose sb_gen equals the id's generation hold
 * its records; COMMITTINGMANY with sb_pend COMMIT on a buffer means
 * committed but not yet copied by that buffer's CPU; anything else
 * (INACTIVE, DISCARDING, stale generations) holds nothing to show.
 * spec_put() writes a record before it moves sb_used, so [0, sb_used)
 * never holds a half-written record.
 */
#ifndef KDT_SPEC_H
#define KDT_SPEC_H

#include "kdt_env.h"
#include "kdt_err.h"
#include "rgn.h"

#define SPEC_INACTIVE		0
#define SPEC_ACTIVE		1
#define SPEC_ACTIVEONE		2
#define SPEC_ACTIVEMANY		3
#define SPEC_COMMITTING		4
#define SPEC_COMMITTINGMANY	5
#define SPEC_DISCARDING		6

#define SPEC_PEND_NONE		0
#define SPEC_PEND_COMMIT	1
#define SPEC_PEND_DISCARD	2

#define SPEC_AREA_MAGIC		0x63657073u	/* "spec" in memory order */

/* The header of the speculation area (layout above). */
struct spec_area {
	uint32_t	sa_magic;
	uint32_t	sa_nspec;
	uint32_t	sa_ncpu;
	uint32_t	sa_hdrsize;
	uint64_t	sa_bufsize;
	uint64_t	sa_size;
	uint64_t	sa_bufoff;
	uint64_t	sa_dataoff;
};

/*
 * One speculation's buffer header on one CPU, in the area.  Written only
 * by that CPU (sb_pend also by the committer).  Its data is at
 * spec_data().
 */
struct spec_buf {
	uint64_t	sb_used;	/* bytes of whole records */
	uint32_t	sb_pend;	/* SPEC_PEND_*, set by the committer */
	uint32_t	sb_gen;		/* ss_gen of the data it holds */
};

_Static_assert(sizeof (struct spec_area) == 48, "spec_area");
_Static_assert(sizeof (struct spec_buf) == 16, "spec_buf");

struct spec_state {
	uint32_t	ss_nspec;
	uint32_t	ss_ncpu;
	uint64_t	ss_size;	/* bytes per buffer */
	uint32_t	*ss_state;	/* [nspec] SPEC_* */
	uint32_t	*ss_owner;	/* [nspec] cpu + 1 of ACTIVEONE */
	uint32_t	*ss_npend;	/* [nspec] buffers left to drain */
	uint32_t	*ss_gen;	/* [nspec] bumped by speculation() */
	struct spec_buf	*ss_bufs;	/* [nspec * ncpu], id-major */
	uint8_t		*ss_data;	/* buffer 0's data */
	uint8_t		*ss_area;	/* the area (struct spec_area) */
	uint64_t	ss_areasize;
	uint32_t	ss_own;		/* 1: spec_create allocated ss_area */
	uint32_t	ss_pad;
};

/* Per-CPU counters the caller keeps and passes in. */
struct spec_counts {
	uint64_t	sc_drops;	/* "speculative drop(s)" */
	uint64_t	sc_busy;	/* failed: buffers still busy */
	uint64_t	sc_unavail;	/* failed: no buffer available */
};

/*
 * Allocate the state for "nspec" speculations of "size" bytes per CPU
 * for "ncpu" CPUs.  nspec 0 gives a state in which every speculation()
 * fails.  0 or -ENOMEM / -EINVAL with "err" naming sizes and limits.
 * Setup context (allocates).
 */
int spec_create(struct spec_state **out, uint32_t nspec, uint32_t ncpu,
    uint64_t size, struct kdt_err *err);
void spec_destroy(struct spec_state *ss);

/*
 * Bytes of speculation area spec_create_in() needs for these sizes (0
 * for nspec 0: no area).  Any context.
 */
uint64_t spec_area_size(uint32_t nspec, uint32_t ncpu, uint64_t size);

/*
 * spec_create() over the caller's "area" of "areasize" bytes (at least
 * spec_area_size(); 8-aligned), which it lays out and clears; the area
 * stays the caller's (spec_destroy leaves it).  -ENOSPC when it is too
 * small.  Setup context.
 */
int spec_create_in(struct spec_state **out, uint32_t nspec, uint32_t ncpu,
    uint64_t size, void *area, uint64_t areasize, struct kdt_err *err);

/*
 * speculation(): an INACTIVE id made ACTIVE, or 0 with sc_busy or
 * sc_unavail counted.  Probe context: no locks, no allocation, no
 * sleeping.
 */
uint32_t spec_alloc(struct spec_state *ss, struct spec_counts *sc);

/*
 * Is "id" usable by speculate()?  1 for an active id, 0 for id 0 or an
 * id that is not active (its data is silently dropped), -1 for an id
 * above nspec (an illegal operation).  Probe context.
 */
int spec_check(const struct spec_state *ss, uint64_t id);

/*
 * speculate(): append one record (header + "payload" bytes from "data")
 * to this CPU's buffer of speculation "id", taking the state to
 * ACTIVEONE or ACTIVEMANY.  0; -ENOSPC when it does not fit (sc_drops
 * counted); -ENOENT when "id" is not active (dropped silently).
 * Probe context: no locks, no allocation, no sleeping.
 */
int spec_put(struct spec_state *ss, uint32_t id, uint32_t cpu,
    uint32_t epid, uint64_t ts, const void *data, uint32_t payload,
    struct spec_counts *sc);

/*
 * commit(): copy this CPU's records of "id" into the principal buffer
 * "rc" (policy "policy") with timestamp "ts", and arrange for the other
 * CPUs' records to follow (spec_clean).  discard() throws them away.
 * Ids that are 0, inactive or already committing are ignored.
 * Probe context: no locks, no allocation, no sleeping.
 */
void spec_commit(struct spec_state *ss, uint32_t id, uint32_t cpu,
    struct rgn_cpu *rc, uint32_t policy, uint64_t ts);
void spec_discard(struct spec_state *ss, uint32_t id, uint32_t cpu);

/*
 * Drain this CPU's buffers that a commit()/discard() on another CPU left
 * pending.  Probe context, on CPU "cpu" only.
 */
void spec_clean(struct spec_state *ss, uint32_t cpu, struct rgn_cpu *rc,
    uint32_t policy, uint64_t ts);

/* Current state of "id" (tests, consumers).  Any context. */
uint32_t spec_state_of(const struct spec_state *ss, uint32_t id);

#endif /* KDT_SPEC_H */
