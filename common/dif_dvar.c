/*
 * dif_dvar.c -- variable storage: the dynamic-variable store
 * (thread-locals and associative arrays) in a fixed area -- a chained hash
 * table of equal-sized chunks with a free list, serialised by one
 * test-and-set byte -- and the layout of a whole variable state
 * (dif_vstate_size, dif_vstate_init; the theory is in dif_vm.h).
 *
 * The layout, the key encoding, the concurrency rules and the semantics
 * are described in dif_dvar.h.  Callers: dif_vm.c (the emulator's
 * variable instructions) and dif_vstate_init() in dif_vm.c.  Keys arrive
 * already canonical (strings cut at their NUL, every by-reference entry
 * in DTrace-owned memory), so this file only compares bytes.
 *
 * Probe context throughout except dif_dstore_init(): no allocation, no
 * sleeping, no recursion; the lock is never held across a return.
 */
#include "kdt_env.h"
#include "kdt_err.h"
#include "dif.h"
#include "dif_dvar.h"
#include "dif_vm.h"

struct dif_dchunk {
	uint32_t	dc_next;
	uint32_t	dc_hash;
	uint32_t	dc_keylen;
	uint32_t	dc_ident;	/* id | scope << 16 */
};

_Static_assert(sizeof (struct dif_dchunk) == DIF_DCHUNK_HDR,
    "chunk header is 16 bytes");

/* Chunk number "i" (0-based). */
static struct dif_dchunk *
dif_dchunk_at(const struct dif_dstore *ds, uint32_t i)
{
	return (struct dif_dchunk *)(ds->ds_chunks +
	    (uint64_t)i * ds->ds_chunksize);
}

void
dif_dstore_init(struct dif_dstore *ds, void *area, uint64_t size,
    uint32_t keymax, uint32_t valmax)
{

	struct dif_dhdr *dh;
	uint32_t i;

	if (dif_dstore_geometry(ds, area, size, keymax, valmax) != 0)
		return;		/* no room: every store drops */
	dh = area;
	memset(dh, 0, sizeof (*dh));
	dh->dh_chunksize = ds->ds_chunksize;
	dh->dh_nbuckets = ds->ds_nbuckets;
	dh->dh_nchunks = ds->ds_nchunks;
	memset(ds->ds_buckets, 0, (uint64_t)ds->ds_nbuckets * 4);
	for (i = 0; i < ds->ds_nchunks; i++)
		dif_dchunk_at(ds, i)->dc_next = i + 2 <= ds->ds_nchunks ?
		    i + 2 : 0;
	ds->ds_free = ds->ds_nchunks != 0 ? 1 : 0;
	kenv_wmb();
	KENV_WRITE_ONCE(dh->dh_magic, DIF_DSTORE_MAGIC);
}

/*
 * The store's geometry over [area, area + size): the header, the bucket
 * array and the chunks, as dif_dstore_init() lays them out.  -ENOSPC
 * (ds left empty: every store drops) when not even one bucket fits.
 * Shared by the writer (init) and the reader (attach), so they cannot
 * disagree.  Any context.
 */
int
dif_dstore_geometry(struct dif_dstore *ds, void *area, uint64_t size,
    uint32_t keymax, uint32_t valmax)
{
	uint64_t chunk, n, nb = 1, boff;

	memset(ds, 0, sizeof (*ds));
	ds->ds_keymax = (keymax + 7) & ~7u;
	ds->ds_valmax = (valmax + 7) & ~7u;
	chunk = DIF_DCHUNK_HDR + (uint64_t)ds->ds_keymax + ds->ds_valmax;
	ds->ds_chunksize = (uint32_t)chunk;
	if (size < sizeof (struct dif_dhdr))
		return -ENOSPC;
	size -= sizeof (struct dif_dhdr);
	/* About one bucket per chunk: n chunks cost n * (chunk + 4). */
	n = size / (chunk + 4);
	while (nb * 2 <= n && nb < (1u << 30))
		nb <<= 1;
	boff = (nb * 4 + 7) & ~(uint64_t)7;
	if (size < boff)
		return -ENOSPC;
	n = (size - boff) / chunk;
	ds->ds_lockp = &((struct dif_dhdr *)area)->dh_lock;
	ds->ds_nbuckets = (uint32_t)nb;
	ds->ds_nchunks = (uint32_t)(n > 0x7fffffff ? 0x7fffffff : n);
	ds->ds_buckets = (uint32_t *)((uint8_t *)area +
	    sizeof (struct dif_dhdr));
	ds->ds_chunks = (uint8_t *)ds->ds_buckets + boff;
	return 0;
}

static struct dif_dchunk *
dif_dchunk(const struct dif_dstore *ds, uint32_t idx1)
{
	return dif_dchunk_at(ds, idx1 - 1);
}

