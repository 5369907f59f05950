/*
 * kd_probe.c -- probe context in kdt.ko: hand each probe firing to the
 * ECB runner that kdt.ko shares with the userspace engine (common/ecb.h
 * holds the theory: predicates, actions by role, records, aggregations,
 * speculations, faults and the ERROR probe).
 *
 * kd_fire() is the one entry for providers' handlers (kprobes, hrtimers,
 * tracepoints): with interrupts off it calls ecb_fire() for this CPU with
 * the probe's struct ecb_probe (filled once by kd_cs.c) and the arguments
 * the provider collected; records go into this CPU's principal buffer of
 * the state.  A state records only between BEGIN and END (cs_active);
 * kd_fire_state() is how kd_cs.c fires BEGIN and END themselves.
 *
 * A firing that arrives while this CPU is already inside kd_run() is not
 * run: only an NMI can get there (interrupts are off), and it would find
 * the runner's per-CPU data, which has one user at a time, half way
 * through a record.  Such firings are counted as missed (reported as
 * drops).  NMI context as such is not refused: on x86 every int3 kprobe
 * handler runs as an NMI (exc_int3 enters with irqentry_nmi_enter), so a
 * test of in_nmi() would drop every firing of a kprobe that is neither
 * ftrace-based nor optimised yet -- kinst probes, and every probe armed by
 * a built-in kdt before the optimiser runs.  The nesting count is a
 * per-CPU this_cpu_inc_return(), a single instruction an NMI cannot split.
 *
 * Everything used here was allocated before the state's first probe was
 * armed and is freed only after its last was disarmed (kd_impl.h).
 */
#include <linux/kprobes.h>
#include <linux/irqflags.h>
#include <linux/hardirq.h>
#include <linux/ptrace.h>
#include <linux/smp.h>

#include "kd_impl.h"

/*
 * Action kinds kdt.ko can run.  ecb.c knows every kind; those whose
 * kernel side is not wired up here (breakpoint) are refused at load
 * instead of recording nothing.  Destructive ones (panic, chill, raise,
 * stop, system, freopen) also need -w (ecb_create checks); system and
 * freopen are recorded like printf and carried out by the consumer;
 * raise and stop are queued and sent after the probe (kd_signal.c).
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
	case DTRACEACT_STACK:
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:	/* a ustack(): no Java helper in Linux */
	case DTRACEACT_SYM:
	case DTRACEACT_MOD:
	case DTRACEACT_USYM:	/* (pid, address): the consumer names it */
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
	case DTRACEACT_RAISE:	/* queued, sent after the probe: kd_signal.c */
	case DTRACEACT_STOP:
	case DTRACEACT_PANIC:
	case DTRACEACT_CHILL:
	case DTRACEACT_SYSTEM:		/* recorded; the consumer runs it */
	case DTRACEACT_FREOPEN:
		return 1;
	/*
	 * breakpoint() stays refused.  dtrace's stops the system in the
	 * kernel debugger; Linux has one only with CONFIG_KGDB and a
	 * configured I/O driver (kgdboc=), which Debian's kernels do not
	 * set up, and entering kgdb from a probe that may hold any lock
	 * (or run in NMI) with nobody attached stops the machine for good.
	 * A clear refusal at load is safer than a hang that looks like a
	 * kdt bug.
	 */
	default:
		return DTRACEACT_ISAGG(la->la_kind);
	}
}

