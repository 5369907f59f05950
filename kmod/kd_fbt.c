/*
 * kd_fbt.c -- matching an enabling's probe descriptions to probes.
 *
 * Called by kd_anon.c at setup, in three steps:
 *
 *  1. kd_match_all() walks the ECBs in order and matches each description
 *     against the probes this kdt.ko provides: dtrace:::BEGIN, and
 *     fbt:kernel:<func>:entry for core-kernel functions (a kprobe at the
 *     function's first instruction).  A probe gets its id when it is first
 *     matched (BEGIN = 1; fbt from KD_PROBEID_FBT up, in match order); each
 *     (ECB, probe) pair gets the next EPID from 1.  An empty description
 *     part matches anything; otherwise it is a glob (dof_glob_match).
 *  2. kd_register_all() registers the kprobes.  A function kprobes refuse
 *     (blacklisted, not text) is dropped and counted; its id and EPIDs are
 *     simply never used.
 *  3. kd_anon.c records the live probes and EPIDs in the region and fires
 *     BEGIN (kd_begin_probe()).
 *
 * Modules that load later are not matched yet (fbt module field other than
 * "", "kernel" or "vmlinux" matches nothing).  Setup context only.
 */
#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/slab.h>

#include "kd_impl.h"

/* (probe, ECB) pairs in EPID order, built by kd_match_all. */
struct kd_pair {
	uint32_t	pr_probe;	/* index into ks_probes */
	uint32_t	pr_ecb;
};

static struct kd_pair *kd_pairs;
static uint32_t kd_npairs;
static uint32_t kd_begin_idx = UINT_MAX;
static uint32_t kd_next_fbt_id = KD_PROBEID_FBT;

/* One core-kernel function found by a glob. */
struct kd_sym {
	char		sy_name[DOF_FUNCNAMELEN];
	unsigned long	sy_addr;
};

struct kd_collect {
	const char	*co_pat;
	struct kd_sym	*co_syms;
	uint32_t	co_n;
	uint32_t	co_cap;
	uint32_t	co_over;	/* matches beyond co_cap */
	unsigned long	co_stext;
	unsigned long	co_etext;
};

static int
kd_part_match(const char *pat, const char *str)
{
	return pat[0] == '\0' || dof_glob_match(pat, str);
}

static int
kd_has_glob(const char *s)
{
	return s[0] == '\0' || strpbrk(s, "*?[") != NULL;
}

static struct kd_probe *
kd_new_probe(const char *prov, const char *mod, const char *func,
    const char *name, unsigned long addr)
{
	struct kd_state *ks = &kd_state;
	struct kd_probe *kp;

	if (ks->ks_nprobes >= KD_PROBE_MAX)
		return NULL;
	kp = &ks->ks_probes[ks->ks_nprobes++];
	kp->kp_prov = prov;
	kp->kp_mod = mod;
	kp->kp_name = name;
	strscpy(kp->kp_func, func, sizeof (kp->kp_func));
	kp->kp_addr = addr;
	if (strcmp(prov, "dtrace") == 0)
		kp->kp_id = DTRACE_PROBEID_BEGIN;
	else
		kp->kp_id = kd_next_fbt_id++;
	return kp;
}

static int
kd_add_pair(struct kd_probe *kp, uint32_t ecb)
{
	if (kd_npairs >= KD_EPID_MAX) {
		pr_err("kdt: ECB %u on probe %s:%s:%s:%s needs EPID %u, above the limit of %u\n",
		    ecb, kp->kp_prov, kp->kp_mod, kp->kp_func, kp->kp_name,
		    kd_npairs + 1, KD_EPID_MAX);
		return -ENOSPC;
	}
	kd_pairs[kd_npairs].pr_probe = kp - kd_state.ks_probes;
	kd_pairs[kd_npairs].pr_ecb = ecb;
	kd_npairs++;
	kp->kp_necbs++;
	return 0;
}

static int
kd_match_begin(const struct dof_pdesc *pd, uint32_t ecb)
{
	struct kd_probe *kp;

	if (!kd_part_match(pd->lp_prov, "dtrace") ||
	    !kd_part_match(pd->lp_mod, "") ||
	    !kd_part_match(pd->lp_func, "") ||
	    !kd_part_match(pd->lp_name, "BEGIN"))
		return 0;
	if (kd_begin_idx == UINT_MAX) {
		kp = kd_new_probe("dtrace", "", "", "BEGIN", 0);
		if (kp == NULL)
			return -ENOSPC;
		kd_begin_idx = kp - kd_state.ks_probes;
	}
	return kd_add_pair(&kd_state.ks_probes[kd_begin_idx], ecb) ?: 1;
}

