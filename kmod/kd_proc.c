/*
 * kd_proc.c -- DTrace's stable process, scheduler and lock providers,
 * mapped onto the Linux hooks that mean the same thing.
 *
 *   proc:::create        sched_process_fork   arg0 child task, arg1 child pid
 *   proc:::exec-success  sched_process_exec   arg0 path (kernel string:
 *                                             stringof((char *)arg0))
 *   proc:::exit          sched_process_exit   arg0 CLD_EXITED (1),
 *                                             CLD_KILLED (2) or CLD_DUMPED
 *                                             (3), as DTrace; arg1 the
 *                                             exit status (wait(2) form)
 *   proc:::signal-send   signal_generate      arg0 target task, arg1 its
 *                                             pid, arg2 the signal
 *   sched:::off-cpu      sched_switch         in the thread leaving the
 *                                             CPU; arg0 the next task,
 *                                             arg1 its pid
 *   sched:::on-cpu       finish_task_switch   in the thread that has just
 *                        (kprobe)             come on CPU
 *   sched:::wakeup       sched_wakeup         arg0 the woken task, arg1
 *                                             its pid
 *   sched:::enqueue      enqueue_task_fair,   a task is put on a run
 *                        _rt, _dl, _stop      queue: arg0 the task, arg1
 *                        (kprobes)            its pid, arg2 the queue's
 *                                             CPU, arg3 1 if it goes to
 *                                             the front (ENQUEUE_HEAD)
 *                                             else 0 -- DTrace's args[0]
 *                                             to args[3] --, arg4 Linux's
 *                                             ENQUEUE_* flags
 *   sched:::dequeue      dequeue_task_fair,   a task is taken off a run
 *                        _rt, _dl, _stop      queue (it blocks, migrates
 *                        (kprobes)            or is requeued): arg0 the
 *                                             task, arg1 its pid, arg2
 *                                             the queue's CPU, arg3 0,
 *                                             arg4 Linux's DEQUEUE_*
 *                                             flags (DEQUEUE_SLEEP 0x1:
 *                                             it blocks)
 *   lockstat:::contention-begin  lock:contention_begin  arg0 the lock,
 *                                             arg1 the LCB_F_* flags
 *   lockstat:::contention-end    lock:contention_end    arg0 the lock,
 *                                             arg1 0 or the error
 *
 * DTrace gives these probes typed psinfo/lwpsinfo arguments through
 * translators; here the arguments are the Linux objects themselves
 * (struct task_struct pointers: args[0]->comm with a cast).  Lock
 * contention is one begin/end pair rather than DTrace's adaptive/spin/rw
 * split: the flags say which kind of lock.
 *
 * Linux has no enqueue/dequeue tracepoints.  activate_task() and
 * deactivate_task() would be the natural hooks, but the compiler inlines
 * them into their callers in kernel/sched/core.c (6.1's Debian build:
 * ttwu_do_activate and __schedule call no activate_task/deactivate_task,
 * only the class method), so a kprobe on them misses every wakeup and
 * every sleep.  The scheduling classes' enqueue_task/dequeue_task
 * methods are only ever called through the class's function pointers,
 * so they cannot be inlined: one kprobe on each class's method (fair,
 * rt, deadline, stop; the idle class queues nothing) sees every task
 * put on or taken off a run queue, including the dequeue/enqueue pairs
 * of a priority or class change (DTrace's dispatcher fires both there
 * too).  All have the prototype (struct rq *, struct task_struct *, int
 * flags); the queue's CPU is task_cpu() of the task, which the callers
 * set before enqueueing on a new CPU and after dequeueing from the old.
 * A hook the kernel lacks (a tracepoint compiled out, finish_task_switch
 * renamed) makes its probe absent, not an error.
 *
 * One kd_prov serves all three provider names (the probe's ep_prov is
 * its table entry's provider).  Each probe is one tracepoint handler
 * registration (data = the probe), one kprobe for on-cpu, or one kprobe
 * per class method that this kernel has for enqueue and dequeue.  Handlers
 * have the tracepoints' exact prototypes (6.1), so no argument is read
 * that the caller did not pass.
 */
#include <linux/tracepoint.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/signal.h>
#include <linux/binfmts.h>
#include <linux/string.h>

#include "kd_impl.h"

#define KD_PX_TP	0	/* a tracepoint */
#define KD_PX_KPROBE	1	/* a kprobe on a function (prefix match) */
#define KD_PX_CLASS	2	/* kprobes on px_hooks[], the scheduling
				   classes' methods (exact names) */
