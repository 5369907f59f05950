/*
 * kd_prof.c -- the profile provider: profile-N and tick-N on hrtimers.
 *
 * Probes are profile:::profile-N and profile:::tick-N (module and function
 * empty), N a rate as dtrace(1) spells it: a bare number is a frequency
 * in Hz ("profile-997"), a number with a unit a period ("tick-10ms").
 * Units are ns nsec us usec ms msec s sec m min h hour d day and hz, the
 * table consumer/kc_engine.c uses for the userspace engine's timers (its
 * parser is userspace code, so this is the kernel's own).  Periods below
 * 200 microseconds are refused, as dtrace refuses them: a faster timer on
 * every CPU is a denial of service, not a measurement.  An enabling that
 * names one fails with -EINVAL and a message; a listing just finds no
 * such probe (KIO_LIST has no room for a message).
 *
 * Matching (kd_prof_match).  A literal name part creates exactly the
 * probe it names, if it parses.  A globbed or empty name part matches
 * dtrace's standard set (kd_prof_std[]: what "dtrace -l -P profile"
 * shows before anything else was enabled), both when listing and when
 * enabling, so "profile:::tick-1*" enables tick-1, tick-10, tick-100,
 * tick-1000, tick-1sec and tick-10sec.
 *
 * A probe's key is its index in this state's list of profile names
 * (struct kd_prof_state), so that tick-1000 and tick-1ms -- the same
 * period -- remain two probes, as in dtrace.  kp_u.u_word[0] holds the
 * period in ns, u_word[1] 1 for tick-N; kp_priv the probe's timers.
 *
 * Firing.  profile-N has one hrtimer per CPU that was online at
 * pv_enable, each started on its CPU with HRTIMER_MODE_REL_PINNED (from
 * an IPI, on_each_cpu()), so every CPU is sampled; tick-N has a single
 * timer, pinned to the CPU that armed it.  The callback runs in hardirq
 * context: arg0 is the interrupted kernel PC (0 if the interrupt came
 * from user mode), arg1 the interrupted user PC (0 if from the kernel),
 * both from get_irq_regs().  It calls kd_fire() and pushes the expiry
 * forward by whole periods (overruns are not fired, as in dtrace).
 *
 * CPU hotplug is ignored: a CPU that comes online after pv_enable gets
 * no profile timer, and the timer of a CPU that goes offline is migrated
 * by the hrtimer code to another CPU, which then fires that probe twice
 * per period.  pv_disable cancels every timer with hrtimer_cancel(),
 * which waits for a running callback, so nothing runs once it returns.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/overflow.h>
#include <asm/irq_regs.h>
#include <asm/ptrace.h>

#include "kd_impl.h"

#define KD_PROF_MIN_NS	200000ULL	/* 200 us: dtrace's minimum period */
#define KD_NS		1000000000ULL
#define KD_PROF_NFAILLOG 4		/* arming failures logged per state */

/* dtrace's standard profile probes, in its listing order. */
static const char *const kd_prof_std[] = {
	"profile-97", "profile-199", "profile-499", "profile-997",
	"profile-1999", "profile-4001", "profile-4999",
	"tick-1", "tick-10", "tick-100", "tick-500", "tick-1000",
	"tick-5000", "tick-1sec", "tick-10sec",
};

/* Per state: the profile probe names in key order. */
struct kd_prof_state {
	char		**ps_names;
	uint32_t	ps_n;
	uint32_t	ps_cap;
};

/* One timer of one probe. */
struct kd_ptimer {
	struct hrtimer	pt_timer;
	struct kd_probe	*pt_kp;
	ktime_t		pt_period;
};

/* A probe's timers (kp_priv): one per possible CPU, or one for tick-N. */
struct kd_ptimers {
	uint32_t	pts_n;
	struct kd_ptimer pts_t[];
};

/*
 * "N[unit]" in ns into *ns: 0, or -EINVAL when it does not parse (no
 * digits, N zero or 10^9 and above, an unknown unit, or a period that
 * does not fit a ktime_t).
 */
static int
kd_prof_rate(const char *s, uint64_t *ns)
{
	static const struct {
		const char	*u_name;
		uint64_t	u_mul;
	} units[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 }, { "s", KD_NS },
		{ "sec", KD_NS }, { "m", 60 * KD_NS }, { "min", 60 * KD_NS },
		{ "h", 3600 * KD_NS }, { "hour", 3600 * KD_NS },
		{ "d", 86400 * KD_NS }, { "day", 86400 * KD_NS },
	};
	uint64_t n = 0;
	uint32_t i;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9' && n < KD_NS; s++)
		n = n * 10 + (uint64_t)(*s - '0');
	if (n == 0 || n >= KD_NS)
		return -EINVAL;
	if (*s == '\0' || strcmp(s, "hz") == 0) {
		*ns = KD_NS / n;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(s, units[i].u_name) != 0)
			continue;
		if (check_mul_overflow(n, units[i].u_mul, ns) ||
		    *ns > (uint64_t)KTIME_MAX)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/*
 * Parse a probe name: 0 with *ns and *tick set, or -EINVAL when "name" is
 * not profile-N or tick-N with a valid N.
 */
