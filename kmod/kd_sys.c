/*
 * kd_sys.c -- the syscall provider: entry and return of every x86-64
 * system call, on the raw_syscalls tracepoints.
 *
 * Probes are syscall::<name>:entry and syscall::<name>:return (module
 * empty).  The names come from the kernel's own table: slot nr of
 * sys_call_table (found with kd_ksym_lookup(), it is not exported) holds
 * the handler __x64_sys_<name>, and the symbol of that address names the
 * call (kallsyms may answer with an alias at the same address,
 * __ia32_sys_<name> or __do_sys_<name>, for calls without arguments);
 * slots holding __x64_sys_ni_syscall are holes and have no probes.  A
 * state builds the name table once, at its first pv_match
 * (kd_sys_state()), and probes are created in system-call number order,
 * entry before return.  kp_key is nr * 2 + (1 for return).
 *
 * Firing.  pv_enable registers at most two handlers per state, one on
 * the sys_enter tracepoint (only if an entry probe is enabled) and one on
 * sys_exit (only if a return probe is), with the state as the handler's
 * data.  The handler looks the probe up by number in the state's table
 * (ss_probes, indexed by key), so a system call nobody enabled costs one
 * load and a compare.  entry: arg0..arg5 are the call's arguments as
 * syscall_get_arguments() reads them.  return: arg0 = arg1 = the return
 * value (as dtrace), and the D variable errno is -ret for a return value
 * in [-4095, -1], else 0; sys_exit has no number argument, so it comes
 * from syscall_get_nr() (orig_ax).  32-bit (ia32 and x32) system calls are
 * ignored: their numbers name other calls.  Each probe's kp_gated is set
 * when it is armed, so kd_fire() drops a firing whose every clause has a
 * false gate-shaped predicate (ecb.h) before the runner.  A probe whose
 * clauses are all simple aggregations (kp_simple, ecb.h) skips kd_fire():
 * kd_fire_simple() gets six arguments, none read when no clause reads
 * one (ECB_SIMPLE_ARGS clear), and its predicates are the gate's.
 * args[] are typed by the compiler, not here (compiler/dc_btf.c): entry
 * as the call's C prototype (BTF's __do_sys_<name>, else tracefs's
 * sys_enter_<name>/format), return as long, long.
 *
 * pv_disable unregisters both handlers and waits with
 * tracepoint_synchronize_unregister() for any still running, so nothing
 * of the state runs once it returns.
 */
#include <linux/tracepoint.h>
#include <linux/kallsyms.h>
#include <linux/compat.h>
#include <linux/string.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "kd_impl.h"

#define KD_SYS_NAMELEN	48	/* longest name kept, with its NUL */
#define KD_SYS_ENTRY	0
#define KD_SYS_RETURN	1
#define KD_SYS_ERR_MIN	(-MAX_ERRNO)	/* errno returns: [-4095, -1] */

static const char *const kd_sys_pnames[2] = { "entry", "return" };
static const char *const kd_sys_tpnames[2] = { "sys_enter", "sys_exit" };

/* Per state (cs_pdata[3]). */
struct kd_sys_state {
	char		ss_names[NR_syscalls][KD_SYS_NAMELEN];	/* "": hole */
	struct kd_probe	*ss_probes[2 * NR_syscalls];	/* by kp_key */
	struct tracepoint *ss_tp[2];	/* sys_enter, sys_exit */
	uint32_t	ss_reg[2];	/* registered */
};

/*
 * Name slot "nr" from its handler's symbol: "__x64_sys_read" -> "read";
 * "" for holes and for names we cannot use.  SYSCALL_DEFINE0 handlers
 * share their address with their __ia32_sys_ and __do_sys_ aliases, and
 * kallsyms may name any of them.  Returns 1 when the slot is named.
 */