static int
dif_dlock(struct dif_dstore *ds)
{
	uint32_t n;

	for (n = 0; n < DIF_DSTORE_SPIN; n++)
		if (!__atomic_test_and_set(ds->ds_lockp, __ATOMIC_ACQUIRE))
			return 0;
	return -EBUSY;
}

static void
dif_dunlock(struct dif_dstore *ds)
{
	__atomic_clear(ds->ds_lockp, __ATOMIC_RELEASE);
}

/* FNV-1a over the encoded key, without materialising it. */
static uint32_t
dif_dhash(const struct dif_dkey *k, uint32_t *keylen)
{
	uint32_t h = 2166136261u, i, j, len;
	const uint8_t *p;
	uint64_t hdr;

	h = (h ^ (k->dk_id | k->dk_scope << 16)) * 16777619u;
	*keylen = 0;
	for (i = 0; i < k->dk_n; i++) {
		len = k->dk_ent[i].dke_len;
		hdr = (uint64_t)len << 1 | (k->dk_ent[i].dke_ref != 0);
		h = (h ^ (uint32_t)hdr) * 16777619u;
		*keylen += dif_dkey_entsize(k->dk_ent[i].dke_ref, len);
		if (!k->dk_ent[i].dke_ref) {
			h = (h ^ (uint32_t)k->dk_ent[i].dke_val) * 16777619u;
			h = (h ^ (uint32_t)(k->dk_ent[i].dke_val >> 32)) *
			    16777619u;
			continue;
		}
		p = k->dk_ent[i].dke_ptr;
		for (j = 0; j < len; j++)
			h = (h ^ p[j]) * 16777619u;
	}
	return h;
}

/* Encode "k" into the chunk's key area (caller checked the length). */
static void
dif_dencode(struct dif_dchunk *c, const struct dif_dkey *k)
{
	uint8_t *p = (uint8_t *)(c + 1);
	uint64_t hdr;
	uint32_t i, len;

	for (i = 0; i < k->dk_n; i++) {
		len = k->dk_ent[i].dke_len;
		hdr = (uint64_t)len << 1 | (k->dk_ent[i].dke_ref != 0);
		memcpy(p, &hdr, 8);
		p += 8;
		if (!k->dk_ent[i].dke_ref) {
			memcpy(p, &k->dk_ent[i].dke_val, 8);
			p += 8;
			continue;
		}
		if (len != 0)
			memcpy(p, k->dk_ent[i].dke_ptr, len);
		memset(p + len, 0, ((len + 7) & ~7u) - len);
		p += (len + 7) & ~7u;
	}
}

/* Does chunk "c" hold key "k"?  Headers and data compare bytewise. */
static int
dif_dmatch(const struct dif_dchunk *c, const struct dif_dkey *k,
    uint32_t hash, uint32_t keylen)
{
	const uint8_t *p = (const uint8_t *)(c + 1);
	uint64_t hdr;
	uint32_t i, len;

	if (c->dc_hash != hash || c->dc_keylen != keylen ||
	    c->dc_ident != (k->dk_id | k->dk_scope << 16))
		return 0;
	for (i = 0; i < k->dk_n; i++) {
		len = k->dk_ent[i].dke_len;
		memcpy(&hdr, p, 8);
		if (hdr != ((uint64_t)len << 1 | (k->dk_ent[i].dke_ref != 0)))
			return 0;
		p += 8;
		if (!k->dk_ent[i].dke_ref) {
			if (memcmp(p, &k->dk_ent[i].dke_val, 8) != 0)
				return 0;
			p += 8;
			continue;
		}
		if (len != 0 && memcmp(p, k->dk_ent[i].dke_ptr, len) != 0)
			return 0;
		p += (len + 7) & ~7u;
	}
	return 1;
}

/*
 * Find "k" under the lock.  Returns the chunk (index + 1) or 0, and the
 * link that points at it in *prevp (for unlinking).
 */
static uint32_t
dif_dfind(struct dif_dstore *ds, const struct dif_dkey *k, uint32_t hash,
    uint32_t keylen, uint32_t **prevp)
{
	uint32_t *link = &ds->ds_buckets[hash & (ds->ds_nbuckets - 1)];
	uint32_t idx, n = 0;

	while ((idx = *link) != 0 && idx <= ds->ds_nchunks &&
	    n++ < ds->ds_nchunks) {
		if (dif_dmatch(dif_dchunk(ds, idx), k, hash, keylen)) {
			*prevp = link;
			return idx;
		}
		link = &dif_dchunk(ds, idx)->dc_next;
	}
	return 0;
}

void *
dif_dstore_load(struct dif_dstore *ds, const struct dif_dkey *key)
{
	uint32_t keylen, hash = dif_dhash(key, &keylen), idx, *prev;
	void *val = NULL;

	if (ds->ds_nchunks == 0 || keylen > ds->ds_keymax ||
	    dif_dlock(ds) != 0)
		return NULL;
	if ((idx = dif_dfind(ds, key, hash, keylen, &prev)) != 0)
		val = (uint8_t *)(dif_dchunk(ds, idx) + 1) + ds->ds_keymax;
	dif_dunlock(ds);
	return val;
}

