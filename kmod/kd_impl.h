/*
 * kd_impl.h -- kdt.ko's private structures, shared by the kmod/ files.
 *
 * Consumer states.  Every enabling lives in one struct kd_cstate: the
 * anonymous one that /init hands kdt.ko at load time (kd_anon.c, buffers
 * in the reserved region) and one per open /dev/kdt file that sent
 * KIO_ENABLE (kd_dev.c, buffers in a region laid out in vmalloc'd
 * memory).  States share nothing: each registers its own kprobes,
 * tracepoint handlers and timers, so a probe enabled by two consumers
 * fires twice, once into each, and one consumer's teardown cannot touch
 * another's probes.
 *
 * Life of a state (kd_cs.c drives it; providers do the per-mechanism
 * work):
 *
 *   kd_cs_new -> kd_cs_enable(den)          setup context, cs_lock held
 *                  match: for each ECB in order, for each provider in
 *                    kd_provs[] order, pv_match() attaches the ECB to the
 *                    matching probes with kd_probe_attach(); EPIDs are the
 *                    (probe, ECB) pairs in creation order from 1
 *                  region + runner (ecb_create), probe/EPID tables
 *                  pv_enable() of every provider: probes armed but
 *                    kd_fire() ignores them while cs_active == 0
 *             -> kd_cs_go()                 BEGIN, cs_active = 1
 *             -> kd_cs_stop()               COOLDOWN, END, STOPPED,
 *                                           pv_disable() of every provider
 *             -> kd_cs_free()
 *
 * Everything probe context touches is allocated and filled before the
 * first pv_enable() and freed only after the last pv_disable(), so the
 * hot path needs no lock: per-CPU runner data is used only by its CPU,
 * with interrupts off (kd_fire).
 *
 *	kd_main.c   module parameters, load/unload, the reserved region
 *	kd_builtin.c built into the kernel: initcalls, the initrd trailer
 *	kd_cs.c     consumer states: matching, region, runner, snapshots
 *	kd_anon.c   the anonymous enabling: firmware DOF -> state
 *	kd_prev.c   the previous boot's region, kept as /dev/kdt-previous
 *	kd_probe.c  probe context: hand firings to common/ecb.c
 *	kd_dtrace.c dtrace:::BEGIN, END, ERROR
 *	kd_fbt.c    fbt entry (kprobe) and return (kretprobe)
 *	kd_kinst.c  kinst: any instruction (kprobe)
 *	kd_pid.c    pid and USDT: user-space probes (uprobes)
 *	kd_proc.c   proc, sched, lockstat on their Linux hooks
 *	kd_prof.c   profile-N and tick-N (per-CPU hrtimers)
 *	kd_sys.c    syscall entry/return (raw_syscalls tracepoints)
 *	kd_sdt.c    sdt: every kernel tracepoint
 *	kd_ksym.c   kernel symbol lookup and iteration for modules
 *	kd_dev.c    /dev/kdt
 *	kd_env.c    the kernel half of common/kdt_env.h
 */
#ifndef KD_IMPL_H
#define KD_IMPL_H

#include <linux/kprobes.h>
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/module.h>

#include "kdt_env.h"
#include "dof_load.h"
#include "dif_vm.h"
#include "rgn.h"
#include "ecb.h"
#include "kio.h"

#define KD_ECB_NONE	UINT_MAX	/* kd_probe_attach in list mode */
#define KD_PROBEID_BEGIN	1
#define KD_PROBEID_END		2
#define KD_PROBEID_ERROR	3
#define KD_PROBEID_FIRST	4	/* first id of other probes */
#define KD_PROBES_MAX	(1U << 20)	/* probes per state */
#define KD_NPROV	8
#define KD_HASHBITS	12

struct kd_cstate;
struct kd_probe;

/*
 * A provider.  Every op runs in setup context (may sleep and allocate)
 * with the state's cs_lock held.
 */