static int
kd_sys_name_one(struct kd_sys_state *ss, uint32_t nr, unsigned long fn)
{
	static const char *const pfx[] = {
		"__x64_sys_", "__ia32_sys_", "__do_sys_", "__se_sys_", "sys_",
	};
	char buf[KSYM_SYMBOL_LEN];
	const char *name = NULL;
	uint32_t i;

	sprint_symbol_no_offset(buf, fn);
	for (i = 0; name == NULL && i < ARRAY_SIZE(pfx); i++)
		if (strncmp(buf, pfx[i], strlen(pfx[i])) == 0)
			name = buf + strlen(pfx[i]);
	if (name == NULL) {
		pr_warn("kdt: syscall %u: handler %s is not named like a system call; no probes\n",
		    nr, buf);
		return 0;
	}
	if (strcmp(name, "ni_syscall") == 0)
		return 0;
	if (strlen(name) >= KD_SYS_NAMELEN) {
		pr_warn("kdt: syscall %u: handler %s: name longer than %u bytes; no probes\n",
		    nr, buf, KD_SYS_NAMELEN - 1);
		return 0;
	}
	for (i = 0; i < nr; i++) {
		if (strcmp(ss->ss_names[i], name) == 0) {
			pr_warn("kdt: syscall %u: handler %s also serves syscall %u; probes name syscall %u only\n",
			    nr, buf, i, i);
			return 0;
		}
	}
	strscpy(ss->ss_names[nr], name, KD_SYS_NAMELEN);
	return 1;
}

/* The state's table, built on first use; NULL after kd_cs_msg(). */
static struct kd_sys_state *
kd_sys_state(struct kd_cstate *cs)
{
	struct kd_sys_state *ss = cs->cs_pdata[kd_prov_syscall.pv_id];
	const unsigned long *tbl;
	uint32_t nr, named = 0;

	if (ss != NULL)
		return ss;
	tbl = (const unsigned long *)kd_ksym_lookup("sys_call_table");
	if (tbl == NULL) {
		kd_cs_msg(cs, "syscall provider: kernel symbol sys_call_table not found: cannot name system calls");
		return NULL;
	}
	ss = kvzalloc(sizeof (*ss), GFP_KERNEL);
	if (ss == NULL) {
		kd_cs_msg(cs, "syscall provider: cannot allocate %zu bytes for the system call table",
		    sizeof (*ss));
		return NULL;
	}
	for (nr = 0; nr < NR_syscalls; nr++)
		named += kd_sys_name_one(ss, nr, tbl[nr]);
	if (!cs->cs_list)
		pr_info("kdt: syscall provider: %u of %u system call slots named\n",
		    named, NR_syscalls);
	cs->cs_pdata[kd_prov_syscall.pv_id] = ss;
	return ss;
}

/* Setup context, cs_lock held. */
static int
kd_sys_match(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb)
{
	struct kd_sys_state *ss;
	struct kd_probe *kp;
	uint32_t nr, r, want[2];
	int n = 0;

	if (!kd_part_match(pd->lp_prov, kd_prov_syscall.pv_name) ||
	    !kd_part_match(pd->lp_mod, ""))
		return 0;
	want[0] = kd_part_match(pd->lp_name, kd_sys_pnames[0]);
	want[1] = kd_part_match(pd->lp_name, kd_sys_pnames[1]);
	if (!want[0] && !want[1])
		return 0;
	if ((ss = kd_sys_state(cs)) == NULL)
		return strcmp(pd->lp_prov, kd_prov_syscall.pv_name) == 0 ?
		    -ENOENT : 0;
	for (nr = 0; nr < NR_syscalls; nr++) {
		if (ss->ss_names[nr][0] == '\0' ||
		    !kd_part_match(pd->lp_func, ss->ss_names[nr]))
			continue;
		for (r = 0; r < 2; r++) {
			if (!want[r])
				continue;
			kp = kd_probe_attach(cs, &kd_prov_syscall, nr * 2 + r,
			    "", ss->ss_names[nr], kd_sys_pnames[r], 0, ecb);
			if (IS_ERR(kp))
				return PTR_ERR(kp);
			ss->ss_probes[nr * 2 + r] = kp;
			n++;
		}
	}
	return n;
}

