/*
 * dif_vm.c -- the DIF emulator: runs one validated DIF object in probe
 * context.
 *
 * Callers: kdt.ko's probe handlers and the userspace engine (common/ecb.c,
 * for every predicate and action of a firing ECB) and the unit tests.  The
 * machine and its contract are described in dif_vm.h, the instruction set
 * in dif.h.  dif_validate() (dif_valid.c) has already checked register
 * numbers, table indices, branch targets, opcodes and the final ret; this
 * file relies on that and does not check them again.
 *
 * Map: memory helpers (shared with dif_subr.c through dif_impl.h); loads,
 * stores and string comparison; built-in variables; user variables
 * (globals, clause-locals, and the dynamic ones -- thread-locals and
 * associative arrays -- whose store is dif_dvar.c); branches, division,
 * tuples; the interpreter loop; result copying.  The subroutines of
 * "call" are in dif_subr.c.
 *
 * Memory model.  A DIF value that points somewhere is a plain 64-bit
 * address.  Some memory is "ours" and is read directly, with a bounds
 * check: the object's STRTAB and INTTAB, the allocated part of the
 * caller's scratch area (dm_scratch .. dm_scratch + dm_scratch_used), the
 * variable-state area and the clause-local slots.  Everything else is
 * traced memory and is only ever read through kenv_read()/kenv_read_str(),
 * which never fault; a failure becomes a BADADDR fault of the DIF
 * program.  DIF stores write scratch and the value bytes of variables
 * (dif_writable), never the tables that locate variables.
 *
 * Strings are walked in small chunks that never cross a page boundary of
 * traced memory, so reading a short string near the end of a mapping does
 * not fault on the bytes after it, and no buffer of strsize bytes is ever
 * put on the stack.  When a chunk is unreadable, a single byte is tried
 * before faulting (the string may end just before the unreadable part).
 *
 * Probe context throughout: no allocation, no recursion, no floating
 * point; the only lock is the dynamic store's bounded test-and-set.  The
 * interpreter loop is the one long function.
 */
#include "kdt_env.h"
#include "dif.h"
#include "dif_vm.h"
#include "dif_impl.h"

#define DIF_EXECNAME_MAX 32	/* scratch bytes for execname */

int
dif_in(uint64_t addr, uint64_t size, const void *base, uint64_t len)
{
	uint64_t b = (uint64_t)(uintptr_t)base;

	return base != NULL && addr >= b &&
	    kdt_range_ok(addr - b, size, len);
}

/*
 * Length of DTrace-owned memory readable from "addr" on (STRTAB, INTTAB,
 * allocated scratch, variable state, clause-local slots), or 0 when
 * "addr" is traced memory.
 */
uint64_t
dif_owned(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr)
{
	uint64_t b;

	if (dif_in(addr, 1, difo->do_strtab, difo->do_strlen)) {
		b = (uint64_t)(uintptr_t)difo->do_strtab;
		return difo->do_strlen - (addr - b);
	}
	if (dif_in(addr, 1, difo->do_inttab, (uint64_t)difo->do_intlen * 8)) {
		b = (uint64_t)(uintptr_t)difo->do_inttab;
		return (uint64_t)difo->do_intlen * 8 - (addr - b);
	}
	if (dif_in(addr, 1, ms->dm_scratch, ms->dm_scratch_used)) {
		b = (uint64_t)(uintptr_t)ms->dm_scratch;
		return ms->dm_scratch_used - (addr - b);
	}
	if (ms->dm_vstate != NULL && dif_in(addr, 1, ms->dm_vstate->vst_area,
	    ms->dm_vstate->vst_size)) {
		b = (uint64_t)(uintptr_t)ms->dm_vstate->vst_area;
		return ms->dm_vstate->vst_size - (addr - b);
	}
	if (dif_in(addr, 1, ms->dm_locals, (uint64_t)ms->dm_nlocals * 8)) {
		b = (uint64_t)(uintptr_t)ms->dm_locals;
		return (uint64_t)ms->dm_nlocals * 8 - (addr - b);
	}
	return 0;
}

int
dif_writable(const struct dif_mstate *ms, uint64_t addr, uint64_t size)
{
	const struct dif_vstate *vs = ms->dm_vstate;

	if (dif_in(addr, size, ms->dm_scratch, ms->dm_scratch_used) ||
	    dif_in(addr, size, ms->dm_locals, (uint64_t)ms->dm_nlocals * 8))
		return 1;
	if (vs == NULL)
		return 0;
	if (dif_in(addr, size, vs->vst_area + vs->vst_gdata_off,
	    vs->vst_gdata_end - vs->vst_gdata_off))
		return 1;
	return dif_dstore_isvalue(&vs->vst_dyn, addr, size);
}

/*
 * Read "size" bytes at "addr" from wherever they live.  0 or -EFAULT.
 * Owned memory may overlap dst (a variable assigned to itself).
 */
int
dif_read(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr, void *dst, uint32_t size)
{
	uint64_t avail = dif_owned(difo, ms, addr);

	if (avail != 0) {
		if (avail < size)
			return -EFAULT;
		memmove(dst, (const void *)(uintptr_t)addr, size);
		return 0;
	}
	return kenv_read(dst, addr, size);
}

/*
 * Read up to "max" bytes of a string at "addr" into "buf" (at most
 * DIF_CHUNK).  Returns the number of bytes read (> 0) or -EFAULT.  Owned
 * memory gives what is left of it; traced memory stops at a page end.
 */
static int
dif_strchunk(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr, char *buf, uint32_t max)
{
	uint64_t avail = dif_owned(difo, ms, addr);
	uint32_t n = max < DIF_CHUNK ? max : DIF_CHUNK;

	if (avail != 0) {
		if (avail < n)
			n = (uint32_t)avail;
		memcpy(buf, (const void *)(uintptr_t)addr, n);
		return (int)n;
	}
	if (DIF_PAGE - (addr & (DIF_PAGE - 1)) < n)
		n = (uint32_t)(DIF_PAGE - (addr & (DIF_PAGE - 1)));
	if (kenv_read(buf, addr, n) == 0)
		return (int)n;
	/* The string may end before the unreadable part: one byte. */
	if (n > 1 && kenv_read(buf, addr, 1) == 0)
		return 1;
	return -EFAULT;
}

