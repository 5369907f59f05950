/*
 * kd_sdt.c -- the sdt provider: one probe per kernel tracepoint.
 *
 * Probes are sdt:<system>::<event>, e.g. sdt:sched::sched_switch or
 * sdt:irq::irq_handler_entry: the module part is the trace event system
 * the tracepoint belongs to, the function part is empty, the name is the
 * tracepoint's name.  sys_enter and sys_exit are tracepoints like the
 * others and appear as sdt:raw_syscalls::sys_enter/sys_exit.  The
 * tracepoints of modules are probes too (sdt:kyber::kyber_latency once
 * kyber-iosched is loaded): see "Modules" below.
 *
 * The system.  struct tracepoint does not know its system; ftrace's event
 * list does.  Each struct trace_event_call on the list "ftrace_events"
 * (not exported: found with kd_ksym_lookup(), as is "event_mutex", which
 * guards the list) that has TRACE_EVENT_FL_TRACEPOINT set points at its
 * tracepoint and names the system in class->system.  kd_sdt_state()
 * walks the list once per state, under event_mutex, and gives every core
 * tracepoint the system of its event, or "kernel" when it has none (bare
 * DECLARE_TRACE tracepoints such as sched_update_nr_running_tp) or the
 * list cannot be found.  The system strings and the tracepoints belong to
 * the core kernel, so they outlive every state.
 *
 * The argument count.  A tracepoint calls its probes as probe(data, a0,
 * a1, ...) with the arguments of its prototype, and the prototype is not
 * in struct tracepoint either.  BPF's raw-tracepoint table (the section
 * between __start__bpf_raw_tp and __stop__bpf_raw_tp, struct
 * bpf_raw_event_map) has one entry per core tracepoint with num_args;
 * kd_sdt_state() reads it the same way.  The count matters because on
 * x86-64 a0..a4 travel in registers (rsi, rdx, rcx, r8, r9; data is in
 * rdi) but a5 and later on the stack: a handler that declares more
 * parameters than the caller passed reads past the caller's frame, and
 * a tracepoint fired near the top of an IRQ stack (irq_handler_entry)
 * makes that read fault.  So there is one handler per arity:
 * kd_sdt_fire5() for prototypes of up to five arguments (registers only;
 * it zeroes the arguments beyond the count), kd_sdt_fire6() ..
 * kd_sdt_fire10() for longer ones, which read exactly what was passed
 * (a prototype of more than DIF_NARGS = 10 arguments loses the rest).  A
 * tracepoint missing from the table gets kd_sdt_fire5() with all five
 * register arguments: those beyond its prototype are then undefined
 * (whatever the registers held), and a5.. are 0.  Arguments narrower
 * than 64 bits have unspecified upper bits (in practice zero-extended:
 * a negative int arrives as 0x00000000ffffffff..).
 *
 * Types.  arg0.. are the TP_PROTO arguments in order (the data pointer
 * is not one of them), which is what BTF's btf_trace_<event> typedef
 * lists after its first parameter; the compiler types args[] from it
 * (compiler/dc_btf.c, also `kdt -l -v`), and narrows a 32-bit args[i] to
 * its type, so the unspecified upper bits above never show there.
 *
 * Modules.  A module's tracepoints are in mod->tracepoints_ptrs, its
 * events (and so the systems) in mod->trace_events, its argument counts
 * in mod->bpf_raw_events; a module tracepoint without an event gets the
 * module's name as its system.  Modules the tracepoint code itself
 * ignores (tainted other than out-of-tree, staging, unsigned or test:
 * forced loads) are ignored here too.  Three ways in:
 *
 *   - pv_match walks the modules loaded now.  Their list is private to
 *     tracepoint.c, but register_tracepoint_module_notifier() calls a new
 *     notifier once per listed module, under the list's mutex, which also
 *     keeps each of them from finishing its unload meanwhile; kd_sdt.c
 *     registers a notifier on the stack for the walk and unregisters it
 *     at once.  Only live modules are taken (one still coming is left to
 *     its notifier, one going is on its way out).  An enabling (not a
 *     listing) takes a reference on each module it attached probes in,
 *     because the state only hears of unloads once kd_cs_register() has
 *     put it on the list of states; kd_sdt_registered() drops them then
 *     (pv_free if the state never got there).  An rmmod in that short
 *     window fails with EBUSY rather than leaving our handler on a freed
 *     tracepoint.
 *   - pv_match_mod, from kd_cs.c's module notifier while a module is
 *     coming (retained enablings); pv_arm registers what it added.
 *   - pv_mod_gone, from the same notifier while the module is going,
 *     before tracepoint.c checks that nothing is left on the module's
 *     tracepoints (kd_cs.c's notifier runs first: see kd_mod_nb):
 *     unregister, wait for running handlers, and drop the probes from the
 *     probe hash so that a reload makes new ones (new tracepoints, new
 *     probe IDs), as fbt does.  The probes stay in cs_probes (their EPIDs
 *     stay valid for records already written) but never fire again.
 *
 * Probe creation order is tracepoint iteration order, the core kernel's
 * first, then the loaded modules' in load order; kp_key is a core
 * tracepoint's index in that order, a module tracepoint's address (the
 * two cannot meet: indexes are small, addresses are kernel addresses).
 * kp_u.u_word[0] holds the struct tracepoint (0 once its module is
 * gone), u_word[1] 1 while our handler is registered on it, u_word[2]
 * the argument count the handler uses, u_word[3] the handler registered.
 * pv_enable registers the handler for the count (or, for a probe whose
 * clauses are simple aggregations, kp_simple, one that hands at most six
 * arguments to kd_fire_simple()) on each probe's tracepoint with the probe as
 * its data (and sets kp_gated: kd_fire()'s gate, ecb.h); pv_disable
 * unregisters every handler, then waits once with
 * tracepoint_synchronize_unregister() for any still running.
 */