/*
 * sys_enter's firing with the call's arguments: kp_simple with
 * ECB_SIMPLE_ARGS (six of them) or not simple (all, through kd_fire()).
 * Out of line, so that kd_sys_enter()'s path to kd_fire_simple() for a
 * clause that reads no argument has no argument arrays (and no stack
 * protector).  Probe context.
 */
static noinline void
kd_sys_enter_args(struct kd_probe *kp, struct pt_regs *regs)
{
	unsigned long a[6] KENV_NOINIT;
	uint64_t args[DIF_NARGS] KENV_NOINIT;	/* every element set */
	uint32_t i;

	syscall_get_arguments(current, regs, a);
	for (i = 0; i < ARRAY_SIZE(a); i++)
		args[i] = a[i];
	if (kp->kp_simple) {	/* ecb.h: six arguments */
		kd_fire_simple(kp, args);
		return;
	}
	for (; i < DIF_NARGS; i++)
		args[i] = 0;
	kd_fire(kp, args, 0);
}

/*
 * raw_syscalls:sys_enter.
 * Probe context: no locks, no allocation, no sleeping.
 */
static void
kd_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct kd_cstate *cs = data;
	struct kd_sys_state *ss = cs->cs_pdata[kd_prov_syscall.pv_id];
	struct kd_probe *kp;

	if (id < 0 || id >= NR_syscalls || in_compat_syscall())
		return;
	kp = ss->ss_probes[id * 2 + KD_SYS_ENTRY];
	if (kp == NULL || !READ_ONCE(kp->kp_live))
		return;
	/* ecb.h: no clause reads an argument */
	if (kp->kp_simple && !(kp->kp_simple & ECB_SIMPLE_ARGS))
		kd_fire_simple(kp, ecb_simple_noargs);
	else
		kd_sys_enter_args(kp, regs);
}

/*
 * raw_syscalls:sys_exit.
 * Probe context: no locks, no allocation, no sleeping.
 */
static void
kd_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct kd_cstate *cs = data;
	struct kd_sys_state *ss = cs->cs_pdata[kd_prov_syscall.pv_id];
	uint64_t args[DIF_NARGS] = { 0 };
	struct kd_probe *kp;
	long nr;

	if (in_compat_syscall())
		return;
	nr = syscall_get_nr(current, regs);
	if (nr < 0 || nr >= NR_syscalls)
		return;
	kp = ss->ss_probes[nr * 2 + KD_SYS_RETURN];
	if (kp == NULL || !READ_ONCE(kp->kp_live))
		return;
	args[0] = args[1] = (uint64_t)ret;
	if (kp->kp_simple) {	/* ecb.h; errno is not a gate variable */
		kd_fire_simple(kp, args);
		return;
	}
	kd_fire(kp, args, ret >= KD_SYS_ERR_MIN && ret < 0 ? (int32_t)-ret : 0);
}

/*
 * Register the handler for direction "r" and mark its probes live;
 * returns how many probes went live, or -errno after kd_cs_msg().
 */
