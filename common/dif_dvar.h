/*
 * dif_dvar.h -- the dynamic-variable store: thread-local variables
 * (self->x, self->a[k]) and global associative arrays (a[k]) of a running
 * enabling, kept in one fixed-size area handed over by the caller.
 *
 * Who calls it: only the DIF emulator (dif_vm.c, for ldts/stts,
 * ldtaa/sttaa, ldgaa/stgaa) and dif_vstate_init(), which carves the store
 * out of the variable-state area (dif_vm.h).  It runs in probe context on
 * every CPU at once, so it never allocates and never sleeps.
 *
 * Layout.  The area is cut into a header, a bucket array and equal-sized
 * chunks; a chunk holds one variable instance (its key and its value):
 *
 *	area:  | header | buckets: nbuckets x u32 (8-aligned) | chunk 0 | ...
 *
 *	header (struct dif_dhdr, 24 bytes):
 *	       0      4    DIF_DSTORE_MAGIC ("dvar" in memory order), written
 *	                   last by dif_dstore_init()
 *	       4      1    the lock byte (non-zero: a CPU is changing the
 *	                   store)
 *	       5      3    zero
 *	       8      4    chunk bytes      } the geometry, so a reader of a
 *	       12     4    buckets          } dead store (a crash dump: the
 *	       16     4    chunks           } region's variable part, rgn.h)
 *	       20     4    zero               checks what it recomputes
 *	Bucket counts and chunks follow from the area size, key and value
 *	maxima alone (dif_dstore_geometry), for writer and reader alike.
 *
 *	chunk: OFFSET SIZE DESCRIPTION
 *	       0      4    next chunk in the bucket chain or free list
 *	                   (chunk index + 1; 0 ends the list)
 *	       4      4    hash of the key
 *	       8      4    key bytes used (the encoded key below)
 *	       12     4    variable id | scope << 16
 *	       16     K    encoded key (K = ds_keymax)
 *	       16+K   V    value (V = ds_valmax): 8 bytes for a scalar,
 *	                   the type's size for by-reference data
 *
 * A key is the tuple stack of the instruction (for thread-locals with the
 * thread id appended as one more by-value entry).  It is encoded, entry
 * after entry, as an 8-byte header (length << 1 | by-reference bit) and
 * the data: 8 bytes for a by-value entry, the bytes rounded up to 8 (zero
 * padded) for a by-reference one.  Strings are encoded by content (their
 * length stops at the NUL, bounded by strsize), so "abc" from the string
 * table and "abc" built in scratch are the same key.  Variable id and
 * scope are part of the identity, so one store serves every variable.
 *
 * Worked example: self->x (id 0x500, thread scope) for thread 42 has the
 * key 00 00 00 00 00 00 00 00 | 2a 00 00 00 00 00 00 00 (one by-value
 * entry: header 0, value 42), key bytes 16, word 12 = 0x00010500.
 *
 * Concurrency.  One test-and-set byte (in the area's header, so a dump
 * shows whether a change was under way) serialises all operations of a
 * store.  A CPU that cannot take it within DIF_DSTORE_SPIN tries gives up
 * and counts a drop rather than spinning forever (probe context may
 * interrupt a holder only on another CPU: handlers run with interrupts
 * off and do not nest).  A value pointer returned by a load stays inside
 * the area; if another CPU frees and reuses the chunk meanwhile, the
 * reader sees other bytes of the area, never memory outside it.
 *
 * Semantics (reference 2.4): storing 0 frees the instance; a load of an
 * absent instance yields 0; when no chunk is free a store is dropped and
 * counted ("dynamic variable drops").
 */
#ifndef KDT_DIF_DVAR_H
#define KDT_DIF_DVAR_H

#include "kdt_env.h"
#include "dif.h"

#define DIF_DSTORE_SPIN		(1u << 20)
#define DIF_DCHUNK_HDR		16
#define DIF_DSTORE_MAGIC	0x72617664u	/* "dvar" in memory order */

/* The store area's header (layout above). */
struct dif_dhdr {
	uint32_t	dh_magic;
	uint8_t		dh_lock;
	uint8_t		dh_pad[3];
	uint32_t	dh_chunksize;
	uint32_t	dh_nbuckets;
	uint32_t	dh_nchunks;
	uint32_t	dh_pad2;
};

_Static_assert(sizeof (struct dif_dhdr) == 24, "dif_dhdr");

/* One entry of a key: by value, or dke_len bytes at dke_ptr. */
struct dif_dkent {
	uint64_t	dke_val;	/* by-value entry */
	const void	*dke_ptr;	/* by-reference: DTrace-owned memory */
	uint32_t	dke_len;	/* by-reference: bytes (may be 0) */
	uint32_t	dke_ref;	/* 1: by reference */
};

/* A whole key: variable, scope and up to DIF_TUPLE_MAX + 1 entries. */
struct dif_dkey {
	uint32_t	dk_id;
	uint32_t	dk_scope;	/* DIFV_SCOPE_GLOBAL or _THREAD */
	uint32_t	dk_n;
	struct dif_dkent dk_ent[DIF_TUPLE_MAX + 1];
};

/* A store.  Lives in the caller's struct dif_vstate; data in the area. */
struct dif_dstore {
	uint8_t		*ds_chunks;	/* chunk 0 */
	uint32_t	*ds_buckets;
	uint32_t	ds_nbuckets;	/* a power of two */
	uint32_t	ds_nchunks;
	uint32_t	ds_chunksize;	/* 16 + keymax + valmax, 8-aligned */
	uint32_t	ds_keymax;
	uint32_t	ds_valmax;
	uint32_t	ds_free;	/* free list head, index + 1 */
	uint8_t		*ds_lockp;	/* test-and-set byte, in the area */
	uint64_t	ds_drops;	/* stores that found no chunk/lock */
};