#include <linux/tracepoint.h>
#include <linux/trace_events.h>
#include <linux/bsearch.h>
#include <linux/string.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/mm.h>

#include "kd_impl.h"

#define KD_SDT_NFAILLOG	4	/* registration failures logged per state */
#define KD_SDT_NREGARGS	5	/* tracepoint arguments in registers */

/* One core-kernel tracepoint, its system and its argument count. */
struct kd_sdt_tp {
	struct tracepoint *st_tp;
	const char	*st_system;
	uint32_t	st_nargs;	/* KD_SDT_NREGARGS if unknown */
};

/*
 * Per state (cs_pdata[4]): the core tracepoints in iteration order, and
 * the modules the state holds a reference on until kd_sdt_registered().
 */
struct kd_sdt_state {
	struct module	**ss_mods;	/* kmalloc'd, ss_nmods used */
	uint32_t	ss_nmods;
	uint32_t	ss_modcap;
	uint32_t	ss_n;
	uint32_t	ss_cap;
	struct kd_sdt_tp ss_tps[];
};

/* Sort and search entry: a tracepoint and its index in ss_tps. */
struct kd_sdt_idx {
	struct tracepoint *si_tp;
	uint32_t	si_i;
};

static void
kd_sdt_count(struct tracepoint *tp, void *arg)
{
	(*(uint32_t *)arg)++;
}

static void
kd_sdt_collect(struct tracepoint *tp, void *arg)
{
	struct kd_sdt_state *ss = arg;

	if (ss->ss_n == ss->ss_cap)
		return;
	ss->ss_tps[ss->ss_n].st_tp = tp;
	ss->ss_tps[ss->ss_n].st_system = "kernel";
	ss->ss_tps[ss->ss_n].st_nargs = KD_SDT_NREGARGS;
	ss->ss_n++;
}

static int
kd_sdt_idx_cmp(const void *a, const void *b)
{
	const struct kd_sdt_idx *x = a, *y = b;

	if (x->si_tp == y->si_tp)
		return 0;
	return (uintptr_t)x->si_tp < (uintptr_t)y->si_tp ? -1 : 1;
}

static const struct kd_sdt_idx *
kd_sdt_find(const struct kd_sdt_state *ss, const struct kd_sdt_idx *idx,
    struct tracepoint *tp)
{
	struct kd_sdt_idx key = { .si_tp = tp };

	return bsearch(&key, idx, ss->ss_n, sizeof (*idx), kd_sdt_idx_cmp);
}