#define KD_PX_NCLASS	4	/* fair, rt, dl, stop */

#define KD_ENQUEUE_HEAD	0x10	/* kernel/sched/sched.h, 6.1 */

struct kd_pxent {
	const char	*px_prov;
	const char	*px_name;
	uint32_t	px_kind;
	const char	*px_hook;	/* tracepoint or function name */
	void		*px_fn;		/* tracepoint handler, or the kprobe
					   pre-handler of KD_PX_CLASS */
	const char	*px_hooks[KD_PX_NCLASS];	/* KD_PX_CLASS */
};

/* One of a KD_PX_CLASS probe's kprobes. */
struct kd_pxk {
	struct kprobe	k_kp;
	struct kd_probe	*k_probe;
	int		k_armed;
};

/*
 * Probe context: a class's enqueue_task/dequeue_task method was entered
 * (rq, p, flags in rdi, rsi, rdx).  Interrupts off, the rq lock held.
 */
static void
kd_px_queue(struct kprobe *p, struct pt_regs *regs, int enq)
{
	struct task_struct *t = (struct task_struct *)regs->si;
	uint64_t flags = (uint32_t)regs->dx;
	uint64_t args[DIF_NARGS] = { 0 };

	args[0] = (uintptr_t)t;
	args[1] = (uint64_t)t->pid;
	args[2] = task_cpu(t);
	args[3] = enq && (flags & KD_ENQUEUE_HEAD) ? 1 : 0;
	args[4] = flags;
	kd_fire(container_of(p, struct kd_pxk, k_kp)->k_probe, args, 0);
}

static int
kd_px_enq(struct kprobe *p, struct pt_regs *regs)
{
	kd_px_queue(p, regs, 1);
	return 0;
}

static int
kd_px_deq(struct kprobe *p, struct pt_regs *regs)
{
	kd_px_queue(p, regs, 0);
	return 0;
}

static void
kd_px_fire(void *data, uint64_t a0, uint64_t a1, uint64_t a2)
{
	uint64_t args[DIF_NARGS] = { a0, a1, a2 };

	kd_fire(data, args, 0);
}

static void
kd_px_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	kd_px_fire(data, (uintptr_t)child, (uint64_t)child->pid, 0);
}

static void
kd_px_exec(void *data, struct task_struct *p, pid_t old_pid,
    struct linux_binprm *bprm)
{
	kd_px_fire(data, (uintptr_t)bprm->filename, 0, 0);
}

static void
kd_px_exit(void *data, struct task_struct *p)
{
	int code = p->exit_code;
	uint64_t why = (code & 0x7f) == 0 ? 1 : (code & 0x80) ? 3 : 2;

	kd_px_fire(data, why, (uint64_t)(uint32_t)code, 0);
}

static void
kd_px_signal(void *data, int sig, struct kernel_siginfo *info,
    struct task_struct *task, int group, int result)
{
	kd_px_fire(data, (uintptr_t)task, (uint64_t)task->pid, (uint64_t)sig);
}

static void
kd_px_switch(void *data, bool preempt, struct task_struct *prev,
    struct task_struct *next, unsigned int prev_state)
{
	kd_px_fire(data, (uintptr_t)next, (uint64_t)next->pid, 0);
}

static void
kd_px_wakeup(void *data, struct task_struct *p)
{
	kd_px_fire(data, (uintptr_t)p, (uint64_t)p->pid, 0);
}

static void
kd_px_cbegin(void *data, void *lock, unsigned int flags)
{
	kd_px_fire(data, (uintptr_t)lock, flags, 0);
}

static void
kd_px_cend(void *data, void *lock, int ret)
{
	kd_px_fire(data, (uintptr_t)lock, (uint64_t)(int64_t)ret, 0);
}