/*
 * Length of the string at "addr", bounded by "limit".  A NULL string is
 * empty.  Returns 0 and sets *len, or -EFAULT with *len at the fault.
 */
int
dif_strlen(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr, uint64_t limit, uint64_t *len)
{
	char buf[DIF_CHUNK];
	uint64_t n = 0;
	int got, i;

	while (addr != 0 && n < limit) {
		got = dif_strchunk(difo, ms, addr + n, buf,
		    (uint32_t)(limit - n < DIF_CHUNK ? limit - n : DIF_CHUNK));
		if (got < 0) {
			*len = n;
			return -EFAULT;
		}
		for (i = 0; i < got; i++, n++)
			if (buf[i] == '\0')
				goto out;
	}
out:
	*len = n < limit ? n : limit;
	return 0;
}

/*
 * Copy the string at "addr" into dst: at most size - 1 bytes, then NUL
 * padding up to "size".  Owned memory is copied directly (its end
 * terminates the string); traced memory goes through kenv_read_str().
 * Returns the length or -EFAULT.  size must be at least 1.
 */
int
dif_copystr(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr, char *dst, uint32_t size)
{
	uint64_t avail = dif_owned(difo, ms, addr);
	const char *src = (const char *)(uintptr_t)addr;
	uint32_t n = 0;

	if (avail == 0)
		return kenv_read_str(dst, addr, size);
	while (n + 1 < size && n < avail && src[n] != '\0') {
		dst[n] = src[n];
		n++;
	}
	memset(dst + n, 0, size - n);
	return (int)n;
}

/*
 * A string into a block of "size" bytes as dtrace keeps strings in
 * variables and records: at most "size" characters, NUL-padded, with no
 * NUL when the string fills the block (every reader bounds strings by
 * strsize).  A last byte that cannot be read ends the string.  Returns
 * the length or -EFAULT.
 */
static int
dif_copystr_block(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr, char *dst, uint32_t size)
{
	uint64_t avail = dif_owned(difo, ms, addr);
	int n;
	char c = '\0';

	if (size == 0)
		return 0;
	/* owned memory: the last byte first, src and dst may be one block */
	if (avail >= size)
		c = ((const char *)(uintptr_t)addr)[size - 1];
	n = dif_copystr(difo, ms, addr, dst, size);
	if (n < 0 || (uint32_t)n + 1 != size)
		return n;
	if (avail == 0 && kenv_read(&c, addr + (uint32_t)n, 1) != 0)
		c = '\0';
	if (c == '\0')
		return n;
	dst[n] = c;
	return n + 1;
}

void
dif_fault(struct dif_run *r, uint32_t code, uint64_t addr)
{
	r->dr_ms->dm_fault = code;
	r->dr_ms->dm_faulted = 1;
	r->dr_ms->dm_fault_addr = addr;
	r->dr_ms->dm_fault_pc = r->dr_pc;
}

/* Allocate "size" zeroed, 8-aligned scratch bytes; 0 + NOSCRATCH if full. */
uint64_t
dif_salloc(struct dif_run *r, uint64_t size)
{
	struct dif_mstate *ms = r->dr_ms;
	uint64_t off = (ms->dm_scratch_used + 7) & ~(uint64_t)7;

	if (ms->dm_scratch == NULL || off > ms->dm_scratch_size ||
	    size > ms->dm_scratch_size - off) {
		dif_fault(r, DTRACEFLT_NOSCRATCH, size);
		return 0;
	}
	memset(ms->dm_scratch + off, 0, size);
	ms->dm_scratch_used = off + size;
	return (uint64_t)(uintptr_t)(ms->dm_scratch + off);
}

/* ld* and rld*: size, alignment and sign by opcode.  0 or fault. */
static int
dif_load(struct dif_run *r, uint32_t op, uint64_t addr, uint64_t *val)
{
	static const uint8_t size[7] = { 1, 2, 4, 1, 2, 4, 8 };
	uint32_t k = op >= DIF_OP_RLDSB ? op - DIF_OP_RLDSB : op - DIF_OP_LDSB;
	union { uint8_t b; uint16_t h; uint32_t w; uint64_t x; } u;

	if ((addr & (size[k] - 1)) != 0) {
		dif_fault(r, DTRACEFLT_BADALIGN, addr);
		return -EFAULT;
	}
	if (dif_read(r->dr_difo, r->dr_ms, addr, &u, size[k]) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, addr);
		return -EFAULT;
	}
	switch (k) {
	case 0: *val = (uint64_t)(int64_t)(int8_t)u.b; break;
	case 1: *val = (uint64_t)(int64_t)(int16_t)u.h; break;
	case 2: *val = (uint64_t)(int64_t)(int32_t)u.w; break;
	case 3: *val = u.b; break;
	case 4: *val = u.h; break;
	case 5: *val = u.w; break;
	default: *val = u.x; break;
	}
	return 0;
}

/* stb..stx: only where dif_writable() allows.  0 or fault. */
static int
dif_store(struct dif_run *r, uint32_t op, uint64_t val, uint64_t addr)
{
	uint32_t size = 1u << (op - DIF_OP_STB);
	union { uint8_t b; uint16_t h; uint32_t w; uint64_t x; } u;

	if ((addr & (size - 1)) != 0) {
		dif_fault(r, DTRACEFLT_BADALIGN, addr);
		return -EFAULT;
	}
	if (!dif_writable(r->dr_ms, addr, size)) {
		dif_fault(r, DTRACEFLT_BADADDR, addr);
		return -EFAULT;
	}
	switch (size) {
	case 1: u.b = (uint8_t)val; break;
	case 2: u.h = (uint16_t)val; break;
	case 4: u.w = (uint32_t)val; break;
	default: u.x = val; break;
	}
	memcpy((void *)(uintptr_t)addr, &u, size);
	return 0;
}