/* Give each tracepoint of "ss" its event's system. */
static void
kd_sdt_systems(struct kd_sdt_state *ss, const struct kd_sdt_idx *idx)
{
	struct trace_event_call *call;
	const struct kd_sdt_idx *hit;
	struct list_head *events;
	struct mutex *lock;

	events = (struct list_head *)kd_ksym_lookup("ftrace_events");
	lock = (struct mutex *)kd_ksym_lookup("event_mutex");
	if (events == NULL || lock == NULL) {
		pr_warn("kdt: sdt: kernel symbols ftrace_events and event_mutex not found; every sdt probe is in module \"kernel\"\n");
		return;
	}
	mutex_lock(lock);
	list_for_each_entry(call, events, list) {
		if (!(call->flags & TRACE_EVENT_FL_TRACEPOINT) ||
		    call->tp == NULL || call->class == NULL ||
		    call->class->system == NULL)
			continue;
		hit = kd_sdt_find(ss, idx, call->tp);
		if (hit != NULL)
			ss->ss_tps[hit->si_i].st_system = call->class->system;
	}
	mutex_unlock(lock);
}

/* Give each tracepoint of "ss" its argument count from BPF's table. */
static void
kd_sdt_nargs(struct kd_sdt_state *ss, const struct kd_sdt_idx *idx)
{
	const struct bpf_raw_event_map *m, *end;
	const struct kd_sdt_idx *hit;
	uint32_t n = 0;

	m = (const struct bpf_raw_event_map *)
	    kd_ksym_lookup("__start__bpf_raw_tp");
	end = (const struct bpf_raw_event_map *)
	    kd_ksym_lookup("__stop__bpf_raw_tp");
	for (; m != NULL && end != NULL && m < end; m++) {
		hit = kd_sdt_find(ss, idx, m->tp);
		if (hit == NULL)
			continue;
		ss->ss_tps[hit->si_i].st_nargs = m->num_args;
		n++;
	}
	if (n != ss->ss_n)
		pr_warn("kdt: sdt: %u of %u kernel tracepoints have no argument count (BPF raw tracepoint table); they get %u arguments, those beyond their prototype undefined\n",
		    ss->ss_n - n, ss->ss_n, KD_SDT_NREGARGS);
}

/* Name the system and count the arguments of every tracepoint of "ss". */
static void
kd_sdt_describe(struct kd_sdt_state *ss)
{
	struct kd_sdt_idx *idx;
	uint32_t i;

	idx = kvmalloc_array(max(ss->ss_n, 1U), sizeof (*idx), GFP_KERNEL);
	if (idx == NULL) {
		pr_warn("kdt: sdt: cannot allocate %u index entries; every sdt probe is in module \"kernel\" with %u arguments\n",
		    ss->ss_n, KD_SDT_NREGARGS);
		return;
	}
	for (i = 0; i < ss->ss_n; i++) {
		idx[i].si_tp = ss->ss_tps[i].st_tp;
		idx[i].si_i = i;
	}
	sort(idx, ss->ss_n, sizeof (*idx), kd_sdt_idx_cmp, NULL);
	kd_sdt_systems(ss, idx);
	kd_sdt_nargs(ss, idx);
	kvfree(idx);
}

/* The state's tracepoint table, built on first use; NULL: -ENOMEM. */
static struct kd_sdt_state *
kd_sdt_state(struct kd_cstate *cs)
{
	struct kd_sdt_state *ss = cs->cs_pdata[kd_prov_sdt.pv_id];
	uint32_t n = 0;

	if (ss != NULL)
		return ss;
	for_each_kernel_tracepoint(kd_sdt_count, &n);
	ss = kvzalloc(struct_size(ss, ss_tps, n), GFP_KERNEL);
	if (ss == NULL) {
		kd_cs_msg(cs, "sdt provider: cannot allocate the table of %u kernel tracepoints",
		    n);
		return NULL;
	}
	ss->ss_cap = n;
	for_each_kernel_tracepoint(kd_sdt_collect, ss);
	kd_sdt_describe(ss);
	cs->cs_pdata[kd_prov_sdt.pv_id] = ss;
	return ss;
}

/*
 * Attach ECB "ecb" to the probe of tracepoint "tp" (key "key", system
 * "system", "nargs" arguments) if "pd" matches it: 1 if so, 0 if not,
 * -errno after kd_cs_msg().
 */
static int
kd_sdt_attach(struct kd_cstate *cs, const struct dof_pdesc *pd, uint32_t ecb,
    uint64_t key, struct tracepoint *tp, const char *system, uint32_t nargs)
{
	struct kd_probe *kp;

	if (!kd_part_match(pd->lp_mod, system) ||
	    !kd_part_match(pd->lp_name, tp->name))
		return 0;
	kp = kd_probe_attach(cs, &kd_prov_sdt, key, system, "", tp->name, 0,
	    ecb);
	if (IS_ERR(kp))
		return PTR_ERR(kp);
	kp->kp_u.u_word[0] = (uintptr_t)tp;
	kp->kp_u.u_word[2] = nargs;
	return 1;
}