/* Bytes of encoded key for one entry. */
static inline uint32_t
dif_dkey_entsize(uint32_t ref, uint32_t len)
{
	return 8 + (ref ? ((len + 7) & ~7u) : 8);
}

/*
 * Set up a store over [area, area + size): chunks sized for keys of at
 * most "keymax" encoded bytes and values of at most "valmax" bytes.  An
 * area too small for one chunk gives a store in which every store drops.
 * Setup context.
 */
void dif_dstore_init(struct dif_dstore *ds, void *area, uint64_t size,
    uint32_t keymax, uint32_t valmax);
/*
 * The geometry dif_dstore_init() gives such an area, without touching
 * it: 0, or -ENOSPC (ds empty) when no chunk can fit.  Any context.
 */
int dif_dstore_geometry(struct dif_dstore *ds, void *area, uint64_t size,
    uint32_t keymax, uint32_t valmax);

/*
 * Find the instance of "key"; returns its value bytes (ds_valmax of
 * them) or NULL when it is absent or the store is busy.
 * Probe context: no locks held on return, no allocation, no sleeping.
 */
void *dif_dstore_load(struct dif_dstore *ds, const struct dif_dkey *key);

/*
 * Set the instance of "key" to the "len" bytes at "val" (zero-padded to
 * ds_valmax), creating it if needed.  0, or -ENOSPC (no free chunk, key
 * or value too large, store busy) with ds_drops counted.
 * Probe context: no allocation, no sleeping.
 */
int dif_dstore_store(struct dif_dstore *ds, const struct dif_dkey *key,
    const void *val, uint32_t len);

/*
 * Free the instance of "key" if there is one.  0, or -EBUSY (the lock
 * could not be taken: counted as a drop).  Probe context.
 */
int dif_dstore_delete(struct dif_dstore *ds, const struct dif_dkey *key);

/* Is [addr, addr + size) inside one chunk's value bytes?  Probe context. */
int dif_dstore_isvalue(const struct dif_dstore *ds, uint64_t addr,
    uint64_t size);

/* Instances currently allocated (walks the free list; tests, stats). */
uint32_t dif_dstore_count(struct dif_dstore *ds);

/*
 * ---- Reading a dead store (a region image: rgn_read.c's callers) ----
 *
 * One instance found by dif_dstore_walk(): variable id and scope, the key
 * decoded back into entries (by-reference ones point into the image) and
 * the value bytes (ds_valmax of them, in the image).
 */
struct dif_dvisit {
	uint32_t	dv_id;
	uint32_t	dv_scope;
	uint32_t	dv_chunk;	/* chunk index, for messages */
	uint32_t	dv_nkeys;
	struct dif_dkent dv_key[DIF_TUPLE_MAX + 1];
	const uint8_t	*dv_val;
	uint32_t	dv_vallen;
};

struct dif_dwalk_cb {
	/* One valid instance.  0 = continue. */
	int	(*dw_inst)(void *arg, const struct dif_dvisit *v);
	/* A chunk or chain that is not a possible instance.  0 = continue. */
	int	(*dw_bad)(void *arg, uint32_t chunk, const char *what);
	void	*dw_arg;
};

/*
 * Attach "ds" to a dead store over [area, area + size) with the given
 * maxima (recomputed by the reader from the DOF): checks the header's
 * magic and geometry against dif_dstore_geometry().  0, or -EINVAL with
 * "err" naming the field, what it holds and what was expected.
 */
int dif_dstore_attach(struct dif_dstore *ds, void *area, uint64_t size,
    uint32_t keymax, uint32_t valmax, struct kdt_err *err);

/*
 * Visit every instance reachable from the buckets, bucket by bucket.
 * Every chunk is checked before it is handed out -- index in range, not
 * visited before (a cycle or a shared tail), scope global or thread, key
 * length within ds_keymax and the key entries filling it exactly with
 * zero padding, the stored hash equal to the hash of the key and to the
 * bucket it hangs in -- and the first bad one of a chain is reported
 * through dw_bad and ends that chain.  Returns 0, a callback's non-zero
 * value, or -ENOMEM.  Reader side only (allocates a visited bitmap).
 */
int dif_dstore_walk(const struct dif_dstore *ds, const struct dif_dwalk_cb *cb);

/* Was the lock held (a change under way) when the image was taken? */
int dif_dstore_busy(const struct dif_dstore *ds);

struct dif_vstate;
struct dof_enabling;
struct dif_var;
struct kdt_err;

/*
 * The variable state of "den" over a dead image's variable area (a
 * private, writable copy of it: the tables are rebuilt in place from the
 * DOF and must come out byte for byte as they were, else -EBADMSG
 * "DIF_VTABLES"); the global values and the dynamic store are left as
 * found and the store is attached with dif_dstore_attach().  Reader side.
 */
int dif_vstate_attach(struct dif_vstate *vs, void *area, uint64_t size,
    const struct dof_enabling *den, struct kdt_err *err);

/* Offset of the dynamic store in the variable area, 0 when none. */
uint64_t dif_vstate_dynoff(const struct dif_vstate *vs);

/*
 * The VARTAB entry that declares user variable "id" of "scope" in any
 * DIF object of "den", with its name from that object's string table in
 * *name (NULL when the entry has none); NULL when undeclared.
 */
const struct dif_var *dif_vstate_decl(const struct dof_enabling *den,
    uint32_t scope, uint32_t id, const char **name);

#endif /* KDT_DIF_DVAR_H */
