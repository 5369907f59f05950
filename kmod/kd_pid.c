/*
 * kd_pid.c -- user-space probes: the pid provider (a process's function
 * entry and return) and USDT probes (sys/sdt.h notes), on uprobes.
 *
 * kio.h has the division of labour: the consumer reads the process's ELF
 * files and hands over a table of resolved probes (struct kio_uprobe:
 * names, file, file offset, process, argument specs) with KIO_ENABLE;
 * kd_dev.c keeps it in cs_pdata[] for this provider.  pv_match matches
 * each ECB's description against the names in the table, like any
 * provider matches its probes (the probe key is the table index).
 *
 * pv_enable arms one uprobe (uretprobe for return probes) per probe on
 * (file inode, offset), with a filter and a check in the handler that
 * limit it to the one process's address space; USDT semaphores are
 * counted up while armed (uprobe_register_refctr).  A probe that cannot
 * be armed -- the process is gone, the file moved, uprobes refuse the
 * instruction -- refuses the enabling with the reason: the user named
 * that process.
 *
 * Handlers run in the traced thread's context on its way through the
 * breakpoint; arguments come from its user registers (kio.h says which),
 * memory operands through the fault-safe user accessor.
 */
#include <linux/uprobes.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/ptrace.h>

#include "kd_impl.h"
#include "kd_compat.h"

/* The consumer's table, as kd_dev.c stored it. */
struct kd_uptab {
	struct kio_uprobe *ut_ents;
	uint32_t	ut_n;
};

/* One armed user-space probe. */
struct kd_up {
	struct uprobe_consumer up_uc;
	struct kd_probe	*up_kp;
	const struct kio_uprobe *up_e;
	struct inode	*up_inode;
	struct uprobe	*up_uprobe;	/* 6.12+: for unregistering */
	struct mm_struct *up_mm;	/* mmgrab'd: compared, never used */
	int		up_armed;
};

int
kd_pid_set_table(struct kd_cstate *cs, struct kio_uprobe *ents, uint32_t n)
{
	struct kd_uptab *ut = kzalloc(sizeof (*ut), GFP_KERNEL);

	if (ut == NULL)
		return -ENOMEM;
	ut->ut_ents = ents;
	ut->ut_n = n;
	cs->cs_pdata[kd_prov_pid.pv_id] = ut;
	return 0;
}

static int
kd_pid_match(struct kd_cstate *cs, const struct dof_pdesc *pd, uint32_t ecb)
{
	const struct kd_uptab *ut = cs->cs_pdata[kd_prov_pid.pv_id];
	const struct kio_uprobe *e;
	struct kd_probe *kp;
	uint32_t i;
	int n = 0;

	for (i = 0; ut != NULL && i < ut->ut_n; i++) {
		e = &ut->ut_ents[i];
		if (!kd_part_match(pd->lp_prov, e->ku_prov) ||
		    !kd_part_match(pd->lp_mod, e->ku_mod) ||
		    !kd_part_match(pd->lp_func, e->ku_func) ||
		    !kd_part_match(pd->lp_name, e->ku_name))
			continue;
		kp = kd_probe_attach(cs, &kd_prov_pid, i, e->ku_mod,
		    e->ku_func, e->ku_name, 0, ecb);
		if (IS_ERR(kp))
			return PTR_ERR(kp);
		/* The provider part is the table's, e.g. "pid1234". */
		kp->kp_ep.ep_prov = e->ku_prov;
		n++;
	}
	return n;
}

/* Probe context: one USDT argument from the user registers. */
static uint64_t
kd_up_arg(const struct kio_uparg *a, struct pt_regs *regs)
{
	const unsigned long *r = (const unsigned long *)regs;
	uint32_t size = a->ua_size < 0 ? -a->ua_size : a->ua_size;
	uint64_t v = 0, base = 0;

	switch (a->ua_kind) {
	case KIO_UA_REG:
		if (a->ua_reg < sizeof (*regs) / sizeof (long))
			v = r[a->ua_reg];
		break;
	case KIO_UA_MEM:
		if (a->ua_reg < sizeof (*regs) / sizeof (long))
			base = r[a->ua_reg];
		if (size > 8 || copy_from_user_nofault(&v,
		    (const void __user *)(uintptr_t)(base + a->ua_off), size))
			v = 0;
		break;
	case KIO_UA_CONST:
		return (uint64_t)a->ua_off;
	default:
		return 0;
	}
	switch (a->ua_size) {
	case 1: return (uint8_t)v;
	case 2: return (uint16_t)v;
	case 4: return (uint32_t)v;
	case -1: return (uint64_t)(int64_t)(int8_t)v;
	case -2: return (uint64_t)(int64_t)(int16_t)v;
	case -4: return (uint64_t)(int64_t)(int32_t)v;
	default: return v;
	}
}

/* Probe context: entry (or USDT) breakpoint in the traced thread. */
static int
kd_up_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct kd_up *u = container_of(uc, struct kd_up, up_uc);
	const struct kio_uprobe *e = u->up_e;
	uint64_t args[DIF_NARGS] = { 0 };
	uint32_t i;

	if (u->up_mm != NULL && current->mm != u->up_mm)
		return 0;
	if (e->ku_nargs == 0) {
		args[0] = regs->di;
		args[1] = regs->si;
		args[2] = regs->dx;
		args[3] = regs->cx;
		args[4] = regs->r8;
		args[5] = regs->r9;
	} else {
		for (i = 0; i < e->ku_nargs && i < KIO_UP_NARGS; i++)
			args[i] = kd_up_arg(&e->ku_args[i], regs);
	}
	kd_fire(u->up_kp, args, 0);
	return 0;
}

