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
 *   lockstat:::contention-begin  lock:contention_begin  arg0 the lock,
 *                                             arg1 the LCB_F_* flags
 *   lockstat:::contention-end    lock:contention_end    arg0 the lock,
 *                                             arg1 0 or the error
 *
 * DTrace gives these probes typed psinfo/lwpsinfo arguments through
 * translators; here the arguments are the Linux objects themselves
 * (struct task_struct pointers: args[0]->comm with a cast).  Linux has
 * no enqueue/dequeue tracepoints (fbt on the scheduler class functions
 * is the way), and lock contention is one begin/end pair rather than
 * DTrace's adaptive/spin/rw split: the flags say which kind of lock.
 * A hook the kernel lacks (a tracepoint compiled out, finish_task_switch
 * renamed) makes its probe absent, not an error.
 *
 * One kd_prov serves all three provider names (the probe's ep_prov is
 * its table entry's provider).  Each probe is one tracepoint handler
 * registration (data = the probe), or one kprobe for on-cpu.  Handlers
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

struct kd_pxent {
	const char	*px_prov;
	const char	*px_name;
	uint32_t	px_kind;
	const char	*px_hook;	/* tracepoint or function name */
	void		*px_fn;		/* tracepoint handler */
};

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

	if (e->px_kind == KD_PX_TP) {
		*tp = kd_tp_find(e->px_hook);
		return *tp != NULL;
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
	.pv_id		= 7,
	.pv_match	= kd_px_match,
	.pv_enable	= kd_px_enable,
	.pv_disable	= kd_px_disable,
	.pv_free	= kd_px_free,
};