/* Next byte of a string being walked chunk by chunk; NULL reads as "". */
struct dif_strwalk {
	uint64_t	sw_addr;
	int		sw_n;
	int		sw_i;
	char		sw_buf[DIF_CHUNK];
};

static int
dif_strnext(struct dif_run *r, struct dif_strwalk *w, uint64_t left,
    uint8_t *c)
{
	if (w->sw_addr == 0) {
		*c = 0;
		return 0;
	}
	if (w->sw_i == w->sw_n) {
		w->sw_n = dif_strchunk(r->dr_difo, r->dr_ms, w->sw_addr,
		    w->sw_buf, (uint32_t)(left < DIF_CHUNK ? left : DIF_CHUNK));
		if (w->sw_n < 0) {
			dif_fault(r, DTRACEFLT_BADADDR, w->sw_addr);
			return -EFAULT;
		}
		w->sw_i = 0;
	}
	*c = (uint8_t)w->sw_buf[w->sw_i++];
	w->sw_addr++;
	return 0;
}

/* scmp: compare at most strsize bytes; *res is <0, 0 or >0.  0 or fault. */
static int
dif_scmp(struct dif_run *r, uint64_t a, uint64_t b, int *res)
{
	struct dif_strwalk wa, wb;
	uint64_t n, limit = r->dr_ms->dm_strsize;
	uint8_t ca, cb;

	*res = 0;
	if (a == b)
		return 0;
	wa.sw_addr = a;
	wb.sw_addr = b;
	wa.sw_n = wa.sw_i = wb.sw_n = wb.sw_i = 0;
	for (n = 0; n < limit; n++) {
		if (dif_strnext(r, &wa, limit - n, &ca) != 0 ||
		    dif_strnext(r, &wb, limit - n, &cb) != 0)
			return -EFAULT;
		if (ca != cb) {
			*res = ca < cb ? -1 : 1;
			return 0;
		}
		if (ca == 0)
			break;
	}
	return 0;
}

/*
 * Built-in scalar variables (ldgs).  0, or an ILLOP/NOSCRATCH fault (for
 * zonename and threadname, which Linux does not have, and unknown ids).
 */
static int
dif_ldgs(struct dif_run *r, uint32_t id, uint64_t *val)
{
	const struct dif_probe_ctx *c = r->dr_ctx;
	uint32_t n;

	if (id >= DIF_VAR_ARG0 && id <= DIF_VAR_ARG9) {
		*val = c->pc_args[id - DIF_VAR_ARG0];
		return 0;
	}
	switch (id) {
	case DIF_VAR_CURTHREAD: *val = kenv_curthread(); return 0;
	case DIF_VAR_VTIMESTAMP: *val = kenv_vtime(); return 0;
	case DIF_VAR_IPL: *val = kenv_ipl(); return 0;
	case DIF_VAR_STACKDEPTH: *val = c->pc_stackdepth; return 0;
	case DIF_VAR_CALLER:
		*val = c->pc_caller != 0 ? c->pc_caller : kenv_caller();
		return 0;
	case DIF_VAR_WALLTIMESTAMP: *val = kenv_walltime(); return 0;
	case DIF_VAR_USTACKDEPTH: *val = c->pc_ustackdepth; return 0;
	case DIF_VAR_UCALLER: *val = c->pc_ucaller; return 0;
	case DIF_VAR_PPID: *val = kenv_ppid(); return 0;
	case DIF_VAR_UID: *val = kenv_uid(); return 0;
	case DIF_VAR_GID: *val = kenv_gid(); return 0;
	case DIF_VAR_ERRNO: *val = (uint64_t)(int64_t)c->pc_errno; return 0;
	case DIF_VAR_TIMESTAMP:
		/* taken when first needed, then the same for the whole
		   firing; the context is the runner's own (ecb.c) */
		if (c->pc_timestamp == 0)
			((struct dif_probe_ctx *)c)->pc_timestamp =
			    kenv_timestamp();
		*val = c->pc_timestamp;
		return 0;
	case DIF_VAR_EPID: *val = c->pc_epid; return 0;
	case DIF_VAR_ID: *val = c->pc_id; return 0;
	case DIF_VAR_PROBEPROV: *val = (uintptr_t)c->pc_prov; return 0;
	case DIF_VAR_PROBEMOD: *val = (uintptr_t)c->pc_mod; return 0;
	case DIF_VAR_PROBEFUNC: *val = (uintptr_t)c->pc_func; return 0;
	case DIF_VAR_PROBENAME: *val = (uintptr_t)c->pc_name; return 0;
	case DIF_VAR_PID: *val = kenv_pid(); return 0;
	case DIF_VAR_TID: *val = kenv_tid(); return 0;
	case DIF_VAR_CPU: *val = c->pc_cpu; return 0;
	case DIF_VAR_KDT_EUID: case DIF_VAR_KDT_EGID: case DIF_VAR_KDT_PGID:
	case DIF_VAR_KDT_SID: case DIF_VAR_KDT_NLWP: case DIF_VAR_KDT_LWPSTATE:
		*val = kenv_procvar(id);
		return 0;
	case DIF_VAR_EXECNAME:
		n = r->dr_ms->dm_strsize < DIF_EXECNAME_MAX ?
		    r->dr_ms->dm_strsize : DIF_EXECNAME_MAX;
		if ((*val = dif_salloc(r, n)) == 0)
			return -EFAULT;
		kenv_execname((char *)(uintptr_t)*val, n);
		return 0;
	}
	dif_fault(r, DTRACEFLT_ILLOP, id);
	return -EINVAL;
}

/* ldga: only args[], indices 0..DIF_NARGS-1. */
static int
dif_ldga(struct dif_run *r, uint32_t var, uint64_t idx, uint64_t *val)
{
	if (var != DIF_VAR_ARGS || idx >= DIF_NARGS) {
		dif_fault(r, DTRACEFLT_ILLOP, idx);
		return -EINVAL;
	}
	*val = r->dr_ctx->pc_args[idx];
	return 0;
}