/* Take a chunk off the free list and link it for "key".  Lock held. */
static struct dif_dchunk *
dif_dalloc(struct dif_dstore *ds, const struct dif_dkey *key, uint32_t hash,
    uint32_t keylen)
{
	uint32_t idx = ds->ds_free, *bucket;
	struct dif_dchunk *c;

	if (idx == 0 || idx > ds->ds_nchunks)
		return NULL;
	c = dif_dchunk(ds, idx);
	ds->ds_free = c->dc_next;
	bucket = &ds->ds_buckets[hash & (ds->ds_nbuckets - 1)];
	c->dc_hash = hash;
	c->dc_keylen = keylen;
	c->dc_ident = key->dk_id | key->dk_scope << 16;
	dif_dencode(c, key);
	c->dc_next = *bucket;
	*bucket = idx;
	return c;
}

int
dif_dstore_store(struct dif_dstore *ds, const struct dif_dkey *key,
    const void *val, uint32_t len)
{
	uint32_t keylen, hash = dif_dhash(key, &keylen), idx, *prev;
	struct dif_dchunk *c = NULL;
	uint8_t *dst;

	if (ds->ds_nchunks == 0 || keylen > ds->ds_keymax ||
	    len > ds->ds_valmax || dif_dlock(ds) != 0) {
		__atomic_fetch_add(&ds->ds_drops, 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	if ((idx = dif_dfind(ds, key, hash, keylen, &prev)) != 0)
		c = dif_dchunk(ds, idx);
	else
		c = dif_dalloc(ds, key, hash, keylen);
	if (c != NULL) {
		dst = (uint8_t *)(c + 1) + ds->ds_keymax;
		memcpy(dst, val, len);
		memset(dst + len, 0, ds->ds_valmax - len);
	}
	dif_dunlock(ds);
	if (c == NULL) {
		__atomic_fetch_add(&ds->ds_drops, 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	return 0;
}

int
dif_dstore_delete(struct dif_dstore *ds, const struct dif_dkey *key)
{
	uint32_t keylen, hash = dif_dhash(key, &keylen), idx, *prev;
	struct dif_dchunk *c;

	if (ds->ds_nchunks == 0 || keylen > ds->ds_keymax)
		return 0;
	if (dif_dlock(ds) != 0) {
		__atomic_fetch_add(&ds->ds_drops, 1, __ATOMIC_RELAXED);
		return -EBUSY;
	}
	if ((idx = dif_dfind(ds, key, hash, keylen, &prev)) != 0) {
		c = dif_dchunk(ds, idx);
		*prev = c->dc_next;
		c->dc_next = ds->ds_free;
		ds->ds_free = idx;
	}
	dif_dunlock(ds);
	return 0;
}

uint32_t
dif_dstore_count(struct dif_dstore *ds)
{
	uint32_t idx, nfree = 0;

	if (ds->ds_nchunks == 0 || dif_dlock(ds) != 0)
		return 0;
	for (idx = ds->ds_free; idx != 0 && idx <= ds->ds_nchunks &&
	    nfree < ds->ds_nchunks; idx = dif_dchunk(ds, idx)->dc_next)
		nfree++;
	dif_dunlock(ds);
	return ds->ds_nchunks - nfree;
}

/*
 * ---- Variable-state layout (dif_vstate_size, dif_vstate_init) ----
 *
 * The area of a struct dif_vstate (dif_vm.h) is laid out from the
 * VARTABs of every DIF object of the enabling:
 *
 *	| vinfo tables: global, thread, local | global slots | global data |
 *	| dynamic store (the rest) |
 *
 * The dynamic store's chunks must hold the largest key and value the
 * program can use: values are the largest thread-local or array element
 * type; keys are measured from the code, the push sequence before every
 * associative-array instruction (a by-reference push counts its size
 * when a setx constant gave it, else strsize; thread-local keys carry
 * one more by-value entry).  A key the measurement missed is dropped at
 * run time, never overflowed.
 */

/* Object "a" of ECB "e": 0 is the predicate, n the n-th action's. */
static const struct dif_object *
dif_den_obj(const struct dof_enabling *den, uint32_t e, uint32_t a)
{
	const struct dof_lecb *le = &den->den_ecbs[e];

	return a == 0 ? le->le_pred : le->le_acts[a - 1].la_difo;
}

static uint32_t
dif_var_valsize(const struct dif_var *v, uint32_t strsize)
{
	if (v->dtdv_type.dtdt_kind == DIF_TYPE_STRING)
		return v->dtdv_type.dtdt_size != 0 ?
		    v->dtdv_type.dtdt_size : strsize;
	if (v->dtdv_type.dtdt_flags & DIF_TF_BYREF)
		return v->dtdv_type.dtdt_size;
	return 8;
}

/*
 * Strings and by-reference types live in a data block of their own (the
 * 8-byte slot holds its address); integers live in the slot.  Layout and
 * sizing both ask this, so they cannot disagree.
 */
static int
dif_var_byref(const struct dif_var *v)
{
	return v->dtdv_type.dtdt_kind == DIF_TYPE_STRING ||
	    (v->dtdv_type.dtdt_flags & DIF_TF_BYREF) != 0;
}

static int
dif_var_isdyn(const struct dif_var *v)
{
	return v->dtdv_id >= DIF_VAR_OTHER_UBASE &&
	    (v->dtdv_scope == DIFV_SCOPE_THREAD ||
	    (v->dtdv_scope == DIFV_SCOPE_GLOBAL &&
	    v->dtdv_kind == DIFV_KIND_ARRAY));
}

/* Largest encoded key any associative instruction of "d" builds. */
static uint32_t
dif_difo_keymax(const struct dif_object *d, uint32_t strsize)
{
	uint64_t rconst[DIF_DIR_NREGS] = { 0 }, key = 0, max = 16;
	uint32_t i, w, op, len;

	for (i = 0; i < d->do_textlen; i++) {
		w = d->do_text[i];
		op = DIF_INSTR_OP(w);
		if (op == DIF_OP_FLUSHTS) {
			key = 0;
		} else if (op == DIF_OP_PUSHTV) {
			key += dif_dkey_entsize(0, 0);
		} else if (op == DIF_OP_PUSHTR) {
			len = (uint32_t)rconst[DIF_INSTR_R2(w) &
			    (DIF_DIR_NREGS - 1)];
			if (DIF_INSTR_TYPE(w) == DIF_TYPE_STRING_T ||
			    len == 0 || len > 0xffff)
				len = strsize;
			key += dif_dkey_entsize(1, len);
		} else if (op >= DIF_OP_LDGAA && op <= DIF_OP_STTAA) {
			/* thread-local arrays append the thread id */
			len = op == DIF_OP_LDTAA || op == DIF_OP_STTAA ? 16 : 0;
			if (key + len > max)
				max = key + len;
		}
		if (op == DIF_OP_SETX)
			rconst[DIF_INSTR_RD(w) & (DIF_DIR_NREGS - 1)] =
			    d->do_inttab[DIF_INSTR_INTEGER(w)];
		else if (op != DIF_OP_PUSHTR && op != DIF_OP_PUSHTV)
			rconst[DIF_INSTR_RD(w) & (DIF_DIR_NREGS - 1)] = 0;
	}
	return max > 0x7fffffff ? 0x7fffffff : (uint32_t)max;
}

/* What the layout needs, summed over every object of "den". */
struct dif_vlayout {
	uint32_t	vl_nvars[3];	/* largest id - 0x4ff per scope */
	uint64_t	vl_gdata;	/* upper bound of global data bytes */
	uint32_t	vl_keymax;
	uint32_t	vl_valmax;
	uint32_t	vl_dyn;		/* a dynamic store is needed */
};

static void
dif_vlayout_obj(struct dif_vlayout *vl, const struct dif_object *d,
    uint32_t strsize)
{
	const struct dif_var *v;
	uint32_t i, n, k;

	for (i = 0; i < d->do_varlen; i++) {
		v = &d->do_vartab[i];
		if (v->dtdv_id < DIF_VAR_OTHER_UBASE || v->dtdv_scope > 2)
			continue;
		n = v->dtdv_id - DIF_VAR_OTHER_UBASE + 1;
		if (n > vl->vl_nvars[v->dtdv_scope])
			vl->vl_nvars[v->dtdv_scope] = n;
		if (v->dtdv_scope == DIFV_SCOPE_GLOBAL &&
		    v->dtdv_kind == DIFV_KIND_SCALAR && dif_var_byref(v))
			vl->vl_gdata += (dif_var_valsize(v, strsize) + 7) & ~7u;
		if (dif_var_isdyn(v)) {
			vl->vl_dyn = 1;
			k = dif_var_valsize(v, strsize);
			if (k > vl->vl_valmax)
				vl->vl_valmax = k;
		}
	}
	if ((k = dif_difo_keymax(d, strsize)) > vl->vl_keymax)
		vl->vl_keymax = k;
}

static void
dif_vlayout(struct dif_vlayout *vl, const struct dof_enabling *den)
{
	const struct dif_object *d;
	uint32_t e, a;

	memset(vl, 0, sizeof (*vl));
	for (e = 0; e < den->den_necbs; e++)
		for (a = 0; a <= den->den_ecbs[e].le_nacts; a++)
			if ((d = dif_den_obj(den, e, a)) != NULL)
				dif_vlayout_obj(vl, d, den->den_strsize);
}

/* Bytes before the dynamic store: tables, global slots, global data. */
static uint64_t
dif_vfixed(const struct dif_vlayout *vl)
{
	uint64_t n = (uint64_t)vl->vl_nvars[0] + vl->vl_nvars[1] +
	    vl->vl_nvars[2];

	return ((n * sizeof (struct dif_vinfo) + 7) & ~(uint64_t)7) +
	    (uint64_t)vl->vl_nvars[0] * 8 + vl->vl_gdata;
}

uint64_t
dif_vstate_size(const struct dof_enabling *den, uint64_t dynvarsize)
{
	struct dif_vlayout vl;

	dif_vlayout(&vl, den);
	return ((dif_vfixed(&vl) + 7) & ~(uint64_t)7) +
	    (vl.vl_dyn ? dynvarsize : 0);
}

/* Enter one VARTAB entry in the tables; same id, same declaration. */
static int
dif_vdeclare(struct dif_vstate *vs, const struct dif_var *v,
    struct kdt_err *err)
{
	struct dif_vinfo *vi;
	uint32_t size = dif_var_valsize(v, vs->vst_strsize);
	uint8_t isstr = v->dtdv_type.dtdt_kind == DIF_TYPE_STRING;
	uint8_t byref = dif_var_byref(v);

	vi = &vs->vst_vars[v->dtdv_scope][v->dtdv_id - DIF_VAR_OTHER_UBASE];
	if (vi->vi_kind == 0xff) {
		vi->vi_kind = v->dtdv_kind;
		vi->vi_size = size;
		vi->vi_isstr = isstr;
		vi->vi_byref = byref;
		return 0;
	}
	if (vi->vi_kind != v->dtdv_kind || vi->vi_size != size ||
	    vi->vi_isstr != isstr || vi->vi_byref != byref)
		return kdt_err_set(err, EINVAL, "DIF_VARTAB", KDT_ERR_NOOFF,
		    "variable 0x%x (scope %u) is declared as kind %u size %u by-reference %u string %u in one DIF object and kind %u size %u by-reference %u string %u in another",
		    v->dtdv_id, v->dtdv_scope, vi->vi_kind, vi->vi_size,
		    vi->vi_byref, vi->vi_isstr, v->dtdv_kind, size, byref,
		    isstr);
	return 0;
}

static int
dif_vdeclare_all(struct dif_vstate *vs, const struct dof_enabling *den,
    struct kdt_err *err)
{
	const struct dif_object *d;
	uint32_t e, a, i;
	int rc;

	for (e = 0; e < den->den_necbs; e++) {
		for (a = 0; a <= den->den_ecbs[e].le_nacts; a++) {
			if ((d = dif_den_obj(den, e, a)) == NULL)
				continue;
			for (i = 0; i < d->do_varlen; i++) {
				if (d->do_vartab[i].dtdv_id <
				    DIF_VAR_OTHER_UBASE ||
				    d->do_vartab[i].dtdv_scope > 2)
					continue;
				if ((rc = dif_vdeclare(vs, &d->do_vartab[i],
				    err)) != 0)
					return rc;
			}
		}
	}
	return 0;
}

/* Global data blocks and clause-local slots, once every id is known. */
static uint64_t
dif_vplace(struct dif_vstate *vs, uint64_t off)
{
	struct dif_vinfo *vi;
	uint32_t i, slot = 0;

	vs->vst_gdata_off = off;
	for (i = 0; i < vs->vst_nvars[DIFV_SCOPE_GLOBAL]; i++) {
		vi = &vs->vst_vars[DIFV_SCOPE_GLOBAL][i];
		if (vi->vi_kind != DIFV_KIND_SCALAR || !vi->vi_byref)
			continue;
		vi->vi_off = (uint32_t)off;
		off += (vi->vi_size + 7) & ~7u;
	}
	vs->vst_gdata_end = off;
	for (i = 0; i < vs->vst_nvars[DIFV_SCOPE_LOCAL]; i++) {
		vi = &vs->vst_vars[DIFV_SCOPE_LOCAL][i];
		if (vi->vi_kind == 0xff)
			continue;
		vi->vi_off = slot;
		slot += vi->vi_byref ? (vi->vi_size + 7) / 8 : 1;
	}
	vs->vst_nlocals = slot;
	return off;
}

/*
 * Lay out the variable state of "den" over "area": the tables are
 * rebuilt; "clear" also zeroes the global values and data (init) --
 * without it they are left as found (attach, a dead image).  The
 * dynamic store's offset in the area goes to *dynoff (0: none), the
 * layout (key and value maxima) to *vlo.
 */
static int
dif_vstate_lay(struct dif_vstate *vs, void *area, uint64_t size,
    const struct dof_enabling *den, int clear, uint64_t *dynoff,
    struct dif_vlayout *vlo, struct kdt_err *err)
{
	struct dif_vlayout vl;
	uint64_t off = 0, fixed, tabsz;
	uint32_t s, i;
	int rc;

	dif_vlayout(&vl, den);
	fixed = (dif_vfixed(&vl) + 7) & ~(uint64_t)7;
	memset(vs, 0, sizeof (*vs));
	*dynoff = 0;
	if (size < fixed || fixed > 0xffffffffull)
		return kdt_err_set(err, ENOSPC, "DIF_VSTATE", KDT_ERR_NOOFF,
		    "variable state area of %llu bytes is smaller than the %llu bytes the variables need",
		    (unsigned long long)size, (unsigned long long)fixed);
	vs->vst_area = area;
	vs->vst_size = size;
	vs->vst_strsize = den->den_strsize;
	tabsz = ((uint64_t)vl.vl_nvars[0] + vl.vl_nvars[1] + vl.vl_nvars[2]) *
	    sizeof (struct dif_vinfo);
	memset(area, 0, clear ? fixed : tabsz);
	for (s = 0; s < 3; s++) {
		vs->vst_vars[s] = (struct dif_vinfo *)(vs->vst_area + off);
		vs->vst_nvars[s] = vl.vl_nvars[s];
		for (i = 0; i < vl.vl_nvars[s]; i++)
			vs->vst_vars[s][i].vi_kind = 0xff;
		off += (uint64_t)vl.vl_nvars[s] * sizeof (struct dif_vinfo);
	}
	off = (off + 7) & ~(uint64_t)7;
	vs->vst_gvals = (uint64_t *)(vs->vst_area + off);
	off += (uint64_t)vl.vl_nvars[0] * 8;
	if ((rc = dif_vdeclare_all(vs, den, err)) != 0)
		return rc;
	off = (dif_vplace(vs, off) + 7) & ~(uint64_t)7;
	/* The sizing is an upper bound of the placement; never trust it. */
	if (off > fixed)
		return kdt_err_set(err, EINVAL, "DIF_VSTATE", KDT_ERR_NOOFF,
		    "variables were placed up to byte %llu of a variable state sized for %llu",
		    (unsigned long long)off, (unsigned long long)fixed);
	if (vl.vl_dyn)
		*dynoff = off;
	*vlo = vl;
	return 0;
}

int
dif_vstate_init(struct dif_vstate *vs, void *area, uint64_t size,
    const struct dof_enabling *den, struct kdt_err *err)
{
	struct dif_vlayout vl;
	uint64_t dynoff;
	int rc;

	if ((rc = dif_vstate_lay(vs, area, size, den, 1, &dynoff, &vl,
	    err)) != 0)
		return rc;
	if (dynoff != 0)
		dif_dstore_init(&vs->vst_dyn, vs->vst_area + dynoff,
		    size - dynoff, vl.vl_keymax, vl.vl_valmax);
	return 0;
}

uint64_t
dif_vstate_dynoff(const struct dif_vstate *vs)
{
	if (vs->vst_dyn.ds_lockp == NULL)
		return 0;
	return (uint64_t)(vs->vst_dyn.ds_lockp -
	    offsetof(struct dif_dhdr, dh_lock) - vs->vst_area);
}

int
dif_vstate_attach(struct dif_vstate *vs, void *area, uint64_t size,
    const struct dof_enabling *den, struct kdt_err *err)
{
	struct dif_vlayout vl;
	uint64_t dynoff, tabsz;
	uint8_t *saved;
	int rc;

	dif_vlayout(&vl, den);
	tabsz = ((uint64_t)vl.vl_nvars[0] + vl.vl_nvars[1] + vl.vl_nvars[2]) *
	    sizeof (struct dif_vinfo);
	if (tabsz > size)
		tabsz = size;	/* dif_vstate_lay says what is wrong */
	saved = kenv_zalloc(tabsz + 8);
	if (saved == NULL)
		return kdt_err_set(err, ENOMEM, "DIF_VSTATE", KDT_ERR_NOOFF,
		    "out of memory for %llu bytes of variable tables",
		    (unsigned long long)tabsz);
	memcpy(saved, area, tabsz);
	rc = dif_vstate_lay(vs, area, size, den, 0, &dynoff, &vl, err);
	if (rc == 0 && memcmp(saved, area, tabsz) != 0) {
		uint64_t k = 0;

		while (k < tabsz && saved[k] == ((uint8_t *)area)[k])
			k++;
		rc = kdt_err_set(err, EBADMSG, "DIF_VTABLES", k,
		    "variable tables in the image differ from the ones the DOF gives at byte %llu of %llu (0x%02x, expected 0x%02x)",
		    (unsigned long long)k, (unsigned long long)tabsz,
		    saved[k], ((uint8_t *)area)[k]);
	}
	kenv_free(saved);
	if (rc != 0 || dynoff == 0)
		return rc;
	return dif_dstore_attach(&vs->vst_dyn, vs->vst_area + dynoff,
	    size - dynoff, vl.vl_keymax, vl.vl_valmax, err);
}

const struct dif_var *
dif_vstate_decl(const struct dof_enabling *den, uint32_t scope, uint32_t id,
    const char **name)
{
	const struct dif_object *d;
	const struct dif_var *v;
	uint32_t e, a, i, n;

	for (e = 0; e < den->den_necbs; e++) {
		for (a = 0; a <= den->den_ecbs[e].le_nacts; a++) {
			if ((d = dif_den_obj(den, e, a)) == NULL)
				continue;
			for (i = 0; i < d->do_varlen; i++) {
				v = &d->do_vartab[i];
				if (v->dtdv_id != id || v->dtdv_scope != scope)
					continue;
				*name = NULL;
				if (d->do_strtab != NULL &&
				    v->dtdv_name < d->do_strlen) {
					n = v->dtdv_name;
					while (n < d->do_strlen &&
					    d->do_strtab[n] != '\0')
						n++;
					if (n < d->do_strlen)
						*name = d->do_strtab +
						    v->dtdv_name;
				}
				return v;
			}
		}
	}
	*name = NULL;
	return NULL;
}

uint32_t
dif_vstate_nlocals(const struct dif_vstate *vs)
{
	return vs->vst_nlocals;
}

uint64_t
dif_vstate_drops(const struct dif_vstate *vs)
{
	return __atomic_load_n(&vs->vst_dyn.ds_drops, __ATOMIC_RELAXED);
}

/*
 * Is [addr, addr + size) inside the value part of one dynamic chunk?
 * Probe context.
 */
int
dif_dstore_isvalue(const struct dif_dstore *ds, uint64_t addr, uint64_t size)
{
	uint64_t base = (uint64_t)(uintptr_t)ds->ds_chunks, off, in;

	if (ds->ds_nchunks == 0 || addr < base)
		return 0;
	off = addr - base;
	if (off / ds->ds_chunksize >= ds->ds_nchunks)
		return 0;
	in = off % ds->ds_chunksize;
	return in >= DIF_DCHUNK_HDR + ds->ds_keymax &&
	    size <= ds->ds_chunksize - in;
}

/* ---- Reading a dead store ---- */

int
dif_dstore_attach(struct dif_dstore *ds, void *area, uint64_t size,
    uint32_t keymax, uint32_t valmax, struct kdt_err *err)
{
	const struct dif_dhdr *dh = area;

	if (dif_dstore_geometry(ds, area, size, keymax, valmax) != 0)
		return 0;	/* the writer had no room either: empty */
	if (dh->dh_magic != DIF_DSTORE_MAGIC)
		return kdt_err_set(err, EBADMSG, "DIF_DMAGIC", 0,
		    "dynamic variable store header has magic 0x%08x, expected 0x%08x",
		    dh->dh_magic, DIF_DSTORE_MAGIC);
	if (dh->dh_chunksize != ds->ds_chunksize ||
	    dh->dh_nbuckets != ds->ds_nbuckets ||
	    dh->dh_nchunks != ds->ds_nchunks)
		return kdt_err_set(err, EBADMSG, "DIF_DGEOM", 8,
		    "dynamic variable store header says %u-byte chunks, %u buckets, %u chunks; the DOF and the area size give %u, %u, %u",
		    dh->dh_chunksize, dh->dh_nbuckets, dh->dh_nchunks,
		    ds->ds_chunksize, ds->ds_nbuckets, ds->ds_nchunks);
	return 0;
}

int
dif_dstore_busy(const struct dif_dstore *ds)
{
	return ds->ds_lockp != NULL && *ds->ds_lockp != 0;
}

/*
 * Decode chunk "c"'s key into "v": 0, or 1 with "msg" saying what is
 * wrong.
 */
static int
dif_ddecode(const struct dif_dstore *ds, const struct dif_dchunk *c,
    struct dif_dvisit *v, char *msg, uint32_t msgsz)
{
	const uint8_t *p = (const uint8_t *)(c + 1);
	uint64_t hdr, off = 0, len, pad;

	v->dv_nkeys = 0;
	if (c->dc_keylen > ds->ds_keymax || c->dc_keylen % 8 != 0) {
		snprintf(msg, msgsz, "key length %u is not a multiple of 8 up to %u",
		    c->dc_keylen, ds->ds_keymax);
		return 1;
	}
	while (off < c->dc_keylen) {
		if (v->dv_nkeys == DIF_TUPLE_MAX + 1 ||
		    c->dc_keylen - off < 16) {
			snprintf(msg, msgsz, "key entry %u at key byte %llu does not fit the %u key bytes (at most %u entries)",
			    v->dv_nkeys, (unsigned long long)off,
			    c->dc_keylen, DIF_TUPLE_MAX + 1);
			return 1;
		}
		memcpy(&hdr, p + off, 8);
		off += 8;
		len = hdr >> 1;
		if ((hdr & 1) == 0) {
			if (len != 0) {
				snprintf(msg, msgsz, "by-value key entry %u has length %llu, not 0",
				    v->dv_nkeys, (unsigned long long)len);
				return 1;
			}
			memcpy(&v->dv_key[v->dv_nkeys].dke_val, p + off, 8);
			v->dv_key[v->dv_nkeys].dke_ref = 0;
			v->dv_key[v->dv_nkeys].dke_len = 0;
			v->dv_key[v->dv_nkeys].dke_ptr = NULL;
			off += 8;
		} else {
			pad = (len + 7) & ~7ULL;
			if (pad > c->dc_keylen - off) {
				snprintf(msg, msgsz, "by-reference key entry %u of %llu bytes overruns the %u key bytes",
				    v->dv_nkeys, (unsigned long long)len,
				    c->dc_keylen);
				return 1;
			}
			for (hdr = len; hdr < pad; hdr++)
				if (p[off + hdr] != 0) {
					snprintf(msg, msgsz, "by-reference key entry %u has a non-zero pad byte at key byte %llu",
					    v->dv_nkeys,
					    (unsigned long long)(off + hdr));
					return 1;
				}
			v->dv_key[v->dv_nkeys].dke_val = 0;
			v->dv_key[v->dv_nkeys].dke_ref = 1;
			v->dv_key[v->dv_nkeys].dke_len = (uint32_t)len;
			v->dv_key[v->dv_nkeys].dke_ptr = p + off;
			off += pad;
		}
		v->dv_nkeys++;
	}
	return 0;
}

/* Check chunk "idx" (index + 1) hanging in bucket "b".  0 or 1 + msg. */
static int
dif_dcheck(const struct dif_dstore *ds, uint32_t idx, uint32_t b,
    struct dif_dvisit *v, char *msg, uint32_t msgsz)
{
	const struct dif_dchunk *c = dif_dchunk(ds, idx);
	struct dif_dkey k;
	uint32_t hash, keylen, i;

	if (dif_ddecode(ds, c, v, msg, msgsz))
		return 1;
	v->dv_id = c->dc_ident & 0xffff;
	v->dv_scope = c->dc_ident >> 16;
	if (v->dv_scope != DIFV_SCOPE_GLOBAL &&
	    v->dv_scope != DIFV_SCOPE_THREAD) {
		snprintf(msg, msgsz, "scope %u is neither global (%u) nor thread-local (%u)",
		    v->dv_scope, DIFV_SCOPE_GLOBAL, DIFV_SCOPE_THREAD);
		return 1;
	}
	memset(&k, 0, sizeof (k));
	k.dk_id = v->dv_id;
	k.dk_scope = v->dv_scope;
	k.dk_n = v->dv_nkeys;
	for (i = 0; i < v->dv_nkeys; i++)
		k.dk_ent[i] = v->dv_key[i];
	hash = dif_dhash(&k, &keylen);
	if (hash != c->dc_hash || keylen != c->dc_keylen ||
	    (hash & (ds->ds_nbuckets - 1)) != b) {
		snprintf(msg, msgsz, "stored hash 0x%08x (bucket %u) differs from the key's hash 0x%08x (bucket %u)",
		    c->dc_hash, b, hash, hash & (ds->ds_nbuckets - 1));
		return 1;
	}
	v->dv_chunk = idx - 1;
	v->dv_val = (const uint8_t *)(c + 1) + ds->ds_keymax;
	v->dv_vallen = ds->ds_valmax;
	return 0;
}

int
dif_dstore_walk(const struct dif_dstore *ds, const struct dif_dwalk_cb *cb)
{
	struct dif_dvisit v;
	uint8_t *seen;
	uint32_t b, idx;
	char msg[200];
	int rv = 0;

	if (ds->ds_nchunks == 0)
		return 0;
	seen = kenv_zalloc(ds->ds_nchunks / 8 + 1);
	if (seen == NULL)
		return -ENOMEM;
	for (b = 0; rv == 0 && b < ds->ds_nbuckets; b++) {
		for (idx = ds->ds_buckets[b]; rv == 0 && idx != 0;
		    idx = dif_dchunk(ds, idx)->dc_next) {
			if (idx > ds->ds_nchunks) {
				snprintf(msg, sizeof (msg), "bucket %u links to chunk %u, beyond the %u chunks",
				    b, idx, ds->ds_nchunks);
				rv = cb->dw_bad(cb->dw_arg, idx - 1, msg);
				break;
			}
			if (seen[(idx - 1) / 8] & (1u << ((idx - 1) % 8))) {
				snprintf(msg, sizeof (msg), "chunk %u is reached twice (a cycle or a shared chain) from bucket %u",
				    idx - 1, b);
				rv = cb->dw_bad(cb->dw_arg, idx - 1, msg);
				break;
			}
			seen[(idx - 1) / 8] |= 1u << ((idx - 1) % 8);
			if (dif_dcheck(ds, idx, b, &v, msg, sizeof (msg))) {
				rv = cb->dw_bad(cb->dw_arg, idx - 1, msg);
				break;
			}
			rv = cb->dw_inst(cb->dw_arg, &v);
		}
	}
	kenv_free(seen);
	return rv;
}