static struct kd_probe *
kd_find_fbt(const char *func, unsigned long addr)
{
	struct kd_state *ks = &kd_state;
	uint32_t i;

	for (i = 0; i < ks->ks_nprobes; i++) {
		if (strcmp(ks->ks_probes[i].kp_prov, "fbt") != 0)
			continue;
		if (addr != 0 ? ks->ks_probes[i].kp_addr == addr :
		    strcmp(ks->ks_probes[i].kp_func, func) == 0)
			return &ks->ks_probes[i];
	}
	return NULL;
}

/* Attach ECB "ecb" to fbt:kernel:func:entry, creating the probe if new. */
static int
kd_attach_fbt(const char *func, unsigned long addr, uint32_t ecb)
{
	struct kd_probe *kp = kd_find_fbt(func, addr);

	if (kp == NULL) {
		kp = kd_new_probe("fbt", "kernel", func, "entry", addr);
		if (kp == NULL) {
			pr_err("kdt: fbt:kernel:%s:entry exceeds the limit of %u probes\n",
			    func, KD_PROBE_MAX);
			return -ENOSPC;
		}
	}
	return kd_add_pair(kp, ecb);
}

static int
kd_collect_cb(void *arg, const char *name, unsigned long addr)
{
	struct kd_collect *co = arg;
	uint32_t i;

	if (addr < co->co_stext || addr >= co->co_etext ||
	    strlen(name) >= DOF_FUNCNAMELEN ||
	    !dof_glob_match(co->co_pat, name))
		return 0;
	for (i = 0; i < co->co_n; i++)
		if (co->co_syms[i].sy_addr == addr)
			return 0;
	if (co->co_n == co->co_cap) {
		co->co_over++;
		return 0;
	}
	strscpy(co->co_syms[co->co_n].sy_name, name, DOF_FUNCNAMELEN);
	co->co_syms[co->co_n++].sy_addr = addr;
	return 0;
}

/* Match a globbed function name against the core kernel's text symbols. */
static int
kd_match_fbt_glob(const char *pat, uint32_t ecb)
{
	struct kd_collect co = { .co_pat = pat[0] != '\0' ? pat : "*",
	    .co_cap = KD_PROBE_MAX - kd_state.ks_nprobes };
	uint32_t i;
	int rv;

	co.co_stext = kd_ksym_lookup("_stext");
	co.co_etext = kd_ksym_lookup("_etext");
	co.co_syms = kvcalloc(max(co.co_cap, 1U), sizeof (*co.co_syms),
	    GFP_KERNEL);
	if (co.co_syms == NULL)
		return -ENOMEM;
	rv = kd_ksym_each(kd_collect_cb, &co);
	if (rv != 0) {
		pr_err("kdt: fbt function glob \"%s\" of ECB %u matches nothing: cannot iterate kernel symbols: error %d\n",
		    pat, ecb, rv);
		kvfree(co.co_syms);
		return 0;
	}
	if (co.co_over != 0)
		pr_warn("kdt: fbt function glob \"%s\" of ECB %u matches %u functions, above the limit of %u; the first %u are used\n",
		    pat, ecb, co.co_n + co.co_over, co.co_cap, co.co_n);
	for (i = 0; rv == 0 && i < co.co_n; i++)
		rv = kd_attach_fbt(co.co_syms[i].sy_name, co.co_syms[i].sy_addr,
		    ecb);
	kvfree(co.co_syms);
	return rv < 0 ? rv : (int)co.co_n;
}

static int
kd_match_fbt(const struct dof_pdesc *pd, uint32_t ecb)
{
	unsigned long addr;
	int rv;

	if (!kd_part_match(pd->lp_prov, "fbt") ||
	    !kd_part_match(pd->lp_name, "entry"))
		return 0;
	if (pd->lp_mod[0] != '\0' && !dof_glob_match(pd->lp_mod, "kernel") &&
	    !dof_glob_match(pd->lp_mod, "vmlinux"))
		return 0;
	if (kd_has_glob(pd->lp_func))
		return kd_match_fbt_glob(pd->lp_func, ecb);
	addr = kd_ksym_lookup(pd->lp_func);
	if (addr == 0 && kd_find_fbt(pd->lp_func, 0) == NULL &&
	    kd_ksym_lookup("kallsyms_lookup_name") != 0)
		return 0;	/* we can look up names, and there is none */
	rv = kd_attach_fbt(pd->lp_func, addr, ecb);
	return rv < 0 ? rv : 1;
}

static int
kd_match_alloc(void)
{
	kd_state.ks_probes = kvcalloc(KD_PROBE_MAX, sizeof (struct kd_probe),
	    GFP_KERNEL);
	kd_pairs = kvcalloc(KD_EPID_MAX, sizeof (*kd_pairs), GFP_KERNEL);
	if (kd_state.ks_probes == NULL || kd_pairs == NULL)
		return -ENOMEM;
	return 0;
}