struct kd_prov {
	const char	*pv_name;	/* "fbt", "syscall", ... */
	uint32_t	pv_id;		/* index into cs_pdata[] */
	/*
	 * The provider names of its probes, NULL-terminated; NULL when they
	 * are no fixed set (pid: "pid1234", "usdt...").  An ECB is offered
	 * to pv_match and pv_match_mod only when its provider part can match
	 * one of them (kd_ecb_provs()).
	 */
	const char *const *pv_provs;
	/*
	 * Attach ECB "ecb" to every probe of this provider that "pd"
	 * matches (each part a glob; "" matches anything: kd_part_match),
	 * calling kd_probe_attach() once per probe.  Returns how many
	 * probes matched, or -errno after kd_cs_msg() said why.  In list
	 * mode (cs->cs_list) "ecb" is KD_ECB_NONE and nothing is armed
	 * later.  Must not register anything.
	 */
	int	(*pv_match)(struct kd_cstate *cs, const struct dof_pdesc *pd,
		    uint32_t ecb);
	/*
	 * Optional: called before the pv_match (or, "mod" not NULL,
	 * pv_match_mod) calls for the ECBs of "den", with all of them, so
	 * that one pass finds the probes of every description; pv_match
	 * then attaches what it found for its ECB.  Called with "den" NULL
	 * after the last, to drop that.  Keeps nothing when it fails
	 * (pv_match then matches on its own).  Never in list mode.
	 * Returns 1 when it knows that no description has a probe in
	 * "mod" (pv_match_mod is then not called for it), else 0.
	 */
	int	(*pv_prematch)(struct kd_cstate *cs,
		    const struct dof_enabling *den, struct module *mod);
	/*
	 * Arm this provider's probes of "cs" (kp_prov == this provider).
	 * A probe that cannot be armed is skipped with kp_live = 0 and
	 * counted in cs_nfailed (the first few logged); returns the number
	 * armed, or -errno when nothing could be.  Handlers call kd_fire().
	 */
	int	(*pv_enable)(struct kd_cstate *cs);
	/* Disarm all; when it returns no handler of "cs" runs anywhere. */
	void	(*pv_disable)(struct kd_cstate *cs);
	/* Free what pv_match/pv_enable allocated (kp_priv, cs_pdata). */
	void	(*pv_free)(struct kd_cstate *cs);
	/* Optional: firings the mechanism lost (kretprobe misses...). */
	uint64_t (*pv_missed)(struct kd_cstate *cs);
	/*
	 * Optional, for providers with probes in modules (retained
	 * enablings): pv_match restricted to module "mod", which is coming
	 * (its init has not run yet); pv_arm arms the probes from index
	 * "from" of cs_probes on, returning how many; pv_mod_gone disarms
	 * every probe in "mod", which is going away.
	 */
	int	(*pv_match_mod)(struct kd_cstate *cs,
		    const struct dof_pdesc *pd, uint32_t ecb, struct module *mod);
	int	(*pv_arm)(struct kd_cstate *cs, uint32_t from);
	void	(*pv_mod_gone)(struct kd_cstate *cs, struct module *mod);
};

extern const struct kd_prov kd_prov_dtrace;
extern const struct kd_prov kd_prov_fbt;
extern const struct kd_prov kd_prov_kinst;
extern const struct kd_prov kd_prov_pid;
extern const struct kd_prov kd_prov_proc;
extern const struct kd_prov kd_prov_profile;
extern const struct kd_prov kd_prov_syscall;
extern const struct kd_prov kd_prov_sdt;

/* A probe that at least one ECB matched (or that a listing found). */
struct kd_probe {
	struct ecb_probe kp_ep;		/* what ecb_fire() sees; ids, names,
					   ECB list filled by kd_cs.c */
	struct kd_cstate *kp_cs;
	const struct kd_prov *kp_prov;
	struct hlist_node kp_hash;
	uint64_t	kp_key;		/* provider's key (fbt: address) */
	uint32_t	kp_live;	/* armed by pv_enable */
	uint32_t	kp_idx;		/* index in cs_probes (kd_cs.c) */
	uint32_t	kp_lastecb;	/* last ECB attached (kd_cs.c) */
	uint32_t	kp_necbs;
	uint32_t	kp_gated;	/* ecb_gate_usable(): the handler may
					   drop a firing no predicate passes
					   before building anything (set when
					   armed) */
	const struct dif_fastpred *kp_gate1;	/* ecb_gate_single() */
	uint32_t	kp_simple;	/* ecb_simple_usable(): kd_run() fires
					   it with ecb_fire_simple() (set by
					   kd_cs.c once the runner exists);
					   ECB_SIMPLE_ARGS: reads arguments */
	struct ecb_ref	*kp_ecbs;	/* in ECB order */
	uint32_t	kp_ecbs_block;	/* kp_ecbs starts the block
					   kd_build_ecbrefs() allocated for
					   this probe and the next ones
					   (kd_cs_free frees it here) */
	void		*kp_priv;	/* provider's; freed by pv_free */
	union {
		struct kprobe	 u_kprobe;	/* fbt entry */
		struct kretprobe u_kretprobe;	/* fbt return */
		uint64_t	 u_word[4];	/* small provider data */
	} kp_u;
	char		kp_names[];	/* mod NUL func NUL name NUL */
};