/*
 * A string made directly readable (dif_impl.h).  Owned memory is used in
 * place when the whole string (bounded by strsize: dtrace keeps a string
 * of exactly strsize characters whole) lies inside it; anything else is
 * copied into strsize + 1 bytes of scratch.
 */
int
dif_sfetch(struct dif_run *r, uint64_t addr, const char **p, uint32_t *len)
{
	uint32_t ssz = r->dr_ms->dm_strsize ? r->dr_ms->dm_strsize : 1;
	uint64_t n, dst;

	if (addr == 0) {
		*p = "";
		*len = 0;
		return 0;
	}
	if (dif_strlen(r->dr_difo, r->dr_ms, addr, ssz, &n) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, addr + n);
		return -EFAULT;
	}
	if (dif_owned(r->dr_difo, r->dr_ms, addr) > n) {
		*p = (const char *)(uintptr_t)addr;
		*len = (uint32_t)n;
		return 0;
	}
	if ((dst = dif_salloc(r, n + 1)) == 0)
		return -EFAULT;
	if (dif_copystr(r->dr_difo, r->dr_ms, addr, (char *)(uintptr_t)dst,
	    (uint32_t)n + 1) < 0) {
		dif_fault(r, DTRACEFLT_BADADDR, addr);
		return -EFAULT;
	}
	*p = (const char *)(uintptr_t)dst;
	*len = (uint32_t)n;
	return 0;
}

/*
 * ---- Variables (theory in dif_vm.h) ----
 */

/* The table entry of user variable "id" of "scope", or NULL + ILLOP. */
static struct dif_vinfo *
dif_vinfo(struct dif_run *r, uint32_t scope, uint32_t id)
{
	struct dif_vstate *vs = r->dr_ms->dm_vstate;
	struct dif_vinfo *vi;

	if (vs == NULL || id < DIF_VAR_OTHER_UBASE ||
	    id - DIF_VAR_OTHER_UBASE >= vs->vst_nvars[scope]) {
		dif_fault(r, DTRACEFLT_ILLOP, id);
		return NULL;
	}
	vi = &vs->vst_vars[scope][id - DIF_VAR_OTHER_UBASE];
	if (vi->vi_kind == 0xff) {
		dif_fault(r, DTRACEFLT_ILLOP, id);
		return NULL;
	}
	return vi;
}

/* Copy the by-reference value at "src" into a variable's own block. */
static int
dif_vcopy(struct dif_run *r, const struct dif_vinfo *vi, uint64_t src,
    void *dst)
{
	uint32_t n = vi->vi_size;
	int rc;

	if (src == 0) {
		memset(dst, 0, n);
		return 0;
	}
	if (vi->vi_isstr) {
		if (r->dr_ms->dm_strsize != 0 && r->dr_ms->dm_strsize < n)
			n = r->dr_ms->dm_strsize;
		rc = dif_copystr_block(r->dr_difo, r->dr_ms, src, dst, n);
		memset((char *)dst + n, 0, vi->vi_size - n);
	} else {
		rc = dif_read(r->dr_difo, r->dr_ms, src, dst, n);
	}
	if (rc < 0) {
		dif_fault(r, DTRACEFLT_BADADDR, src);
		return -EFAULT;
	}
	return 0;
}

/* ldgs/stgs of a user global (id >= 0x500). */
static int
dif_gvar(struct dif_run *r, uint32_t id, int store, uint64_t *val)
{
	struct dif_vinfo *vi = dif_vinfo(r, DIFV_SCOPE_GLOBAL, id);
	struct dif_vstate *vs = r->dr_ms->dm_vstate;
	uint8_t *data;

	if (vi == NULL)
		return -EINVAL;
	/*
	 * Only scalars have a global slot or data block (dif_vplace); an
	 * id VARTAB declares as an array has vi_off 0, so ldgs/stgs of it
	 * aliased the variable tables and a string store overwrote them,
	 * vi_size included (found by tests/fuzz/fuzz_dif,
	 * bad-ldgs-array-var: a 4 GiB memset).  It is illegal.
	 */
	if (vi->vi_kind != DIFV_KIND_SCALAR) {
		dif_fault(r, DTRACEFLT_ILLOP, id);
		return -EINVAL;
	}
	data = vs->vst_area + vi->vi_off;
	if (!vi->vi_byref) {
		if (store)
			vs->vst_gvals[id - DIF_VAR_OTHER_UBASE] = *val;
		else
			*val = vs->vst_gvals[id - DIF_VAR_OTHER_UBASE];
		return 0;
	}
	if (store)
		return dif_vcopy(r, vi, *val, data);
	*val = (uint64_t)(uintptr_t)data;
	return 0;
}

/* ldls/stls: clause-local slots of this firing. */
static int
dif_lvar(struct dif_run *r, uint32_t id, int store, uint64_t *val)
{
	struct dif_vinfo *vi = dif_vinfo(r, DIFV_SCOPE_LOCAL, id);
	struct dif_mstate *ms = r->dr_ms;
	uint32_t need;

	if (vi == NULL)
		return -EINVAL;
	need = vi->vi_byref ? (vi->vi_size + 7) / 8 : 1;
	if (ms->dm_locals == NULL || vi->vi_off > ms->dm_nlocals ||
	    need > ms->dm_nlocals - vi->vi_off) {
		dif_fault(r, DTRACEFLT_ILLOP, id);
		return -EINVAL;
	}
	if (!vi->vi_byref) {
		if (store)
			ms->dm_locals[vi->vi_off] = *val;
		else
			*val = ms->dm_locals[vi->vi_off];
		return 0;
	}
	if (store)
		return dif_vcopy(r, vi, *val, &ms->dm_locals[vi->vi_off]);
	*val = (uint64_t)(uintptr_t)&ms->dm_locals[vi->vi_off];
	return 0;
}

/*
 * One by-reference tuple entry made directly readable: strings by content
 * (dif_sfetch), other data by its pushed size.  Data larger than any key
 * can hold is reported with 1 (the instance cannot exist).
 */
