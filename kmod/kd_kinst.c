/*
 * kd_kinst.c -- the kinst provider: a probe on any instruction of a
 * core-kernel function (the KernInst idea, as FreeBSD's kinst offers it).
 *
 * Probes are kinst::<func>:<offset>, the offset in bytes from the start of
 * the function, e.g. kinst::vfs_read:23.  The instruction boundaries come
 * from the kernel's own x86 instruction decoder (insn_decode, found by
 * name through kd_ksym.c because it is not exported), walked from the
 * function's start over its size (kallsyms_lookup_size_offset):
 *
 *   - a literal offset must be an instruction boundary; otherwise the
 *     enabling is refused, naming the two boundaries around it;
 *   - a globbed or empty name part matches every instruction offset the
 *     glob matches (kinst::vfs_read: traces every instruction).
 *
 * Without the decoder a literal offset is handed to kprobes, which
 * refuse a non-boundary with -EILSEQ at arm time (reported the same way);
 * globbed names then match nothing.  The probe key is the instruction's
 * address; arg0.. are the function's argument registers at that moment
 * (meaningful at offset 0, whatever the registers hold later).  Arming
 * failures refuse the whole enabling: the user asked for that very
 * instruction.  Module functions are not covered.
 */
#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/kernel.h>
#include <asm/insn.h>

#include "kd_impl.h"

#define KD_KINST_MAXFUNC	(1U << 20)	/* bytes of one function */

typedef int (*kd_insn_fn)(struct insn *, const void *, int, enum insn_mode);
typedef int (*kd_sizeoff_fn)(unsigned long, unsigned long *,
    unsigned long *);

/* Is "s" a decimal offset?  Sets *off. */
static int
kd_kinst_offset(const char *s, unsigned long *off)
{
	if (s[0] == '\0' || strpbrk(s, "*?[") != NULL)
		return 0;
	return kstrtoul(s, 10, off) == 0;
}

/*
 * Match the offsets of function "f" against name pattern "name" (a
 * literal offset or a glob) and attach each; returns the count.
 */
static int
kd_kinst_func(struct kd_cstate *cs, const struct kd_fsym *f,
    const char *name, uint32_t ecb)
{
	kd_insn_fn decode = (kd_insn_fn)kd_ksym_lookup("insn_decode");
	kd_sizeoff_fn sizeoff = (kd_sizeoff_fn)kd_ksym_lookup(
	    "kallsyms_lookup_size_offset");
	unsigned long size = 0, soff = 0, lit, off, prev = 0;
	int literal = kd_kinst_offset(name, &lit), n = 0;
	struct kd_probe *kp;
	struct insn insn;
	char buf[24];

	if (sizeoff == NULL || !sizeoff(f->fs_addr, &size, &soff) ||
	    size == 0 || size > KD_KINST_MAXFUNC)
		size = 0;
	if (literal && (decode == NULL || size == 0)) {
		/* kprobes will check the boundary when it arms */
		kp = kd_probe_attach(cs, &kd_prov_kinst, f->fs_addr + lit, "",
		    f->fs_name, name, 0, ecb);
		return IS_ERR(kp) ? PTR_ERR(kp) : 1;
	}
	if (decode == NULL || size == 0)
		return 0;
	for (off = 0; off < size; off += insn.length) {
		if (decode(&insn, (void *)(f->fs_addr + off),
		    (int)min_t(unsigned long, MAX_INSN_SIZE, size - off),
		    INSN_MODE_KERN) < 0 || insn.length == 0)
			break;	/* padding or data: stop at the last one */
		if (literal && lit > off) {
			prev = off;
			continue;
		}
		if (literal && lit != off) {
			kd_cs_msg(cs, "kinst::%s:%lu: offset %lu is not an instruction boundary of %s (instructions start at %lu and %lu)",
			    f->fs_name, lit, lit, f->fs_name, prev, off);
			return -EINVAL;
		}
		snprintf(buf, sizeof (buf), "%lu", off);
		if (!literal && !kd_part_match(name, buf))
			continue;
		kp = kd_probe_attach(cs, &kd_prov_kinst, f->fs_addr + off, "",
		    f->fs_name, buf, 0, ecb);
		if (IS_ERR(kp))
			return PTR_ERR(kp);
		n++;
		if (literal)
			return n;
	}
	if (literal) {
		kd_cs_msg(cs, "kinst::%s:%lu: offset %lu is beyond the last instruction of %s (%lu bytes)",
		    f->fs_name, lit, lit, f->fs_name, size);
		return -EINVAL;
	}
	return n;
}