/* Phases of a state. */
#define KD_PH_NEW	0
#define KD_PH_ENABLED	1	/* probes armed, not recording */
#define KD_PH_GO	2	/* BEGIN fired, recording */
#define KD_PH_STOPPED	3	/* END fired, probes disarmed */

struct kd_cstate {
	struct mutex	cs_lock;	/* setup and ioctls */
	struct list_head cs_link;	/* kd_states, for module events */
	uint32_t	cs_anon;	/* the anonymous state */
	uint32_t	cs_claimed;	/* anonymous, claimed by a file */
	uint32_t	cs_rehearse;	/* KIO_REHEARSE's scratch state (kio.h):
					   cs_anon's path, never started */
	uint32_t	cs_ftrace_n;	/* functions of the one bulk ftrace
					   update (kd_fbt.c), 0: none */
	uint64_t	cs_ftrace_ns;	/* ... and how long it took */
	uint64_t	*cs_cursor;	/* claimed: [cpu] records handed
					   over up to here (kio.h) */
	uint32_t	cs_list;	/* listing only: nothing is armed */
	uint32_t	cs_inregion;	/* live state in the reserved region */
	uint32_t	cs_phase;	/* KD_PH_* */
	uint32_t	cs_flags;	/* KIO_EN_* */
	uint32_t	cs_stackargs;	/* a clause reads arg6..arg9 or args[]:
					   kd_fire_regs() copies the stack
					   arguments (kd_need_stackargs()) */
	char		cs_msg[256];	/* first failure reason (ken_msg) */
	uint32_t	cs_badecb;	/* the ECB that matched nothing */
	struct dof_enabling *cs_den;
	/* probes (kd_cs.c), in creation order; their ids are kdt.ko's
	   (kd_probe_number()) */
	struct kd_probe	**cs_probes;
	uint32_t	cs_nprobes;	/* used slots */
	uint32_t	cs_probecap;
	uint32_t	cs_nlive;	/* armed */
	uint32_t	cs_nfailed;	/* could not be armed */
	struct hlist_head *cs_hash;	/* [1 << KD_HASHBITS] */
	struct { uint32_t p_probe, p_ecb; } *cs_pairs;	/* EPID - 1 */
	uint8_t		*cs_ecbprov;	/* [ECB]: bit p set when kd_provs[p]
					   may match it (kd_ecb_provs());
					   NULL: every provider */
	uint32_t	cs_npairs;
	uint32_t	cs_paircap;
	void		*cs_pdata[KD_NPROV];	/* providers' per-state data */
	/* buffers */
	void		*cs_region;	/* rgn.h image */
	uint64_t	cs_rgnsize;
	uint32_t	cs_rgn_owned;	/* vmalloc'd by us (live state) */
	uint32_t	cs_policy;	/* DTRACEOPT_BUFPOLICY_* in force */
	uint32_t	cs_wpolicy;	/* ring or fill: the writer's policy */
	uint32_t	cs_ncpu;
	uint32_t	cs_rgn_init;	/* rgn_init() done on cs_region */
	void		*cs_bmem;	/* switch: spare principal buffers */
	struct rgn_cpu	**cs_bspare;	/* [cpu]: the one not in use */
	void		*cs_amem;	/* spare aggregation buffers */
	struct agg_buf	**cs_aspare;	/* [cpu]: the one not in use */
	uint64_t	cs_aggsize;	/* 0: no aggregations */
	uint32_t	cs_resized;	/* KIO_RS_*: bufresize=auto lowered */
	/* probe context */
	struct ecb_state *cs_es;
	int		cs_active;	/* kd_fire records */
	atomic64_t	cs_missed;	/* firings lost before the runner */
	struct kd_probe	*cs_dprobes[3];	/* BEGIN, END, ERROR or NULL */
	/* the deadman (kio.h): live states only */
	unsigned long	cs_heard;	/* jiffies of the last ioctl */
	struct hrtimer	cs_deadman;
	int		cs_deadman_on;	/* scheduled */
	int		cs_deadman_hit;	/* it stopped the state */
	uint32_t	cs_dm_timeout;	/* s of silence allowed (kd_main.c's
					   deadman_timeout at KIO_GO), 0:
					   no deadman */
	uint32_t	cs_dm_ival;	/* ms between checks */
};