static int
dif_dkey_ref(struct dif_run *r, const struct dif_tuple *t,
    struct dif_dkent *e)
{
	uint64_t dst;

	e->dke_ref = 1;
	if (t->dt_type == DIF_TYPE_STRING_T)
		return dif_sfetch(r, t->dt_value, (const char **)&e->dke_ptr,
		    &e->dke_len);
	if (t->dt_size > r->dr_ms->dm_vstate->vst_dyn.ds_keymax)
		return 1;
	e->dke_len = (uint32_t)t->dt_size;
	if (dif_owned(r->dr_difo, r->dr_ms, t->dt_value) >= t->dt_size) {
		e->dke_ptr = (const void *)(uintptr_t)t->dt_value;
		return 0;
	}
	if ((dst = dif_salloc(r, t->dt_size)) == 0)
		return -EFAULT;
	if (dif_read(r->dr_difo, r->dr_ms, t->dt_value,
	    (void *)(uintptr_t)dst, e->dke_len) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, t->dt_value);
		return -EFAULT;
	}
	e->dke_ptr = (const void *)(uintptr_t)dst;
	return 0;
}

/*
 * The key of a dynamic variable: the tuple stack (associative arrays)
 * and, for thread scope, the thread id.  0, 1 (cannot exist) or a fault.
 */
static int
dif_dkey(struct dif_run *r, uint32_t id, uint32_t scope, int tuple,
    struct dif_dkey *k)
{
	uint32_t i;
	int rc;

	k->dk_id = id;
	k->dk_scope = scope;
	k->dk_n = 0;
	for (i = 0; tuple && i < r->dr_ntup; i++, k->dk_n++) {
		memset(&k->dk_ent[i], 0, sizeof (k->dk_ent[i]));
		if (r->dr_tup[i].dt_size == 0 &&
		    r->dr_tup[i].dt_type != DIF_TYPE_STRING_T) {
			k->dk_ent[i].dke_val = r->dr_tup[i].dt_value;
			continue;
		}
		if ((rc = dif_dkey_ref(r, &r->dr_tup[i], &k->dk_ent[i])) != 0)
			return rc;
	}
	if (scope == DIFV_SCOPE_THREAD) {
		memset(&k->dk_ent[k->dk_n], 0, sizeof (k->dk_ent[0]));
		k->dk_ent[k->dk_n++].dke_val = kenv_tid();
	}
	return 0;
}

/* Store "v" into the dynamic instance "k"; 0 frees it. */
static int
dif_dset(struct dif_run *r, const struct dif_vinfo *vi,
    const struct dif_dkey *k, uint64_t v)
{
	struct dif_dstore *ds = &r->dr_ms->dm_vstate->vst_dyn;
	const char *p;
	uint32_t len;
	uint64_t dst;

	if (v == 0)
		return dif_dstore_delete(ds, k) != 0 ? -ENOSPC : 0;
	if (!vi->vi_byref)
		return dif_dstore_store(ds, k, &v, 8);
	if (vi->vi_isstr) {
		if (dif_sfetch(r, v, &p, &len) != 0)
			return -EFAULT;
		if (len > vi->vi_size)
			len = vi->vi_size;
		return dif_dstore_store(ds, k, p, len);
	}
	if (dif_owned(r->dr_difo, r->dr_ms, v) >= vi->vi_size)
		return dif_dstore_store(ds, k, (const void *)(uintptr_t)v,
		    vi->vi_size);
	if ((dst = dif_salloc(r, vi->vi_size)) == 0)
		return -EFAULT;
	if (dif_read(r->dr_difo, r->dr_ms, v, (void *)(uintptr_t)dst,
	    vi->vi_size) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, v);
		return -EFAULT;
	}
	return dif_dstore_store(ds, k, (const void *)(uintptr_t)dst,
	    vi->vi_size);
}

/*
 * ldts/stts/ldgaa/stgaa/ldtaa/sttaa.  A store that finds no room is a
 * dynamic-variable drop (counted, not a fault); 0 or a recorded fault.
 */
static int
dif_dvar(struct dif_run *r, uint32_t op, uint32_t id, uint64_t *val)
{
	uint32_t scope = (op == DIF_OP_LDGAA || op == DIF_OP_STGAA) ?
	    DIFV_SCOPE_GLOBAL : DIFV_SCOPE_THREAD;
	int store = op == DIF_OP_STTS || op == DIF_OP_STGAA ||
	    op == DIF_OP_STTAA;
	struct dif_vinfo *vi = dif_vinfo(r, scope, id);
	struct dif_dkey k;
	uint8_t *p;
	int rc;

	if (vi == NULL)
		return -EINVAL;
	rc = dif_dkey(r, id, scope, op != DIF_OP_LDTS && op != DIF_OP_STTS,
	    &k);
	if (rc < 0)
		return rc;
	if (store) {
		/* the store counts its own drops; a key no chunk can hold
		   is counted here (dif_vm.h: the two counts are disjoint) */
		if (rc == 1)
			r->dr_ms->dm_dyndrops++;
		else
			rc = dif_dset(r, vi, &k, *val);
		return rc == -EFAULT ? rc : 0;
	}
	*val = 0;
	if (rc == 1 || (p = dif_dstore_load(&r->dr_ms->dm_vstate->vst_dyn,
	    &k)) == NULL)
		return 0;
	if (vi->vi_byref)
		*val = (uint64_t)(uintptr_t)p;
	else
		memcpy(val, p, 8);
	return 0;
}

/* Condition codes of cmp, scmp and tst, and the branch conditions. */
struct dif_cc {
	uint8_t	cc_n, cc_z, cc_v, cc_c;
};