/* Give every probe its ECB list, in EPID order (EPID = pair index + 1). */
static int
kd_build_ecbrefs(void)
{
	struct kd_state *ks = &kd_state;
	struct kd_probe *kp;
	uint32_t i;

	for (i = 0; i < ks->ks_nprobes; i++) {
		kp = &ks->ks_probes[i];
		kp->kp_ecbs = kvcalloc(kp->kp_necbs, sizeof (*kp->kp_ecbs),
		    GFP_KERNEL);
		if (kp->kp_ecbs == NULL)
			return -ENOMEM;
		kp->kp_necbs = 0;
	}
	for (i = 0; i < kd_npairs; i++) {
		kp = &ks->ks_probes[kd_pairs[i].pr_probe];
		kp->kp_ecbs[kp->kp_necbs].er_ecb = kd_pairs[i].pr_ecb;
		kp->kp_ecbs[kp->kp_necbs].er_epid = i + 1;
		kp->kp_necbs++;
	}
	ks->ks_nepids = kd_npairs;
	return 0;
}

/*
 * Match every ECB of "den".  Returns the number of EPIDs created, or
 * -errno (with the reason logged).
 */
int
kd_match_all(struct dof_enabling *den)
{
	const struct dof_pdesc *pd;
	uint32_t i;
	int rv, nfbt;

	if ((rv = kd_match_alloc()) != 0)
		return rv;
	for (i = 0; i < den->den_necbs; i++) {
		pd = &den->den_ecbs[i].le_pdesc;
		rv = kd_match_begin(pd, i);
		nfbt = rv < 0 ? 0 : kd_match_fbt(pd, i);
		if (rv < 0 || nfbt < 0)
			return rv < 0 ? rv : nfbt;
		if (rv + nfbt == 0)
			pr_warn("kdt: ECB %u: probe description %s:%s:%s:%s matches no probe this kdt.ko provides\n",
			    i, pd->lp_prov, pd->lp_mod, pd->lp_func,
			    pd->lp_name);
	}
	if ((rv = kd_build_ecbrefs()) != 0)
		return rv;
	return (int)kd_npairs;
}

struct kd_probe *
kd_begin_probe(void)
{
	if (kd_begin_idx == UINT_MAX)
		return NULL;
	return &kd_state.ks_probes[kd_begin_idx];
}

static int
kd_register_one(struct kd_probe *kp)
{
	int rv;

	memset(&kp->kp_kprobe, 0, sizeof (kp->kp_kprobe));
	if (kp->kp_addr != 0)
		kp->kp_kprobe.addr = (kprobe_opcode_t *)(uintptr_t)kp->kp_addr;
	else
		kp->kp_kprobe.symbol_name = kp->kp_func;
	kp->kp_kprobe.pre_handler = kd_kprobe_pre;
	rv = register_kprobe(&kp->kp_kprobe);
	if (rv == 0)
		kp->kp_registered = 1;
	return rv;
}

/* Register every fbt probe; returns how many are live. */
int
kd_register_all(void)
{
	struct kd_state *ks = &kd_state;
	uint32_t i, nfail = 0;
	int rv, live = 0;

	for (i = 0; i < ks->ks_nprobes; i++) {
		if (strcmp(ks->ks_probes[i].kp_prov, "fbt") != 0)
			continue;
		rv = kd_register_one(&ks->ks_probes[i]);
		if (rv == 0) {
			live++;
			continue;
		}
		if (nfail++ < 8)
			pr_warn("kdt: fbt:kernel:%s:entry (probe %u) not enabled: kprobe registration error %d\n",
			    ks->ks_probes[i].kp_func, ks->ks_probes[i].kp_id,
			    rv);
	}
	if (nfail > 8)
		pr_warn("kdt: %u fbt probes in all could not be enabled\n",
		    nfail);
	return live;
}

void
kd_unregister_all(void)
{
	struct kd_state *ks = &kd_state;
	struct kprobe *kps[32];
	uint32_t i, n = 0;

	for (i = 0; ks->ks_probes != NULL && i < ks->ks_nprobes; i++) {
		if (!ks->ks_probes[i].kp_registered)
			continue;
		kps[n++] = &ks->ks_probes[i].kp_kprobe;
		ks->ks_probes[i].kp_registered = 0;
		if (n == ARRAY_SIZE(kps)) {
			unregister_kprobes(kps, n);
			n = 0;
		}
	}
	if (n != 0)
		unregister_kprobes(kps, n);
}

void
kd_free_probes(void)
{
	struct kd_state *ks = &kd_state;
	uint32_t i;

	for (i = 0; ks->ks_probes != NULL && i < ks->ks_nprobes; i++)
		kvfree(ks->ks_probes[i].kp_ecbs);
	kvfree(ks->ks_probes);
	kvfree(kd_pairs);
	ks->ks_probes = NULL;
	ks->ks_nprobes = 0;
	ks->ks_nepids = 0;
	kd_pairs = NULL;
	kd_npairs = 0;
	kd_begin_idx = UINT_MAX;
	kd_next_fbt_id = KD_PROBEID_FBT;
}
