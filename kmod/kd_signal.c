/*
 * kd_signal.c -- raise() and stop(): signals sent on behalf of a probe.
 *
 * This is the kernel half of kenv_signal() (common/kdt_env.h); common/ecb.c
 * calls it when a destructive clause runs raise(sig) or stop(), after
 * checking the signal number (1..ECB_SIG_MAX, an illegal-operation fault
 * otherwise) and that destructive actions were allowed (-w).
 *
 * A probe fires in any context: in an NMI, with interrupts off, inside the
 * scheduler or inside the signal code itself, holding locks that sending a
 * signal takes (the task's siglock, the runqueue lock for the wakeup).
 * Sending there could deadlock, so the probe only records the request and
 * the signal is sent later, from an irq_work on the same CPU: it runs as
 * soon as the probe's CPU has interrupts on again (a self-IPI on x86), in
 * a context where the kernel itself sends signals (timers, SIGIO).  This
 * is the shape of the kernel's bpf_send_signal(), written for kdt.
 *
 * Each CPU has KD_SIG_SLOTS request slots, each with its own irq_work.
 * The probe claims a free slot with a cmpxchg on ks_busy (no lock, so NMI
 * safe), pins the task with get_task_struct() (an atomic increment) and
 * queues the work; the work copies the request, frees the slot, sends the
 * signal and drops the task reference.  The search starts at the slot
 * after the CPU's last claim (kc_next) and reads ks_busy before trying
 * the cmpxchg, so a mostly idle set costs one or two reads.  KD_SIG_SLOTS
 * is 64: a tight loop of system calls with raise() on each, or many
 * raise() clauses on one firing, fits between two interrupt windows.
 * A probe that still finds every slot of its CPU busy drops the request
 * and returns -1; common/ecb.c counts it in the enabling's per-CPU
 * ec_sigdrops, which KIO_STATUS sums into kst_sigdrops and the consumer
 * prints as "N signal drops" while tracing runs, like dtrace's dynamic
 * variable drops.  The module-wide count is also logged when kdt.ko is
 * unloaded.  dtrace's raise() is as best-effort: a signal that is
 * already pending is not queued twice either.
 *
 * raise(sig) is directed at the current thread (send_sig_info(), as
 * dtrace's raise() signals the thread that hit the probe); stop() sends
 * SIGSTOP, which stops every thread of the process, as dtrace's stop()
 * does.  Kernel threads (and the idle tasks) have no user context to
 * deliver a signal to, and exiting tasks are past caring: both are left
 * alone, without a fault.
 *
 * breakpoint() stays refused (kd_probe.c): see the comment there.
 */
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/signal.h>

#include "kd_impl.h"

#define KD_SIG_SLOTS	64	/* pending requests per CPU */

struct kd_sigslot {
	struct irq_work	ks_work;
	struct task_struct *ks_task;	/* referenced while ks_busy */
	int		ks_sig;
	int		ks_busy;	/* 0 free, 1 claimed or queued */
};

struct kd_sigcpu {
	struct kd_sigslot kc_slot[KD_SIG_SLOTS];
	unsigned long	kc_dropped;	/* requests that found no slot */
	unsigned int	kc_next;	/* where the next search starts */
};

/*
 * Zero until first used: a module's per-CPU initialisers are copied
 * without their relocations (the loader skips the per-CPU section), so
 * an IRQ_WORK_INIT() here would leave the function pointer NULL.  Each
 * slot's work is set up by the first probe that claims it (kenv_signal).
 */
static DEFINE_PER_CPU(struct kd_sigcpu, kd_sigcpu);

/* Interrupt context (irq_work): the probe has returned. */
static void
kd_signal_work(struct irq_work *w)
{
	struct kd_sigslot *s = container_of(w, struct kd_sigslot, ks_work);
	struct task_struct *t = s->ks_task;
	int sig = s->ks_sig;

	s->ks_task = NULL;
	smp_store_release(&s->ks_busy, 0);	/* fields read: reusable */
	if (t == NULL)
		return;
	(void) send_sig_info(sig, SEND_SIG_PRIV, t);
	put_task_struct(t);
}

/*
 * Probe context: no locks, no allocation, no sleeping.  0: queued or
 * deliberately ignored (no user context); -1: dropped, every slot busy.
 */
int
kenv_signal(uint32_t sig, int stop)
{
	struct task_struct *t = current;
	struct kd_sigcpu *c;
	struct kd_sigslot *s;
	unsigned long flags;
	unsigned int i, n;

	/* no user context to signal: kernel threads, idle, exiting tasks */
	if ((t->flags & (PF_KTHREAD | PF_EXITING)) || t->mm == NULL)
		return 0;
	if (stop)
		sig = SIGSTOP;
	if (sig < 1 || sig > _NSIG)
		return 0;	/* ecb.c has already faulted it */
	local_irq_save(flags);	/* stay on this CPU's slots */
	c = this_cpu_ptr(&kd_sigcpu);
	for (n = 0; n < KD_SIG_SLOTS; n++) {
		i = (READ_ONCE(c->kc_next) + n) % KD_SIG_SLOTS;
		s = &c->kc_slot[i];
		if (READ_ONCE(s->ks_busy) != 0 ||
		    cmpxchg(&s->ks_busy, 0, 1) != 0)
			continue;
		WRITE_ONCE(c->kc_next, (i + 1) % KD_SIG_SLOTS);
		/* never queued yet (the slot was free), so not running */
		if (s->ks_work.func == NULL)
			init_irq_work(&s->ks_work, kd_signal_work);
		s->ks_task = get_task_struct(t);
		s->ks_sig = (int)sig;
		irq_work_queue(&s->ks_work);
		local_irq_restore(flags);
		return 0;
	}
	c->kc_dropped++;
	local_irq_restore(flags);
	return -1;
}

/* Module unload: no probe fires any more; let queued signals go out. */
void
kd_signal_exit(void)
{
	unsigned long dropped = 0;
	struct kd_sigcpu *c;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&kd_sigcpu, cpu);
		for (i = 0; i < KD_SIG_SLOTS; i++)
			irq_work_sync(&c->kc_slot[i].ks_work);
		dropped += c->kc_dropped;
	}
	if (dropped != 0)
		pr_info("kdt: %lu raise()/stop() signals were dropped: more than %d per CPU were pending at once\n",
		    dropped, KD_SIG_SLOTS);
}