/* The module-wide state (kd_main.c). */
struct kd_state {
	void		*ks_region;	/* memremap'd, NULL if none */
	uint64_t	ks_phys;
	uint64_t	ks_size;
	int		ks_rgn_ready;	/* rgn_init done */
	atomic_t	ks_anon;	/* KIO_ANON_* */
	char		ks_reason[256];
	struct kd_cstate *ks_acs;	/* the anonymous state, or NULL
					   (also once its claimer closed) */
	uint32_t	ks_claim_pid;	/* who claimed it (kd_dev_lock) */
	struct kd_cstate *ks_rowner;	/* the state whose buffers the
					   reserved region holds, or NULL
					   (kd_dev_lock; anon: at load) */
};

extern struct kd_state kd_state;
extern const struct kd_prov *const kd_provs[];
extern const uint32_t kd_nprovs;

/* kd_main.c */
void kd_fail(const char *fmt, ...) __printf(1, 2);
/* The deadman's parameters (kio.h); read with READ_ONCE. */
extern unsigned int kd_deadman_timeout;		/* s, 0: off */
extern unsigned int kd_deadman_interval_ms;
int kd_start(const void *dof, size_t len, const char *what);

/*
 * kd_builtin.c: is [phys, phys + size) all memmap= reserved memory in the
 * e820 map?  Built in, kdt maps its region before the kernel has put the
 * e820 reserved ranges into /proc/iomem (pcibios_resource_survey, a
 * subsys_initcall), so kd_main.c asks the e820 map as well.  kdt.ko: 0.
 */
#ifdef MODULE
static inline int kd_boot_reserved(uint64_t phys, uint64_t size)
{
	return 0;
}
#else
int kd_boot_reserved(uint64_t phys, uint64_t size);
#endif

/*
 * kd_anon.c.  kd_anon_start() takes the DOF from the firmware file (module
 * mode); kd_anon_start_dof() from bytes the caller found ("what" names
 * them in messages: built-in mode's initrd trailer).  Both log and drop
 * a bad enabling; the caller carries on.
 */
void kd_anon_start(void);
void kd_anon_start_dof(const void *dof, size_t len, const char *what);
void kd_anon_stop(void);

/* kd_cs.c */
struct kd_cstate *kd_cs_new(void);
void kd_cs_free(struct kd_cstate *cs);
/* Keep the first reason something failed (also logged). */
void kd_cs_msg(struct kd_cstate *cs, const char *fmt, ...) __printf(2, 3);
int kd_part_match(const char *pat, const char *str);
/*
 * Find or create the probe (pv, key, mod, func, name) of "cs" and attach
 * ECB "ecb" to it (KD_ECB_NONE: only find or create).  "id" is the fixed
 * id of a dtrace-provider probe, 0 for the next free one.  Returns the
 * probe or ERR_PTR(-ENOMEM / -ENOSPC) after kd_cs_msg().
 */
struct kd_probe *kd_probe_attach(struct kd_cstate *cs,
    const struct kd_prov *pv, uint64_t key, const char *mod,
    const char *func, const char *name, uint32_t id, uint32_t ecb);
/* Match every ECB of "den" and build the runner; probes not yet armed. */
int kd_cs_enable(struct kd_cstate *cs, struct dof_enabling *den,
    uint32_t flags, void *region, uint64_t rgnsize, uint64_t phys);
/*
 * Make an enabled state see modules that load and unload from now on.
 * Call without cs_lock held (kd_free removes it again).
 */