/*
 * Does the tracepoint code leave "mod" alone?  It does for modules with
 * no tracepoints and for those tainted by more than being out-of-tree,
 * staging, unsigned or a test (tracepoint.c's trace_module_has_bad_taint,
 * not exported).
 */
static int
kd_sdt_mod_ignored(const struct module *mod)
{
	const unsigned long fine = BIT(TAINT_OOT_MODULE) | BIT(TAINT_CRAP) |
	    BIT(TAINT_UNSIGNED_MODULE) | BIT(TAINT_TEST);

	return mod->num_tracepoints == 0 || (mod->taints & ~fine) != 0;
}

/* The system of module tracepoint "tp": its event's, else the module's. */
static const char *
kd_sdt_mod_system(const struct module *mod, const struct tracepoint *tp)
{
	const struct trace_event_call *call;
	unsigned int i;

	for (i = 0; i < mod->num_trace_events; i++) {
		call = mod->trace_events[i];
		if (call != NULL && (call->flags & TRACE_EVENT_FL_TRACEPOINT) &&
		    call->tp == tp && call->class != NULL &&
		    call->class->system != NULL)
			return call->class->system;
	}
	return mod->name;
}

/* The argument count of module tracepoint "tp" (BPF's table). */
static uint32_t
kd_sdt_mod_nargs(const struct module *mod, const struct tracepoint *tp)
{
#ifdef CONFIG_BPF_EVENTS
	unsigned int i;

	for (i = 0; i < mod->num_bpf_raw_events; i++)
		if (mod->bpf_raw_events[i].tp == tp)
			return mod->bpf_raw_events[i].num_args;
#endif
	return KD_SDT_NREGARGS;
}

/*
 * Attach ECB "ecb" to the tracepoints of module "mod" that "pd" matches.
 * Returns how many, or -errno after kd_cs_msg().  "mod" cannot go away
 * meanwhile (the caller says why).
 */
static int
kd_sdt_match_tps(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb, struct module *mod)
{
	struct tracepoint *tp;
	unsigned int i;
	int rv, n = 0;

	for (i = 0; i < mod->num_tracepoints; i++) {
		tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);
		if (tp == NULL || tp->name == NULL)
			continue;
		rv = kd_sdt_attach(cs, pd, ecb, (uintptr_t)tp, tp,
		    kd_sdt_mod_system(mod, tp), kd_sdt_mod_nargs(mod, tp));
		if (rv < 0)
			return rv;
		n += rv;
	}
	return n;
}

/* Hold "mod" until kd_sdt_registered(): 0, or -errno (-ENOENT: going). */
static int
kd_sdt_hold(struct kd_cstate *cs, struct kd_sdt_state *ss, struct module *mod)
{
	struct module **mods;
	uint32_t i;

	for (i = 0; i < ss->ss_nmods; i++)
		if (ss->ss_mods[i] == mod)
			return 0;
	if (ss->ss_nmods == ss->ss_modcap) {
		mods = krealloc_array(ss->ss_mods, ss->ss_modcap + 8,
		    sizeof (*mods), GFP_KERNEL);
		if (mods == NULL) {
			kd_cs_msg(cs, "sdt provider: out of memory holding module %s",
			    mod->name);
			return -ENOMEM;
		}
		ss->ss_mods = mods;
		ss->ss_modcap += 8;
	}
	if (!try_module_get(mod))
		return -ENOENT;
	ss->ss_mods[ss->ss_nmods++] = mod;
	return 0;
}

static void
kd_sdt_release(struct kd_sdt_state *ss)
{
	uint32_t i;

	for (i = 0; i < ss->ss_nmods; i++)
		module_put(ss->ss_mods[i]);
	ss->ss_nmods = 0;
}

void
kd_sdt_registered(struct kd_cstate *cs)
{
	struct kd_sdt_state *ss = cs->cs_pdata[kd_prov_sdt.pv_id];

	if (ss != NULL)
		kd_sdt_release(ss);
}

