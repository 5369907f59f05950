/*
 * dif_impl.h -- private to the DIF emulator: the running machine and the
 * memory helpers that dif_vm.c (the interpreter loop, variables) and
 * dif_subr.c (the subroutines of "call") share.  Nothing else includes
 * it; the public contract is dif_vm.h.
 *
 * Memory model (details on dif_vm.c): "owned" memory -- the object's
 * STRTAB and INTTAB, allocated scratch, the variable-state area and the
 * clause-local slots -- is read directly after a bounds check; any other
 * address is traced memory, read only through kenv_read*(), never
 * dereferenced.  DIF stores go only where dif_writable() allows.
 */
#ifndef KDT_DIF_IMPL_H
#define KDT_DIF_IMPL_H

#include "kdt_env.h"
#include "dif.h"
#include "dif_vm.h"

#define DIF_CHUNK	64	/* bytes of a string read at a time */
#define DIF_PAGE	4096	/* traced-memory chunks stay in one page */
#define DIF_REGMASK	(DIF_DIR_NREGS - 1)	/* NREGS is a power of 2 */

struct dif_tuple {
	uint64_t	dt_value;
	uint64_t	dt_size;	/* 0: pushed by value */
	uint32_t	dt_type;	/* DIF_TYPE_CTF_T or _STRING_T */
};

/* The running machine: the caller's state plus registers and tuples. */
struct dif_run {
	const struct dif_object *dr_difo;
	struct dif_mstate *dr_ms;
	const struct dif_probe_ctx *dr_ctx;
	uint64_t	dr_regs[DIF_DIR_NREGS];
	struct dif_tuple dr_tup[DIF_TUPLE_MAX];
	uint32_t	dr_ntup;
	uint32_t	dr_pc;
};

/* [addr, addr + size) inside [base, base + len)? */
int dif_in(uint64_t addr, uint64_t size, const void *base, uint64_t len);

/* Owned bytes readable from "addr" on, or 0 for traced memory. */
uint64_t dif_owned(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr);

/* May DIF write [addr, addr + size)?  (dif_vm.h, "Writable memory".) */
int dif_writable(const struct dif_mstate *ms, uint64_t addr, uint64_t size);

/* Read "size" bytes at "addr" from wherever they live.  0 or -EFAULT. */
int dif_read(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr, void *dst, uint32_t size);

/* Length of the string at "addr" bounded by "limit"; NULL is "". */
int dif_strlen(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr, uint64_t limit, uint64_t *len);

/* Copy a string (at most size - 1 bytes, NUL-padded).  Length or -EFAULT. */
int dif_copystr(const struct dif_object *difo, const struct dif_mstate *ms,
    uint64_t addr, char *dst, uint32_t size);

/* Record a fault in the machine state. */
void dif_fault(struct dif_run *r, uint32_t code, uint64_t addr);

/* "size" zeroed 8-aligned scratch bytes, or 0 with a NOSCRATCH fault. */
uint64_t dif_salloc(struct dif_run *r, uint64_t size);

/*
 * Make the string at "addr" directly readable: owned memory is used in
 * place, traced memory is copied into scratch.  *p and *len (bounded by
 * strsize, NUL not counted; an owned string of strsize characters may
 * have no NUL after it) describe it.  0, or a recorded fault.
 */
int dif_sfetch(struct dif_run *r, uint64_t addr, const char **p,
    uint32_t *len);

/* Run subroutine "subr" on the tuple stack.  0, or a recorded fault. */
int dif_subr_call(struct dif_run *r, uint32_t subr, uint64_t *val);

#endif /* KDT_DIF_IMPL_H */