int
kd_check_actions(struct kd_cstate *cs, const struct dof_enabling *den)
{
	const struct dof_lecb *le;
	uint32_t i, j;

	for (i = 0; i < den->den_necbs; i++) {
		le = &den->den_ecbs[i];
		for (j = 0; j < le->le_nacts; j++) {
			if (kd_act_supported(&le->le_acts[j]))
				continue;
			kd_cs_msg(cs, "ECB %u (%s:%s:%s:%s) action %u: kind 0x%x is not supported by this kdt.ko (supported: trace, printf, printa, tracemem, exit, stack, ustack, jstack, sym, mod, usym, umod, uaddr, raise, stop, panic, chill, system, freopen, aggregations; breakpoint() is not: Linux has no kernel debugger to stop in by default, speculations, clear/trunc/normalize)",
			    i, le->le_pdesc.lp_prov, le->le_pdesc.lp_mod,
			    le->le_pdesc.lp_func, le->le_pdesc.lp_name, j,
			    le->le_acts[j].la_kind);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

DEFINE_PER_CPU(struct pt_regs *, kd_probe_regs);
DEFINE_PER_CPU(int, kd_probe_entry);
static DEFINE_PER_CPU(int, kd_probe_depth);

/* Probe context: no locks, no allocation, no sleeping. */
static void
kd_run(struct kd_probe *kp, const uint64_t *args, int32_t err,
    struct pt_regs *regs, int at_entry)
{
	struct kd_cstate *cs = kp->kp_cs;
	struct pt_regs *prev;
	unsigned long flags;
	int prev_entry;

	local_irq_save(flags);
	if (this_cpu_inc_return(kd_probe_depth) != 1) {
		atomic64_inc(&cs->cs_missed);
	} else if (kp->kp_simple && args != NULL) {
		/* ecb.h; it reads nothing of kd_probe_regs */
		ecb_fire_simple(cs->cs_es, &kp->kp_ep,
		    raw_smp_processor_id(), args, 0);
	} else {
		prev = this_cpu_read(kd_probe_regs);
		prev_entry = this_cpu_read(kd_probe_entry);
		this_cpu_write(kd_probe_regs, regs);
		this_cpu_write(kd_probe_entry, at_entry);
		ecb_fire_errno(cs->cs_es, &kp->kp_ep,
		    raw_smp_processor_id(), args, 0,
		    err);	/* timestamp: when needed (ecb.c) */
		this_cpu_write(kd_probe_regs, prev);
		this_cpu_write(kd_probe_entry, prev_entry);
	}
	this_cpu_dec(kd_probe_depth);
	local_irq_restore(flags);
}

/*
 * The gate (ecb.h) at kd_fire()'s depth: tracepoints, syscalls, fbt
 * return (their pv_enable sets kp_gated; fbt entry gates in its handler).
 * Out of line, so that an ungated probe's kd_fire() stays a test and a
 * jump to kd_run() (inlined, it cost every firing ~12 instructions of
 * saved registers).
 */
static noinline void
kd_fire_gated(struct kd_probe *kp, const uint64_t *args, int32_t err)
{
	if (args != NULL && !ecb_gate_open(kp->kp_cs->cs_es, &kp->kp_ep, args,
	    raw_smp_processor_id()))
		return;
	kd_run(kp, args, err, NULL, 0);
}

void
kd_fire(struct kd_probe *kp, const uint64_t *args, int32_t err)
{
	if (!READ_ONCE(kp->kp_cs->cs_active))
		return;
	smp_rmb();	/* cs_active was published after the runner */
	if (kp->kp_gated)
		kd_fire_gated(kp, args, err);
	else
		kd_run(kp, args, err, NULL, 0);
}

/* One DIF object reads arg6..arg9, or args[] with any index. */
static int
kd_difo_stackargs(const struct dif_object *d)
{
	uint32_t i, in, var;

	for (i = 0; d != NULL && i < d->do_textlen; i++) {
		in = d->do_text[i];
		var = DIF_INSTR_VAR(in);
		if (DIF_INSTR_OP(in) == DIF_OP_LDGS &&
		    var >= DIF_VAR_ARG0 + 6 && var <= DIF_VAR_ARG9)
			return 1;
		if (DIF_INSTR_OP(in) == DIF_OP_LDGA &&
		    DIF_INSTR_ARRAY_VAR(in) == DIF_VAR_ARGS)
			return 1;
	}
	return 0;
}

int
kd_need_stackargs(const struct dof_enabling *den)
{
	const struct dof_lecb *le;
	uint32_t i, j;

	for (i = 0; i < den->den_necbs; i++) {
		le = &den->den_ecbs[i];
		if (kd_difo_stackargs(le->le_pred))
			return 1;
		for (j = 0; j < le->le_nacts; j++)
			if (kd_difo_stackargs(le->le_acts[j].la_difo))
				return 1;
	}
	return 0;
}

/*
 * Arguments 0-5 are registers; 6-9 live on the stack, and reading them
 * is a fault-safe copy each (copy_from_kernel_nofault): a third of a
 * cheap firing.  Only a state whose clauses read them pays for it
 * (cs_stackargs, kd_need_stackargs() at enable); the others see 0.
 */
void
kd_fire_regs(struct kd_probe *kp, struct pt_regs *regs, int at_entry)
{
	uint64_t args[DIF_NARGS] KENV_NOINIT;	/* every element set */
	uint32_t i;

	if (!READ_ONCE(kp->kp_cs->cs_active))
		return;
	/* constant indexes: one load each (a loop kept the function's
	   offset table and bounds test, ~12 instructions per argument) */
	args[0] = regs_get_kernel_argument(regs, 0);
	args[1] = regs_get_kernel_argument(regs, 1);
	args[2] = regs_get_kernel_argument(regs, 2);
	args[3] = regs_get_kernel_argument(regs, 3);
	args[4] = regs_get_kernel_argument(regs, 4);
	args[5] = regs_get_kernel_argument(regs, 5);
	i = 6;
	if (kp->kp_cs->cs_stackargs)
		for (; i < DIF_NARGS; i++)
			args[i] = regs_get_kernel_argument(regs, i);
	else
		for (; i < DIF_NARGS; i++)
			args[i] = 0;
	smp_rmb();
	kd_run(kp, args, 0, regs, at_entry);
}

/*
 * The firing of a probe with kp_simple (ecb.h's simple aggregations and
 * records; a record's timestamp is read in ecb_fire_simple()):
 * ecb_fire_simple() reads no argument past ECB_GATE_NARGS and nothing of
 * kd_probe_regs, so no probe context is built and the per-CPU registers
 * are not published.  Interrupts stay off and the nesting count stays
 * (a nested firing is counted as missed, as in kd_run()): ftrace-based
 * kprobes and tracepoints call their handlers with preemption off only.
 * Inlined into its two callers so that each firing is one call deep.
 */
static __always_inline void
kd_simple_run(struct kd_cstate *cs, struct kd_probe *kp,
    const uint64_t *args)
{
	unsigned long flags;

	local_irq_save(flags);
	if (this_cpu_inc_return(kd_probe_depth) != 1)
		atomic64_inc(&cs->cs_missed);
	else
		ecb_fire_simple(cs->cs_es, &kp->kp_ep,
		    raw_smp_processor_id(), args, 0);
	this_cpu_dec(kd_probe_depth);
	local_irq_restore(flags);
}

/*
 * kd_fire_simple_regs() with ECB_SIMPLE_ARGHI: the six register
 * arguments.  The array is written at constant indexes only and passed
 * down read-only, so the stack protector (which -fstack-protector-strong
 * gives every function with a local array: ~6 instructions a firing) is
 * left out here and in kd_fire_simple_args2().
 */
static noinline __no_stack_protector void
kd_fire_simple_args(struct kd_probe *kp, struct pt_regs *regs)
{
	uint64_t args[ECB_GATE_NARGS] KENV_NOINIT;	/* every element set */
	struct kd_cstate *cs = kp->kp_cs;

	if (!READ_ONCE(cs->cs_active))
		return;
	args[0] = regs_get_kernel_argument(regs, 0);
	args[1] = regs_get_kernel_argument(regs, 1);
	args[2] = regs_get_kernel_argument(regs, 2);
	args[3] = regs_get_kernel_argument(regs, 3);
	args[4] = regs_get_kernel_argument(regs, 4);
	args[5] = regs_get_kernel_argument(regs, 5);
	smp_rmb();	/* cs_active was published after the runner */
	kd_simple_run(cs, kp, args);
}

/*
 * kd_fire_simple_regs() with ECB_SIMPLE_ARGS but not ECB_SIMPLE_ARGHI:
 * arg0 and arg1 (ecb.h: nothing reads args[2..5]; they stay unset).
 */
static noinline __no_stack_protector void
kd_fire_simple_args2(struct kd_probe *kp, struct pt_regs *regs)
{
	uint64_t args[ECB_GATE_NARGS] KENV_NOINIT;	/* [0], [1] read */
	struct kd_cstate *cs = kp->kp_cs;

	if (!READ_ONCE(cs->cs_active))
		return;
	args[0] = regs_get_kernel_argument(regs, 0);
	args[1] = regs_get_kernel_argument(regs, 1);
	smp_rmb();	/* cs_active was published after the runner */
	kd_simple_run(cs, kp, args);
}

/*
 * kd_fire_simple_regs() with ECB_SIMPLE_ARGS: all six register arguments
 * with ECB_SIMPLE_ARGHI, else arg0 and arg1.  A function of its own, so
 * that the probes that read no argument pay one bit test, not two.
 */
static noinline void
kd_fire_simple_argsel(struct kd_probe *kp, struct pt_regs *regs)
{
	if (kp->kp_simple & ECB_SIMPLE_ARGHI)
		kd_fire_simple_args(kp, regs);
	else
		kd_fire_simple_args2(kp, regs);
}

/*
 * kd_fire_regs() for a probe with kp_simple: only the register arguments
 * the ECBs read -- none (ECB_SIMPLE_ARGS clear: then no argument array
 * on the way), arg0 and arg1, or all six (ECB_SIMPLE_ARGHI).
 */
void
kd_fire_simple_regs(struct kd_probe *kp, struct pt_regs *regs)
{
	if (kp->kp_simple & ECB_SIMPLE_ARGS)
		kd_fire_simple_argsel(kp, regs);
	else
		kd_fire_simple(kp, ecb_simple_noargs);
}

/*
 * kd_fire() for a probe with kp_simple whose handler has its arguments
 * in "args" (ECB_GATE_NARGS of them; ecb_simple_noargs when the ECBs
 * read none): tracepoints and system calls.  No gate first: the
 * predicates ecb_fire_simple() tests are the gate's.
 */
void
kd_fire_simple(struct kd_probe *kp, const uint64_t *args)
{
	struct kd_cstate *cs = kp->kp_cs;

	if (!READ_ONCE(cs->cs_active))
		return;
	smp_rmb();	/* cs_active was published after the runner */
	kd_simple_run(cs, kp, args);
}

void
kd_fire_state(struct kd_probe *kp)
{
	kd_run(kp, NULL, 0, NULL, 0);
}