static int
kd_kinst_match(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb)
{
	struct kd_fsym *f;
	uint32_t i, nf;
	int rv = 0, n = 0;
	unsigned long lit;

	/*
	 * kinst probes exist on demand, as in FreeBSD: only a description
	 * that spells the provider out names them, and an offset glob needs
	 * one function (kinst::vfs_read:), not a glob of functions.
	 */
	if (strcmp(pd->lp_prov, "kinst") != 0 ||
	    !(kd_part_match(pd->lp_mod, "") ||
	    kd_part_match(pd->lp_mod, "kernel")))
		return 0;
	if (!kd_kinst_offset(pd->lp_name, &lit) &&
	    (pd->lp_func[0] == '\0' || strpbrk(pd->lp_func, "*?[") != NULL)) {
		if (cs->cs_list)
			return 0;
		kd_cs_msg(cs, "kinst:%s:%s:%s: name one function when the offset is a glob or empty (e.g. kinst::vfs_read:), or give an offset",
		    pd->lp_mod, pd->lp_func, pd->lp_name);
		return -EINVAL;
	}
	rv = kd_core_funcs(pd->lp_func[0] != '\0' ? pd->lp_func : "*", &f,
	    &nf);
	if (rv == -ENOENT)
		return 0;	/* no kernel symbols: nothing to match */
	if (rv != 0) {
		kd_cs_msg(cs, "kinst: cannot list the functions for \"%s\": error %d",
		    pd->lp_func, rv);
		return rv;
	}
	for (i = 0; i < nf; i++) {
		rv = kd_kinst_func(cs, &f[i], pd->lp_name, ecb);
		if (rv < 0)
			break;
		n += rv;
	}
	kvfree(f);
	return rv < 0 ? rv : n;
}

/* Probe context: kprobe pre-handler, interrupts off. */
static int
kd_kinst_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kd_probe *kp = container_of(p, struct kd_probe, kp_u.u_kprobe);

	/* offset 0 (the name "0") is the function's first instruction */
	kd_fire_regs(kp, regs, strcmp(kp->kp_ep.ep_name, "0") == 0);
	return 0;
}

static int
kd_kinst_enable(struct kd_cstate *cs)
{
	struct kd_probe *kp;
	int rv, live = 0;
	uint32_t i;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_kinst || kp->kp_necbs == 0)
			continue;
		memset(&kp->kp_u, 0, sizeof (kp->kp_u));
		kp->kp_u.u_kprobe.addr = (kprobe_opcode_t *)(uintptr_t)kp->kp_key;
		kp->kp_u.u_kprobe.pre_handler = kd_kinst_pre;
		rv = register_kprobe(&kp->kp_u.u_kprobe);
		if (rv != 0) {
			kd_cs_msg(cs, rv == -EILSEQ ?
			    "kinst::%s:%s: not an instruction boundary (kprobes refused it: error %d)" :
			    "kinst::%s:%s: kprobes refused this instruction: error %d",
			    kp->kp_ep.ep_func, kp->kp_ep.ep_name, rv);
			return rv;
		}
		kp->kp_live = 1;
		live++;
	}
	return live;
}

static void
kd_kinst_disable(struct kd_cstate *cs)
{
	struct kd_probe *kp;
	uint32_t i;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_kinst || !kp->kp_live)
			continue;
		unregister_kprobe(&kp->kp_u.u_kprobe);
		kp->kp_live = 0;
	}
}

static void
kd_kinst_free(struct kd_cstate *cs)
{
}

const struct kd_prov kd_prov_kinst = {
	.pv_name	= "kinst",
	.pv_provs	= (const char *const[]){ "kinst", NULL },
	.pv_id		= 5,
	.pv_match	= kd_kinst_match,
	.pv_enable	= kd_kinst_enable,
	.pv_disable	= kd_kinst_disable,
	.pv_free	= kd_kinst_free,
};
