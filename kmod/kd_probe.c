/*
 * kd_probe.c -- probe context: running an enabling's ECBs when a probe
 * fires, and writing their records into the region.
 *
 * kd_fire() is the one entry: the kprobe pre-handler (fbt) and kd_anon.c
 * (BEGIN) call it.  With interrupts off it takes this CPU's kd_cpu (a
 * probe firing inside a probe on the same CPU is dropped and counted in
 * rc_drops), fills a dif_probe_ctx, and for each ECB attached to the probe
 * runs the predicate and the actions with common/dif_vm.c, building the
 * payload in the CPU's staging buffer at the offsets dof_load() computed
 * (dof_load.h); a fault abandons that ECB's record and counts in
 * rc_errors.  A complete payload is copied into the CPU's ring buffer with
 * rgn_reserve()/rgn_commit() (rgn.h holds the commit protocol).
 *
 * Everything used here was allocated by kd_probe_alloc() before the first
 * probe was registered and is freed only after the last was unregistered.
 */
#include <linux/kprobes.h>
#include <linux/irqflags.h>
#include <linux/hardirq.h>
#include <linux/ptrace.h>
#include <linux/smp.h>
#include <linux/slab.h>

#include "kd_impl.h"

/* Action kinds whose records kd_run_act knows how to produce. */
static int
kd_act_supported(const struct dof_laction *la)
{
	switch (la->la_kind) {
	case DTRACEACT_DIFEXPR:
	case DTRACEACT_PRINTF:
	case DTRACEACT_EXIT:
		return 1;
	default:
		return 0;
	}
}