static int
dif_branch_taken(uint32_t op, const struct dif_cc *cc)
{
	switch (op) {
	case DIF_OP_BA: return 1;
	case DIF_OP_BE: return cc->cc_z;
	case DIF_OP_BNE: return !cc->cc_z;
	case DIF_OP_BG: return !(cc->cc_z | (cc->cc_n ^ cc->cc_v));
	case DIF_OP_BGU: return !(cc->cc_c | cc->cc_z);
	case DIF_OP_BGE: return !(cc->cc_n ^ cc->cc_v);
	case DIF_OP_BGEU: return !cc->cc_c;
	case DIF_OP_BL: return cc->cc_n ^ cc->cc_v;
	case DIF_OP_BLU: return cc->cc_c;
	case DIF_OP_BLE: return cc->cc_z | (cc->cc_n ^ cc->cc_v);
	default: return cc->cc_c | cc->cc_z;	/* DIF_OP_BLEU */
	}
}

/* The built-ins dif_fastpred_eval() reads as dif_ldgs() does. */
static int
dif_fastpred_var(uint32_t id)
{
	switch (id) {
	case DIF_VAR_PID: case DIF_VAR_TID: case DIF_VAR_CPU:
	case DIF_VAR_UID: case DIF_VAR_GID: case DIF_VAR_PPID:
	case DIF_VAR_ERRNO: case DIF_VAR_ID:
		return 1;
	default:
		return id >= DIF_VAR_ARG0 && id <= DIF_VAR_ARG9;
	}
}

#define DIF_FP_INSTR(op, r1, r2, rd) \
	(((uint32_t)(op) << 24) | ((r1) << 16) | ((r2) << 8) | (rd))

void
dif_fastpred_make(const struct dif_object *d, struct dif_fastpred *fp)
{
	const uint32_t *t = d->do_text;
	uint32_t var, br, cc_i;
	struct dif_cc cc;

	fp->fp_ok = 0;
	if (d->do_textlen != 8)
		return;
	var = DIF_INSTR_VAR(t[0]);
	br = DIF_INSTR_OP(t[3]);
	if (DIF_INSTR_OP(t[0]) != DIF_OP_LDGS || DIF_INSTR_RD(t[0]) != 1 ||
	    !dif_fastpred_var(var) ||
	    DIF_INSTR_OP(t[1]) != DIF_OP_SETX || DIF_INSTR_RD(t[1]) != 2 ||
	    DIF_INSTR_INTEGER(t[1]) >= d->do_intlen ||
	    t[2] != DIF_FP_INSTR(DIF_OP_CMP, 1, 2, 0) ||
	    br < DIF_OP_BE || br > DIF_OP_BLEU || DIF_INSTR_LABEL(t[3]) != 6 ||
	    t[4] != DIF_FP_INSTR(DIF_OP_MOV, 0, 0, 1) ||
	    DIF_INSTR_OP(t[5]) != DIF_OP_BA || DIF_INSTR_LABEL(t[5]) != 7 ||
	    DIF_INSTR_OP(t[6]) != DIF_OP_SETX || DIF_INSTR_RD(t[6]) != 1 ||
	    DIF_INSTR_INTEGER(t[6]) >= d->do_intlen ||
	    d->do_inttab[DIF_INSTR_INTEGER(t[6])] != 1 ||
	    t[7] != DIF_FP_INSTR(DIF_OP_RET, 0, 0, 1))
		return;
	fp->fp_var = var;
	fp->fp_br = br;
	fp->fp_k = d->do_inttab[DIF_INSTR_INTEGER(t[1])];
	/* the branch's answer for each of the 8 (n, z, c), dif_vm.h */
	fp->fp_truth = 0;
	for (cc_i = 0; cc_i < 8; cc_i++) {
		cc.cc_n = (cc_i >> 2) & 1;
		cc.cc_z = (cc_i >> 1) & 1;
		cc.cc_c = cc_i & 1;
		cc.cc_v = 0;
		if (dif_branch_taken(br, &cc))
			fp->fp_truth |= (uint8_t)(1U << cc_i);
	}
	fp->fp_ok = 1;
}

/* A dif_fastpred_var() built-in, read as dif_ldgs() reads it. */
static uint64_t
dif_fast_var(uint32_t id, const struct dif_probe_ctx *c)
{
	switch (id) {
	case DIF_VAR_PID: return kenv_pid();
	case DIF_VAR_TID: return kenv_tid();
	case DIF_VAR_CPU: return c->pc_cpu;
	case DIF_VAR_UID: return kenv_uid();
	case DIF_VAR_GID: return kenv_gid();
	case DIF_VAR_PPID: return kenv_ppid();
	case DIF_VAR_ERRNO: return (uint64_t)(int64_t)c->pc_errno;
	case DIF_VAR_ID: return c->pc_id;
	default: return c->pc_args[id - DIF_VAR_ARG0];
	}
}

uint64_t
dif_fastpred_eval(const struct dif_fastpred *fp,
    const struct dif_probe_ctx *c)
{
	return dif_fastpred_test(fp, dif_fast_var(fp->fp_var, c));
}


int
dif_fast_eval(const struct dif_object *d, const struct dif_probe_ctx *c,
    uint64_t *v)
{
	uint32_t i0;

	if (d->do_textlen != 2)
		return 0;
	i0 = d->do_text[0];
	if (d->do_text[1] != DIF_FP_INSTR(DIF_OP_RET, 0, 0, DIF_INSTR_RD(i0)))
		return 0;
	switch (DIF_INSTR_OP(i0)) {
	case DIF_OP_SETX:
		if (DIF_INSTR_INTEGER(i0) >= d->do_intlen)
			return 0;
		*v = d->do_inttab[DIF_INSTR_INTEGER(i0)];
		return 1;
	case DIF_OP_LDGS:
		if (!dif_fastpred_var(DIF_INSTR_VAR(i0)))
			return 0;
		*v = dif_fast_var(DIF_INSTR_VAR(i0), c);
		return 1;
	default:
		return 0;
	}
}

