/*
 * kd_cs.c -- consumer states: one enabling, its probes, its buffers.
 *
 * kd_impl.h has the life of a state.  This file owns the generic parts:
 *
 * Probes.  Providers call kd_probe_attach() while matching; probes are
 * found again by (provider, key, names) through a hash table, so an ECB
 * that matches a probe another ECB already matched attaches to the same
 * probe.  Each attachment is a (probe, ECB) pair; pairs are numbered in
 * creation order and that number is the EPID -- because ECBs are matched
 * in program order, every probe's ECB list is in program order, which is
 * the order its clauses run in.
 *
 * Probe ids are kdt.ko's, not a state's, as dtrace numbers probes
 * globally: the id `kdt -l` lists is the one `kdt -i ID` enables and the
 * one every consumer's records carry (ep_id, the region's probe table).
 * BEGIN 1, END 2, ERROR 3 (as dtrace numbers them); every other probe
 * gets the next id (from 4) the first time any state or listing matches
 * it, from the global table kd_pids (a hash table of names, under the
 * leaf mutex kd_pids_lock, setup context only).  A probe is its full
 * name, provider:module:function:name (the provider part as the probe
 * shows it, e.g. pid1234), so a state's probes are numbered once
 * matching is over (kd_probe_number(), from kd_build_ecbrefs() and the
 * listing), when the pid provider has set that part.  Ids live as long
 * as kdt.ko and are never reused: when a module goes, its probes' entries
 * (fbt probes of that module, and fbt, kinst and sdt probes whose
 * address key lies in it) are dropped, so the same probes get new ids
 * when it loads again.  Two probes with one full name (two static
 * functions of one name) share an id, as `-i ID` enables the name.
 * KIO_PROBE (kd_probe_byid()) returns an id's names for `kdt -i`.
 *
 * Buffers.  The region (rgn.h) holds the metadata and one principal
 * buffer per CPU.  For the anonymous state it is the reserved region;
 * for a live state it is vmalloc'd here, sized from the bufsize option.
 * Under bufpolicy=switch each CPU also has a spare buffer outside the
 * region.  KIO_SNAP switches a CPU's active buffer with its spare by
 * running kd_switch_buf() on that CPU with interrupts off -- probes run
 * with interrupts off too, so no record is half written at that moment
 * -- and then copies the now idle buffer to the consumer at leisure.
 * The new active buffer continues the logical offsets and the drop and
 * error counts of the old one, so the consumer sees one stream per CPU.
 * Aggregation buffers (agg.h) switch the same way under every policy;
 * a vmalloc'd live state keeps them and their spares in its region, with
 * the consumer's merged totals (KIO_AGGTOT), and empties a switched-out
 * buffer only when it switches it in again (rgn.h, "Aggregation
 * totals"), so a crash dump gives the numbers the consumer had.  So does
 * the anonymous state in its reserved region, for the consumer that
 * claims it (kd_anon_aggrgn), when the region has room.
 * Ring and fill buffers are copied once, after the enabling stopped --
 * except the claimed anonymous state's (kd_snap_cursor, kio.h): its
 * consumer gets the records committed since its last snapshot, as they
 * come, from the region the boot has been writing.
 *
 * Locking: cs_lock serialises setup and every ioctl of the state; the
 * probe-context side takes no lock (kd_probe.c).
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/jhash.h>
#include <linux/hash.h>
#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/random.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>
#include <linux/string.h>
#include <linux/module.h>
#include <linux/notifier.h>

#include "kd_impl.h"
#include "agg.h"

/* Principal buffer bytes per CPU of a live state without bufsize. */
#define KD_BUFSIZE_DEFAULT	KIO_BUFSIZE_DEFAULT
#define KD_BUFSIZE_MAX		(1ULL << 30)
/*
 * bufresize=auto halves bufsize and aggsize no further than these (dtrace
 * goes down to 8 bytes; a buffer smaller than a page holds few records).
 */
#define KD_BUFSIZE_MIN		(4ULL << 10)
#define KD_AGGSIZE_MIN		(4ULL << 10)
#define KD_DYNVARSIZE_MIN	(4ULL << 10)	/* consumer/kc_resize.h's too */
/* DTRACEOPT_BUFRESIZE's values, as dtrace has them (compiler/dc_opt.c) */
#define KD_BUFRESIZE_AUTO	0
#define KD_BUFRESIZE_MANUAL	1
/*
 * Per-CPU aggregation buffer bytes when the program sets no aggsize:
 * dtrace(1)'s 4 MiB per CPU is too much kernel memory at boot on a large
 * machine, and the consumer drains the buffers at aggrate.
 */
#define KD_AGGSIZE_DEFAULT	(256ULL << 10)
/*
 * Room left in the region's probe and EPID tables for probes of modules
 * that load after the enabling (retained enablings).
 */
#define KD_MOD_HEADROOM		1024

/* Enabled states, for module load and unload events. */
static LIST_HEAD(kd_states);
static DEFINE_MUTEX(kd_states_lock);

const struct kd_prov *const kd_provs[] = {
	&kd_prov_dtrace, &kd_prov_fbt, &kd_prov_kinst, &kd_prov_profile,
	&kd_prov_syscall, &kd_prov_sdt, &kd_prov_pid, &kd_prov_proc,
};
const uint32_t kd_nprovs = ARRAY_SIZE(kd_provs);
static_assert(ARRAY_SIZE(kd_provs) <= KD_NPROV && KD_NPROV <= 8,
    "cs_pdata[] and the cs_ecbprov[] bits hold every provider");

/*
 * The deadman (kio.h): a timer every cs_dm_ival ms (kd_main.c's
 * deadman_interval_ms, 1000 unless set) while a live state records; it
 * stops the state when the consumer was silent for cs_dm_timeout s.
 * It runs in hard interrupt context, so it still runs when probes keep
 * the CPUs so busy that the consumer (or any task) no longer does -- the
 * very case it is for.  It takes no lock: it only stops recording (the
 * probe side checks cs_active and the ECB state); the consumer's next
 * ioctl learns why.
 */