/* Check that every action can run here; log the first one that cannot. */
static int
kd_check_actions(const struct dof_enabling *den)
{
	const struct dof_lecb *le;
	uint32_t i, j;

	for (i = 0; i < den->den_necbs; i++) {
		le = &den->den_ecbs[i];
		for (j = 0; j < le->le_nacts; j++) {
			if (kd_act_supported(&le->le_acts[j]))
				continue;
			kd_fail("ECB %u (%s:%s:%s:%s) action %u: kind 0x%x is not supported by this kdt.ko (supported: trace, printf, exit)",
			    i, le->le_pdesc.lp_prov, le->le_pdesc.lp_mod,
			    le->le_pdesc.lp_func, le->le_pdesc.lp_name, j,
			    le->le_acts[j].la_kind);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/* Allocate the per-CPU scratch and staging buffers for "den". */
int
kd_probe_alloc(const struct dof_enabling *den)
{
	struct kd_state *ks = &kd_state;
	uint32_t i, stage = 8;
	int cpu, rv;

	if ((rv = kd_check_actions(den)) != 0)
		return rv;
	for (i = 0; i < den->den_necbs; i++)
		stage = max(stage, den->den_ecbs[i].le_size);
	ks->ks_stage_size = stage;
	ks->ks_scratch_size = KD_SCRATCH_BASE + den->den_strsize;
	ks->ks_cpus = kvcalloc(nr_cpu_ids, sizeof (*ks->ks_cpus), GFP_KERNEL);
	if (ks->ks_cpus == NULL)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		ks->ks_cpus[cpu].kc_scratch = kvzalloc(ks->ks_scratch_size,
		    GFP_KERNEL);
		ks->ks_cpus[cpu].kc_stage = kvzalloc(stage, GFP_KERNEL);
		if (ks->ks_cpus[cpu].kc_scratch == NULL ||
		    ks->ks_cpus[cpu].kc_stage == NULL)
			return -ENOMEM;
	}
	return 0;
}

void
kd_probe_free(void)
{
	struct kd_state *ks = &kd_state;
	int cpu;

	if (ks->ks_cpus == NULL)
		return;
	for_each_possible_cpu(cpu) {
		kvfree(ks->ks_cpus[cpu].kc_scratch);
		kvfree(ks->ks_cpus[cpu].kc_stage);
	}
	kvfree(ks->ks_cpus);
	ks->ks_cpus = NULL;
}

/* Probe context: no locks, no allocation, no sleeping. */
static void
kd_mstate_reset(struct dif_mstate *ms, struct kd_cpu *kc)
{
	memset(ms, 0, sizeof (*ms));
	ms->dm_scratch = kc->kc_scratch;
	ms->dm_scratch_size = kd_state.ks_scratch_size;
	ms->dm_strsize = kd_state.ks_den->den_strsize;
}

/*
 * Store an integer result of "size" bytes (1, 2, 4 or 8) in native order.
 * Probe context: no locks, no allocation, no sleeping.
 */
static void
kd_store_int(uint8_t *dst, uint64_t v, uint32_t size)
{
	uint8_t v1 = (uint8_t)v;
	uint16_t v2 = (uint16_t)v;
	uint32_t v4 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(dst, &v1, 1);
		break;
	case 2:
		memcpy(dst, &v2, 2);
		break;
	case 4:
		memcpy(dst, &v4, 4);
		break;
	default:
		memcpy(dst, &v, 8);
		break;
	}
}

/*
 * Run one action and store its data in the staging buffer.  -EFAULT when
 * the DIF object faulted or its data could not be read.
 * Probe context: no locks, no allocation, no sleeping.
 */
static int
kd_run_act(const struct dof_laction *la, struct dif_mstate *ms,
    const struct dif_probe_ctx *ctx, uint8_t *stage)
{
	uint8_t *dst = stage + la->la_rec_off;
	uint64_t v = 0;
	int byref;

	if (la->la_difo != NULL) {
		v = dif_emulate(la->la_difo, ms, ctx);
		if (ms->dm_faulted)
			return -EFAULT;
	}
	if (la->la_rec_size == 0 || la->la_difo == NULL)
		return 0;	/* no data, or zeroes (staging is cleared) */
	if (la->la_kind == DTRACEACT_EXIT) {
		kd_store_int(dst, v, 4);
		return 0;
	}
	byref = la->la_rec_isstr ||
	    (la->la_difo->do_rtype.dtdt_flags & DIF_TF_BYREF) != 0;
	if (byref || (la->la_rec_size != 1 && la->la_rec_size != 2 &&
	    la->la_rec_size != 4 && la->la_rec_size != 8))
		return dif_copy_result(la->la_difo, ms, v, dst,
		    la->la_rec_size, la->la_rec_isstr) != 0 ? -EFAULT : 0;
	kd_store_int(dst, v, la->la_rec_size);
	return 0;
}

/*
 * Run ECB "er" for the current firing: predicate, actions, record.
 * Probe context: no locks, no allocation, no sleeping.
 */
static void
kd_run_ecb(struct kd_cpu *kc, struct rgn_cpu *rc,
    const struct kd_ecbref *er, struct dif_probe_ctx *ctx)
{
	const struct dof_lecb *le = &kd_state.ks_den->den_ecbs[er->er_ecb];
	struct dif_mstate ms;
	struct rgn_rec *rec;
	uint32_t i;

	ctx->pc_epid = er->er_epid;
	kd_mstate_reset(&ms, kc);
	if (le->le_pred != NULL) {
		if (dif_emulate(le->le_pred, &ms, ctx) == 0 || ms.dm_faulted) {
			if (ms.dm_faulted)
				WRITE_ONCE(rc->rc_errors, rc->rc_errors + 1);
			return;
		}
	}
	memset(kc->kc_stage, 0, le->le_size);
	for (i = 0; i < le->le_nacts; i++) {
		if (kd_run_act(&le->le_acts[i], &ms, ctx, kc->kc_stage) != 0) {
			WRITE_ONCE(rc->rc_errors, rc->rc_errors + 1);
			return;
		}
	}
	if (le->le_size == 0 && le->le_nacts != 0)
		return;	/* actions that record nothing: no record */
	rec = rgn_reserve(rc, kd_state.ks_policy, le->le_size);
	if (rec == NULL)
		return;
	memcpy(rec + 1, kc->kc_stage, le->le_size);
	rgn_commit(rc, rec, er->er_epid, ctx->pc_timestamp);
}

/* Probe context: no locks, no allocation, no sleeping. */
static void
kd_fill_ctx(struct dif_probe_ctx *ctx, const struct kd_probe *kp,
    struct pt_regs *regs, uint32_t cpu)
{
	uint32_t i;

	memset(ctx, 0, sizeof (*ctx));
	ctx->pc_id = kp->kp_id;
	ctx->pc_prov = kp->kp_prov;
	ctx->pc_mod = kp->kp_mod;
	ctx->pc_func = kp->kp_func;
	ctx->pc_name = kp->kp_name;
	ctx->pc_timestamp = kenv_timestamp();
	ctx->pc_cpu = cpu;
	for (i = 0; regs != NULL && i < DIF_NARGS; i++)
		ctx->pc_args[i] = regs_get_kernel_argument(regs, i);
}

/*
 * Run every ECB of probe "kp" on this CPU.  "regs" is NULL for the dtrace
 * provider's probes (their arguments are 0).
 * Probe context: no locks, no allocation, no sleeping.
 */
void
kd_fire(struct kd_probe *kp, struct pt_regs *regs)
{
	struct kd_state *ks = &kd_state;
	struct dif_probe_ctx ctx;
	struct rgn_cpu *rc;
	struct kd_cpu *kc;
	unsigned long flags;
	uint32_t cpu, i;

	local_irq_save(flags);
	if (in_nmi())
		goto out;
	cpu = raw_smp_processor_id();
	rc = rgn_cpu(ks->ks_region, cpu);
	if (rc == NULL)
		goto out;
	kc = &ks->ks_cpus[cpu];
	if (kc->kc_busy) {
		WRITE_ONCE(rc->rc_drops, rc->rc_drops + 1);
		goto out;
	}
	kc->kc_busy = 1;
	kd_fill_ctx(&ctx, kp, regs, cpu);
	for (i = 0; i < kp->kp_necbs; i++)
		kd_run_ecb(kc, rc, &kp->kp_ecbs[i], &ctx);
	kc->kc_busy = 0;
out:
	local_irq_restore(flags);
}

/*
 * The fbt kprobe pre-handler; records only once BEGIN has fired.
 * Probe context: no locks, no allocation, no sleeping.
 */
int
kd_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (READ_ONCE(kd_state.ks_active))
		kd_fire(container_of(p, struct kd_probe, kp_kprobe), regs);
	return 0;
}