static const struct kd_pxent kd_pxtab[] = {
	{ "proc", "create", KD_PX_TP, "sched_process_fork", kd_px_fork },
	{ "proc", "exec-success", KD_PX_TP, "sched_process_exec", kd_px_exec },
	{ "proc", "exit", KD_PX_TP, "sched_process_exit", kd_px_exit },
	{ "proc", "signal-send", KD_PX_TP, "signal_generate", kd_px_signal },
	{ "sched", "off-cpu", KD_PX_TP, "sched_switch", kd_px_switch },
	{ "sched", "on-cpu", KD_PX_KPROBE, "finish_task_switch", NULL },
	{ "sched", "wakeup", KD_PX_TP, "sched_wakeup", kd_px_wakeup },
	{ "sched", "enqueue", KD_PX_CLASS, "enqueue_task_*", kd_px_enq,
	    { "enqueue_task_fair", "enqueue_task_rt", "enqueue_task_dl",
	    "enqueue_task_stop" } },
	{ "sched", "dequeue", KD_PX_CLASS, "dequeue_task_*", kd_px_deq,
	    { "dequeue_task_fair", "dequeue_task_rt", "dequeue_task_dl",
	    "dequeue_task_stop" } },
	{ "lockstat", "contention-begin", KD_PX_TP, "contention_begin",
	    kd_px_cbegin },
	{ "lockstat", "contention-end", KD_PX_TP, "contention_end",
	    kd_px_cend },
};

/* Per probe: which hook, and whether our handler is registered. */
struct kd_px {
	const struct kd_pxent *x_ent;
	struct tracepoint *x_tp;
	unsigned long	x_addr;		/* kprobe */
	int		x_armed;
	struct kd_pxk	x_k[KD_PX_NCLASS];	/* KD_PX_CLASS */
};

struct kd_fnfind {
	const char	*ff_prefix;
	size_t		ff_len;
	unsigned long	ff_addr;
};

/* "finish_task_switch" or a compiler-made copy "finish_task_switch.isra.0" */
static int
kd_px_fnfind(void *arg, const char *name, unsigned long addr)
{
	struct kd_fnfind *ff = arg;

	if (ff->ff_addr == 0 && strncmp(name, ff->ff_prefix, ff->ff_len) == 0 &&
	    (name[ff->ff_len] == '\0' || name[ff->ff_len] == '.'))
		ff->ff_addr = addr;
	return 0;
}

/* Where the hook of "e" is in this kernel; 0 when it has none. */
static int
kd_px_resolve(const struct kd_pxent *e, struct tracepoint **tp,
    unsigned long *addr)
{
	struct kd_fnfind ff = { e->px_hook, strlen(e->px_hook), 0 };
	uint32_t i;

	if (e->px_kind == KD_PX_TP) {
		*tp = kd_tp_find(e->px_hook);
		return *tp != NULL;
	}
	if (e->px_kind == KD_PX_CLASS) {
		for (i = 0; i < KD_PX_NCLASS; i++)
			if (e->px_hooks[i] != NULL &&
			    kd_ksym_lookup(e->px_hooks[i]) != 0)
				return 1;
		return 0;
	}
	*addr = kd_ksym_lookup(e->px_hook);
	if (*addr == 0) {
		(void) kd_ksym_each(kd_px_fnfind, &ff);
		*addr = ff.ff_addr;
	}
	return *addr != 0;
}

static int
kd_px_match(struct kd_cstate *cs, const struct dof_pdesc *pd, uint32_t ecb)
{
	const struct kd_pxent *e;
	struct tracepoint *tp = NULL;
	struct kd_probe *kp;
	unsigned long addr = 0;
	uint32_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(kd_pxtab); i++) {
		e = &kd_pxtab[i];
		if (!kd_part_match(pd->lp_prov, e->px_prov) ||
		    !kd_part_match(pd->lp_mod, "") ||
		    !kd_part_match(pd->lp_func, "") ||
		    !kd_part_match(pd->lp_name, e->px_name) ||
		    !kd_px_resolve(e, &tp, &addr))
			continue;
		kp = kd_probe_attach(cs, &kd_prov_proc, i, "", "", e->px_name,
		    0, ecb);
		if (IS_ERR(kp))
			return PTR_ERR(kp);
		kp->kp_ep.ep_prov = e->px_prov;
		n++;
	}
	return n;
}

/* Probe context: the on-cpu kprobe, in the incoming thread. */
static int
kd_px_oncpu(struct kprobe *p, struct pt_regs *regs)
{
	kd_fire(container_of(p, struct kd_probe, kp_u.u_kprobe), NULL, 0);
	return 0;
}

/*
 * Arm a KD_PX_CLASS probe: a kprobe on each class method this kernel
 * has.  Returns how many are armed; one that fails is logged and counted
 * in cs_nfailed, the others go on.
 */