/* The walk over the loaded modules with tracepoints (see the top). */
struct kd_sdt_walk {
	struct notifier_block sw_nb;
	struct kd_cstate *sw_cs;
	struct kd_sdt_state *sw_ss;
	const struct dof_pdesc *sw_pd;
	uint32_t	sw_ecb;
	int		sw_n;		/* probes matched, or -errno */
};

/* tracepoint.c's module list mutex held: "mod" cannot finish going. */
static int
kd_sdt_walk_one(struct notifier_block *nb, unsigned long val, void *data)
{
	struct kd_sdt_walk *sw = container_of(nb, struct kd_sdt_walk, sw_nb);
	struct module *mod = ((struct tp_module *)data)->mod;
	struct kd_cstate *cs = sw->sw_cs;
	uint32_t held = sw->sw_ss->ss_nmods;
	int rv;

	if (val != MODULE_STATE_COMING || sw->sw_n < 0 ||
	    READ_ONCE(mod->state) != MODULE_STATE_LIVE ||
	    kd_sdt_mod_ignored(mod))
		return NOTIFY_DONE;
	if (!cs->cs_list) {
		rv = kd_sdt_hold(cs, sw->sw_ss, mod);
		if (rv == -ENOENT)
			return NOTIFY_DONE;	/* began to go just now */
		if (rv < 0) {
			sw->sw_n = rv;
			return NOTIFY_DONE;
		}
	}
	rv = kd_sdt_match_tps(cs, sw->sw_pd, sw->sw_ecb, mod);
	if (rv == 0 && sw->sw_ss->ss_nmods > held) {
		/* nothing here for this ECB: do not hold the module */
		module_put(mod);
		sw->sw_ss->ss_nmods--;
	}
	sw->sw_n = rv < 0 ? rv : sw->sw_n + rv;
	return NOTIFY_DONE;
}

/* Setup context, cs_lock held. */
static int
kd_sdt_match(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb)
{
	const struct kd_sdt_tp *st;
	struct kd_sdt_state *ss;
	struct kd_sdt_walk sw;
	uint32_t i;
	int rv, n = 0;

	if (!kd_part_match(pd->lp_prov, kd_prov_sdt.pv_name) ||
	    !kd_part_match(pd->lp_func, ""))
		return 0;
	if ((ss = kd_sdt_state(cs)) == NULL)
		return -ENOMEM;
	for (i = 0; i < ss->ss_n; i++) {
		st = &ss->ss_tps[i];
		rv = kd_sdt_attach(cs, pd, ecb, i, st->st_tp, st->st_system,
		    st->st_nargs);
		if (rv < 0)
			return rv;
		n += rv;
	}
	memset(&sw, 0, sizeof (sw));
	sw.sw_nb.notifier_call = kd_sdt_walk_one;
	sw.sw_cs = cs;
	sw.sw_ss = ss;
	sw.sw_pd = pd;
	sw.sw_ecb = ecb;
	rv = register_tracepoint_module_notifier(&sw.sw_nb);
	if (rv != 0) {
		kd_cs_msg(cs, "sdt provider: cannot walk the modules' tracepoints: error %d",
		    rv);
		return rv;
	}
	(void) unregister_tracepoint_module_notifier(&sw.sw_nb);
	return sw.sw_n < 0 ? sw.sw_n : n + sw.sw_n;
}

/*
 * Module "mod" is coming (kd_cs.c's module notifier, which keeps it from
 * going meanwhile).  Setup context, cs_lock held.
 */
static int
kd_sdt_match_mod(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb, struct module *mod)
{
	if (!kd_part_match(pd->lp_prov, kd_prov_sdt.pv_name) ||
	    !kd_part_match(pd->lp_func, "") || kd_sdt_mod_ignored(mod))
		return 0;
	return kd_sdt_match_tps(cs, pd, ecb, mod);
}

/*
 * The tracepoint probes, one per arity: data is the struct kd_probe, a0..
 * the tracepoint's arguments.  kd_sdt_fire5() serves prototypes of up to
 * five arguments and zeroes those beyond kp_u.u_word[2].
 * Probe context: no locks, no allocation, no sleeping.
 */
static void
kd_sdt_fire5(void *data, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
    uint64_t a4)
{
	struct kd_probe *kp = data;
	uint64_t args[DIF_NARGS] = { a0, a1, a2, a3, a4 };
	uint32_t i;

	for (i = kp->kp_u.u_word[2]; i < KD_SDT_NREGARGS; i++)
		args[i] = 0;
	kd_fire(kp, args, 0);
}