void kd_cs_register(struct kd_cstate *cs);
int kd_mod_init(void);
/*
 * kd_modtab.c: the region's module table (rgn.h).  kd_modtab_size: bytes
 * for it, "fixed" the size of a reserved region (0: a live state's).
 * kd_modtab_fill after rgn_init; coming/going from the module notifier.
 * cs_lock held.
 */
uint64_t kd_modtab_size(uint64_t fixed);
/* What of p->rp_modsize a reserved region of "size" can spare. */
uint64_t kd_modtab_fit(struct rgn_params *p, uint64_t size,
    uint64_t bufsize);
void kd_modtab_fill(struct kd_cstate *cs);
void kd_modtab_coming(struct kd_cstate *cs, struct module *mod);
void kd_modtab_live(struct kd_cstate *cs, struct module *mod);
void kd_modtab_going(struct kd_cstate *cs, struct module *mod);
void kd_mod_exit(void);
int kd_cs_go(struct kd_cstate *cs);
/*
 * KIO_CLAIM: the anonymous state "cs" becomes a consumer's (cursors and
 * spare aggregation buffers, kio.h).  cs_lock held.  0 or -errno after
 * kd_cs_msg().
 */
int kd_cs_claim(struct kd_cstate *cs);
void kd_cs_stop(struct kd_cstate *cs);
int kd_cs_snap(struct kd_cstate *cs, struct kio_snap *ks);
int kd_cs_aggtot(struct kd_cstate *cs, struct kio_aggtot *kt);
void kd_cs_status(struct kd_cstate *cs, struct kio_status *st);
int kd_cs_list(struct kio_list *kl, void __user *ubuf);
int kd_probe_byid(struct rgn_probe *rp);	/* KIO_PROBE (kd_cs.c) */

/* kd_pid.c: hand the consumer's user-space probe table to "cs" (taken
   over: freed with the state).  Before kd_cs_enable. */
int kd_pid_set_table(struct kd_cstate *cs, struct kio_uprobe *ents,
    uint32_t n);

/* kd_fbt.c: a function found in the kernel's or a module's symbols. */
struct kd_fsym {
	unsigned long	fs_addr;
	char		fs_mod[MODULE_NAME_LEN];
	char		fs_name[DOF_FUNCNAMELEN];
};
/*
 * The core kernel's text symbols matching glob "pat", in kallsyms order,
 * as a kvmalloc'd array (*out, kvfree'd by the caller; NULL when none).
 * 0 or -errno.  Setup context.
 */
int kd_core_funcs(const char *pat, struct kd_fsym **out, uint32_t *n);
/*
 * kd_fbt.c: offer the kernel symbol hints "buf" (common/ksh.h: "len"
 * bytes, kept until the next call) to matching, which checks them the
 * first time it would use them (valid, this very kernel's build id and
 * text size; refusals logged); NULL: withdraw them.  1 when "buf" is not
 * NULL.  Setup context (kd_anon.c, around the anonymous enabling's
 * matching).
 */
int kd_fbt_hints(const void *buf, size_t len);
uint64_t kd_buf_limit(void);	/* kd_cs.c: a quarter of RAM */

/*
 * kd_sdt.c: "cs" is on the list of states that hear of module unloads
 * (kd_cs_register): drop the module references its matching took.
 */
void kd_sdt_registered(struct kd_cstate *cs);

/* kd_ksym.c */
int kd_ksym_init(void);
void kd_ksym_exit(void);	/* unload: unregisters kd_ksym_init's kprobe */
/* The core-kernel tracepoint called "name", or NULL.  Setup context. */
struct tracepoint *kd_tp_find(const char *name);
unsigned long kd_ksym_lookup(const char *name);
int kd_ksym_each(int (*fn)(void *, const char *, unsigned long), void *arg);
uint64_t kd_ksym_kaslr(void);

/* kd_probe.c: probe context, no locks, no allocation, no sleeping */
/*
 * Run the ECBs of "kp" on this CPU with args[0, DIF_NARGS) (NULL: all 0)
 * and errno value "err" (syscall return probes; else 0).  Returns at once
 * while the state is not recording; counts a firing in NMI context as
 * missed.  Any context.
 */