static int
kd_sys_arm(struct kd_cstate *cs, struct kd_sys_state *ss, uint32_t r,
    uint32_t nwant)
{
	void *fn = r == KD_SYS_ENTRY ? (void *)kd_sys_enter :
	    (void *)kd_sys_exit;
	uint32_t nr;
	int rv;

	if (ss->ss_tp[r] == NULL) {
		cs->cs_nfailed += nwant;
		kd_cs_msg(cs, "syscall provider: tracepoint %s not found: %u syscall %s probes not enabled",
		    kd_sys_tpnames[r], nwant, kd_sys_pnames[r]);
		return -ENOENT;
	}
	for (nr = 0; nr < NR_syscalls; nr++)
		if (ss->ss_probes[nr * 2 + r] != NULL) {
			/* kd_fire()'s gate (ecb.h) */
			ss->ss_probes[nr * 2 + r]->kp_gated =
			    cs->cs_es != NULL && ecb_gate_usable(cs->cs_es,
			    &ss->ss_probes[nr * 2 + r]->kp_ep);
			WRITE_ONCE(ss->ss_probes[nr * 2 + r]->kp_live, 1);
		}
	rv = tracepoint_probe_register(ss->ss_tp[r], fn, cs);
	if (rv != 0) {
		for (nr = 0; nr < NR_syscalls; nr++)
			if (ss->ss_probes[nr * 2 + r] != NULL)
				WRITE_ONCE(ss->ss_probes[nr * 2 + r]->kp_live,
				    0);
		cs->cs_nfailed += nwant;
		kd_cs_msg(cs, "syscall provider: tracepoint %s: registration error %d: %u syscall %s probes not enabled",
		    kd_sys_tpnames[r], rv, nwant, kd_sys_pnames[r]);
		return rv;
	}
	ss->ss_reg[r] = 1;
	return nwant;
}

/* Setup context, cs_lock held. */
static int
kd_sys_enable(struct kd_cstate *cs)
{
	struct kd_sys_state *ss = cs->cs_pdata[kd_prov_syscall.pv_id];
	uint32_t i, r, nwant[2] = { 0, 0 };
	int rv, armed = 0, err = 0;

	if (ss == NULL)
		return 0;
	for (i = 0; i < 2 * NR_syscalls; i++)
		if (ss->ss_probes[i] != NULL)
			nwant[i & 1]++;
	if (nwant[0] + nwant[1] == 0)
		return 0;
	for (r = 0; r < 2; r++)
		if (ss->ss_tp[r] == NULL)
			ss->ss_tp[r] = kd_tp_find(kd_sys_tpnames[r]);
	for (r = 0; r < 2; r++) {
		if (nwant[r] == 0)
			continue;
		rv = kd_sys_arm(cs, ss, r, nwant[r]);
		if (rv < 0)
			err = rv;
		else
			armed += rv;
	}
	return armed == 0 ? err : armed;
}

/* Unregister what is registered and wait for running handlers. */
static void
kd_sys_unregister(struct kd_cstate *cs, struct kd_sys_state *ss)
{
	void *fn[2] = { (void *)kd_sys_enter, (void *)kd_sys_exit };
	uint32_t r, any = 0;

	for (r = 0; r < 2; r++) {
		if (!ss->ss_reg[r])
			continue;
		tracepoint_probe_unregister(ss->ss_tp[r], fn[r], cs);
		ss->ss_reg[r] = 0;
		any = 1;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

/* Setup context; when it returns no handler of "cs" runs. */
static void
kd_sys_disable(struct kd_cstate *cs)
{
	struct kd_sys_state *ss = cs->cs_pdata[kd_prov_syscall.pv_id];
	uint32_t i;

	if (ss == NULL)
		return;
	kd_sys_unregister(cs, ss);
	for (i = 0; i < 2 * NR_syscalls; i++)
		if (ss->ss_probes[i] != NULL)
			ss->ss_probes[i]->kp_live = 0;
}

static void
kd_sys_free(struct kd_cstate *cs)
{
	struct kd_sys_state *ss = cs->cs_pdata[kd_prov_syscall.pv_id];

	if (ss == NULL)
		return;
	kd_sys_unregister(cs, ss);	/* a no-op after pv_disable */
	kvfree(ss);
	cs->cs_pdata[kd_prov_syscall.pv_id] = NULL;
}

const struct kd_prov kd_prov_syscall = {
	.pv_name	= "syscall",
	.pv_provs	= (const char *const[]){ "syscall", NULL },
	.pv_id		= 3,
	.pv_match	= kd_sys_match,
	.pv_enable	= kd_sys_enable,
	.pv_disable	= kd_sys_disable,
	.pv_free	= kd_sys_free,
};