static void
kd_sdt_fire6(void *data, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
    uint64_t a4, uint64_t a5)
{
	uint64_t args[DIF_NARGS] = { a0, a1, a2, a3, a4, a5 };

	kd_fire(data, args, 0);
}

static void
kd_sdt_fire7(void *data, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
    uint64_t a4, uint64_t a5, uint64_t a6)
{
	uint64_t args[DIF_NARGS] = { a0, a1, a2, a3, a4, a5, a6 };

	kd_fire(data, args, 0);
}

static void
kd_sdt_fire8(void *data, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
    uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7)
{
	uint64_t args[DIF_NARGS] = { a0, a1, a2, a3, a4, a5, a6, a7 };

	kd_fire(data, args, 0);
}

static void
kd_sdt_fire9(void *data, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
    uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
	uint64_t args[DIF_NARGS] = { a0, a1, a2, a3, a4, a5, a6, a7, a8 };

	kd_fire(data, args, 0);
}

static void
kd_sdt_fire10(void *data, uint64_t a0, uint64_t a1, uint64_t a2,
    uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
    uint64_t a8, uint64_t a9)
{
	uint64_t args[DIF_NARGS] = { a0, a1, a2, a3, a4, a5, a6, a7, a8,
	    a9 };

	kd_fire(data, args, 0);
}

/*
 * The handlers of a probe with kp_simple (ecb.h's simple aggregations):
 * ECB_GATE_NARGS arguments at most go to kd_fire_simple(), none when no
 * clause reads one (ECB_SIMPLE_ARGS clear: kd_sdt_simple0, whatever the
 * tracepoint's arity), else the six first (kd_sdt_simple6, arity 6 and
 * more) or the five in registers with those past the arity zeroed
 * (kd_sdt_simple5).  Probe context: no locks, no allocation, no sleeping.
 */
static void
kd_sdt_simple0(void *data)
{
	kd_fire_simple(data, ecb_simple_noargs);
}

static void
kd_sdt_simple5(void *data, uint64_t a0, uint64_t a1, uint64_t a2,
    uint64_t a3, uint64_t a4)
{
	struct kd_probe *kp = data;
	uint64_t args[ECB_GATE_NARGS] = { a0, a1, a2, a3, a4, 0 };
	uint32_t i;

	for (i = kp->kp_u.u_word[2]; i < KD_SDT_NREGARGS; i++)
		args[i] = 0;
	kd_fire_simple(kp, args);
}

static void
kd_sdt_simple6(void *data, uint64_t a0, uint64_t a1, uint64_t a2,
    uint64_t a3, uint64_t a4, uint64_t a5)
{
	uint64_t args[ECB_GATE_NARGS] = { a0, a1, a2, a3, a4, a5 };

	kd_fire_simple(data, args);
}

/*
 * The handler for a probe's argument count (DIF_NARGS at most) and its
 * clauses (kp_simple).  Registration keeps it in u_word[3], which
 * unregistration uses, so a later change of kp_simple cannot unbalance
 * the two.
 */
static void *
kd_sdt_handler(const struct kd_probe *kp)
{
	if (kp->kp_simple && !(kp->kp_simple & ECB_SIMPLE_ARGS))
		return kd_sdt_simple0;
	if (kp->kp_simple)
		return kp->kp_u.u_word[2] <= KD_SDT_NREGARGS ?
		    (void *)kd_sdt_simple5 : (void *)kd_sdt_simple6;
	switch (kp->kp_u.u_word[2]) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		return kd_sdt_fire5;
	case 6:
		return kd_sdt_fire6;
	case 7:
		return kd_sdt_fire7;
	case 8:
		return kd_sdt_fire8;
	case 9:
		return kd_sdt_fire9;
	default:
		return kd_sdt_fire10;
	}
}

static struct tracepoint *
kd_sdt_tp(const struct kd_probe *kp)
{
	return (struct tracepoint *)(uintptr_t)kp->kp_u.u_word[0];
}

/*
 * Register the handlers of the probes of "cs" from index "from" on that
 * have ECBs and are not registered yet.  Returns how many are armed now;
 * with "strict", -errno when there were some and none could be.  Setup
 * context, cs_lock held.
 */