static int
kd_px_class_arm(struct kd_cstate *cs, struct kd_probe *kp, struct kd_px *x)
{
	const struct kd_pxent *e = x->x_ent;
	struct kd_pxk *k;
	unsigned long addr;
	int i, rv, n = 0;

	for (i = 0; i < KD_PX_NCLASS; i++) {
		k = &x->x_k[i];
		if (e->px_hooks[i] == NULL ||
		    (addr = kd_ksym_lookup(e->px_hooks[i])) == 0)
			continue;
		k->k_probe = kp;
		k->k_kp.addr = (kprobe_opcode_t *)addr;
		k->k_kp.pre_handler = e->px_fn;
		rv = register_kprobe(&k->k_kp);
		if (rv != 0) {
			kd_cs_msg(cs, "%s:::%s: cannot hook %s: error %d",
			    e->px_prov, e->px_name, e->px_hooks[i], rv);
			cs->cs_nfailed++;
			continue;
		}
		k->k_armed = 1;
		n++;
	}
	return n;
}

static void
kd_px_class_disarm(struct kd_px *x)
{
	int i;

	for (i = 0; i < KD_PX_NCLASS; i++) {
		if (!x->x_k[i].k_armed)
			continue;
		unregister_kprobe(&x->x_k[i].k_kp);
		x->x_k[i].k_armed = 0;
	}
}

static int
kd_px_enable(struct kd_cstate *cs)
{
	const struct kd_pxent *e;
	struct kd_probe *kp;
	struct kd_px *x;
	int rv, live = 0;
	uint32_t i;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_proc || kp->kp_necbs == 0)
			continue;
		e = &kd_pxtab[kp->kp_key];
		if ((x = kzalloc(sizeof (*x), GFP_KERNEL)) == NULL)
			return -ENOMEM;
		x->x_ent = e;
		kp->kp_priv = x;
		if (!kd_px_resolve(e, &x->x_tp, &x->x_addr))
			continue;	/* cannot happen: matched above */
		if (e->px_kind == KD_PX_CLASS) {
			rv = kd_px_class_arm(cs, kp, x);
			if (rv > 0) {
				x->x_armed = 1;
				kp->kp_live = 1;
				live++;
			}
			continue;
		}
		if (e->px_kind == KD_PX_TP) {
			rv = tracepoint_probe_register(x->x_tp, e->px_fn, kp);
		} else {
			memset(&kp->kp_u, 0, sizeof (kp->kp_u));
			kp->kp_u.u_kprobe.addr =
			    (kprobe_opcode_t *)(uintptr_t)x->x_addr;
			kp->kp_u.u_kprobe.pre_handler = kd_px_oncpu;
			rv = register_kprobe(&kp->kp_u.u_kprobe);
		}
		if (rv != 0) {
			kd_cs_msg(cs, "%s:::%s: cannot hook %s: error %d",
			    e->px_prov, e->px_name, e->px_hook, rv);
			cs->cs_nfailed++;
			continue;
		}
		x->x_armed = 1;
		kp->kp_live = 1;
		live++;
	}
	return live;
}

static void
kd_px_disable(struct kd_cstate *cs)
{
	struct kd_probe *kp;
	struct kd_px *x;
	uint32_t i;
	int tps = 0;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_proc || (x = kp->kp_priv) == NULL ||
		    !x->x_armed)
			continue;
		if (x->x_ent->px_kind == KD_PX_TP) {
			(void) tracepoint_probe_unregister(x->x_tp,
			    x->x_ent->px_fn, kp);
			tps++;
		} else if (x->x_ent->px_kind == KD_PX_CLASS) {
			kd_px_class_disarm(x);
		} else {
			unregister_kprobe(&kp->kp_u.u_kprobe);
		}
		x->x_armed = 0;
		kp->kp_live = 0;
	}
	if (tps != 0)
		tracepoint_synchronize_unregister();
}

static void
kd_px_free(struct kd_cstate *cs)
{
	struct kd_probe *kp;
	uint32_t i;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_proc)
			continue;
		kfree(kp->kp_priv);
		kp->kp_priv = NULL;
	}
}

const struct kd_prov kd_prov_proc = {
	.pv_name	= "proc",
	/* kd_pxtab's provider parts */
	.pv_provs	= (const char *const[]){ "proc", "sched", "lockstat",
	    NULL },
	.pv_id		= 7,
	.pv_match	= kd_px_match,
	.pv_enable	= kd_px_enable,
	.pv_disable	= kd_px_disable,
	.pv_free	= kd_px_free,
};