/* sdiv, udiv, srem, urem; 0 or a DIVZERO fault. */
static int
dif_divide(struct dif_run *r, uint32_t op, uint64_t a, uint64_t b,
    uint64_t *res)
{
	if (b == 0) {
		dif_fault(r, DTRACEFLT_DIVZERO, 0);
		return -EINVAL;
	}
	switch (op) {
	case DIF_OP_SDIV:
		/* INT64_MIN / -1 overflows (and traps on x86): it wraps. */
		*res = b == (uint64_t)-1 ? 0 - a :
		    (uint64_t)((int64_t)a / (int64_t)b);
		return 0;
	case DIF_OP_SREM:
		*res = b == (uint64_t)-1 ? 0 :
		    (uint64_t)((int64_t)a % (int64_t)b);
		return 0;
	case DIF_OP_UDIV:
		*res = a / b;
		return 0;
	default:
		*res = a % b;
		return 0;
	}
}

/* pushtr/pushtv.  0, or a TUPOFLOW/BADADDR fault. */
static int
dif_push(struct dif_run *r, uint32_t instr)
{
	uint64_t val = r->dr_regs[DIF_INSTR_RS(instr) & DIF_REGMASK];
	uint64_t size = r->dr_regs[DIF_INSTR_R2(instr) & DIF_REGMASK];

	if (r->dr_ntup >= DIF_TUPLE_MAX) {
		dif_fault(r, DTRACEFLT_TUPOFLOW, 0);
		return -ENOSPC;
	}
	if (DIF_INSTR_OP(instr) == DIF_OP_PUSHTV) {
		size = 0;
	} else if (DIF_INSTR_TYPE(instr) == DIF_TYPE_STRING_T && size == 0) {
		if (dif_strlen(r->dr_difo, r->dr_ms, val,
		    r->dr_ms->dm_strsize, &size) != 0) {
			dif_fault(r, DTRACEFLT_BADADDR, val + size);
			return -EFAULT;
		}
		if (size < r->dr_ms->dm_strsize)
			size++;
	}
	r->dr_tup[r->dr_ntup].dt_value = val;
	r->dr_tup[r->dr_ntup].dt_size = size;
	r->dr_tup[r->dr_ntup].dt_type = DIF_INSTR_TYPE(instr);
	r->dr_ntup++;
	return 0;
}

/* copys: r2 bytes from r1 to rd; rd must be writable. */
static int
dif_copys(struct dif_run *r, uint64_t src, uint64_t len, uint64_t dst)
{
	if (!dif_writable(r->dr_ms, dst, len)) {
		dif_fault(r, DTRACEFLT_BADADDR, dst);
		return -EFAULT;
	}
	if (dif_read(r->dr_difo, r->dr_ms, src, (void *)(uintptr_t)dst,
	    (uint32_t)len) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, src);
		return -EFAULT;
	}
	return 0;
}

/*
 * The interpreter loop.  Probe context: no locks, no allocation, no
 * sleeping.  Relies on dif_validate(): registers < DIF_DIR_NREGS, rd never
 * %r0, forward in-text branches, in-table setx/sets operands, last
 * instruction ret.  Every helper that fails has already recorded the
 * fault, so a failing helper just ends the run with 0.
 */
