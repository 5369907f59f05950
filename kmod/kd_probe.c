/*
 * kd_probe.c -- probe context in kdt.ko: hand each probe firing to the
 * ECB runner that kdt.ko shares with the userspace engine (common/ecb.h
 * holds the theory: predicates, actions by role, records, aggregations,
 * speculations, faults and the ERROR probe).
 *
 * kd_fire() is the one entry: the kprobe pre-handler (fbt) and kd_anon.c
 * (BEGIN) call it.  With interrupts off it describes the probe to the
 * runner (struct ecb_probe), takes the probe arguments from the registers
 * and calls ecb_fire() for this CPU; records go into this CPU's buffer of
 * the region (rgn.h has the commit protocol).  Aggregation buffers live
 * in ordinary kernel memory for now (postmortem aggregations are a later
 * issue).
 *
 * Everything used here was allocated by kd_probe_alloc() (ecb_create())
 * before the first probe was registered and is freed only after the last
 * was unregistered.
 */
#include <linux/kprobes.h>
#include <linux/irqflags.h>
#include <linux/hardirq.h>
#include <linux/ptrace.h>
#include <linux/smp.h>
#include <linux/slab.h>

#include "kd_impl.h"

/*
 * Per-CPU aggregation buffer bytes when the program sets no aggsize:
 * dtrace(1)'s 4 MiB per CPU is too much kernel memory on a large machine
 * at boot, and the consumer drains the buffers.
 */
#define KD_AGGSIZE_DEFAULT	(256ULL << 10)

/*
 * Action kinds kdt.ko can run: ecb.c runs every kind, but the kernel has
 * no stack walker, no symbol records and no destructive actions wired up
 * yet, so those are refused at load instead of recording nothing.
 */
static int
kd_act_supported(const struct dof_laction *la)
{
	switch (la->la_kind) {
	case DTRACEACT_DIFEXPR:
	case DTRACEACT_PRINTF:
	case DTRACEACT_EXIT:
	case DTRACEACT_PRINTA:
	case DTRACEACT_LIBACT:
	case DTRACEACT_TRACEMEM:
	case DTRACEACT_TRACEMEM_DYNSIZE:
	case DTRACEACT_SPECULATE:
	case DTRACEACT_COMMIT:
	case DTRACEACT_DISCARD:
		return 1;
	default:
		return DTRACEACT_ISAGG(la->la_kind);
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
			kd_fail("ECB %u (%s:%s:%s:%s) action %u: kind 0x%x is not supported by this kdt.ko (supported: trace, printf, printa, tracemem, exit, aggregations, speculations, clear/trunc/normalize)",
			    i, le->le_pdesc.lp_prov, le->le_pdesc.lp_mod,
			    le->le_pdesc.lp_func, le->le_pdesc.lp_name, j,
			    le->le_acts[j].la_kind);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/* Allocate the runner's per-CPU resources for "den".  Setup context. */
int
kd_probe_alloc(const struct dof_enabling *den)
{
	struct kd_state *ks = &kd_state;
	struct ecb_params p;
	struct kdt_err err;
	int rv;

	if ((rv = kd_check_actions(den)) != 0)
		return rv;
	ecb_params_init(&p, den, nr_cpu_ids);
	p.ep_policy = ks->ks_policy;
	if (den->den_opts[DTRACEOPT_AGGSIZE] == DTRACEOPT_UNSET)
		p.ep_aggsize = KD_AGGSIZE_DEFAULT;
	rv = ecb_create(den, &p, &ks->ks_es, &err);
	if (rv != 0) {
		kd_fail("%s", err.ke_msg);
		return rv;
	}
	ecb_set_region(ks->ks_es, ks->ks_region);
	return 0;
}

/* BEGIN has fired: later probes may run unless exit() was called. */
void
kd_probe_started(void)
{
	struct ecb_state *es = kd_state.ks_es;

	if (es != NULL && READ_ONCE(es->es_state) == ECB_ST_WARMUP)
		ecb_set_state(es, ECB_ST_ACTIVE);
}

void
kd_probe_free(void)
{
	struct kd_state *ks = &kd_state;

	ecb_destroy(ks->ks_es);
	ks->ks_es = NULL;
}

/* Probe context: no locks, no allocation, no sleeping. */
static void
kd_describe(struct ecb_probe *ep, const struct kd_probe *kp)
{
	ep->ep_id = kp->kp_id;
	ep->ep_kind = kp == kd_begin_probe() ? ECB_PK_BEGIN : ECB_PK_OTHER;
	ep->ep_prov = kp->kp_prov;
	ep->ep_mod = kp->kp_mod;
	ep->ep_func = kp->kp_func;
	ep->ep_name = kp->kp_name;
	ep->ep_ecbs = kp->kp_ecbs;
	ep->ep_necbs = kp->kp_necbs;
}

/*
 * Run every ECB of probe "kp" on this CPU.  "regs" is NULL for the dtrace
 * provider's probes (their arguments are 0).
 * Probe context: no locks, no allocation, no sleeping.
 */
void
kd_fire(struct kd_probe *kp, struct pt_regs *regs)
{
	struct ecb_state *es = kd_state.ks_es;
	uint64_t args[DIF_NARGS];
	struct ecb_probe ep;
	unsigned long flags;
	uint32_t i;

	if (es == NULL)
		return;
	local_irq_save(flags);
	if (in_nmi())
		goto out;
	for (i = 0; i < DIF_NARGS; i++)
		args[i] = regs != NULL ? regs_get_kernel_argument(regs, i) : 0;
	kd_describe(&ep, kp);
	ecb_fire(es, &ep, raw_smp_processor_id(), args, kenv_timestamp());
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