static int
kd_prof_parse(const char *name, uint64_t *ns, uint32_t *tick)
{
	if (strncmp(name, "profile-", 8) == 0) {
		*tick = 0;
		return kd_prof_rate(name + 8, ns);
	}
	if (strncmp(name, "tick-", 5) == 0) {
		*tick = 1;
		return kd_prof_rate(name + 5, ns);
	}
	return -EINVAL;
}

static int
kd_prof_globbed(const char *s)
{
	return s[0] == '\0' || strpbrk(s, "*?[") != NULL;
}

static struct kd_prof_state *
kd_prof_state(struct kd_cstate *cs)
{
	if (cs->cs_pdata[kd_prov_profile.pv_id] == NULL)
		cs->cs_pdata[kd_prov_profile.pv_id] =
		    kzalloc(sizeof (struct kd_prof_state), GFP_KERNEL);
	return cs->cs_pdata[kd_prov_profile.pv_id];
}

/* The key of profile probe "name" in "cs": its index, added if new. */
static int
kd_prof_key(struct kd_cstate *cs, const char *name, uint64_t *key)
{
	struct kd_prof_state *ps = kd_prof_state(cs);
	char **nn;
	uint32_t i;

	if (ps == NULL)
		return -ENOMEM;
	for (i = 0; i < ps->ps_n; i++) {
		if (strcmp(ps->ps_names[i], name) == 0) {
			*key = i;
			return 0;
		}
	}
	if (ps->ps_n == ps->ps_cap) {
		nn = krealloc_array(ps->ps_names, ps->ps_cap + 16,
		    sizeof (*nn), GFP_KERNEL);
		if (nn == NULL)
			return -ENOMEM;
		ps->ps_names = nn;
		ps->ps_cap += 16;
	}
	ps->ps_names[ps->ps_n] = kstrdup(name, GFP_KERNEL);
	if (ps->ps_names[ps->ps_n] == NULL)
		return -ENOMEM;
	*key = ps->ps_n++;
	return 0;
}

/* Attach ECB "ecb" to the (valid, parsed) probe "name". */
static int
kd_prof_attach(struct kd_cstate *cs, const char *name, uint64_t ns,
    uint32_t tick, uint32_t ecb)
{
	struct kd_probe *kp;
	uint64_t key;
	int rv;

	if ((rv = kd_prof_key(cs, name, &key)) != 0) {
		kd_cs_msg(cs, "profile:::%s: out of memory for the probe name",
		    name);
		return rv;
	}
	kp = kd_probe_attach(cs, &kd_prov_profile, key, "", "", name, 0,
	    ecb);
	if (IS_ERR(kp))
		return PTR_ERR(kp);
	kp->kp_u.u_word[0] = ns;
	kp->kp_u.u_word[1] = tick;
	return 0;
}

/* A literal name part: the probe it names, if it is one. */
static int
kd_prof_match_literal(struct kd_cstate *cs, const char *name, uint32_t ecb)
{
	uint32_t tick;
	uint64_t ns;
	int rv;

	if (kd_prof_parse(name, &ns, &tick) != 0)
		return 0;
	if (ns < KD_PROF_MIN_NS) {
		if (cs->cs_list)
			return 0;	/* no such probe, as dtrace -l says */
		kd_cs_msg(cs, "profile:::%s: period %llu ns is below the minimum of %llu ns (200 us)",
		    name, (unsigned long long)ns,
		    (unsigned long long)KD_PROF_MIN_NS);
		return -EINVAL;
	}
	rv = kd_prof_attach(cs, name, ns, tick, ecb);
	return rv < 0 ? rv : 1;
}

/* Setup context, cs_lock held. */
static int
kd_prof_match(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb)
{
	uint32_t i, tick;
	uint64_t ns;
	int rv, n = 0;

	if (!kd_part_match(pd->lp_prov, kd_prov_profile.pv_name) ||
	    !kd_part_match(pd->lp_mod, "") || !kd_part_match(pd->lp_func, ""))
		return 0;
	if (!kd_prof_globbed(pd->lp_name))
		return kd_prof_match_literal(cs, pd->lp_name, ecb);
	for (i = 0; i < ARRAY_SIZE(kd_prof_std); i++) {
		if (!kd_part_match(pd->lp_name, kd_prof_std[i]))
			continue;
		if (kd_prof_parse(kd_prof_std[i], &ns, &tick) != 0)
			continue;	/* cannot happen: the table parses */
		if ((rv = kd_prof_attach(cs, kd_prof_std[i], ns, tick,
		    ecb)) != 0)
			return rv;
		n++;
	}
	return n;
}

/*
 * The timer callback.
 * Probe context (hardirq): no locks, no allocation, no sleeping.
 */
