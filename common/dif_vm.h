/*
 * dif_vm.h -- the DIF validator and emulator.
 *
 * dif_validate() enforces the rules of reference section 2.5 (numbered in
 * dif_valid.c); it is called by dof_load() on every DIF object, so the
 * emulator can trust register numbers, table indices and branch targets.
 *
 * dif_emulate() runs one validated object in probe context.  It never
 * faults the machine: every load from traced memory goes through
 * kenv_read(); loads and stores into DTrace memory (scratch, string tables)
 * are bounds-checked; a problem stops the object with a fault recorded in
 * the machine state (dm_fault, dm_fault_addr, dm_fault_pc), exactly as the
 * ERROR probe will later report it.
 *
 * String values are addresses: of the object's STRTAB, or of scratch.
 * The scratch area belongs to the caller (per CPU in kdt.ko) and is reset
 * for every probe firing.
 */
#ifndef KDT_DIF_VM_H
#define KDT_DIF_VM_H

#include "kdt_env.h"
#include "kdt_err.h"
#include "dof_load.h"

#define DIF_NARGS	10

/* What the probe knows at firing time.  Filled by the provider. */
struct dif_probe_ctx {
	uint32_t	pc_id;		/* probe id */
	uint32_t	pc_epid;	/* EPID of the running ECB */
	const char	*pc_prov;
	const char	*pc_mod;
	const char	*pc_func;
	const char	*pc_name;
	uint64_t	pc_args[DIF_NARGS];
	uint64_t	pc_timestamp;	/* taken once per firing */
	uint32_t	pc_cpu;
};

/* Per-execution machine state.  Probe context: caller-owned storage. */
struct dif_mstate {
	char		*dm_scratch;	/* base of scratch */
	uint64_t	dm_scratch_size;
	uint64_t	dm_scratch_used;
	uint32_t	dm_strsize;	/* strsize option */
	uint32_t	dm_fault;	/* DTRACEFLT_*, 0 = none */
	uint32_t	dm_faulted;	/* non-zero once a fault happened */
	uint64_t	dm_fault_addr;
	uint32_t	dm_fault_pc;	/* instruction index */
};

/* Validate one object; -EINVAL with "err" naming instruction and rule. */
int dif_validate(const struct dif_object *difo, struct kdt_err *err);

/*
 * Run "difo" and return its result (for string or by-reference results,
 * an address valid until the scratch is reset).  On a fault returns 0 with
 * mstate->dm_faulted set.  Probe context: no locks, no allocation, no
 * sleeping.
 */
uint64_t dif_emulate(const struct dif_object *difo, struct dif_mstate *mstate,
    const struct dif_probe_ctx *ctx);

/*
 * Read "size" bytes of a DIF value (a by-reference result or a string
 * address) into dst, whichever memory it lives in (STRTAB, scratch or
 * traced memory); strings are NUL-padded.  0 or -EFAULT.  Probe context.
 */
int dif_copy_result(const struct dif_object *difo, struct dif_mstate *mstate,
    uint64_t val, void *dst, uint32_t size, int isstr);

/* Text of a fault code, as dtrace(1) prints it ("invalid address"). */
const char *dif_fault_str(uint32_t fault);

#endif /* KDT_DIF_VM_H */