uint64_t
dif_emulate(const struct dif_object *difo, struct dif_mstate *ms,
    const struct dif_probe_ctx *ctx)
{
	struct dif_run r KENV_NOINIT;	/* what is read is set below */
	struct dif_cc cc = { 0, 0, 0, 0 };
	uint64_t *R = r.dr_regs, a, b, v;
	const uint32_t *text = difo->do_text;
	uint32_t instr, op, rd, textlen = difo->do_textlen;
	int res;

	/* Only the registers need zeroes (%r0 reads 0; the tuple stack is
	   empty by dr_ntup); a full memset costs a fifth of a short run. */
	memset(r.dr_regs, 0, sizeof (r.dr_regs));
	r.dr_ntup = 0;
	r.dr_pc = 0;
	r.dr_difo = difo;
	r.dr_ms = ms;
	r.dr_ctx = ctx;
	ms->dm_fault = 0;
	ms->dm_faulted = 0;
	ms->dm_fault_addr = 0;
	ms->dm_fault_pc = 0;

	for (r.dr_pc = 0; r.dr_pc < textlen; r.dr_pc++) {
		instr = text[r.dr_pc];
		op = DIF_INSTR_OP(instr);
		/*
		 * Masking keeps the reads in bounds for formats whose r1/r2
		 * bits are a label or an index (then a and b go unused);
		 * for real register operands the validator made it a no-op.
		 */
		rd = DIF_INSTR_RD(instr) & DIF_REGMASK;
		a = R[DIF_INSTR_R1(instr) & DIF_REGMASK];
		b = R[DIF_INSTR_R2(instr) & DIF_REGMASK];

		switch (op) {
		case DIF_OP_OR:  R[rd] = a | b; break;
		case DIF_OP_XOR: R[rd] = a ^ b; break;
		case DIF_OP_AND: R[rd] = a & b; break;
		case DIF_OP_SLL: R[rd] = a << (b & 63); break;
		case DIF_OP_SRL: R[rd] = a >> (b & 63); break;
		case DIF_OP_SRA:
			R[rd] = (uint64_t)((int64_t)a >> (b & 63));
			break;
		case DIF_OP_SUB: R[rd] = a - b; break;
		case DIF_OP_ADD: R[rd] = a + b; break;
		case DIF_OP_MUL: R[rd] = a * b; break;
		case DIF_OP_SDIV:
		case DIF_OP_UDIV:
		case DIF_OP_SREM:
		case DIF_OP_UREM:
			if (dif_divide(&r, op, a, b, &R[rd]) != 0)
				return 0;
			break;
		case DIF_OP_NOT: R[rd] = ~a; break;
		case DIF_OP_MOV: R[rd] = a; break;
		case DIF_OP_CMP:
			cc.cc_n = (int64_t)(a - b) < 0;
			cc.cc_z = a == b;
			cc.cc_v = 0;
			cc.cc_c = a < b;
			break;
		case DIF_OP_TST:
			cc.cc_n = cc.cc_v = cc.cc_c = 0;
			cc.cc_z = a == 0;
			break;
		case DIF_OP_SCMP:
			if (dif_scmp(&r, a, b, &res) != 0)
				return 0;
			cc.cc_n = res < 0;
			cc.cc_z = res == 0;
			cc.cc_v = cc.cc_c = 0;
			break;
		case DIF_OP_BA: case DIF_OP_BE: case DIF_OP_BNE:
		case DIF_OP_BG: case DIF_OP_BGU: case DIF_OP_BGE:
		case DIF_OP_BGEU: case DIF_OP_BL: case DIF_OP_BLU:
		case DIF_OP_BLE: case DIF_OP_BLEU:
			if (dif_branch_taken(op, &cc))
				r.dr_pc = DIF_INSTR_LABEL(instr) - 1;
			break;
		case DIF_OP_LDSB: case DIF_OP_LDSH: case DIF_OP_LDSW:
		case DIF_OP_LDUB: case DIF_OP_LDUH: case DIF_OP_LDUW:
		case DIF_OP_LDX: case DIF_OP_RLDSB: case DIF_OP_RLDSH:
		case DIF_OP_RLDSW: case DIF_OP_RLDUB: case DIF_OP_RLDUH:
		case DIF_OP_RLDUW: case DIF_OP_RLDX:
			if (dif_load(&r, op, a, &R[rd]) != 0)
				return 0;
			break;
		case DIF_OP_STB: case DIF_OP_STH: case DIF_OP_STW:
		case DIF_OP_STX:
			if (dif_store(&r, op, a, R[rd]) != 0)
				return 0;
			break;
		case DIF_OP_RET:
			return R[rd];
		case DIF_OP_NOP:
			break;
		case DIF_OP_SETX:
			R[rd] = difo->do_inttab[DIF_INSTR_INTEGER(instr)];
			break;
		case DIF_OP_SETS:
			R[rd] = (uint64_t)(uintptr_t)difo->do_strtab +
			    DIF_INSTR_STRING(instr);
			break;
		case DIF_OP_LDGS:
			if ((DIF_INSTR_VAR(instr) < DIF_VAR_OTHER_UBASE ?
			    dif_ldgs(&r, DIF_INSTR_VAR(instr), &v) :
			    dif_gvar(&r, DIF_INSTR_VAR(instr), 0, &v)) != 0)
				return 0;
			R[rd] = v;
			break;
		case DIF_OP_STGS:
			v = R[rd];
			if (dif_gvar(&r, DIF_INSTR_VAR(instr), 1, &v) != 0)
				return 0;
			break;
		case DIF_OP_LDLS:
			if (dif_lvar(&r, DIF_INSTR_VAR(instr), 0, &v) != 0)
				return 0;
			R[rd] = v;
			break;
		case DIF_OP_STLS:
			v = R[rd];
			if (dif_lvar(&r, DIF_INSTR_VAR(instr), 1, &v) != 0)
				return 0;
			break;
		case DIF_OP_LDTS: case DIF_OP_LDGAA: case DIF_OP_LDTAA:
			if (dif_dvar(&r, op, DIF_INSTR_VAR(instr), &v) != 0)
				return 0;
			R[rd] = v;
			break;
		case DIF_OP_STTS: case DIF_OP_STGAA: case DIF_OP_STTAA:
			v = R[rd];
			if (dif_dvar(&r, op, DIF_INSTR_VAR(instr), &v) != 0)
				return 0;
			break;
		case DIF_OP_LDGA:
			if (dif_ldga(&r, DIF_INSTR_ARRAY_VAR(instr), b,
			    &v) != 0)
				return 0;
			R[rd] = v;
			break;
		case DIF_OP_CALL:
			if (dif_subr_call(&r, DIF_INSTR_SUBR(instr), &v) != 0)
				return 0;
			R[rd] = v;
			break;
		case DIF_OP_PUSHTR:
		case DIF_OP_PUSHTV:
			if (dif_push(&r, instr) != 0)
				return 0;
			break;
		case DIF_OP_POPTS:
			if (r.dr_ntup > 0)
				r.dr_ntup--;
			break;
		case DIF_OP_FLUSHTS:
			r.dr_ntup = 0;
			break;
		case DIF_OP_ALLOCS:
			if ((v = dif_salloc(&r, a)) == 0)
				return 0;
			R[rd] = v;
			break;
		case DIF_OP_COPYS:
			if (dif_copys(&r, a, b, R[rd]) != 0)
				return 0;
			break;
		default:
			/*
			 * ldta (no thread-local built-in arrays exist) and
			 * anything that cannot pass dif_validate(): illegal
			 * operation.
			 */
			dif_fault(&r, DTRACEFLT_ILLOP, op);
			return 0;
		}
	}
	return 0;
}

/*
 * Copy a by-reference result or a string into a record slot of "size"
 * bytes.  Strings are bounded by strsize as well and NUL-padded.
 */
int
dif_copy_result(const struct dif_object *difo, struct dif_mstate *mstate,
    uint64_t val, void *dst, uint32_t size, int isstr)
{
	uint32_t n = size;

	if (size == 0)
		return 0;
	if (isstr) {
		if (mstate->dm_strsize != 0 && mstate->dm_strsize < n)
			n = mstate->dm_strsize;
		if (dif_copystr_block(difo, mstate, val, dst, n) < 0)
			return -EFAULT;
		memset((char *)dst + n, 0, size - n);
		return 0;
	}
	return dif_read(difo, mstate, val, dst, size);
}

const char *
dif_fault_str(uint32_t fault)
{
	switch (fault) {
	case DTRACEFLT_BADADDR: return "invalid address";
	case DTRACEFLT_BADALIGN: return "invalid alignment";
	case DTRACEFLT_ILLOP: return "illegal operation";
	case DTRACEFLT_DIVZERO: return "divide-by-zero";
	case DTRACEFLT_NOSCRATCH: return "out of scratch space";
	case DTRACEFLT_KPRIV: return "invalid kernel access";
	case DTRACEFLT_UPRIV: return "invalid user access";
	case DTRACEFLT_TUPOFLOW: return "tuple stack overflow";
	case DTRACEFLT_BADSTACK: return "bad stack";
	case DTRACEFLT_LIBRARY: return "library-level fault";
	default: return "unknown fault";
	}
}