/* Probe context: the function returned in the traced thread. */
static int
kd_up_ret(struct uprobe_consumer *uc, unsigned long func,
    struct pt_regs *regs)
{
	struct kd_up *u = container_of(uc, struct kd_up, up_uc);
	uint64_t args[DIF_NARGS] = { 0 };

	if (u->up_mm != NULL && current->mm != u->up_mm)
		return 0;
	args[0] = func;
	args[1] = regs->ax;
	kd_fire(u->up_kp, args, 0);
	return 0;
}

static bool
kd_up_filter(KD_UPROBE_FILTER_PARAMS(uc, mm))
{
	struct kd_up *u = container_of(uc, struct kd_up, up_uc);

	return u->up_mm == NULL || mm == u->up_mm;
}

/* The address space of process "pid", mmgrab'd; NULL if it has none. */
static struct mm_struct *
kd_pid_mm(uint32_t pid)
{
	struct task_struct *t;
	struct mm_struct *mm;
	struct pid *p;

	if ((p = find_get_pid(pid)) == NULL)
		return NULL;
	t = get_pid_task(p, PIDTYPE_PID);
	put_pid(p);
	if (t == NULL)
		return NULL;
	mm = get_task_mm(t);
	put_task_struct(t);
	if (mm == NULL)
		return NULL;
	mmgrab(mm);
	mmput(mm);
	return mm;
}

static int
kd_up_arm(struct kd_cstate *cs, struct kd_probe *kp, struct kd_up *u)
{
	const struct kio_uprobe *e = u->up_e;
	struct path path;
	int rv;

	if (e->ku_pid != 0 && (u->up_mm = kd_pid_mm(e->ku_pid)) == NULL) {
		kd_cs_msg(cs, "%s:%s:%s:%s: process %u does not exist or has no address space",
		    e->ku_prov, e->ku_mod, e->ku_func, e->ku_name, e->ku_pid);
		return -ESRCH;
	}
	rv = kern_path(e->ku_path, LOOKUP_FOLLOW, &path);
	if (rv != 0) {
		kd_cs_msg(cs, "%s:%s:%s:%s: cannot open %s: error %d",
		    e->ku_prov, e->ku_mod, e->ku_func, e->ku_name, e->ku_path,
		    rv);
		return rv;
	}
	u->up_inode = igrab(d_inode(path.dentry));
	path_put(&path);
	if (u->up_inode == NULL)
		return -ENOENT;
	u->up_uc.filter = kd_up_filter;
	if (e->ku_flags & KIO_UP_RETURN)
		u->up_uc.ret_handler = kd_up_ret;
	else
		u->up_uc.handler = kd_up_handler;
	rv = kd_uprobe_register(u->up_inode, e->ku_offset, e->ku_refctr,
	    &u->up_uc, &u->up_uprobe);
	if (rv != 0) {
		kd_cs_msg(cs, "%s:%s:%s:%s: uprobes refused %s offset 0x%llx (address 0x%llx): error %d",
		    e->ku_prov, e->ku_mod, e->ku_func, e->ku_name, e->ku_path,
		    e->ku_offset, e->ku_addr, rv);
		return rv;
	}
	u->up_armed = 1;
	return 0;
}

static int
kd_pid_enable(struct kd_cstate *cs)
{
	const struct kd_uptab *ut = cs->cs_pdata[kd_prov_pid.pv_id];
	struct kd_probe *kp;
	struct kd_up *u;
	int rv, live = 0;
	uint32_t i;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_pid || kp->kp_necbs == 0 ||
		    ut == NULL || kp->kp_key >= ut->ut_n)
			continue;
		u = kzalloc(sizeof (*u), GFP_KERNEL);
		if (u == NULL)
			return -ENOMEM;
		u->up_kp = kp;
		u->up_e = &ut->ut_ents[kp->kp_key];
		kp->kp_priv = u;
		if ((rv = kd_up_arm(cs, kp, u)) != 0)
			return rv;
		kp->kp_live = 1;
		live++;
	}
	return live;
}

static void
kd_pid_disable(struct kd_cstate *cs)
{
	struct kd_probe *kp;
	struct kd_up *u;
	uint32_t i;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_pid || (u = kp->kp_priv) == NULL)
			continue;
		if (u->up_armed)
			kd_uprobe_unregister(u->up_inode, u->up_e->ku_offset,
			    &u->up_uc, u->up_uprobe);
		u->up_armed = 0;
		kp->kp_live = 0;
	}
	kd_uprobe_unregister_sync();	/* no-op on 6.1: see kd_compat.h */
}

static void
kd_pid_free(struct kd_cstate *cs)
{
	struct kd_uptab *ut = cs->cs_pdata[kd_prov_pid.pv_id];
	struct kd_probe *kp;
	struct kd_up *u;
	uint32_t i;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_pid || (u = kp->kp_priv) == NULL)
			continue;
		if (u->up_inode != NULL)
			iput(u->up_inode);
		if (u->up_mm != NULL)
			mmdrop(u->up_mm);
		kfree(u);
		kp->kp_priv = NULL;
	}
	if (ut != NULL) {
		kvfree(ut->ut_ents);
		kfree(ut);
	}
	cs->cs_pdata[kd_prov_pid.pv_id] = NULL;
}

const struct kd_prov kd_prov_pid = {
	.pv_name	= "pid",	/* pv_provs NULL: the table's names */
	.pv_id		= 6,
	.pv_match	= kd_pid_match,
	.pv_enable	= kd_pid_enable,
	.pv_disable	= kd_pid_disable,
	.pv_free	= kd_pid_free,
};