static enum hrtimer_restart
kd_prof_fire(struct hrtimer *t)
{
	struct kd_ptimer *pt = container_of(t, struct kd_ptimer, pt_timer);
	struct pt_regs *regs = get_irq_regs();
	uint64_t args[DIF_NARGS] = { 0 };

	if (regs != NULL) {
		if (user_mode(regs))
			args[1] = instruction_pointer(regs);
		else
			args[0] = instruction_pointer(regs);
	}
	kd_fire(pt->pt_kp, args, 0);
	hrtimer_forward_now(t, pt->pt_period);
	return HRTIMER_RESTART;
}

/* Start this CPU's timer of a profile-N probe.  IPI context. */
static void
kd_prof_start_cpu(void *arg)
{
	struct kd_ptimers *pts = arg;
	uint32_t cpu = smp_processor_id();

	if (cpu < pts->pts_n)
		hrtimer_start(&pts->pts_t[cpu].pt_timer,
		    pts->pts_t[cpu].pt_period, HRTIMER_MODE_REL_PINNED);
}

/* Allocate and start the timers of "kp".  Setup context. */
static int
kd_prof_arm(struct kd_probe *kp)
{
	uint32_t i, tick = kp->kp_u.u_word[1] != 0;
	uint32_t n = tick ? 1 : nr_cpu_ids;
	struct kd_ptimers *pts;

	pts = kzalloc(struct_size(pts, pts_t, n), GFP_KERNEL);
	if (pts == NULL)
		return -ENOMEM;
	pts->pts_n = n;
	for (i = 0; i < n; i++) {
		hrtimer_init(&pts->pts_t[i].pt_timer, CLOCK_MONOTONIC,
		    HRTIMER_MODE_REL_PINNED);
		pts->pts_t[i].pt_timer.function = kd_prof_fire;
		pts->pts_t[i].pt_kp = kp;
		pts->pts_t[i].pt_period = ns_to_ktime(kp->kp_u.u_word[0]);
	}
	kp->kp_priv = pts;
	kp->kp_live = 1;
	if (tick) {
		hrtimer_start(&pts->pts_t[0].pt_timer, pts->pts_t[0].pt_period,
		    HRTIMER_MODE_REL_PINNED);
		return 0;
	}
	cpus_read_lock();
	on_each_cpu(kd_prof_start_cpu, pts, 1);
	cpus_read_unlock();
	return 0;
}

/* Setup context, cs_lock held. */
static int
kd_prof_enable(struct kd_cstate *cs)
{
	struct kd_probe *kp;
	uint32_t i, nprobes = 0;
	int rv, armed = 0;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp == NULL || kp->kp_prov != &kd_prov_profile ||
		    kp->kp_live)
			continue;
		nprobes++;
		if ((rv = kd_prof_arm(kp)) == 0) {
			armed++;
			continue;
		}
		if (cs->cs_nfailed++ < KD_PROF_NFAILLOG)
			kd_cs_msg(cs, "profile:::%s (probe %u) not enabled: cannot allocate its timers: error %d",
			    kp->kp_ep.ep_name, kp->kp_ep.ep_id, rv);
	}
	return nprobes != 0 && armed == 0 ? -ENOMEM : armed;
}

/* Setup context; when it returns no timer of "cs" runs. */
static void
kd_prof_disable(struct kd_cstate *cs)
{
	struct kd_ptimers *pts;
	struct kd_probe *kp;
	uint32_t i, j;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp == NULL || kp->kp_prov != &kd_prov_profile ||
		    kp->kp_priv == NULL)
			continue;
		pts = kp->kp_priv;
		for (j = 0; j < pts->pts_n; j++)
			hrtimer_cancel(&pts->pts_t[j].pt_timer);
		kp->kp_live = 0;
	}
}

static void
kd_prof_free(struct kd_cstate *cs)
{
	struct kd_prof_state *ps = cs->cs_pdata[kd_prov_profile.pv_id];
	struct kd_ptimers *pts;
	struct kd_probe *kp;
	uint32_t i, j;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp == NULL || kp->kp_prov != &kd_prov_profile ||
		    kp->kp_priv == NULL)
			continue;
		pts = kp->kp_priv;
		for (j = 0; j < pts->pts_n; j++)	/* no-op after disable */
			hrtimer_cancel(&pts->pts_t[j].pt_timer);
		kfree(pts);
		kp->kp_priv = NULL;
	}
	if (ps != NULL) {
		for (i = 0; i < ps->ps_n; i++)
			kfree(ps->ps_names[i]);
		kfree(ps->ps_names);
		kfree(ps);
	}
	cs->cs_pdata[kd_prov_profile.pv_id] = NULL;
}

const struct kd_prov kd_prov_profile = {
	.pv_name	= "profile",
	.pv_provs	= (const char *const[]){ "profile", NULL },
	.pv_id		= 2,
	.pv_match	= kd_prof_match,
	.pv_enable	= kd_prof_enable,
	.pv_disable	= kd_prof_disable,
	.pv_free	= kd_prof_free,
};