void kd_fire(struct kd_probe *kp, const uint64_t *args, int32_t err);
/* The registers of the firing on this CPU, for stack() (kd_env.c), and
   whether they are at a function's first instruction (for caller). */
DECLARE_PER_CPU(struct pt_regs *, kd_probe_regs);
DECLARE_PER_CPU(int, kd_probe_entry);
/* kd_ksym.c: functions found by name at setup; NULL if absent. */
extern unsigned int (*kd_stack_save_regs)(struct pt_regs *, unsigned long *,
    unsigned int, unsigned int);
extern unsigned int (*kd_stack_save_user)(unsigned long *, unsigned int);
/*
 * kd_fire() with arg0.. from a kprobe's registers (function arguments);
 * "at_entry": the kprobe is at the function's first instruction.
 */
void kd_fire_regs(struct kd_probe *kp, struct pt_regs *regs, int at_entry);
/* The same for a probe with kp_simple (kd_probe.c). */
void kd_fire_simple_regs(struct kd_probe *kp, struct pt_regs *regs);
/* kd_fire() for a probe with kp_simple: ECB_GATE_NARGS "args" (kd_probe.c) */
void kd_fire_simple(struct kd_probe *kp, const uint64_t *args);
/*
 * Probe context, before kd_fire_regs() for a probe with kp_gated: 0 when
 * no ECB's predicate can pass (ecb_gate_open() on the register arguments),
 * so the handler returns at once.  Inline: it is the whole cost of a
 * selective probe's typical firing.
 */
static __always_inline int
kd_gate_open(const struct kd_probe *kp, struct pt_regs *regs)
{
	const struct dif_fastpred *fp = kp->kp_gate1;
	uint32_t n;

	if (fp != NULL) {
		/* one ECB: read only what its predicate reads */
		n = fp->fp_var - DIF_VAR_ARG0;
		return dif_fastpred_test(fp, n < ECB_GATE_NARGS ?
		    regs_get_kernel_argument(regs, n) :
		    ecb_gate_var(fp->fp_var, &kp->kp_ep,
		    raw_smp_processor_id()));
	}
	{
		/* constant indexes: each folds to one load (a loop kept
		   regs_get_kernel_argument()'s table and bounds test) */
		_Static_assert(ECB_GATE_NARGS == 6, "one load per argument");
		uint64_t a[ECB_GATE_NARGS] = {
			regs_get_kernel_argument(regs, 0),
			regs_get_kernel_argument(regs, 1),
			regs_get_kernel_argument(regs, 2),
			regs_get_kernel_argument(regs, 3),
			regs_get_kernel_argument(regs, 4),
			regs_get_kernel_argument(regs, 5),
		};

		return ecb_gate_open(kp->kp_cs->cs_es, &kp->kp_ep, a,
		    raw_smp_processor_id());
	}
}

/* kd_cs.c's own firing of BEGIN and END (cs_active not required). */
void kd_fire_state(struct kd_probe *kp);
/* kd_probe.c: which actions kdt.ko runs; -EOPNOTSUPP after kd_cs_msg */
int kd_check_actions(struct kd_cstate *cs, const struct dof_enabling *den);
/* kd_probe.c: does any clause of den read arg6..arg9 or args[]? */
int kd_need_stackargs(const struct dof_enabling *den);

/*
 * kd_prev.c.  kd_prev_save() is called once the reserved region is
 * mapped, before anything writes to it: a region of a previous boot is
 * copied and offered as /dev/kdt-previous (kio.h).  kd_prev_hold() says
 * whether the region must be left alone (the copy could not be made),
 * with the reason in "why".  kd_prev_free() at unload, before the region
 * is unmapped.
 */
void kd_prev_save(void *region, uint64_t size, uint64_t phys);
/* kd_dev.c: misc devices can be registered now (/dev/kdt is). */
void kd_prev_dev_ready(void);
int kd_prev_hold(char *why, size_t len);
void kd_prev_info(struct kio_info *ki);
void kd_prev_free(void);

/* kd_signal.c: raise() and stop(); wait for queued signals at unload */
void kd_signal_exit(void);

/* kd_dev.c */
int kd_dev_init(void);
void kd_dev_exit(void);
struct device *kd_dev_device(void);

#endif /* KD_IMPL_H */
