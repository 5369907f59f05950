/*
 * spec.c -- speculation buffers and their state machine.  The theory
 * (states, who drains which buffer, counters) is in spec.h; the caller is
 * the ECB runner (ecb.c), in kdt.ko and in the userspace engine.
 *
 * State words change only by compare-and-swap (the compiler's __atomic
 * builtins, which need no library in the kernel or in userspace).  A
 * buffer is written and drained only by its own CPU, so its contents need
 * no synchronisation; sb_pend is set by the committing CPU before the
 * state word moves and read by the owner with a barrier.
 *
 * Everything lives in one area (spec.h, "The speculation area"): ours
 * from spec_create(), or the caller's from spec_create_in() -- kdt.ko
 * passes the region's speculation part, so a dump holds the buffers and
 * rgn_read.c's rgn_walk_spec() can show what was never committed.  The
 * area is laid out with its magic written last.
 */
#include "kdt_env.h"
#include "kdt_err.h"
#include "dof_load.h"
#include "rgn.h"
#include "spec.h"

#define SPEC_MAX_NSPEC	4096
#define SPEC_MAX_SIZE	(64ULL << 20)

static int
spec_cas(uint32_t *word, uint32_t old, uint32_t new)
{
	return __atomic_compare_exchange_n(word, &old, new, 0,
	    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static uint32_t
spec_load(const uint32_t *word)
{
	return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

static struct spec_buf *
spec_buf(const struct spec_state *ss, uint32_t id, uint32_t cpu)
{
	return &ss->ss_bufs[(uint64_t)(id - 1) * ss->ss_ncpu + cpu];
}

static uint64_t
spec_words_end(uint32_t nspec)
{
	return (sizeof (struct spec_area) + 16ULL * nspec + 7) & ~7ULL;
}

/* Any context. */
uint64_t
spec_area_size(uint32_t nspec, uint32_t ncpu, uint64_t size)
{
	uint64_t n = (uint64_t)nspec * ncpu;

	if (nspec == 0)
		return 0;
	size = (size + 7) & ~7ULL;
	return spec_words_end(nspec) + n * sizeof (struct spec_buf) +
	    n * size;
}

static int
spec_check_sizes(uint32_t nspec, uint32_t ncpu, uint64_t size,
    struct kdt_err *err)
{
	if (nspec > SPEC_MAX_NSPEC || size > SPEC_MAX_SIZE || ncpu == 0)
		return kdt_err_set(err, EINVAL, "SPEC_SIZE", KDT_ERR_NOOFF,
		    "speculations: nspec %u (limit %u), specsize %llu (limit %llu), cpus %u (at least 1)",
		    nspec, SPEC_MAX_NSPEC, (unsigned long long)size,
		    (unsigned long long)SPEC_MAX_SIZE, ncpu);
	return 0;
}

/* Lay out and clear the area and point "ss" into it.  Setup context. */
static void
spec_lay_out(struct spec_state *ss, uint8_t *area, uint64_t areasize)
{
	struct spec_area *sa = (struct spec_area *)area;
	uint64_t n = (uint64_t)ss->ss_nspec * ss->ss_ncpu;

	memset(area, 0, areasize);
	sa->sa_nspec = ss->ss_nspec;
	sa->sa_ncpu = ss->ss_ncpu;
	sa->sa_hdrsize = sizeof (*sa);
	sa->sa_bufsize = ss->ss_size;
	sa->sa_size = areasize;
	sa->sa_bufoff = spec_words_end(ss->ss_nspec);
	sa->sa_dataoff = sa->sa_bufoff + n * sizeof (struct spec_buf);
	ss->ss_area = area;
	ss->ss_areasize = areasize;
	ss->ss_state = (uint32_t *)(area + sizeof (*sa));
	ss->ss_owner = ss->ss_state + ss->ss_nspec;
	ss->ss_npend = ss->ss_owner + ss->ss_nspec;
	ss->ss_gen = ss->ss_npend + ss->ss_nspec;
	ss->ss_bufs = (struct spec_buf *)(area + sa->sa_bufoff);
	ss->ss_data = area + sa->sa_dataoff;
	/* The magic last: a reader never sees a half-laid-out area. */
	kenv_wmb();
	KENV_WRITE_ONCE(sa->sa_magic, SPEC_AREA_MAGIC);
}

/* Setup context (allocates unless "area" is given). */
static int
spec_make(struct spec_state **out, uint32_t nspec, uint32_t ncpu,
    uint64_t size, void *area, uint64_t areasize, struct kdt_err *err)
{
	struct spec_state *ss;
	uint64_t need;
	int rv;

	*out = NULL;
	if ((rv = spec_check_sizes(nspec, ncpu, size, err)) != 0)
		return rv;
	size = (size + 7) & ~7ULL;
	need = spec_area_size(nspec, ncpu, size);
	if (area != NULL && (areasize < need || ((uintptr_t)area & 7) != 0))
		return kdt_err_set(err, ENOSPC, "SPEC_AREA", KDT_ERR_NOOFF,
		    "speculations: an area of %llu bytes cannot hold %u x %u buffers of %llu bytes (%llu bytes needed, 8-aligned)",
		    (unsigned long long)areasize, nspec, ncpu,
		    (unsigned long long)size, (unsigned long long)need);
	ss = kenv_zalloc(sizeof (*ss));
	if (ss == NULL)
		goto nomem;
	ss->ss_nspec = nspec;
	ss->ss_ncpu = ncpu;
	ss->ss_size = size;
	if (nspec == 0) {
		*out = ss;
		return 0;
	}
	if (area == NULL) {
		areasize = need;
		area = kenv_zalloc(need);
		if (area == NULL)
			goto nomem;
		ss->ss_own = 1;
	}
	spec_lay_out(ss, area, areasize);
	*out = ss;
	return 0;
nomem:
	spec_destroy(ss);
	return kdt_err_set(err, ENOMEM, "SPEC_NOMEM", KDT_ERR_NOOFF,
	    "speculations: cannot allocate %u x %u buffers of %llu bytes",
	    nspec, ncpu, (unsigned long long)size);
}

/* Setup context (allocates). */
int
spec_create(struct spec_state **out, uint32_t nspec, uint32_t ncpu,
    uint64_t size, struct kdt_err *err)
{
	return spec_make(out, nspec, ncpu, size, NULL, 0, err);
}

/* Setup context (allocates the state only). */
int
spec_create_in(struct spec_state **out, uint32_t nspec, uint32_t ncpu,
    uint64_t size, void *area, uint64_t areasize, struct kdt_err *err)
{
	if (area == NULL && nspec != 0)
		return kdt_err_set(err, EINVAL, "SPEC_AREA", KDT_ERR_NOOFF,
		    "speculations: no area given for %u speculations", nspec);
	return spec_make(out, nspec, ncpu, size, area, areasize, err);
}

/* Setup context. */
void
spec_destroy(struct spec_state *ss)
{
	if (ss == NULL)
		return;
	if (ss->ss_own && ss->ss_area != NULL)
		kenv_free(ss->ss_area);
	kenv_free(ss);
}

/* Data of buffer "sb" (one of ss_bufs). */
static uint8_t *
spec_data(const struct spec_state *ss, const struct spec_buf *sb)
{
	return ss->ss_data + (uint64_t)(sb - ss->ss_bufs) * ss->ss_size;
}

/* Any context. */
uint32_t
spec_state_of(const struct spec_state *ss, uint32_t id)
{
	if (id == 0 || id > ss->ss_nspec)
		return SPEC_INACTIVE;
	return spec_load(&ss->ss_state[id - 1]);
}

/* Probe context: no locks, no allocation, no sleeping. */
uint32_t
spec_alloc(struct spec_state *ss, struct spec_counts *sc)
{
	uint32_t i, st, busy = 0;

	for (i = 0; i < ss->ss_nspec; i++) {
		st = spec_load(&ss->ss_state[i]);
		if (st == SPEC_INACTIVE &&
		    spec_cas(&ss->ss_state[i], SPEC_INACTIVE, SPEC_ACTIVE)) {
			ss->ss_owner[i] = 0;
			__atomic_add_fetch(&ss->ss_gen[i], 1, __ATOMIC_SEQ_CST);
			return i + 1;
		}
		if (st == SPEC_COMMITTING || st == SPEC_COMMITTINGMANY ||
		    st == SPEC_DISCARDING)
			busy = 1;
	}
	if (busy)
		sc->sc_busy++;
	else
		sc->sc_unavail++;
	return 0;
}

/* Probe context. */
int
spec_check(const struct spec_state *ss, uint64_t id)
{
	uint32_t st;

	if (id > ss->ss_nspec)
		return -1;
	if (id == 0)
		return 0;
	st = spec_load(&ss->ss_state[id - 1]);
	return st == SPEC_ACTIVE || st == SPEC_ACTIVEONE ||
	    st == SPEC_ACTIVEMANY;
}

/*
 * Note that "cpu" traced into speculation "id": ACTIVE -> ACTIVEONE
 * (remembering the cpu), ACTIVEONE of another cpu -> ACTIVEMANY.
 * 0, or -ENOENT when the speculation is no longer active.
 * Probe context: no locks, no allocation, no sleeping.
 */
static int
spec_join(struct spec_state *ss, uint32_t id, uint32_t cpu)
{
	uint32_t *w = &ss->ss_state[id - 1];
	uint32_t st;

	for (;;) {
		st = spec_load(w);
		if (st == SPEC_ACTIVEMANY)
			return 0;
		if (st == SPEC_ACTIVEONE) {
			if (ss->ss_owner[id - 1] == cpu + 1 ||
			    spec_cas(w, st, SPEC_ACTIVEMANY))
				return 0;
			continue;
		}
		if (st != SPEC_ACTIVE)
			return -ENOENT;
		ss->ss_owner[id - 1] = cpu + 1;
		if (spec_cas(w, st, SPEC_ACTIVEONE))
			return 0;
	}
}

/* Probe context: no locks, no allocation, no sleeping. */
int
spec_put(struct spec_state *ss, uint32_t id, uint32_t cpu, uint32_t epid,
    uint64_t ts, const void *data, uint32_t payload, struct spec_counts *sc)
{
	uint64_t size = ((uint64_t)payload + RGN_REC_HDRSIZE + 7) & ~7ULL;
	struct spec_buf *sb;
	struct rgn_rec *rr;

	if (id == 0 || id > ss->ss_nspec || cpu >= ss->ss_ncpu)
		return -ENOENT;
	if (spec_join(ss, id, cpu) != 0)
		return -ENOENT;
	sb = spec_buf(ss, id, cpu);
	if (sb->sb_gen != spec_load(&ss->ss_gen[id - 1])) {
		sb->sb_used = 0;	/* left over from an older one */
		sb->sb_gen = spec_load(&ss->ss_gen[id - 1]);
	}
	if (!kdt_range_ok(sb->sb_used, size, ss->ss_size)) {
		sc->sc_drops++;
		return -ENOSPC;
	}
	rr = (struct rgn_rec *)(spec_data(ss, sb) + sb->sb_used);
	rr->rr_epid = epid;
	rr->rr_size = (uint32_t)size;
	rr->rr_timestamp = ts;
	memcpy(rr + 1, data, payload);
	memset((uint8_t *)(rr + 1) + payload, 0,
	    size - RGN_REC_HDRSIZE - payload);
	sb->sb_used += size;
	return 0;
}

/*
 * Copy every record of "sb" into the principal buffer, stamped "ts", and
 * empty it.  A record the principal buffer refuses is counted there as a
 * drop by rgn_reserve().  Probe context, on the buffer's own cpu.
 */
static void
spec_copy_out(const struct spec_state *ss, struct spec_buf *sb,
    struct rgn_cpu *rc, uint32_t policy, uint64_t ts)
{
	const struct rgn_rec *rr;
	struct rgn_rec *dst;
	uint64_t off;

	for (off = 0; off < sb->sb_used; off += rr->rr_size) {
		rr = (const struct rgn_rec *)(spec_data(ss, sb) + off);
		dst = rgn_reserve(rc, policy, rr->rr_size - RGN_REC_HDRSIZE);
		if (dst == NULL)
			continue;
		memcpy(dst + 1, rr + 1, rr->rr_size - RGN_REC_HDRSIZE);
		rgn_commit(rc, dst, rr->rr_epid, ts);
	}
	sb->sb_used = 0;
}

/*
 * Finish this cpu's part of commit/discard "pend" of "id": copy or drop
 * its records; the last buffer drained makes the speculation INACTIVE.
 * Probe context.
 */
static void
spec_finish(struct spec_state *ss, uint32_t id, uint32_t cpu, uint32_t pend,
    struct rgn_cpu *rc, uint32_t policy, uint64_t ts)
{
	struct spec_buf *sb = spec_buf(ss, id, cpu);

	if (sb->sb_gen != spec_load(&ss->ss_gen[id - 1]))
		sb->sb_used = 0;	/* stale: never committed */
	if (pend == SPEC_PEND_COMMIT && rc != NULL)
		spec_copy_out(ss, sb, rc, policy, ts);
	sb->sb_used = 0;
	__atomic_store_n(&sb->sb_pend, SPEC_PEND_NONE, __ATOMIC_SEQ_CST);
	if (__atomic_sub_fetch(&ss->ss_npend[id - 1], 1, __ATOMIC_SEQ_CST) == 0)
		__atomic_store_n(&ss->ss_state[id - 1], SPEC_INACTIVE,
		    __ATOMIC_SEQ_CST);
}

/*
 * commit() and discard(): claim the speculation (ACTIVE* -> the busy
 * state), mark every buffer holding data as pending, then drain this
 * cpu's own buffer at once.  Probe context: no locks, no allocation.
 */
static void
spec_end(struct spec_state *ss, uint32_t id, uint32_t cpu, uint32_t pend,
    struct rgn_cpu *rc, uint32_t policy, uint64_t ts)
{
	uint32_t *w, st, c, busy;
	struct spec_buf *sb;

	if (id == 0 || id > ss->ss_nspec || cpu >= ss->ss_ncpu)
		return;
	w = &ss->ss_state[id - 1];
	busy = pend == SPEC_PEND_COMMIT ? SPEC_COMMITTINGMANY :
	    SPEC_DISCARDING;
	do {
		st = spec_load(w);
		if (st != SPEC_ACTIVE && st != SPEC_ACTIVEONE &&
		    st != SPEC_ACTIVEMANY)
			return;
	} while (!spec_cas(w, st, busy));
	/* The own buffer counts as pending until drained below. */
	__atomic_store_n(&ss->ss_npend[id - 1], 1, __ATOMIC_SEQ_CST);
	for (c = 0; c < ss->ss_ncpu; c++) {
		sb = spec_buf(ss, id, c);
		if (c == cpu || sb->sb_used == 0 ||
		    sb->sb_gen != spec_load(&ss->ss_gen[id - 1]))
			continue;
		__atomic_add_fetch(&ss->ss_npend[id - 1], 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&spec_buf(ss, id, c)->sb_pend, pend,
		    __ATOMIC_SEQ_CST);
	}
	spec_finish(ss, id, cpu, pend, rc, policy, ts);
}

/* Probe context: no locks, no allocation, no sleeping. */
void
spec_commit(struct spec_state *ss, uint32_t id, uint32_t cpu,
    struct rgn_cpu *rc, uint32_t policy, uint64_t ts)
{
	spec_end(ss, id, cpu, SPEC_PEND_COMMIT, rc, policy, ts);
}

/* Probe context: no locks, no allocation, no sleeping. */
void
spec_discard(struct spec_state *ss, uint32_t id, uint32_t cpu)
{
	spec_end(ss, id, cpu, SPEC_PEND_DISCARD, NULL, 0, 0);
}

/* Probe context, on CPU "cpu" only. */
void
spec_clean(struct spec_state *ss, uint32_t cpu, struct rgn_cpu *rc,
    uint32_t policy, uint64_t ts)
{
	uint32_t id, pend;

	if (ss == NULL || cpu >= ss->ss_ncpu)
		return;
	for (id = 1; id <= ss->ss_nspec; id++) {
		pend = __atomic_load_n(&spec_buf(ss, id, cpu)->sb_pend,
		    __ATOMIC_SEQ_CST);
		if (pend != SPEC_PEND_NONE)
			spec_finish(ss, id, cpu, pend, rc, policy, ts);
	}
}