static int
kd_sdt_register(struct kd_cstate *cs, uint32_t from, int strict)
{
	struct kd_probe *kp;
	uint32_t i, nprobes = 0;
	int rv, armed = 0, err = 0;
	void *fn;

	for (i = from; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp == NULL || kp->kp_prov != &kd_prov_sdt ||
		    kp->kp_necbs == 0 || kp->kp_u.u_word[0] == 0 ||
		    kp->kp_u.u_word[1] != 0)
			continue;
		nprobes++;
		/* kd_fire()'s gate (ecb.h): a false /VAR op K/ predicate
		   ends the firing before the runner */
		kp->kp_gated = cs->cs_es != NULL &&
		    ecb_gate_usable(cs->cs_es, &kp->kp_ep);
		fn = kd_sdt_handler(kp);
		rv = tracepoint_probe_register(kd_sdt_tp(kp), fn, kp);
		if (rv == 0) {
			kp->kp_u.u_word[1] = 1;
			kp->kp_u.u_word[3] = (uintptr_t)fn;
			kp->kp_live = 1;
			armed++;
			continue;
		}
		err = rv;
		if (cs->cs_nfailed++ < KD_SDT_NFAILLOG)
			kd_cs_msg(cs, "sdt:%s::%s (probe %u) not enabled: tracepoint registration error %d",
			    kp->kp_ep.ep_mod, kp->kp_ep.ep_name,
			    kp->kp_ep.ep_id, rv);
	}
	return strict && nprobes != 0 && armed == 0 ? err : armed;
}

/* Setup context, cs_lock held. */
static int
kd_sdt_enable(struct kd_cstate *cs)
{
	return kd_sdt_register(cs, 0, 1);
}

/* The probes a coming module added (kd_cs_mod_coming). */
static int
kd_sdt_arm(struct kd_cstate *cs, uint32_t from)
{
	return kd_sdt_register(cs, from, 0);
}

/*
 * Unregister the handlers of the probes that "gone" selects (NULL: all),
 * then wait for any still running.  Probes of "gone" also leave the probe
 * hash and forget their tracepoint, which is about to be freed.  Setup
 * context; when it returns no handler of them runs.
 */
static void
kd_sdt_unregister(struct kd_cstate *cs, struct module *gone)
{
	struct kd_probe *kp;
	uint32_t i, n = 0;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp == NULL || kp->kp_prov != &kd_prov_sdt)
			continue;
		if (gone != NULL &&
		    !within_module((unsigned long)kp->kp_u.u_word[0], gone))
			continue;
		if (kp->kp_u.u_word[1] != 0) {
			tracepoint_probe_unregister(kd_sdt_tp(kp),
			    (void *)(uintptr_t)kp->kp_u.u_word[3], kp);
			kp->kp_u.u_word[1] = 0;
			kp->kp_live = 0;
			n++;
		}
		if (gone != NULL) {
			kp->kp_u.u_word[0] = 0;
			hlist_del_init(&kp->kp_hash);	/* never found again */
		}
	}
	if (n != 0)
		tracepoint_synchronize_unregister();
}

/* Setup context; when it returns no handler of "cs" runs. */
static void
kd_sdt_disable(struct kd_cstate *cs)
{
	kd_sdt_unregister(cs, NULL);
}

/* Module "mod" is going; cs_lock held. */
static void
kd_sdt_mod_gone(struct kd_cstate *cs, struct module *mod)
{
	if (mod->num_tracepoints != 0)
		kd_sdt_unregister(cs, mod);
}

static void
kd_sdt_free(struct kd_cstate *cs)
{
	struct kd_sdt_state *ss = cs->cs_pdata[kd_prov_sdt.pv_id];

	kd_sdt_disable(cs);	/* a no-op after pv_disable */
	if (ss != NULL) {
		kd_sdt_release(ss);	/* never registered */
		kfree(ss->ss_mods);
	}
	kvfree(ss);
	cs->cs_pdata[kd_prov_sdt.pv_id] = NULL;
}

const struct kd_prov kd_prov_sdt = {
	.pv_name	= "sdt",
	.pv_provs	= (const char *const[]){ "sdt", NULL },
	.pv_id		= 4,
	.pv_match	= kd_sdt_match,
	.pv_enable	= kd_sdt_enable,
	.pv_disable	= kd_sdt_disable,
	.pv_free	= kd_sdt_free,
	.pv_match_mod	= kd_sdt_match_mod,
	.pv_arm		= kd_sdt_arm,
	.pv_mod_gone	= kd_sdt_mod_gone,
};