static enum hrtimer_restart
kd_deadman(struct hrtimer *t)
{
	struct kd_cstate *cs = container_of(t, struct kd_cstate, cs_deadman);

	if (!READ_ONCE(cs->cs_active))
		return HRTIMER_NORESTART;
	if (time_after(jiffies, READ_ONCE(cs->cs_heard) +
	    (unsigned long)cs->cs_dm_timeout * HZ)) {
		WRITE_ONCE(cs->cs_active, 0);
		ecb_set_state(cs->cs_es, ECB_ST_STOPPED);
		WRITE_ONCE(cs->cs_deadman_hit, 1);
		pr_warn("kdt: a consumer was not heard from for %u s: its tracing is stopped (deadman; kdt.deadman_timeout=%u)\n",
		    cs->cs_dm_timeout, cs->cs_dm_timeout);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(t, ms_to_ktime(cs->cs_dm_ival));
	return HRTIMER_RESTART;
}

struct kd_cstate *
kd_cs_new(void)
{
	struct kd_cstate *cs = kzalloc(sizeof (*cs), GFP_KERNEL);

	if (cs == NULL)
		return NULL;
	cs->cs_hash = kvcalloc(1U << KD_HASHBITS, sizeof (struct hlist_head),
	    GFP_KERNEL);
	if (cs->cs_hash == NULL) {
		kfree(cs);
		return NULL;
	}
	mutex_init(&cs->cs_lock);
	INIT_LIST_HEAD(&cs->cs_link);
	hrtimer_init(&cs->cs_deadman, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	cs->cs_deadman.function = kd_deadman;
	atomic64_set(&cs->cs_missed, 0);
	return cs;
}

void
kd_cs_msg(struct kd_cstate *cs, const char *fmt, ...)
{
	char buf[sizeof (cs->cs_msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof (buf), fmt, ap);
	va_end(ap);
	if (cs->cs_msg[0] == '\0')
		strscpy(cs->cs_msg, buf, sizeof (cs->cs_msg));
	if (!cs->cs_list)
		pr_info("kdt: %s\n", buf);
}

int
kd_part_match(const char *pat, const char *str)
{
	return pat[0] == '\0' || dof_glob_match(pat, str);
}

/* ---- probes ---- */

static uint32_t
kd_hash(const struct kd_prov *pv, uint64_t key, const char *mod,
    const char *func, const char *name)
{
	uint32_t h = (uint32_t)(uintptr_t)pv ^ (uint32_t)key ^
	    (uint32_t)(key >> 32);

	h = jhash(mod, strlen(mod), h);
	h = jhash(func, strlen(func), h);
	h = jhash(name, strlen(name), h);
	return hash_32(h, KD_HASHBITS);
}

static struct kd_probe *
kd_probe_find(struct kd_cstate *cs, const struct kd_prov *pv, uint64_t key,
    const char *mod, const char *func, const char *name, uint32_t h)
{
	struct kd_probe *kp;

	hlist_for_each_entry(kp, &cs->cs_hash[h], kp_hash) {
		if (kp->kp_prov == pv && kp->kp_key == key &&
		    strcmp(kp->kp_ep.ep_mod, mod) == 0 &&
		    strcmp(kp->kp_ep.ep_func, func) == 0 &&
		    strcmp(kp->kp_ep.ep_name, name) == 0)
			return kp;
	}
	return NULL;
}

/* ---- global probe ids ---- */

#define KD_PIDS_BITS	15

struct kd_pident {
	struct hlist_node pe_hash;
	const struct kd_prov *pe_prov;
	uint64_t	pe_key;		/* provider's key when first seen */
	uint32_t	pe_id;
	char		pe_names[];	/* prov, mod, func, name: 4 strings */
};

static struct hlist_head kd_pids[1U << KD_PIDS_BITS];
static DEFINE_MUTEX(kd_pids_lock);
static uint32_t kd_pids_next = KD_PROBEID_FIRST;

static uint32_t
kd_pids_hash(const char *prov, const char *mod, const char *func,
    const char *name)
{
	uint32_t h = jhash(prov, strlen(prov), 0);

	h = jhash(mod, strlen(mod), h);
	h = jhash(func, strlen(func), h);
	h = jhash(name, strlen(name), h);
	return hash_32(h, KD_PIDS_BITS);
}

/* The four names of entry "e", in "n[4]". */
static void
kd_pident_names(const struct kd_pident *e, const char *n[4])
{
	const char *s = e->pe_names;
	int i;

	for (i = 0; i < 4; i++) {
		n[i] = s;
		s += strlen(s) + 1;
	}
}

/*
 * The global id of probe prov:mod:func:name (of provider "pv", key "key"),
 * assigned now if the probe is new; 0: no memory.  Setup context.
 */
static uint32_t
kd_probeid_names(const struct kd_prov *pv, uint64_t key, const char *prov,
    const char *mod, const char *func, const char *name)
{
	const char *n[4];
	size_t lp = strlen(prov) + 1, lm = strlen(mod) + 1,
	    lf = strlen(func) + 1, ln = strlen(name) + 1;
	uint32_t h = kd_pids_hash(prov, mod, func, name), id = 0;
	struct kd_pident *e;

	mutex_lock(&kd_pids_lock);
	hlist_for_each_entry(e, &kd_pids[h], pe_hash) {
		kd_pident_names(e, n);
		if (strcmp(n[0], prov) == 0 && strcmp(n[1], mod) == 0 &&
		    strcmp(n[2], func) == 0 && strcmp(n[3], name) == 0) {
			id = e->pe_id;
			goto out;
		}
	}
	if (kd_pids_next == UINT_MAX)
		goto out;	/* 4 billion probes: no id left */
	e = kmalloc(sizeof (*e) + lp + lm + lf + ln, GFP_KERNEL);
	if (e == NULL)
		goto out;
	e->pe_prov = pv;
	e->pe_key = key;
	e->pe_id = id = kd_pids_next++;
	memcpy(e->pe_names, prov, lp);
	memcpy(e->pe_names + lp, mod, lm);
	memcpy(e->pe_names + lp + lm, func, lf);
	memcpy(e->pe_names + lp + lm + lf, name, ln);
	hlist_add_head(&e->pe_hash, &kd_pids[h]);
out:
	mutex_unlock(&kd_pids_lock);
	return id;
}

static uint32_t
kd_probeid(const struct kd_probe *kp)
{
	return kd_probeid_names(kp->kp_prov, kp->kp_key, kp->kp_ep.ep_prov,
	    kp->kp_ep.ep_mod, kp->kp_ep.ep_func, kp->kp_ep.ep_name);
}

/*
 * Number the probes of "cs" from index "from" on that have no id yet
 * (the fixed dtrace ones have theirs).  Setup context.
 */
static int
kd_probe_number(struct kd_cstate *cs, uint32_t from)
{
	struct kd_probe *kp;
	uint32_t i;

	for (i = from; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_ep.ep_id != 0)
			continue;
		kp->kp_ep.ep_id = kd_probeid(kp);
		if (kp->kp_ep.ep_id == 0) {
			kd_cs_msg(cs, "out of memory numbering probe %s:%s:%s:%s",
			    kp->kp_ep.ep_prov, kp->kp_ep.ep_mod,
			    kp->kp_ep.ep_func, kp->kp_ep.ep_name);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * KIO_PROBE: the names of probe "rp->rp_id"; -ENOENT if none has it.
 * With rp_id 0, the id of the user-space probe rp's names give (pid and
 * USDT probes, which kdt.ko learns of only from an enabling's table, so
 * `kdt -l` numbers them this way), assigned now if new: -EINVAL for a
 * kdt.ko provider's name (its probes are numbered by matching).
 */
int
kd_probe_byid(struct rgn_probe *rp)
{
	static const char *const dn[3] = { "BEGIN", "END", "ERROR" };
	const struct kd_pident *e;
	const char *n[4];
	uint32_t id = rp->rp_id, b;

	if (id == 0) {
		rp->rp_prov[sizeof (rp->rp_prov) - 1] = '\0';
		rp->rp_mod[sizeof (rp->rp_mod) - 1] = '\0';
		rp->rp_func[sizeof (rp->rp_func) - 1] = '\0';
		rp->rp_name[sizeof (rp->rp_name) - 1] = '\0';
		for (b = 0; b < kd_nprovs; b++)
			if (strcmp(rp->rp_prov, kd_provs[b]->pv_name) == 0)
				return -EINVAL;
		if (rp->rp_prov[0] == '\0')
			return -EINVAL;
		rp->rp_id = kd_probeid_names(&kd_prov_pid, 0, rp->rp_prov,
		    rp->rp_mod, rp->rp_func, rp->rp_name);
		return rp->rp_id != 0 ? 0 : -ENOMEM;
	}

	memset(rp, 0, sizeof (*rp));
	rp->rp_id = id;
	if (id >= KD_PROBEID_BEGIN && id <= KD_PROBEID_ERROR) {
		strscpy(rp->rp_prov, "dtrace", sizeof (rp->rp_prov));
		strscpy(rp->rp_name, dn[id - 1], sizeof (rp->rp_name));
		return 0;
	}
	mutex_lock(&kd_pids_lock);
	for (b = 0; b < ARRAY_SIZE(kd_pids); b++) {
		hlist_for_each_entry(e, &kd_pids[b], pe_hash) {
			if (e->pe_id != id)
				continue;
			kd_pident_names(e, n);
			strscpy(rp->rp_prov, n[0], sizeof (rp->rp_prov));
			strscpy(rp->rp_mod, n[1], sizeof (rp->rp_mod));
			strscpy(rp->rp_func, n[2], sizeof (rp->rp_func));
			strscpy(rp->rp_name, n[3], sizeof (rp->rp_name));
			mutex_unlock(&kd_pids_lock);
			return 0;
		}
	}
	mutex_unlock(&kd_pids_lock);
	return -ENOENT;
}

/* Module "mod" goes: its probes' ids are retired (never reused). */
static void
kd_pids_mod_gone(const struct module *mod)
{
	struct kd_pident *e;
	struct hlist_node *t;
	const char *n[4];
	uint32_t b;
	int addr;

	mutex_lock(&kd_pids_lock);
	for (b = 0; b < ARRAY_SIZE(kd_pids); b++) {
		hlist_for_each_entry_safe(e, t, &kd_pids[b], pe_hash) {
			kd_pident_names(e, n);
			addr = e->pe_prov == &kd_prov_fbt ||
			    e->pe_prov == &kd_prov_kinst ||
			    e->pe_prov == &kd_prov_sdt;
			if ((e->pe_prov == &kd_prov_fbt &&
			    strcmp(n[1], mod->name) == 0) ||
			    (addr && within_module((unsigned long)e->pe_key,
			    (struct module *)mod))) {
				hlist_del(&e->pe_hash);
				kfree(e);
			}
		}
	}
	mutex_unlock(&kd_pids_lock);
}

/* kdt.ko unloads: no state or listing is left. */
static void
kd_pids_free(void)
{
	struct kd_pident *e;
	struct hlist_node *t;
	uint32_t b;

	mutex_lock(&kd_pids_lock);
	for (b = 0; b < ARRAY_SIZE(kd_pids); b++)
		hlist_for_each_entry_safe(e, t, &kd_pids[b], pe_hash) {
			hlist_del(&e->pe_hash);
			kfree(e);
		}
	mutex_unlock(&kd_pids_lock);
}

/* Make room for one more entry in a kvmalloc'd array. */
static int
kd_grow(void **arr, uint32_t *cap, uint32_t used, size_t elem)
{
	uint32_t ncap;
	void *n;

	if (used < *cap)
		return 0;
	ncap = *cap == 0 ? 64 : *cap * 2;
	n = kvmalloc_array(ncap, elem, GFP_KERNEL);
	if (n == NULL)
		return -ENOMEM;
	if (*arr != NULL)
		memcpy(n, *arr, (size_t)used * elem);
	kvfree(*arr);
	*arr = n;
	*cap = ncap;
	return 0;
}

static struct kd_probe *
kd_probe_new(struct kd_cstate *cs, const struct kd_prov *pv, uint64_t key,
    const char *mod, const char *func, const char *name, uint32_t id,
    uint32_t h)
{
	size_t lm = strlen(mod) + 1, lf = strlen(func) + 1,
	    ln = strlen(name) + 1;
	struct kd_probe *kp;

	if (cs->cs_nprobes >= KD_PROBES_MAX) {
		kd_cs_msg(cs, "probe %s:%s:%s:%s would be probe %u, above the limit of %u probes per consumer",
		    pv->pv_name, mod, func, name, cs->cs_nprobes + 1,
		    KD_PROBES_MAX);
		return ERR_PTR(-ENOSPC);
	}
	if (kd_grow((void **)&cs->cs_probes, &cs->cs_probecap,
	    cs->cs_nprobes, sizeof (*cs->cs_probes)) != 0)
		goto nomem;
	kp = kzalloc(sizeof (*kp) + lm + lf + ln, GFP_KERNEL);
	if (kp == NULL)
		goto nomem;
	memcpy(kp->kp_names, mod, lm);
	memcpy(kp->kp_names + lm, func, lf);
	memcpy(kp->kp_names + lm + lf, name, ln);
	kp->kp_cs = cs;
	kp->kp_prov = pv;
	kp->kp_key = key;
	kp->kp_lastecb = KD_ECB_NONE;
	kp->kp_ep.ep_id = id;	/* 0: kd_probe_number() gives it one */
	kp->kp_ep.ep_kind = ECB_PK_OTHER;
	if (pv == &kd_prov_dtrace)
		kp->kp_ep.ep_kind = id == KD_PROBEID_BEGIN ? ECB_PK_BEGIN :
		    id == KD_PROBEID_END ? ECB_PK_END : ECB_PK_ERROR;
	kp->kp_ep.ep_prov = pv->pv_name;
	kp->kp_ep.ep_mod = kp->kp_names;
	kp->kp_ep.ep_func = kp->kp_names + lm;
	kp->kp_ep.ep_name = kp->kp_names + lm + lf;
	kp->kp_idx = cs->cs_nprobes;
	cs->cs_probes[cs->cs_nprobes++] = kp;
	hlist_add_head(&kp->kp_hash, &cs->cs_hash[h]);
	return kp;
nomem:
	kd_cs_msg(cs, "out of memory creating probe %u (%s:%s:%s:%s)",
	    cs->cs_nprobes + 1, pv->pv_name, mod, func, name);
	return ERR_PTR(-ENOMEM);
}

struct kd_probe *
kd_probe_attach(struct kd_cstate *cs, const struct kd_prov *pv,
    uint64_t key, const char *mod, const char *func, const char *name,
    uint32_t id, uint32_t ecb)
{
	uint32_t h = kd_hash(pv, key, mod, func, name);
	struct kd_probe *kp;

	kp = kd_probe_find(cs, pv, key, mod, func, name, h);
	if (kp == NULL) {
		kp = kd_probe_new(cs, pv, key, mod, func, name, id, h);
		if (IS_ERR(kp))
			return kp;
	}
	if (ecb == KD_ECB_NONE || kp->kp_lastecb == ecb)
		return kp;
	if (kd_grow((void **)&cs->cs_pairs, &cs->cs_paircap, cs->cs_npairs,
	    sizeof (*cs->cs_pairs)) != 0) {
		kd_cs_msg(cs, "out of memory attaching ECB %u to probe %s:%s:%s:%s",
		    ecb, pv->pv_name, mod, func, name);
		return ERR_PTR(-ENOMEM);
	}
	cs->cs_pairs[cs->cs_npairs].p_probe = kp->kp_idx;
	cs->cs_pairs[cs->cs_npairs].p_ecb = ecb;
	cs->cs_npairs++;
	kp->kp_necbs++;
	kp->kp_lastecb = ecb;
	if (pv == &kd_prov_dtrace && kp->kp_ep.ep_id <= KD_PROBEID_ERROR)
		cs->cs_dprobes[kp->kp_ep.ep_id - 1] = kp;
	return kp;
}

/*
 * Give the probes from index "fprobe" on their ECB lists, in EPID order
 * (EPID = pair index + 1), from the pairs from "fpair" on -- which name
 * only those probes: older probes never gain ECBs.
 */
static int
kd_build_ecbrefs(struct kd_cstate *cs, uint32_t fprobe, uint32_t fpair)
{
	struct ecb_ref *blk;
	struct kd_probe *kp;
	uint64_t n = 0;
	uint32_t i;

	if (kd_probe_number(cs, fprobe) != 0)
		return -ENOMEM;
	if (fprobe == cs->cs_nprobes)
		return 0;
	/*
	 * One block for the new probes' lists (at least one slot each): an
	 * allocation per probe cost ~1.5 k instructions, 0.15 M of fbt100's
	 * arming at boot (bench/run-boot-overhead).  The first new probe
	 * owns it.
	 */
	for (i = fprobe; i < cs->cs_nprobes; i++)
		n += max(cs->cs_probes[i]->kp_necbs, 1U);
	blk = kvcalloc(n, sizeof (*blk), GFP_KERNEL);
	if (blk == NULL) {
		for (i = fprobe; i < cs->cs_nprobes; i++)
			cs->cs_probes[i]->kp_necbs = 0;	/* never armed */
		kd_cs_msg(cs, "out of memory for the ECB lists of %u probes",
		    cs->cs_nprobes - fprobe);
		return -ENOMEM;
	}
	cs->cs_probes[fprobe]->kp_ecbs_block = 1;
	for (i = fprobe; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		kp->kp_ecbs = blk;
		blk += max(kp->kp_necbs, 1U);
		kp->kp_necbs = 0;
	}
	for (i = fpair; i < cs->cs_npairs; i++) {
		kp = cs->cs_probes[cs->cs_pairs[i].p_probe];
		kp->kp_ecbs[kp->kp_necbs].er_ecb = cs->cs_pairs[i].p_ecb;
		kp->kp_ecbs[kp->kp_necbs].er_epid = i + 1;
		kp->kp_necbs++;
	}
	for (i = fprobe; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		kp->kp_ep.ep_ecbs = kp->kp_ecbs;
		kp->kp_ep.ep_necbs = kp->kp_necbs;
		/* a module's probes, after the runner exists (else kd_arm) */
		if (cs->cs_es != NULL)
			kp->kp_simple = ecb_simple_usable(cs->cs_es,
			    &kp->kp_ep);
	}
	return 0;
}

/*
 * pv_prematch of every provider that has one: with "den" and "mod"
 * before matching the ECBs one by one, with NULL after.  Returns the
 * providers (bit p: kd_provs[p]) whose prematch found nothing in "mod":
 * a coming module asks them nothing (fbt100's 100 calls of
 * kd_fbt_match_mod() that would each find that out: 19 k instructions
 * at every module load while enabled).
 */
static uint32_t
kd_prematch(struct kd_cstate *cs, const struct dof_enabling *den,
    struct module *mod)
{
	uint32_t p, none = 0;

	for (p = 0; p < kd_nprovs; p++)
		if (kd_provs[p]->pv_prematch != NULL &&
		    kd_provs[p]->pv_prematch(cs, den, mod))
			none |= 1U << p;
	return none;
}

/* May provider "pv" have probes whose provider part "pat" matches? */
static int
kd_prov_offered(const struct kd_prov *pv, const char *pat)
{
	const char *const *n;

	if (pat[0] == '\0' || pv->pv_provs == NULL)
		return 1;
	for (n = pv->pv_provs; *n != NULL; n++)
		if (dof_glob_match(pat, *n))
			return 1;
	return 0;
}

/*
 * Which providers each ECB of "den" is offered to: those whose provider
 * names its provider part can match.  Asking every provider cost ~150
 * instructions a call (~700 for proc's table) -- 0.14 M for fbt100's
 * 100 ECBs at boot (bench/run-boot-overhead) and, for pv_match_mod, 15 k
 * at every module load while enabled.  ECBs in a row with one provider
 * part (a clause's descriptions) share the work.  No memory: cs_ecbprov
 * stays NULL and every provider is asked, as before.
 */
static void
kd_ecb_provs(struct kd_cstate *cs, const struct dof_enabling *den)
{
	const char *pat, *prev = NULL;
	uint32_t i, p;
	uint8_t mask = 0;

	kvfree(cs->cs_ecbprov);
	cs->cs_ecbprov = kvmalloc(max(den->den_necbs, 1U), GFP_KERNEL);
	if (cs->cs_ecbprov == NULL)
		return;
	for (i = 0; i < den->den_necbs; i++) {
		pat = den->den_ecbs[i].le_pdesc.lp_prov;
		if (prev == NULL || strcmp(pat, prev) != 0) {
			for (p = 0, mask = 0; p < kd_nprovs; p++)
				if (kd_prov_offered(kd_provs[p], pat))
					mask |= 1U << p;
			prev = pat;
		}
		cs->cs_ecbprov[i] = mask;
	}
}

/* Is ECB "ecb" offered to kd_provs[p]? */
static int
kd_ecb_offered(const struct kd_cstate *cs, uint32_t ecb, uint32_t p)
{
	return cs->cs_ecbprov == NULL || (cs->cs_ecbprov[ecb] >> p & 1);
}

/* kd_match()'s loop: every ECB in program order, every provider. */
static int
kd_match_ecbs(struct kd_cstate *cs, const struct dof_enabling *den)
{
	const struct dof_pdesc *pd;
	uint32_t i, p;
	int rv, n;

	for (i = 0; i < den->den_necbs; i++) {
		pd = &den->den_ecbs[i].le_pdesc;
		for (p = 0, n = 0; p < kd_nprovs; p++) {
			if (!kd_ecb_offered(cs, i, p))
				continue;
			rv = kd_provs[p]->pv_match(cs, pd, i);
			if (rv < 0)
				return rv;
			n += rv;
		}
		if (n != 0)
			continue;
		if (!(cs->cs_flags & KIO_EN_ZDEFS)) {
			cs->cs_badecb = i;
			kd_cs_msg(cs, "probe description %s:%s:%s:%s does not match any probes",
			    pd->lp_prov, pd->lp_mod, pd->lp_func, pd->lp_name);
			return -ENOENT;
		}
		pr_info("kdt: ECB %u: probe description %s:%s:%s:%s matches no probe\n",
		    i, pd->lp_prov, pd->lp_mod, pd->lp_func, pd->lp_name);
	}
	return 0;
}

/*
 * Match every ECB in program order against every provider; providers
 * with a pv_prematch see all the descriptions first (kd_fbt.c: one walk
 * of the symbols for all of them).
 */
static int
kd_match(struct kd_cstate *cs, const struct dof_enabling *den)
{
	int rv;

	kd_ecb_provs(cs, den);
	kd_prematch(cs, den, NULL);
	rv = kd_match_ecbs(cs, den);
	kd_prematch(cs, NULL, NULL);
	if (rv != 0)
		return rv;
	if (cs->cs_npairs == 0 && cs->cs_anon) {
		kd_cs_msg(cs, "no probe description matched a probe");
		return -ENOENT;
	}
	return kd_build_ecbrefs(cs, 0, 0);
}

/* ---- buffers ---- */

static uint64_t
kd_opt(const struct dof_enabling *den, uint32_t opt, uint64_t dflt)
{
	uint64_t v = den->den_opts[opt];

	return v == DTRACEOPT_UNSET ? dflt : v;
}

/*
 * The policy in force.  An anonymous enabling defaults to ring (the region
 * is a flight recorder) and has no consumer to switch to, so switch means
 * fill there; so does a live one in the reserved region (kd_dev.c refuses
 * switch for it); other live ones default to switch, as dtrace does.
 */
static void
kd_pick_policy(struct kd_cstate *cs, const struct dof_enabling *den)
{
	uint64_t v = den->den_opts[DTRACEOPT_BUFPOLICY];

	if (v == DTRACEOPT_BUFPOLICY_RING || v == DTRACEOPT_BUFPOLICY_FILL)
		cs->cs_policy = (uint32_t)v;
	else if (cs->cs_anon && v == DTRACEOPT_BUFPOLICY_SWITCH)
		cs->cs_policy = DTRACEOPT_BUFPOLICY_FILL;
	else if (cs->cs_anon || cs->cs_inregion)
		cs->cs_policy = DTRACEOPT_BUFPOLICY_RING;
	else
		cs->cs_policy = DTRACEOPT_BUFPOLICY_SWITCH;
	cs->cs_wpolicy = cs->cs_policy == DTRACEOPT_BUFPOLICY_RING ?
	    DTRACEOPT_BUFPOLICY_RING : DTRACEOPT_BUFPOLICY_FILL;
}

/* Publish the probes with ECBs and the EPIDs from "fprobe"/"fpair" on. */
static int
kd_publish(struct kd_cstate *cs, uint32_t fprobe, uint32_t fpair)
{
	const struct kd_probe *kp;
	struct kdt_err err;
	uint32_t i;
	int rv = 0;

	for (i = fprobe; rv == 0 && i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_necbs != 0)
			rv = rgn_add_probe(cs->cs_region, kp->kp_ep.ep_id,
			    kp->kp_ep.ep_prov, kp->kp_ep.ep_mod,
			    kp->kp_ep.ep_func, kp->kp_ep.ep_name, &err);
	}
	for (i = fpair; rv == 0 && i < cs->cs_npairs; i++) {
		kp = cs->cs_probes[cs->cs_pairs[i].p_probe];
		rv = rgn_add_epid(cs->cs_region, i + 1, kp->kp_ep.ep_id,
		    cs->cs_pairs[i].p_ecb,
		    cs->cs_den->den_ecbs[cs->cs_pairs[i].p_ecb].le_size, &err);
	}
	if (rv != 0)
		kd_cs_msg(cs, "%s", err.ke_msg);
	return rv;
}

/*
 * Buffers come from what the DOF asks for -- a hostile or mistaken one
 * may ask for anything -- so a request is refused with a message before
 * it gets near memory (a quarter of RAM for one kind of buffer), and the
 * allocation itself may fail quietly: the enabling says why, the kernel
 * log gets no allocation-failure splat.
 */
static void *
kd_vzalloc(size_t size)
{
	return __vmalloc(size, GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
}

/* The most bytes one kind of buffer may take: a quarter of RAM. */
uint64_t
kd_buf_limit(void)
{
	return ((uint64_t)totalram_pages() << PAGE_SHIFT) / 4;
}

static int
kd_too_big(struct kd_cstate *cs, const char *what, uint64_t size,
    uint64_t per_cpu)
{
	uint64_t limit = kd_buf_limit();

	if (size <= limit)
		return 0;
	kd_cs_msg(cs, "%s of %llu bytes (%llu per CPU x %u CPUs) exceed the limit of %llu bytes, a quarter of memory",
	    what, size, per_cpu, cs->cs_ncpu, limit);
	return 1;
}

/* Is bufresize=manual in force (auto, dtrace's default, otherwise)? */
static int
kd_resize_manual(const struct dof_enabling *den)
{
	return kd_opt(den, DTRACEOPT_BUFRESIZE, KD_BUFRESIZE_AUTO) ==
	    KD_BUFRESIZE_MANUAL;
}

/* ---- page list (rgn.h): finding a live region in a crash dump ---- */

/*
 * The 4 KiB frame number (rgn.h's RGN_PAGE, whatever the kernel's page
 * size) of the vmalloc'd byte at "va".
 */
static uint64_t
kd_pl_pfn(const void *va)
{
	return (((uint64_t)page_to_pfn(vmalloc_to_page(va)) << PAGE_SHIFT) +
	    offset_in_page(va)) / RGN_PAGE;
}

/*
 * Table pages to allocate past the region's "size" bytes for its page
 * list: enough for the region and, under switch, spare buffers no larger
 * than the region (they are ncpu strides of it), or 0 when the list
 * would not fit the directory in page 0 (then there is no page list).
 */
static uint32_t
kd_pl_tblmax(uint64_t size, int sw)
{
	const uint32_t off = (sizeof (struct rgn_hdr) + 63) & ~63u;

	return rgn_pagelist_tblpages(size / RGN_PAGE,
	    sw ? size / RGN_PAGE : 0, off);
}

/*
 * Write the page list of the live region just allocated (cs_region of
 * cs_rgnsize bytes, its "tblmax" table pages right after it, and under
 * switch the spare buffers cs_bmem): every page's frame number, so
 * kdt-extract finds the region in a kdump vmcore or a QEMU dump and puts
 * it back together (rgn.h, "Page list").  The PFNs do not change while
 * the state lives: vmalloc'd pages are not moved.  Without room for a
 * list the state works as before and only the dump reader misses it.
 */
static void
kd_pagelist(struct kd_cstate *cs, uint32_t tblmax)
{
	const struct rgn_hdr *h = cs->cs_region;
	uint64_t npages = cs->cs_rgnsize / RGN_PAGE, nspare = 0, i;
	uint64_t *tbl = (uint64_t *)((uint8_t *)cs->cs_region +
	    cs->cs_rgnsize);
	uint64_t *tblpfn;
	struct kdt_err err;
	uint32_t ntbl, k;

	if (cs->cs_bmem != NULL)
		nspare = (uint64_t)cs->cs_ncpu * h->rh_cpu_stride / RGN_PAGE;
	ntbl = rgn_pagelist_tblpages(npages, nspare,
	    (h->rh_hdrsize + 63) & ~63u);
	if (ntbl == 0 || ntbl > tblmax) {
		pr_info("kdt: region of %llu bytes is too large for a page list: a crash dump reader will not find this session's buffers\n",
		    cs->cs_rgnsize);
		return;
	}
	for (i = 0; i < npages; i++)
		tbl[i] = kd_pl_pfn((uint8_t *)cs->cs_region + i * RGN_PAGE);
	for (i = 0; i < nspare; i++)
		tbl[npages + i] = kd_pl_pfn((uint8_t *)cs->cs_bmem +
		    i * RGN_PAGE);
	tblpfn = kmalloc_array(ntbl, sizeof (*tblpfn), GFP_KERNEL |
	    __GFP_NOWARN);
	if (tblpfn == NULL) {
		pr_info("kdt: no memory for the region's page list directory: a crash dump reader will not find this session's buffers\n");
		return;
	}
	for (k = 0; k < ntbl; k++)
		tblpfn[k] = kd_pl_pfn((uint8_t *)tbl + (uint64_t)k * RGN_PAGE);
	if (rgn_pagelist_init(cs->cs_region, tbl, nspare, tblpfn, ntbl,
	    &err) != 0)
		pr_info("kdt: no page list for the region: %s\n", err.ke_msg);
	kfree(tblpfn);
}
/* ---- page list (end) ---- */

/*
 * A live state's region for "bufsize" bytes per CPU, and under switch
 * policy the spare principal buffers too (cs_bmem: both or neither, as
 * switching needs both), initialised with "p".  bufresize=auto: while
 * the request is over a limit (KD_BUFSIZE_MAX per CPU, a quarter of RAM
 * for each of region and spares) or the memory cannot be had, halve
 * bufsize and try again, down to KD_BUFSIZE_MIN, and set cs_resized's
 * KIO_RS_BUF; the consumer says so (kio.h).  bufresize=manual: the first
 * failure is the answer.  0, or -errno after kd_cs_msg().
 */
static int
kd_region_alloc(struct kd_cstate *cs, struct rgn_params *p, uint64_t bufsize)
{
	const int manual = kd_resize_manual(cs->cs_den), sw =
	    cs->cs_policy == DTRACEOPT_BUFPOLICY_SWITCH;
	const uint64_t want = bufsize, limit = kd_buf_limit();
	const struct rgn_hdr *h;
	struct kdt_err err;
	uint64_t size, spare;
	void *region;
	uint32_t tblmax;
	int rv, lowered;

	for (lowered = 0;; bufsize /= 2, lowered = 1) {
		if (lowered && bufsize < KD_BUFSIZE_MIN) {
			kd_cs_msg(cs, "cannot allocate principal buffers: bufsize %llu lowered to %llu and still too large (bufresize=auto stops at %llu bytes per CPU)",
			    want, bufsize * 2, KD_BUFSIZE_MIN);
			return -ENOMEM;
		}
		size = rgn_size_for(p, bufsize);
		if (bufsize > KD_BUFSIZE_MAX || size > limit) {
			if (!manual)
				continue;
			if (bufsize > KD_BUFSIZE_MAX)
				kd_cs_msg(cs, "bufsize %llu exceeds the limit of %llu bytes per CPU (bufresize=manual)",
				    bufsize, KD_BUFSIZE_MAX);
			else
				kd_cs_msg(cs, "principal buffers of %llu bytes (bufsize %llu x %u CPUs) exceed the limit of %llu bytes, a quarter of memory (bufresize=manual)",
				    size, bufsize, cs->cs_ncpu, limit);
			return -E2BIG;
		}
		tblmax = kd_pl_tblmax(size, sw);
		region = kd_vzalloc(size + (uint64_t)tblmax * RGN_PAGE);
		if (region == NULL) {
			if (!manual)
				continue;
			kd_cs_msg(cs, "cannot allocate %llu bytes of principal buffers (bufsize %llu x %u CPUs; bufresize=manual)",
			    size, bufsize, cs->cs_ncpu);
			return -ENOMEM;
		}
		rv = rgn_init(region, size, p, &err);
		if (rv != 0) {
			vfree(region);
			kd_cs_msg(cs, "%s (bufsize %llu)", err.ke_msg, bufsize);
			return rv;
		}
		h = region;
		spare = (uint64_t)cs->cs_ncpu * h->rh_cpu_stride;
		if (sw && (spare > limit ||
		    (cs->cs_bmem = kd_vzalloc(spare)) == NULL)) {
			vfree(region);
			if (!manual)
				continue;
			kd_cs_msg(cs, "cannot allocate %llu bytes of spare buffers for bufpolicy=switch (bufsize %llu x %u CPUs; bufresize=manual)",
			    spare, bufsize, cs->cs_ncpu);
			return -ENOMEM;
		}
		break;
	}
	if (bufsize != want) {
		cs->cs_resized |= KIO_RS_BUF |
		    (uint32_t)ilog2(want / bufsize) << 8;
		pr_info("kdt: bufsize %llu lowered to %llu (bufresize=auto)\n",
		    want, bufsize);
	}
	cs->cs_region = region;
	cs->cs_rgnsize = size;
	cs->cs_rgn_owned = 1;
	cs->cs_rgn_init = 1;
	kd_pagelist(cs, tblmax);
	return 0;
}

/*
 * ---- speculations and variables in the region (rgn.h; begin) ----
 * A region-backed state (anonymous, or live with -x region: the
 * reserved region survives a panic) keeps its speculation buffers and
 * its variable state in the region, so kdt-extract can show uncommitted
 * speculations and, with --vars, the variables.  The sizes are the ones
 * ecb_create() would allocate (ecb_params_init); a program that never
 * speculates gets no speculation area.
 */
static int
kd_rgn_backed(const struct kd_cstate *cs)
{
	return cs->cs_anon || cs->cs_inregion;
}

static int
kd_speculates(const struct dof_enabling *den)
{
	uint32_t e, a;

	for (e = 0; e < den->den_necbs; e++)
		for (a = 0; a < den->den_ecbs[e].le_nacts; a++)
			if (den->den_ecbs[e].le_acts[a].la_kind ==
			    DTRACEACT_SPECULATE)
				return 1;
	return 0;
}

static void
kd_specvar_sizes(const struct kd_cstate *cs, uint64_t *spec, uint64_t *var)
{
	struct ecb_params ep;

	*spec = *var = 0;
	if (!kd_rgn_backed(cs))
		return;
	ecb_params_init(&ep, cs->cs_den, cs->cs_ncpu);
	if (kd_speculates(cs->cs_den))
		*spec = spec_area_size(ep.ep_nspec, cs->cs_ncpu,
		    ep.ep_specsize);
	*var = dif_vstate_size(cs->cs_den, ep.ep_dynvarsize);
}

/*
 * After ecb_create(): move the runner's speculations and variable state
 * into the region's areas (setup context, before any probe fires).  The
 * kernel-memory copies ecb_create() made are given back.
 */
static int
kd_specvar_place(struct kd_cstate *cs, const struct ecb_params *p)
{
	struct ecb_state *es = cs->cs_es;
	struct spec_state *ss;
	struct kdt_err err;
	uint64_t len, dynoff;
	void *area;
	int rv;

	if (!kd_rgn_backed(cs))
		return 0;
	area = rgn_spec_area(cs->cs_region, &len);
	if (area != NULL) {
		rv = spec_create_in(&ss, p->ep_nspec, cs->cs_ncpu,
		    p->ep_specsize, area, len, &err);
		if (rv != 0) {
			kd_cs_msg(cs, "%s (region speculation area)",
			    err.ke_msg);
			return rv;
		}
		spec_destroy(es->es_spec);
		es->es_spec = ss;
	}
	area = rgn_var_area(cs->cs_region, &len);
	if (area != NULL) {
		rv = dif_vstate_init(&es->es_vstate, area, len, cs->cs_den,
		    &err);
		if (rv != 0) {
			kd_cs_msg(cs, "%s (region variable area)", err.ke_msg);
			return rv;
		}
		kenv_free(es->es_varea);
		es->es_varea = NULL;
		dynoff = dif_vstate_dynoff(&es->es_vstate);
		if (dynoff != 0)
			rgn_set_dvar(cs->cs_region, dynoff, len - dynoff);
	}
	return 0;
}
/* ---- speculations and variables in the region (end) ---- */

/*
 * ---- a live state's aggregations in its region (rgn.h, "Aggregation
 * totals"; begin) ----
 * A live state in a vmalloc'd region keeps its aggregation buffers, their
 * spares and the consumer's totals (KIO_AGGTOT) in the region, so the
 * page list makes them readable from a crash dump.  The region's size
 * depends on aggsize: kd_region_alloc_aggs() does bufresize=auto's
 * halving of aggsize (kd_runner() does it for buffers in kernel memory).
 * A totals slot holds the merged table of up to KD_AGGTOT_NCPU CPUs'
 * worth of distinct entries (aggsize each); a bigger table is written in
 * part and the reader says how many entries are left out.
 */
#define KD_AGGTOT_NCPU	4

/*
 * Does the region hold the aggregation spares (and totals)?  A live
 * vmalloc'd state's always, when it aggregates; the anonymous state's
 * when its reserved region had room for them (kd_anon_aggrgn).
 */
static int
kd_aggrgn(const struct kd_cstate *cs)
{
	return cs->cs_region != NULL &&
	    rgn_agg(cs->cs_region, cs->cs_ncpu) != NULL;
}

static void
kd_aggrgn_params(struct kd_cstate *cs, struct rgn_params *p,
    uint64_t aggsize)
{
	p->rp_aggsize = aggsize;
	p->rp_aggnbuf = 2 * cs->cs_ncpu;
	p->rp_aggtot = aggsize * min_t(uint32_t, cs->cs_ncpu,
	    KD_AGGTOT_NCPU) + RGN_AGGTOT_HDRSIZE + 8ULL * cs->cs_ncpu;
}

/* The aggregation bytes of a region with "p" (buffers, spares, totals). */
static uint64_t
kd_aggrgn_bytes(const struct rgn_params *p)
{
	return 2ULL * p->rp_ncpu * round_up(p->rp_aggsize, RGN_PAGE) +
	    2 * round_up(p->rp_aggtot, RGN_PAGE);
}

/*
 * kd_region_alloc(), and for aggregations in the region under
 * bufresize=auto, while their bytes exceed a quarter of RAM or the region
 * cannot be had, again with half the aggsize (no lower than
 * KD_AGGSIZE_MIN; KIO_RS_AGG).  0, or -errno after kd_cs_msg().
 */
static int
kd_region_alloc_aggs(struct kd_cstate *cs, struct rgn_params *p,
    uint64_t bufsize)
{
	const uint64_t want = p->rp_aggsize, limit = kd_buf_limit();
	const int manual = kd_resize_manual(cs->cs_den);
	int rv;

	if (p->rp_aggnbuf == 0)
		return kd_region_alloc(cs, p, bufsize);
	for (;;) {
		if (kd_aggrgn_bytes(p) > limit) {
			if (manual) {
				kd_cs_msg(cs, "aggregation buffers, spares and totals of %llu bytes (aggsize %llu x %u CPUs) exceed the limit of %llu bytes, a quarter of memory (bufresize=manual)",
				    kd_aggrgn_bytes(p), p->rp_aggsize,
				    cs->cs_ncpu, limit);
				return -E2BIG;
			}
		} else {
			rv = kd_region_alloc(cs, p, bufsize);
			if (rv == 0)
				break;
			if (manual || (rv != -ENOMEM && rv != -E2BIG))
				return rv;
		}
		if (p->rp_aggsize / 2 < KD_AGGSIZE_MIN) {
			kd_cs_msg(cs, "cannot allocate aggregation buffers: aggsize %llu lowered to %llu and still too large (bufresize=auto stops at %llu bytes per CPU)",
			    want, p->rp_aggsize, KD_AGGSIZE_MIN);
			return -ENOMEM;
		}
		kd_aggrgn_params(cs, p, p->rp_aggsize / 2);
	}
	if (p->rp_aggsize != want) {
		cs->cs_resized |= KIO_RS_AGG;
		pr_info("kdt: aggsize %llu lowered to %llu (bufresize=auto)\n",
		    want, p->rp_aggsize);
	}
	return 0;
}

/*
 * The anonymous state's aggregations.  Its buffers are in the reserved
 * region from boot; once "kdt -a" claims it, its consumer snapshots them
 * like a live one's.  So the region holds the same parts as a live
 * vmalloc'd state's (kd_aggrgn_params: spares, two totals slots), and a
 * snapshot switches with the in-region spare and keeps the switched-out
 * buffer until the consumer's totals (KIO_AGGTOT) cover it: a dump taken
 * after the claim (a later panic, the warm-reboot previous region) has
 * what the claimed consumer had.  Before the claim the spares stay at
 * interval 0 and no totals are written, so a reader counts the active
 * buffers, whole, as before.  "kdt -A" sizes the region for this
 * (anon/an_size.c); a region too small for the spares next to the
 * buffers asked for (installed by an older kdt -A, or a small -x
 * regionsize or region=) keeps the buffers alone, as before, and the
 * console says what a dump after a claim will lack: the trace comes
 * first.  "want": principal bytes per CPU the program asks for (its
 * bufsize, or the anonymous default rule, consumer/kc.h).
 */
static void
kd_anon_aggrgn(struct kd_cstate *cs, struct rgn_params *p, uint64_t size,
    uint64_t want)
{
	const uint64_t aggsize = kd_opt(cs->cs_den, DTRACEOPT_AGGSIZE,
	    KD_AGGSIZE_DEFAULT);
	uint64_t need;

	kd_aggrgn_params(cs, p, aggsize);
	need = rgn_size_for(p, want);
	if (need <= size)
		return;
	p->rp_aggnbuf = 0;
	p->rp_aggtot = 0;
	pr_info("kdt: the %llu-byte region has no room for spare aggregation buffers and totals (%llu bytes needed with bufsize %llu and aggsize %llu x %u CPUs; run kdt -A again to size the region for them): the aggregations stay in the region until the state is claimed, a dump taken after the claim lacks them\n",
	    size, need, want, aggsize, cs->cs_ncpu);
}

/* kc_anon_bufsize_default()'s rule (consumer/kc.h): kdt -A sizes by it */
static uint64_t
kd_anon_bufsize(const struct kd_cstate *cs)
{
	uint64_t b = (64ULL << 20) / max_t(uint32_t, cs->cs_ncpu, 1);

	if (cs->cs_den->den_opts[DTRACEOPT_BUFSIZE] != DTRACEOPT_UNSET)
		return cs->cs_den->den_opts[DTRACEOPT_BUFSIZE];
	return clamp_t(uint64_t, b, 256ULL << 10, 4ULL << 20);
}
/* ---- a live state's aggregations in its region (end) ---- */

static int
kd_region(struct kd_cstate *cs, void *region, uint64_t size, uint64_t phys)
{
	const struct dof_enabling *den = cs->cs_den;
	uint64_t bufsize = kd_opt(den, DTRACEOPT_BUFSIZE, KD_BUFSIZE_DEFAULT);
	struct rgn_params p;
	struct kdt_err err;
	int rv;

	memset(&p, 0, sizeof (p));
	p.rp_phys = phys;
	p.rp_ncpu = cs->cs_ncpu;
	p.rp_policy = cs->cs_wpolicy;
	p.rp_probe_cap = cs->cs_nprobes + KD_MOD_HEADROOM;
	p.rp_epid_cap = cs->cs_npairs + KD_MOD_HEADROOM;
	p.rp_flags = cs->cs_anon ? RGN_F_ANON : 0;
	/* A vmalloc'd live state's aggregations, spares and totals (rgn.h) */
	if (!cs->cs_anon && region == NULL && den->den_naggs != 0)
		kd_aggrgn_params(cs, &p, kd_opt(den, DTRACEOPT_AGGSIZE,
		    KD_AGGSIZE_DEFAULT));
	/* A region-backed state's speculations and variables. */
	kd_specvar_sizes(cs, &p.rp_specarea, &p.rp_vararea);
	/* The anonymous state's aggregations: spares and totals if room */
	if (cs->cs_anon && den->den_naggs != 0)
		kd_anon_aggrgn(cs, &p, size, kd_anon_bufsize(cs));
	p.rp_kaslr = kd_ksym_kaslr();
	p.rp_created = ktime_get_real_ns();
	get_random_bytes(p.rp_bootid, sizeof (p.rp_bootid));
	p.rp_release = init_uts_ns.name.release;
	p.rp_dof = den->den_dof;
	p.rp_dofsz = den->den_dofsz;
	/* the modules loaded now and room for later ones (kd_modtab.c) */
	p.rp_modsize = kd_modtab_size(region == NULL ? 0 : size);
	if (region != NULL)
		p.rp_modsize = kd_modtab_fit(&p, size, bufsize);
	if (region == NULL) {
		rv = kd_region_alloc_aggs(cs, &p, bufsize);
		if (rv != 0)
			return rv;
		kd_modtab_fill(cs);
		return kd_publish(cs, 0, 0);
	}
	cs->cs_region = region;
	cs->cs_rgnsize = size;
	rv = rgn_init(region, size, &p, &err);
	if (rv != 0 && p.rp_aggsize != 0) {	/* name the option */
		kd_cs_msg(cs, "%s (region at phys 0x%llx; aggsize %llu x %u CPUs)",
		    err.ke_msg, phys, p.rp_aggsize, cs->cs_ncpu);
		return rv;
	}
	if (rv != 0) {
		kd_cs_msg(cs, "%s (region at phys 0x%llx)", err.ke_msg, phys);
		return rv;
	}
	cs->cs_rgn_init = 1;
	kd_modtab_fill(cs);
	return kd_publish(cs, 0, 0);
}

/* The spare principal buffers of the switch policy, one per CPU. */
static int
kd_spares(struct kd_cstate *cs)
{
	const struct rgn_hdr *h = cs->cs_region;
	struct rgn_cpu *rc;
	uint32_t c;

	if (cs->cs_policy != DTRACEOPT_BUFPOLICY_SWITCH)
		return 0;
	/* kd_region_alloc() allocated cs_bmem with the region */
	if (cs->cs_bmem == NULL && kd_too_big(cs, "spare principal buffers",
	    (uint64_t)cs->cs_ncpu * h->rh_cpu_stride, h->rh_cpu_stride))
		return -E2BIG;
	cs->cs_bspare = kvcalloc(cs->cs_ncpu, sizeof (*cs->cs_bspare),
	    GFP_KERNEL);
	if (cs->cs_bmem == NULL)
		cs->cs_bmem = kd_vzalloc((size_t)cs->cs_ncpu *
		    h->rh_cpu_stride);
	if (cs->cs_bspare == NULL || cs->cs_bmem == NULL) {
		kd_cs_msg(cs, "cannot allocate %llu bytes of spare buffers for bufpolicy=switch",
		    (unsigned long long)cs->cs_ncpu * h->rh_cpu_stride);
		return -ENOMEM;
	}
	for (c = 0; c < cs->cs_ncpu; c++) {
		rc = (struct rgn_cpu *)((uint8_t *)cs->cs_bmem +
		    (size_t)c * h->rh_cpu_stride);
		*rc = *rgn_cpu(cs->cs_region, c);
		cs->cs_bspare[c] = rc;
	}
	return 0;
}

/* The spare aggregation buffers, one per CPU. */
static int
kd_aggspares(struct kd_cstate *cs)
{
	struct kdt_err err;
	uint32_t c;

	if (cs->cs_es->es_cpus[0].ec_agg == NULL ||
	    (cs->cs_anon && !cs->cs_claimed))
		return 0;	/* anonymous: read from the region, whole */
	if (kd_aggrgn(cs)) {	/* the region's spares (rgn_init made them) */
		cs->cs_aspare = kvcalloc(cs->cs_ncpu,
		    sizeof (*cs->cs_aspare), GFP_KERNEL);
		if (cs->cs_aspare == NULL)
			return -ENOMEM;
		for (c = 0; c < cs->cs_ncpu; c++)
			cs->cs_aspare[c] = rgn_agg(cs->cs_region,
			    cs->cs_ncpu + c);
		return 0;
	}
	/* a live state's cs_amem comes with its runner (kd_runner) */
	if (cs->cs_amem == NULL && kd_too_big(cs, "spare aggregation buffers",
	    (uint64_t)cs->cs_ncpu * cs->cs_aggsize, cs->cs_aggsize))
		return -E2BIG;
	cs->cs_aspare = kvcalloc(cs->cs_ncpu, sizeof (*cs->cs_aspare),
	    GFP_KERNEL);
	if (cs->cs_amem == NULL)
		cs->cs_amem = kd_vzalloc((size_t)cs->cs_ncpu *
		    cs->cs_aggsize);
	if (cs->cs_aspare == NULL || cs->cs_amem == NULL) {
		kd_cs_msg(cs, "cannot allocate %llu bytes of spare aggregation buffers (aggsize %llu)",
		    (unsigned long long)cs->cs_ncpu * cs->cs_aggsize,
		    cs->cs_aggsize);
		return -ENOMEM;
	}
	for (c = 0; c < cs->cs_ncpu; c++) {
		cs->cs_aspare[c] = (struct agg_buf *)((uint8_t *)cs->cs_amem +
		    (size_t)c * cs->cs_aggsize);
		if (agg_buf_init(cs->cs_aspare[c], cs->cs_aggsize, c,
		    &err) != 0) {
			kd_cs_msg(cs, "%s", err.ke_msg);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * dynvarsize for a state whose variables are in kernel memory (kio.h,
 * KIO_RS_DYN): the variable state, dif_vstate_size(), may take at most a
 * quarter of RAM.  bufresize=auto halves p->ep_dynvarsize until it fits,
 * down to KD_DYNVARSIZE_MIN; bufresize=manual fails naming the option,
 * its value and the limit.  The userspace engine's twin is
 * consumer/kc_resize.c.  0, or -errno after kd_cs_msg().
 */
static int
kd_dynvar_fit(struct kd_cstate *cs, struct ecb_params *p)
{
	const struct dof_enabling *den = cs->cs_den;
	const uint64_t want = p->ep_dynvarsize, limit = kd_buf_limit();
	const uint64_t fixed = dif_vstate_size(den, 0);
	uint64_t need;

	for (;;) {
		need = dif_vstate_size(den, p->ep_dynvarsize);
		if (need < fixed)
			need = U64_MAX;		/* overflowed */
		if (need <= limit)
			return 0;
		if (kd_resize_manual(den)) {
			kd_cs_msg(cs, "dynvarsize %llu needs %llu bytes of variable state, over the limit of %llu bytes, a quarter of memory (bufresize=manual)",
			    want, need, limit);
			return -E2BIG;
		}
		if (p->ep_dynvarsize / 2 < KD_DYNVARSIZE_MIN) {
			kd_cs_msg(cs, "cannot allocate variable state: dynvarsize %llu lowered to %llu and still needs %llu bytes, over the limit of %llu bytes, a quarter of memory (bufresize=auto stops at %llu bytes)",
			    want, p->ep_dynvarsize, need, limit,
			    KD_DYNVARSIZE_MIN);
			return -ENOMEM;
		}
		p->ep_dynvarsize /= 2;
	}
}

/*
 * ecb_create(), and under bufresize=auto, while it cannot allocate the
 * variable state, again with half the dynvarsize (no lower than
 * KD_DYNVARSIZE_MIN).  ecb_create()'s result.
 */
static int
kd_ecb_create(struct kd_cstate *cs, struct ecb_params *p,
    struct kdt_err *err)
{
	const int dynresize = !kd_rgn_backed(cs) &&
	    !kd_resize_manual(cs->cs_den);
	int rv;

	while ((rv = ecb_create(cs->cs_den, p, &cs->cs_es, err)) == -ENOMEM &&
	    dynresize && strstr(err->ke_msg, "for variables") != NULL &&
	    p->ep_dynvarsize / 2 >= KD_DYNVARSIZE_MIN)
		p->ep_dynvarsize /= 2;
	return rv;
}

/*
 * The runner (ecb.h) with its per-CPU aggregation buffers and, for a live
 * state, the spare aggregation buffers (cs_amem: kd_aggspares finishes
 * them).  bufresize=auto: while the aggregation buffers (own and spare,
 * each a quarter of RAM at most) cannot be had, halve aggsize and try
 * again, down to KD_AGGSIZE_MIN, and set KIO_RS_AGG.  The anonymous
 * state's aggregations are in its region: no resizing.  0 or -errno
 * after kd_cs_msg().
 */
static int
kd_runner(struct kd_cstate *cs)
{
	const struct dof_enabling *den = cs->cs_den;
	const int aggrgn = kd_aggrgn(cs);
	const int resize = den->den_naggs != 0 && !cs->cs_anon && !aggrgn &&
	    !kd_resize_manual(den);
	const uint64_t limit = kd_buf_limit();
	struct ecb_params p;
	struct kdt_err err;
	uint64_t want, wantdyn, total;
	int rv, lowered;

	ecb_params_init(&p, den, cs->cs_ncpu);
	p.ep_policy = cs->cs_wpolicy;
	if (den->den_opts[DTRACEOPT_AGGSIZE] == DTRACEOPT_UNSET)
		p.ep_aggsize = KD_AGGSIZE_DEFAULT;
	if (aggrgn)	/* the region's, as kd_region_alloc_aggs() sized it */
		p.ep_aggsize = ((const struct agg_buf *)rgn_agg(cs->cs_region,
		    0))->ab_size;
	if (cs->cs_flags & KIO_EN_DESTRUCTIVE)
		p.ep_destructive = 1;	/* -w; else the DOF's option */
	want = p.ep_aggsize;
	wantdyn = p.ep_dynvarsize;
	/* a region-backed state's variables are the region's (kd_specvar) */
	if (!kd_rgn_backed(cs) && (rv = kd_dynvar_fit(cs, &p)) != 0)
		return rv;
	for (lowered = 0;; p.ep_aggsize /= 2, lowered = 1) {
		if (lowered && p.ep_aggsize < KD_AGGSIZE_MIN) {
			kd_cs_msg(cs, "cannot allocate aggregation buffers: aggsize %llu lowered to %llu and still too large (bufresize=auto stops at %llu bytes per CPU)",
			    want, p.ep_aggsize * 2, KD_AGGSIZE_MIN);
			return -ENOMEM;
		}
		total = (uint64_t)cs->cs_ncpu * p.ep_aggsize;
		if (resize && total > limit)
			continue;
		rv = kd_ecb_create(cs, &p, &err);
		if (rv == -ENOMEM && resize &&
		    strstr(err.ke_msg, "for variables") == NULL)
			continue;
		if (rv == -ENOMEM && den->den_naggs != 0 && total > limit &&
		    strstr(err.ke_msg, "aggregation") != NULL) {
			/* over the limit, not merely unavailable: say which */
			kd_cs_msg(cs, "aggregation buffers of %llu bytes (aggsize %llu x %u CPUs) exceed the limit of %llu bytes, a quarter of memory%s",
			    total, p.ep_aggsize, cs->cs_ncpu, limit,
			    kd_resize_manual(den) ? " (bufresize=manual)" : "");
			return rv;
		}
		if (rv == -ENOMEM && strstr(err.ke_msg, "for variables")) {
			if (kd_resize_manual(den) || kd_rgn_backed(cs))
				kd_cs_msg(cs, "%s (dynvarsize %llu%s)",
				    err.ke_msg, p.ep_dynvarsize,
				    kd_resize_manual(den) ?
				    "; bufresize=manual" : "");
			else
				kd_cs_msg(cs, "%s (dynvarsize %llu; bufresize=auto stops at %llu bytes)",
				    err.ke_msg, p.ep_dynvarsize,
				    KD_DYNVARSIZE_MIN);
			return rv;
		}
		if (rv != 0) {
			kd_cs_msg(cs, "%s%s", err.ke_msg, rv == -ENOMEM &&
			    den->den_naggs != 0 && kd_resize_manual(den) ?
			    " (bufresize=manual)" : "");
			return rv;
		}
		if (den->den_naggs == 0 || cs->cs_anon || aggrgn)
			break;
		if (total <= limit &&
		    (cs->cs_amem = kd_vzalloc((size_t)total)) != NULL)
			break;
		ecb_destroy(cs->cs_es);
		cs->cs_es = NULL;
		if (!resize) {
			kd_cs_msg(cs, "cannot allocate %llu bytes of spare aggregation buffers (aggsize %llu x %u CPUs%s)",
			    total, p.ep_aggsize, cs->cs_ncpu,
			    kd_resize_manual(den) ? "; bufresize=manual" : "");
			return total > limit ? -E2BIG : -ENOMEM;
		}
	}
	if (p.ep_aggsize != want) {
		cs->cs_resized |= KIO_RS_AGG;
		pr_info("kdt: aggsize %llu lowered to %llu (bufresize=auto)\n",
		    want, p.ep_aggsize);
	}
	if (p.ep_dynvarsize != wantdyn && p.ep_dynvarsize != 0) {
		cs->cs_resized |= KIO_RS_DYN |
		    (uint32_t)ilog2(wantdyn / p.ep_dynvarsize) << 16;
		pr_info("kdt: dynvarsize %llu lowered to %llu (bufresize=auto)\n",
		    wantdyn, p.ep_dynvarsize);
	}
	cs->cs_aggsize = den->den_naggs != 0 ? p.ep_aggsize : 0;
	if ((rv = kd_specvar_place(cs, &p)) != 0)
		return rv;
	ecb_set_region(cs->cs_es, cs->cs_region);
	if (cs->cs_anon || aggrgn)
		ecb_set_aggbufs(cs->cs_es, cs->cs_region);
	if (cs->cs_dprobes[KD_PROBEID_ERROR - 1] != NULL)
		ecb_set_error_probe(cs->cs_es,
		    &cs->cs_dprobes[KD_PROBEID_ERROR - 1]->kp_ep);
	return 0;
}

/* Arm every provider's probes; they record once cs_active is set. */
static int
kd_arm(struct kd_cstate *cs)
{
	uint32_t p;
	int rv;

	for (p = 0; p < cs->cs_nprobes; p++)
		cs->cs_probes[p]->kp_simple = ecb_simple_usable(cs->cs_es,
		    &cs->cs_probes[p]->kp_ep);
	for (p = 0; p < kd_nprovs; p++) {
		rv = kd_provs[p]->pv_enable(cs);
		if (rv < 0)
			return rv;
		cs->cs_nlive += rv;
	}
	if (cs->cs_nlive == 0 && cs->cs_npairs != 0) {
		kd_cs_msg(cs, "none of the %u matched probes could be enabled",
		    cs->cs_nprobes);
		return -ENOENT;
	}
	if (cs->cs_nfailed != 0)
		pr_warn("kdt: %u of %u probes could not be enabled\n",
		    cs->cs_nfailed, cs->cs_nprobes);
	return 0;
}

int
kd_cs_enable(struct kd_cstate *cs, struct dof_enabling *den, uint32_t flags,
    void *region, uint64_t rgnsize, uint64_t phys)
{
	int rv;

	cs->cs_den = den;
	cs->cs_flags = flags;
	cs->cs_ncpu = nr_cpu_ids;
	kd_pick_policy(cs, den);
	cs->cs_stackargs = kd_need_stackargs(den);
	if ((rv = kd_check_actions(cs, den)) != 0 ||
	    (rv = kd_match(cs, den)) != 0 ||
	    (rv = kd_region(cs, region, rgnsize, phys)) != 0 ||
	    (rv = kd_runner(cs)) != 0 ||
	    (rv = kd_spares(cs)) != 0 ||
	    (rv = kd_aggspares(cs)) != 0 ||
	    (rv = kd_arm(cs)) != 0)
		return rv;
	cs->cs_phase = KD_PH_ENABLED;
	rgn_set_state(cs->cs_region, RGN_STATE_ACTIVE);
	return 0;
}

/* ---- modules that load and unload while a state is enabled ---- */

void
kd_cs_register(struct kd_cstate *cs)
{
	mutex_lock(&kd_states_lock);
	list_add_tail(&cs->cs_link, &kd_states);
	mutex_unlock(&kd_states_lock);
	mutex_lock(&cs->cs_lock);
	kd_sdt_registered(cs);	/* unloads reach cs from now on */
	mutex_unlock(&cs->cs_lock);
}

/* Match module "mod", coming, against every ECB; arm what it adds. */
static void
kd_cs_mod_coming(struct kd_cstate *cs, struct module *mod)
{
	uint32_t fprobe = cs->cs_nprobes, fpair = cs->cs_npairs, i, p, none;
	uint32_t ask[KD_NPROV], nask = 0, a;
	const struct dof_pdesc *pd;
	int rv = 0, n = 0;

	/* the providers that may have probes in "mod", in kd_provs order */
	none = kd_prematch(cs, cs->cs_den, mod);
	for (p = 0; p < kd_nprovs; p++)
		if (kd_provs[p]->pv_match_mod != NULL && !(none >> p & 1))
			ask[nask++] = p;
	for (i = 0; nask != 0 && rv >= 0 && i < cs->cs_den->den_necbs; i++) {
		pd = &cs->cs_den->den_ecbs[i].le_pdesc;
		for (a = 0; rv >= 0 && a < nask; a++)
			if (kd_ecb_offered(cs, i, ask[a]))
				rv = kd_provs[ask[a]]->pv_match_mod(cs, pd, i,
				    mod);
	}
	kd_prematch(cs, NULL, NULL);
	if (cs->cs_npairs == fpair)
		return;
	if (rv >= 0)
		rv = kd_build_ecbrefs(cs, fprobe, fpair);
	if (rv >= 0)
		rv = kd_publish(cs, fprobe, fpair);
	if (rv < 0) {
		pr_warn("kdt: module %s: its %u new probes are not enabled: %s\n",
		    mod->name, cs->cs_nprobes - fprobe, cs->cs_msg);
		return;
	}
	for (p = 0; p < kd_nprovs; p++)
		if (kd_provs[p]->pv_arm != NULL)
			n += kd_provs[p]->pv_arm(cs, fprobe);
	cs->cs_nlive += n;
	pr_info("kdt: module %s: %d of %u new probes enabled\n", mod->name, n,
	    cs->cs_nprobes - fprobe);
}

static int
kd_mod_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct module *mod = data;
	struct kd_cstate *cs;
	uint32_t p;

	if (val != MODULE_STATE_COMING && val != MODULE_STATE_GOING &&
	    val != MODULE_STATE_LIVE)
		return NOTIFY_DONE;
	if (val == MODULE_STATE_GOING)
		kd_pids_mod_gone(mod);
	mutex_lock(&kd_states_lock);
	list_for_each_entry(cs, &kd_states, cs_link) {
		mutex_lock(&cs->cs_lock);
		if (cs->cs_phase == KD_PH_ENABLED || cs->cs_phase == KD_PH_GO) {
			/* the region's module table (kd_modtab.c) */
			if (val == MODULE_STATE_COMING)
				kd_modtab_coming(cs, mod);
			else if (val == MODULE_STATE_LIVE)
				kd_modtab_live(cs, mod);
			else
				kd_modtab_going(cs, mod);
			if (val == MODULE_STATE_COMING)
				kd_cs_mod_coming(cs, mod);
			else if (val == MODULE_STATE_GOING)
				for (p = 0; p < kd_nprovs; p++)
					if (kd_provs[p]->pv_mod_gone != NULL)
						kd_provs[p]->pv_mod_gone(cs,
						    mod);
		}
		mutex_unlock(&cs->cs_lock);
	}
	mutex_unlock(&kd_states_lock);
	return NOTIFY_DONE;
}

/*
 * Priority 1, like jump_label's and trace_events' notifiers and above
 * tracepoint.c's (0): a going module's probes must be unregistered
 * before tracepoint.c checks that nothing is left on its tracepoints
 * (it warns otherwise) and before kprobes marks its kprobes gone.  A
 * coming module is seen after jump_label (registered at boot with the
 * same priority, so called first) and before tracepoint.c lists it,
 * which registering a probe on its tracepoints does not need.
 */
static struct notifier_block kd_mod_nb = {
	.notifier_call = kd_mod_notify,
	.priority = 1,
};

int
kd_mod_init(void)
{
	return register_module_notifier(&kd_mod_nb);
}

void
kd_mod_exit(void)
{
	unregister_module_notifier(&kd_mod_nb);
	kd_pids_free();
}

int
kd_cs_go(struct kd_cstate *cs)
{
	struct ecb_state *es = cs->cs_es;

	if (cs->cs_phase != KD_PH_ENABLED)
		return -EINVAL;
	if (cs->cs_dprobes[KD_PROBEID_BEGIN - 1] != NULL)
		kd_fire_state(cs->cs_dprobes[KD_PROBEID_BEGIN - 1]);
	if (READ_ONCE(es->es_state) == ECB_ST_WARMUP)
		ecb_set_state(es, ECB_ST_ACTIVE);
	smp_wmb();
	WRITE_ONCE(cs->cs_active, 1);
	cs->cs_phase = KD_PH_GO;
	if (!cs->cs_anon) {
		cs->cs_dm_timeout = READ_ONCE(kd_deadman_timeout);
		cs->cs_dm_ival = READ_ONCE(kd_deadman_interval_ms);
	}
	if (!cs->cs_anon && cs->cs_dm_timeout != 0) {
		cs->cs_heard = jiffies;
		cs->cs_deadman_on = 1;
		hrtimer_start(&cs->cs_deadman, ms_to_ktime(cs->cs_dm_ival),
		    HRTIMER_MODE_REL_HARD);
	}
	return 0;
}

int
kd_cs_claim(struct kd_cstate *cs)
{
	const struct agg_buf *ab;
	int rv;

	if (!cs->cs_anon || cs->cs_claimed || cs->cs_es == NULL ||
	    cs->cs_phase < KD_PH_ENABLED)
		return -EINVAL;
	cs->cs_cursor = kvcalloc(cs->cs_ncpu, sizeof (*cs->cs_cursor),
	    GFP_KERNEL);
	if (cs->cs_cursor == NULL) {
		kd_cs_msg(cs, "out of memory for %u snapshot cursors",
		    cs->cs_ncpu);
		return -ENOMEM;
	}
	cs->cs_claimed = 1;
	/* snapshots copy the region's buffers too: page-rounded (rgn.h) */
	ab = cs->cs_aggsize != 0 ? rgn_agg(cs->cs_region, 0) : NULL;
	if (ab != NULL && ab->ab_size > cs->cs_aggsize)
		cs->cs_aggsize = ab->ab_size;
	rv = kd_aggspares(cs);
	if (rv != 0) {
		/* the state goes on recording for a later claim */
		cs->cs_claimed = 0;
		kvfree(cs->cs_cursor);
		cs->cs_cursor = NULL;
		kvfree(cs->cs_aspare);
		vfree(cs->cs_amem);
		cs->cs_aspare = NULL;
		cs->cs_amem = NULL;
	}
	return rv;
}

void
kd_cs_stop(struct kd_cstate *cs)
{
	uint32_t p;

	if (cs->cs_phase == KD_PH_STOPPED)
		return;
	if (cs->cs_deadman_on) {
		hrtimer_cancel(&cs->cs_deadman);
		cs->cs_deadman_on = 0;
	}
	if (cs->cs_deadman_hit) {
		/* Stopped already; END would record after the fact. */
		WRITE_ONCE(cs->cs_active, 0);
		for (p = 0; p < kd_nprovs; p++)
			kd_provs[p]->pv_disable(cs);
		cs->cs_phase = KD_PH_STOPPED;
		return;
	}
	if (cs->cs_es != NULL && cs->cs_phase >= KD_PH_ENABLED) {
		ecb_set_state(cs->cs_es, ECB_ST_COOLDOWN);
		if (cs->cs_phase == KD_PH_GO &&
		    cs->cs_dprobes[KD_PROBEID_END - 1] != NULL)
			kd_fire_state(cs->cs_dprobes[KD_PROBEID_END - 1]);
		ecb_set_state(cs->cs_es, ECB_ST_STOPPED);
	}
	WRITE_ONCE(cs->cs_active, 0);
	for (p = 0; p < kd_nprovs; p++)
		kd_provs[p]->pv_disable(cs);
	if (cs->cs_rgn_init)
		rgn_set_state(cs->cs_region, RGN_STATE_STOPPED);
	cs->cs_phase = KD_PH_STOPPED;
}

void
kd_cs_free(struct kd_cstate *cs)
{
	uint32_t i;

	if (cs == NULL)
		return;
	/*
	 * Stop (disarm) before leaving the list of states, under cs_lock as
	 * the module notifier takes it: a module unloading meanwhile must
	 * either find its probes disarmed or reach this state to disarm
	 * them (kd_sdt.c: a handler left on a freed tracepoint).
	 */
	mutex_lock(&cs->cs_lock);
	kd_cs_stop(cs);
	mutex_unlock(&cs->cs_lock);
	if (!list_empty(&cs->cs_link)) {
		mutex_lock(&kd_states_lock);
		list_del_init(&cs->cs_link);
		mutex_unlock(&kd_states_lock);
	}
	for (i = 0; i < kd_nprovs; i++)
		kd_provs[i]->pv_free(cs);
	for (i = 0; i < cs->cs_nprobes; i++) {
		if (cs->cs_probes[i]->kp_ecbs_block)
			kvfree(cs->cs_probes[i]->kp_ecbs);
		kfree(cs->cs_probes[i]);
	}
	kvfree(cs->cs_probes);
	kvfree(cs->cs_pairs);
	kvfree(cs->cs_ecbprov);
	kvfree(cs->cs_hash);
	ecb_destroy(cs->cs_es);
	if (cs->cs_rgn_owned && cs->cs_region != NULL) {
		/* a freed page 0 must not pass for a region in a dump */
		KENV_WRITE_ONCE(((struct rgn_hdr *)cs->cs_region)->rh_magic, 0);
		vfree(cs->cs_region);
	}
	vfree(cs->cs_bmem);
	kvfree(cs->cs_bspare);
	vfree(cs->cs_amem);
	kvfree(cs->cs_aspare);
	kvfree(cs->cs_cursor);
	if (cs->cs_den != NULL)
		dof_free(cs->cs_den);
	kfree(cs);
}

/* ---- snapshots ---- */

struct kd_switch {
	struct kd_cstate *sw_cs;
	uint32_t	sw_cpu;
	void		*sw_old;
};

/* On CPU sw_cpu, interrupts off: the spare becomes the active buffer. */
static void
kd_switch_buf(void *arg)
{
	struct kd_switch *sw = arg;
	struct ecb_cpu *ec = &sw->sw_cs->cs_es->es_cpus[sw->sw_cpu];
	struct rgn_cpu *cur = ec->ec_rc, *nb = sw->sw_cs->cs_bspare[sw->sw_cpu];

	nb->rc_head = nb->rc_reserve = nb->rc_tail = cur->rc_head;
	nb->rc_drops = cur->rc_drops;
	nb->rc_errors = cur->rc_errors;
	ec->ec_rc = nb;
	sw->sw_old = cur;
}

static void
kd_switch_agg(void *arg)
{
	struct kd_switch *sw = arg;
	struct ecb_cpu *ec = &sw->sw_cs->cs_es->es_cpus[sw->sw_cpu];
	struct agg_buf *cur = ec->ec_agg, *nb = sw->sw_cs->cs_aspare[sw->sw_cpu];

	nb->ab_drops = cur->ab_drops;
	/* the interval it collects (rgn.h, "Aggregation totals") */
	nb->ab_interval = cur->ab_interval + 1;
	smp_wmb();
	ec->ec_agg = nb;
	sw->sw_old = cur;
}

/* Run "fn" on sw->sw_cpu with interrupts off (there if it is online). */
static void
kd_on_cpu(struct kd_switch *sw, smp_call_func_t fn)
{
	unsigned long flags;

	cpus_read_lock();
	if (!cpu_online(sw->sw_cpu) ||
	    smp_call_function_single(sw->sw_cpu, fn, sw, 1) != 0) {
		/* Offline: nothing runs there, so no writer can race. */
		local_irq_save(flags);
		fn(sw);
		local_irq_restore(flags);
	}
	cpus_read_unlock();
}

/* Copy the records [rc_tail, rc_head) of "rc" into the consumer's slot. */
static int
kd_copy_buf(const struct rgn_cpu *rc, uint8_t __user *ubuf, uint64_t *used)
{
	const uint8_t *data = (const uint8_t *)rc + RGN_CPU_HDRSIZE;
	uint64_t t = rc->rc_tail, h = rc->rc_head, off, n;

	if (h < t || h - t > rc->rc_size)
		return -EIO;	/* cannot happen: rgn_write.c keeps them */
	if (copy_to_user(ubuf, rc, RGN_CPU_HDRSIZE) != 0)
		return -EFAULT;
	*used = RGN_CPU_HDRSIZE;
	while (t < h) {
		off = t % rc->rc_size;
		n = min(h - t, rc->rc_size - off);
		if (copy_to_user(ubuf + RGN_CPU_HDRSIZE + off, data + off, n))
			return -EFAULT;
		*used += n;
		t += n;
	}
	return 0;
}

/*
 * The claimed anonymous state: hand over CPU ks_cpu's records committed
 * since its cursor, while the CPU may be writing more (kio.h has the
 * protocol; rgn.h's commit order makes it safe: the writer publishes
 * rc_tail before it overwrites, rc_head after it wrote).  Ioctl context,
 * cs_lock held; the CPU's probes keep recording meanwhile.
 */
static int
kd_snap_cursor(struct kd_cstate *cs, struct kio_snap *ks)
{
	const struct rgn_cpu *rc = cs->cs_es->es_cpus[ks->ks_cpu].ec_rc;
	const uint8_t *data = (const uint8_t *)rc + RGN_CPU_HDRSIZE;
	uint8_t __user *ubuf = u64_to_user_ptr(ks->ks_buf);
	uint64_t *cur = &cs->cs_cursor[ks->ks_cpu];
	uint64_t size = rc->rc_size, h, t, from, l, off, n;
	struct rgn_cpu hdr;

	h = READ_ONCE(rc->rc_head);
	smp_rmb();
	t = READ_ONCE(rc->rc_tail);
	from = max(*cur, t);
	if (from > h)
		from = h;	/* the writer wrapped past h: nothing is left */
	if (h - from > size)
		return -EIO;	/* cannot happen: rgn_write.c keeps them */
	ks->ks_used = RGN_CPU_HDRSIZE;
	for (l = from; l < h; l += n) {
		off = l % size;
		n = min(h - l, size - off);
		if (copy_to_user(ubuf + RGN_CPU_HDRSIZE + off, data + off, n))
			return -EFAULT;
		ks->ks_used += n;
	}
	smp_rmb();
	t = READ_ONCE(rc->rc_tail);	/* overwritten while we copied? */
	if (t > from)
		from = min(t, h);
	memcpy(&hdr, rc, sizeof (hdr));
	hdr.rc_head = h;
	hdr.rc_reserve = h;
	hdr.rc_tail = from;
	if (copy_to_user(ubuf, &hdr, RGN_CPU_HDRSIZE) != 0)
		return -EFAULT;
	*cur = h;
	return 0;
}

static int
kd_snap_buf(struct kd_cstate *cs, struct kio_snap *ks)
{
	const struct rgn_hdr *h = cs->cs_region;
	struct kd_switch sw = { cs, ks->ks_cpu, NULL };
	int rv;

	ks->ks_used = 0;
	if (ks->ks_len < RGN_CPU_HDRSIZE + h->rh_bufsize)
		return -EINVAL;
	if (cs->cs_claimed)
		return kd_snap_cursor(cs, ks);
	if (cs->cs_phase == KD_PH_STOPPED)
		return kd_copy_buf(cs->cs_es->es_cpus[ks->ks_cpu].ec_rc,
		    u64_to_user_ptr(ks->ks_buf), &ks->ks_used);
	if (cs->cs_policy != DTRACEOPT_BUFPOLICY_SWITCH)
		return 0;
	kd_on_cpu(&sw, kd_switch_buf);
	rv = kd_copy_buf(sw.sw_old, u64_to_user_ptr(ks->ks_buf),
	    &ks->ks_used);
	cs->cs_bspare[ks->ks_cpu] = sw.sw_old;
	return rv;
}

static int
kd_snap_agg(struct kd_cstate *cs, struct kio_snap *ks)
{
	struct kd_switch sw = { cs, ks->ks_cpu, NULL };
	const int aggrgn = kd_aggrgn(cs);
	struct agg_buf *ab;
	uint64_t n;
	int rv = 0;

	ks->ks_used = 0;
	if (cs->cs_aspare == NULL)
		return -ENOENT;
	if (ks->ks_len < cs->cs_aggsize)
		return -EINVAL;
	if (aggrgn) {
		/*
		 * In the region the switched-out buffer is kept until now,
		 * when it becomes active again: a dump has it until the
		 * consumer's totals cover it.  Interval 0 first, so a reset
		 * torn by a panic is never counted.
		 */
		ab = cs->cs_aspare[ks->ks_cpu];
		WRITE_ONCE(ab->ab_interval, 0);
		smp_wmb();
		agg_buf_reset(ab);
	}
	kd_on_cpu(&sw, kd_switch_agg);
	ab = sw.sw_old;
	n = ab->ab_heap_off + ab->ab_heap_used;
	if (n > cs->cs_aggsize)
		rv = -EIO;	/* cannot happen: agg.c keeps it */
	else if (copy_to_user(u64_to_user_ptr(ks->ks_buf), ab, n) != 0)
		rv = -EFAULT;
	else
		ks->ks_used = n;
	if (!aggrgn)
		agg_buf_reset(ab);
	cs->cs_aspare[ks->ks_cpu] = ab;
	return rv;
}

/* KIO_AGGTOT (kio.h): the consumer's merged table into the region. */
int
kd_cs_aggtot(struct kd_cstate *cs, struct kio_aggtot *kt)
{
	struct kdt_err err;
	uint64_t cap;
	void *dst;

	if (cs->cs_phase < KD_PH_ENABLED || !kd_aggrgn(cs) ||
	    (kt->kt_cap = rgn_aggtot_cap(cs->cs_region)) == 0)
		return -ENOENT;
	if (kt->kt_ncpu != cs->cs_ncpu)
		return -EINVAL;
	if (kt->kt_len == 0)
		return 0;
	if (kt->kt_len > kt->kt_cap || kt->kt_xlen > kt->kt_cap - kt->kt_len)
		return -E2BIG;
	dst = rgn_aggtot_begin(cs->cs_region, &cap);
	if (dst == NULL)
		return -ENOENT;
	/* intervals, image, replay bytes (at_pos, at_norm: rgn.h) */
	if (copy_from_user(dst, u64_to_user_ptr(kt->kt_buf),
	    8ULL * cs->cs_ncpu + kt->kt_len + kt->kt_xlen) != 0)
		return -EFAULT;	/* that slot stays invalid; the other holds */
	if (rgn_aggtot_commit(cs->cs_region, kt->kt_len, kt->kt_xlen,
	    kt->kt_left, &err) != 0)
		return -EINVAL;
	return 0;
}

int
kd_cs_snap(struct kd_cstate *cs, struct kio_snap *ks)
{
	if (cs->cs_phase < KD_PH_ENABLED || cs->cs_es == NULL)
		return -EINVAL;
	if (ks->ks_cpu >= cs->cs_ncpu)
		return -EINVAL;
	switch (ks->ks_what) {
	case KIO_SNAP_BUF:
		return kd_snap_buf(cs, ks);
	case KIO_SNAP_AGG:
		return kd_snap_agg(cs, ks);
	default:
		return -EINVAL;
	}
}

void
kd_cs_status(struct kd_cstate *cs, struct kio_status *st)
{
	const struct ecb_state *es = cs->cs_es;
	const struct ecb_cpu *ec;
	uint32_t c, p;

	memset(st, 0, sizeof (*st));
	st->kst_ncpu = cs->cs_ncpu;
	if (es == NULL)
		return;
	st->kst_state = READ_ONCE(es->es_state);
	st->kst_exited = READ_ONCE(es->es_exited);
	st->kst_status = READ_ONCE(es->es_status);
	for (c = 0; c < cs->cs_ncpu; c++) {
		ec = &es->es_cpus[c];
		st->kst_drops += READ_ONCE(ec->ec_rc->rc_drops);
		if (ec->ec_agg != NULL)
			st->kst_aggdrops += READ_ONCE(ec->ec_agg->ab_drops);
		st->kst_specdrops += READ_ONCE(ec->ec_spec.sc_drops);
		st->kst_specbusy += READ_ONCE(ec->ec_spec.sc_busy);
		st->kst_specunavail += READ_ONCE(ec->ec_spec.sc_unavail);
		st->kst_dblerrors += READ_ONCE(ec->ec_dblerrors);
		st->kst_errors += READ_ONCE(ec->ec_errors);
		st->kst_sigdrops += READ_ONCE(ec->ec_sigdrops);
	}
	st->kst_dyndrops = ecb_dyndrops(es);
	if (READ_ONCE(cs->cs_deadman_hit))
		st->kst_flags |= KIO_ST_DEADMAN;
	st->kst_deadman = cs->cs_dm_timeout;
	st->kst_missed = atomic64_read(&cs->cs_missed);
	for (p = 0; p < kd_nprovs; p++)
		if (kd_provs[p]->pv_missed != NULL)
			st->kst_missed += kd_provs[p]->pv_missed(cs);
}

/* ---- listing ---- */

int
kd_cs_list(struct kio_list *kl, void __user *ubuf)
{
	struct dof_pdesc pd;
	struct kd_cstate *cs;
	struct rgn_probe rp;
	struct kd_probe *kp;
	uint32_t i;
	int rv = 0;

	memset(&pd, 0, sizeof (pd));
	strscpy(pd.lp_prov, kl->kl_prov, sizeof (pd.lp_prov));
	strscpy(pd.lp_mod, kl->kl_mod, sizeof (pd.lp_mod));
	strscpy(pd.lp_func, kl->kl_func, sizeof (pd.lp_func));
	strscpy(pd.lp_name, kl->kl_name, sizeof (pd.lp_name));
	if ((cs = kd_cs_new()) == NULL)
		return -ENOMEM;
	cs->cs_list = 1;
	if (kd_ksym_init() != 0)
		pr_warn("kdt: kernel symbols unavailable: fbt lists nothing\n");
	for (i = 0; rv >= 0 && i < kd_nprovs; i++)
		rv = kd_provs[i]->pv_match(cs, &pd, KD_ECB_NONE);
	kl->kl_count = cs->cs_nprobes;
	if (rv >= 0)
		rv = kd_probe_number(cs, 0);
	for (i = 0; rv >= 0 && i < cs->cs_nprobes && i < kl->kl_cap; i++) {
		kp = cs->cs_probes[i];
		memset(&rp, 0, sizeof (rp));
		rp.rp_id = kp->kp_ep.ep_id;
		strscpy(rp.rp_prov, kp->kp_ep.ep_prov, sizeof (rp.rp_prov));
		strscpy(rp.rp_mod, kp->kp_ep.ep_mod, sizeof (rp.rp_mod));
		strscpy(rp.rp_func, kp->kp_ep.ep_func, sizeof (rp.rp_func));
		strscpy(rp.rp_name, kp->kp_ep.ep_name, sizeof (rp.rp_name));
		if (copy_to_user((uint8_t __user *)ubuf + (size_t)i * sizeof (rp),
		    &rp, sizeof (rp)) != 0)
			rv = -EFAULT;
	}
	kd_cs_free(cs);
	return rv < 0 ? rv : 0;
}
