/*
 * kd_fbt.c -- the fbt provider: entry and return of core-kernel functions.
 *
 * Probes are fbt:kernel:<func>:entry and fbt:kernel:<func>:return for the
 * text symbols of vmlinux (kallsyms, through kd_ksym.c); the module part
 * may also be spelled "vmlinux".  The probe key is the function address,
 * so two static functions with one name are two probes.  For one
 * function, entry is created before return.
 *
 * entry is a kprobe at the function's first instruction: arg0.. are the
 * function's arguments from the registers (kd_fire_regs; for a probe of
 * simple aggregations and records, ecb.h, only the six register
 * arguments, in kd_fire_simple_regs).  An enabling
 * with many core-kernel entry probes arms them in bulk through an
 * ftrace_ops of its own instead, since every kprobe registration walks all
 * of ftrace's call sites (kd_fbt_bulk_arm).  return is a
 * kretprobe (in bulk: a rethook of the state's own, hooked from the same
 * ftrace_ops): arg1 is the return value, as in DTrace; arg0 is the address
 * the function returns to in its caller -- DTrace gives the offset of the
 * return instruction, which a return hook cannot know.  A return probe
 * keeps one instance per activation in flight; when they run out the
 * kernel skips the firing and counts it (pv_missed: reported as drops).
 *
 * Modules: fbt:<module>:<func>:entry for the text symbols of every loaded
 * module (module_kallsyms_on_each_symbol, found through kd_ksym.c), and --
 * the enabling is retained -- of every module that loads later: kd_cs.c's
 * module notifier calls pv_match_mod while the module is coming, before
 * its init function runs, so a driver's init and probe functions are
 * traced from their first call.  Probes in a module's init text stop
 * firing when the kernel frees it; when the module goes away its probes
 * are unregistered and forgotten (records already written keep their
 * EPIDs).  The empty module part matches the kernel and every module
 * but kdt.ko, which has no probes: like dtrace's fbt, which leaves
 * dtrace out, since a probe in the code that runs the probes could only
 * recurse or be skipped.  kdt.ko is built without ftrace's entry hooks
 * (kmod/Kbuild), so ftrace's function tracer cannot enter it either, and
 * its ~470 functions are not among the call sites every ftrace update
 * walks.
 *
 * Built in and enabled at boot (kd_builtin.c), the core kernel's __init
 * functions are probes too, until the kernel frees its init text.
 *
 * A function kprobes refuse (the kprobe blocklist, notrace sections,
 * not text) is matched but not armed: it is counted in cs_nfailed and
 * the first few are logged.
 *
 * Matching takes all of an enabling's descriptions at once
 * (kd_fbt_prematch, struct kd_fmatch): one search of kallsyms per
 * distinct function name, one walk of the loaded modules' symbols and,
 * for each module that loads later, one walk of its symbols, whatever
 * the number of descriptions.  At boot, the kernel symbol hints "kdt -A"
 * computed (common/ksh.h, kd_fbt_hints) replace the search of a name
 * when they are this kernel's and kallsyms confirms the address.
 */
#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/ptrace.h>
#include <linux/module.h>
#include <linux/sort.h>
#include <linux/bsearch.h>
#include <linux/ftrace.h>
#include <linux/rethook.h>

#include "kd_impl.h"
#include "kd_compat.h"
#include "ksh.h"

#define KD_FBT_LOGFAIL		8	/* registration failures logged */
#define KD_FBT_MAXACTIVE	64	/* return instances per probe... */
#define KD_FBT_MANY		1000	/* ...when a state has fewer returns */
#define KD_FBT_BATCH_MIN	16	/* probes per unregister call, on the stack */
#define KD_FBT_BATCH_MAX	65536	/* ... and at most, allocated */
#define KD_FBT_FTRACE_MIN	16	/* probes armed in bulk from... */
#define KD_FBT_FTRACE_ANON	4	/* ... and from at boot */
#define KD_FBT_BYNAME		1500	/* core names searched one by one */
#define KD_FBT_HINTMAX		16	/* hinted addresses of one name */
#define KD_FBT_BYHINT		(3 * KD_FBT_BYNAME)	/* names, with hints */
#define KD_FBT_BIDLEN		20	/* vmlinux_build_id[]: sha1 */

typedef int (*kd_modeach_fn)(int (*)(void *, const char *, struct module *,
    unsigned long), void *);
typedef int (*kd_nameeach_fn)(int (*)(void *, unsigned long), const char *,
    void *);

/*
 * Kernel addresses that matching needs, looked up once: each lookup costs
 * ~25,000 instructions, and an enabling naming 10,000 functions made five
 * per description.  None changes while the kernel runs (the init text
 * bounds are used only while the init text is there, kd_fcollect_text).
 * ks_nameeach is kallsyms_on_each_match_symbol (6.2, in Debian's 6.1 with
 * the name-sorted kallsyms index): every symbol of one name by binary
 * search, where kallsyms_on_each_symbol decompresses all ~94,000 names
 * (39 M instructions on the pinned kernel, 2 % of its boot, per
 * description).  Filled by the first enabling; a racing second one writes
 * the same values.  The init text bounds are looked up only while the
 * init text is there (a kdt.ko loaded later never needs them), the
 * rethook functions only by the first enabling with return probes to arm
 * in bulk (kd_fbt_ks_rh_init): at boot that is seven look-ups, ~0.28 M
 * instructions, fewer for entry probes.
 */
static struct {
	unsigned long	ks_stext;
	unsigned long	ks_etext;
	unsigned long	ks_sinit;
	unsigned long	ks_einit;
	kd_modeach_fn	ks_modeach;
	kd_nameeach_fn	ks_nameeach;
	unsigned long	(*ks_ftloc)(unsigned long);	/* ftrace_location */
	bool		(*ks_kpblock)(unsigned long);	/* within_kprobe_blacklist */
	/* rethook (kernel/trace/rethook.c, not exported): bulk return probes */
	struct rethook	*(*ks_rh_alloc)(void *, rethook_handler_t);
	void		(*ks_rh_add)(struct rethook *, struct rethook_node *);
	struct rethook_node *(*ks_rh_get)(struct rethook *);
	void		(*ks_rh_hook)(struct rethook_node *, struct pt_regs *,
			    bool);
	void		(*ks_rh_free)(struct rethook *);
	int		ks_done;
	int		ks_rh_done;
} kd_fbt_ks;

static void
kd_fbt_ks_init(void)
{
	if (smp_load_acquire(&kd_fbt_ks.ks_done))
		return;
	kd_fbt_ks.ks_stext = kd_ksym_lookup("_stext");
	kd_fbt_ks.ks_etext = kd_ksym_lookup("_etext");
	if (system_state < SYSTEM_FREEING_INITMEM) {
		kd_fbt_ks.ks_sinit = kd_ksym_lookup("_sinittext");
		kd_fbt_ks.ks_einit = kd_ksym_lookup("_einittext");
	}
	kd_fbt_ks.ks_modeach = (kd_modeach_fn)kd_ksym_lookup(
	    "module_kallsyms_on_each_symbol");
	kd_fbt_ks.ks_nameeach = (kd_nameeach_fn)kd_ksym_lookup(
	    "kallsyms_on_each_match_symbol");
	kd_fbt_ks.ks_ftloc = (void *)kd_ksym_lookup("ftrace_location");
	kd_fbt_ks.ks_kpblock = (void *)kd_ksym_lookup("within_kprobe_blacklist");
	if (kd_fbt_ks.ks_stext != 0 && kd_fbt_ks.ks_etext != 0)
		smp_store_release(&kd_fbt_ks.ks_done, 1);
}

/* The rethook functions (bulk return probes), looked up once. */
static void
kd_fbt_ks_rh_init(void)
{
	if (smp_load_acquire(&kd_fbt_ks.ks_rh_done))
		return;
	kd_fbt_ks.ks_rh_alloc = (void *)kd_ksym_lookup("rethook_alloc");
	kd_fbt_ks.ks_rh_add = (void *)kd_ksym_lookup("rethook_add_node");
	kd_fbt_ks.ks_rh_get = (void *)kd_ksym_lookup("rethook_try_get");
	kd_fbt_ks.ks_rh_hook = (void *)kd_ksym_lookup("rethook_hook");
	kd_fbt_ks.ks_rh_free = (void *)kd_ksym_lookup("rethook_free");
	smp_store_release(&kd_fbt_ks.ks_rh_done, 1);
}

struct kd_fcollect {
	const char	*fc_pat;
	struct kd_fsym	*fc_syms;
	uint32_t	fc_n;
	uint32_t	fc_cap;
	int		fc_err;
	unsigned long	fc_stext;
	unsigned long	fc_etext;
	unsigned long	fc_sinit;	/* init text, while not yet freed */
	unsigned long	fc_einit;
};

/* Add one function to the collection; 1 stops the walk (no memory). */
static int
kd_fcollect_add(struct kd_fcollect *fc, const char *mod, const char *name,
    unsigned long addr)
{
	struct kd_fsym *n;

	if (kd_ksym_is_padding(name))	/* kd_compat.h: 6.2 */
		return 0;
	if (fc->fc_n == fc->fc_cap) {
		/*
		 * Small first: 256 entries (48 KiB) made every match an
		 * order-4 allocation.  A plain name is one function, rarely
		 * a few (static functions): room for one, where eight (1.5
		 * KiB, a 2 KiB object that init_on_alloc zeroes) cost ~2.5 k
		 * instructions a name at boot (bench/run-boot-overhead).
		 */
		fc->fc_cap = fc->fc_cap != 0 ? fc->fc_cap * 2 :
		    strpbrk(fc->fc_pat, "*?[\\") == NULL ? 1 : 8;
		n = kvmalloc_array(fc->fc_cap, sizeof (*n), GFP_KERNEL);
		if (n == NULL) {
			fc->fc_err = -ENOMEM;
			return 1;
		}
		if (fc->fc_syms != NULL)
			memcpy(n, fc->fc_syms, fc->fc_n * sizeof (*n));
		kvfree(fc->fc_syms);
		fc->fc_syms = n;
	}
	fc->fc_syms[fc->fc_n].fs_addr = addr;
	strscpy(fc->fc_syms[fc->fc_n].fs_mod, mod, MODULE_NAME_LEN);
	strscpy(fc->fc_syms[fc->fc_n].fs_name, name, DOF_FUNCNAMELEN);
	fc->fc_n++;
	return 0;
}

/*
 * The core kernel's text.  Built in, kdt enables before the kernel frees
 * its init text: the __init functions of the core and of built-in drivers
 * are probes too until then (kprobes kills probes there when it is
 * freed).  kdt.ko loads later, when there is no init text any more.
 */
static void
kd_fcollect_text(struct kd_fcollect *fc)
{
	kd_fbt_ks_init();
	fc->fc_stext = kd_fbt_ks.ks_stext;
	fc->fc_etext = kd_fbt_ks.ks_etext;
	if (system_state < SYSTEM_FREEING_INITMEM) {
		fc->fc_sinit = kd_fbt_ks.ks_sinit;
		fc->fc_einit = kd_fbt_ks.ks_einit;
	}
}

/* kd_ksym_each callback: a core-kernel symbol. */
static int
kd_fcollect_cb(void *arg, const char *name, unsigned long addr)
{
	struct kd_fcollect *fc = arg;

	if ((addr < fc->fc_stext || addr >= fc->fc_etext) &&
	    (addr < fc->fc_sinit || addr >= fc->fc_einit))
		return 0;
	if (strlen(name) >= DOF_FUNCNAMELEN || !dof_glob_match(fc->fc_pat, name))
		return 0;
	return kd_fcollect_add(fc, "kernel", name, addr);
}

/* kallsyms_on_each_match_symbol callback: a symbol named fc_pat. */
static int
kd_fcollect_name_cb(void *arg, unsigned long addr)
{
	struct kd_fcollect *fc = arg;

	if ((addr < fc->fc_stext || addr >= fc->fc_etext) &&
	    (addr < fc->fc_sinit || addr >= fc->fc_einit))
		return 0;
	return kd_fcollect_add(fc, "kernel", fc->fc_pat, addr);
}

/*
 * Collect the core-kernel functions fc_pat matches: a pattern without
 * glob characters is one name, found by name (kd_fbt_ks); a glob
 * decompresses every symbol name once.
 */
static int
kd_fcollect_core(struct kd_fcollect *fc)
{
	if (kd_fbt_ks.ks_nameeach != NULL &&
	    strpbrk(fc->fc_pat, "*?[\\") == NULL) {
		if (strlen(fc->fc_pat) >= DOF_FUNCNAMELEN)
			return 0;
		return kd_fbt_ks.ks_nameeach(kd_fcollect_name_cb, fc->fc_pat,
		    fc);
	}
	return kd_ksym_each(kd_fcollect_cb, fc);
}

int
kd_core_funcs(const char *pat, struct kd_fsym **out, uint32_t *n)
{
	struct kd_fcollect fc;
	int rv;

	memset(&fc, 0, sizeof (fc));
	fc.fc_pat = pat;
	kd_fcollect_text(&fc);
	*out = NULL;
	*n = 0;
	if (fc.fc_stext == 0 || fc.fc_etext == 0)
		return -ENOENT;
	rv = kd_fcollect_core(&fc);
	if (fc.fc_err != 0 || rv < 0) {
		kvfree(fc.fc_syms);
		return fc.fc_err != 0 ? fc.fc_err : rv;
	}
	*out = fc.fc_syms;
	*n = fc.fc_n;
	return 0;
}

/* Is "addr" in the core or init text of "mod"? */
static int
kd_mod_text(const struct module *mod, unsigned long addr)
{
	return kd_mod_fbt_ok(mod, addr);	/* kd_compat.h: 6.4 */
}

/* May the module part "pat" name a module (not only the kernel)? */
static int
kd_fbt_modules(const char *pat)
{
	return strcmp(pat, "kernel") != 0 && strcmp(pat, "vmlinux") != 0;
}

static int
kd_fbt_attach(struct kd_cstate *cs, const char *mod, const char *func,
    unsigned long addr, int entry, int ret, uint32_t ecb)
{
	struct kd_probe *kp;

	if (entry) {
		kp = kd_probe_attach(cs, &kd_prov_fbt, addr, mod, func,
		    "entry", 0, ecb);
		if (IS_ERR(kp))
			return PTR_ERR(kp);
	}
	if (ret) {
		kp = kd_probe_attach(cs, &kd_prov_fbt, addr, mod, func,
		    "return", 0, ecb);
		if (IS_ERR(kp))
			return PTR_ERR(kp);
	}
	return entry + ret;
}

static int
kd_fsym_cmp(const void *a, const void *b)
{
	const struct kd_fsym *x = a, *y = b;

	if (x->fs_addr != y->fs_addr)
		return x->fs_addr < y->fs_addr ? -1 : 1;
	return strcmp(x->fs_name, y->fs_name);
}

static int
kd_fsym_name_cmp(const void *a, const void *b)
{
	const struct kd_fsym *x = a, *y = b;
	int c = strcmp(x->fs_mod, y->fs_mod);

	if (c == 0)
		c = strcmp(x->fs_name, y->fs_name);
	if (c == 0 && x->fs_addr != y->fs_addr)
		c = x->fs_addr < y->fs_addr ? -1 : 1;
	return c;
}

/*
 * Names not to prefer when another name has the same address: a
 * module's init_module/cleanup_module alias of its real function, and
 * the compat and inner names of a system call that share the address
 * of its __x64_sys_ entry (calls without arguments).
 */
static int
kd_fsym_alias(const struct kd_fsym *f)
{
	return strcmp(f->fs_name, "init_module") == 0 ||
	    strcmp(f->fs_name, "cleanup_module") == 0 ||
	    strncmp(f->fs_name, "__do_sys_", 9) == 0 ||
	    strncmp(f->fs_name, "__ia32_sys_", 11) == 0 ||
	    strncmp(f->fs_name, "__ia32_compat_sys_", 18) == 0 ||
	    strncmp(f->fs_name, "__se_sys_", 9) == 0;
}

/*
 * Attach every collected function, in (module, name) order, one probe
 * per address: of several names for one function (aliases) the first that
 * kd_fsym_alias() does not put last.  The count of
 * probes, or -errno.
 */
static int
kd_fbt_attach_all(struct kd_cstate *cs, struct kd_fcollect *fc, int entry,
    int ret, uint32_t ecb)
{
	int rv = 0, n = 0;
	uint32_t i, j, k;

	sort(fc->fc_syms, fc->fc_n, sizeof (*fc->fc_syms), kd_fsym_cmp, NULL);
	for (i = 0, k = 0; i < fc->fc_n; i = j) {
		for (j = i + 1; j < fc->fc_n &&
		    fc->fc_syms[j].fs_addr == fc->fc_syms[i].fs_addr; j++)
			;
		for (k = i; k < j - 1 && kd_fsym_alias(&fc->fc_syms[k]); k++)
			;
		fc->fc_syms[i] = fc->fc_syms[k];
	}
	for (i = 0, k = 0; i < fc->fc_n; i++)	/* squeeze out the rest */
		if (k == 0 || fc->fc_syms[i].fs_addr !=
		    fc->fc_syms[k - 1].fs_addr)
			fc->fc_syms[k++] = fc->fc_syms[i];
	fc->fc_n = k;
	/* Probe ids by name, not by where this boot put the code. */
	sort(fc->fc_syms, fc->fc_n, sizeof (*fc->fc_syms), kd_fsym_name_cmp,
	    NULL);
	for (i = 0; i < fc->fc_n; i++) {
		rv = kd_fbt_attach(cs, fc->fc_syms[i].fs_mod,
		    fc->fc_syms[i].fs_name, fc->fc_syms[i].fs_addr, entry, ret,
		    ecb);
		if (rv < 0)
			break;
		n += rv;
	}
	kvfree(fc->fc_syms);
	fc->fc_syms = NULL;
	return rv < 0 ? rv : n;
}

/* Does "pd" name fbt probes at all?  Sets which of entry/return. */
static int
kd_fbt_wants(const struct dof_pdesc *pd, int *entry, int *ret)
{
	*entry = kd_part_match(pd->lp_name, "entry");
	*ret = kd_part_match(pd->lp_name, "return");
	return kd_part_match(pd->lp_prov, "fbt") && (*entry || *ret);
}

/*
 * Matching all of an enabling's fbt descriptions at once
 * (kd_fbt_prematch(), which kd_match() and kd_cs_mod_coming() call before
 * they hand the ECBs to pv_match one by one).  Matched one at a time,
 * each description walked every loaded module's symbols (~39 k
 * instructions at boot) and searched kallsyms for its name (~33 k), and
 * the module notifier walked a coming module's symbols once per
 * description.  Now each walk serves every description: plain names go
 * in a hash table (fm_head, chained through fw_next), globs in a list
 * (fm_glob), and each symbol a walk yields is looked up in the one and
 * tested against the other.  The core kernel is searched by name, once
 * per distinct name (kd_fbt_ks.ks_nameeach), when there are at most
 * KD_FBT_BYNAME names and no glob; otherwise all of kallsyms is
 * decompressed once (39 M instructions on the pinned kernel, ~1,200
 * searches, plus a hash lookup per symbol).  Each description collects its functions in its own
 * kd_fcollect (fw_fc); kd_fbt_match() attaches them when kd_match()
 * reaches its ECB, so probes and EPIDs come in program order as before.
 * The table of descriptions stays with the state (kd_fbt_cs) for the
 * modules that load later: each coming module is one walk of its
 * symbols, and an ECB with nothing there costs kd_fbt_match_mod() a
 * look at fm_nhits (at boot, 100 descriptions made each module load
 * ~0.33 M instructions longer, building the table anew each time).
 * Without a prematch (list mode, or no memory for it) kd_fbt_match()
 * runs the same code for its one description.
 */
struct kd_fwant {
	struct kd_fcollect	fw_fc;		/* fc_pat: the function part */
	const struct dof_pdesc	*fw_pd;
	const char		*fw_modpat;	/* module part */
	uint32_t		fw_ecb;
	uint32_t		fw_next;	/* hash chain: index + 1, 0 ends */
	uint32_t		fw_hfirst;	/* kernel symbol hints: the first */
	uint32_t		fw_hn;		/* ... and number of entries */
	uint8_t			fw_lit;		/* fc_pat is one name */
	uint8_t			fw_core;	/* module part names the kernel */
	uint8_t			fw_mods;	/* ... or may name a module */
};

struct kd_fmatch {
	const struct dof_enabling *fm_den;	/* NULL: one description */
	int		fm_valid;	/* fw_fc hold the last walks' finds */
	uint32_t	fm_nhits;	/* functions they found */
	struct kd_fwant	*fm_w;		/* in ECB order */
	uint32_t	fm_nw;
	uint32_t	*fm_head;	/* plain names: hash -> index + 1 */
	uint32_t	fm_hmask;
	uint32_t	*fm_glob;	/* indexes of the glob wants */
	uint32_t	fm_nglob;
	struct module	*fm_only;	/* a coming module's matching */
	const char	*fm_name;	/* ks_nameeach: the name searched */
	unsigned long	fm_stext;	/* core text, init text (kd_fcollect_text) */
	unsigned long	fm_etext;
	unsigned long	fm_sinit;
	unsigned long	fm_einit;
	int		fm_err;		/* -ENOMEM: a walk stopped */
	int		fm_coreerr;	/* kallsyms could not be walked */
};

/* Per state (cs_pdata[1]): the bulk-armed probes and a prematch. */
struct kd_fbt_cs {
	struct kd_fbt_bulk	*fp_bulk;
	struct kd_fmatch	*fp_match;
};

static struct kd_fbt_cs *
kd_fbt_cs(struct kd_cstate *cs, int make)
{
	struct kd_fbt_cs *fp = cs->cs_pdata[kd_prov_fbt.pv_id];

	if (fp == NULL && make) {
		fp = kzalloc(sizeof (*fp), GFP_KERNEL);
		cs->cs_pdata[kd_prov_fbt.pv_id] = fp;
	}
	return fp;
}

/* FNV-1a: the plain names' hash. */
static uint32_t
kd_fname_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Forget what the walks found; the table of descriptions stays. */
static void
kd_fmatch_reset(struct kd_fmatch *fm)
{
	struct kd_fcollect *fc;
	uint32_t i;

	for (i = 0; i < fm->fm_nw; i++) {
		fc = &fm->fm_w[i].fw_fc;
		kvfree(fc->fc_syms);
		fc->fc_syms = NULL;
		fc->fc_n = fc->fc_cap = 0;
		fc->fc_err = 0;
	}
	fm->fm_valid = 0;
	fm->fm_nhits = 0;
	fm->fm_err = 0;
	fm->fm_coreerr = 0;
	fm->fm_only = NULL;
}

static void
kd_fmatch_free(struct kd_fmatch *fm)
{
	uint32_t i;

	if (fm == NULL)
		return;
	for (i = 0; i < fm->fm_nw; i++)
		kvfree(fm->fm_w[i].fw_fc.fc_syms);
	kvfree(fm->fm_w);
	kvfree(fm->fm_head);
	kvfree(fm->fm_glob);
	kfree(fm);
}

/* Does "pd" name fbt probes "mod" (NULL: any) can have? */
static int
kd_fbt_wants_mod(const struct dof_pdesc *pd, struct module *mod)
{
	int entry, ret;

	return kd_fbt_wants(pd, &entry, &ret) && (mod == NULL ||
	    (kd_fbt_modules(pd->lp_mod) && kd_part_match(pd->lp_mod,
	    mod->name)));
}

/*
 * The wants of "den"'s fbt descriptions, or of "one" alone (ECB "ecb");
 * NULL when there is none or no memory.
 */
static struct kd_fmatch *
kd_fmatch_new(const struct dof_enabling *den, const struct dof_pdesc *one,
    uint32_t ecb)
{
	int entry, ret;
	uint32_t i, n = 0, all = one != NULL ? 1 : den->den_necbs, h;
	const struct dof_pdesc *pd;
	struct kd_fmatch *fm;
	struct kd_fwant *w;

	for (i = 0; i < all; i++)
		if (kd_fbt_wants(one != NULL ? one :
		    &den->den_ecbs[i].le_pdesc, &entry, &ret))
			n++;
	if (n == 0 || (fm = kzalloc(sizeof (*fm), GFP_KERNEL)) == NULL)
		return NULL;
	fm->fm_hmask = roundup_pow_of_two(max_t(uint32_t, 2 * n, 16)) - 1;
	fm->fm_w = kvcalloc(n, sizeof (*fm->fm_w), GFP_KERNEL);
	fm->fm_head = kvcalloc(fm->fm_hmask + 1, sizeof (*fm->fm_head),
	    GFP_KERNEL);
	fm->fm_glob = kvcalloc(n, sizeof (*fm->fm_glob), GFP_KERNEL);
	if (fm->fm_w == NULL || fm->fm_head == NULL || fm->fm_glob == NULL) {
		kd_fmatch_free(fm);
		return NULL;
	}
	fm->fm_den = one != NULL ? NULL : den;
	for (i = 0; i < all; i++) {
		pd = one != NULL ? one : &den->den_ecbs[i].le_pdesc;
		if (!kd_fbt_wants(pd, &entry, &ret))
			continue;
		w = &fm->fm_w[fm->fm_nw];
		w->fw_pd = pd;
		w->fw_ecb = one != NULL ? ecb : i;
		w->fw_fc.fc_pat = pd->lp_func[0] != '\0' ? pd->lp_func : "*";
		w->fw_modpat = pd->lp_mod;
		w->fw_lit = strpbrk(w->fw_fc.fc_pat, "*?[\\") == NULL;
		w->fw_core = kd_part_match(pd->lp_mod, "kernel") ||
		    kd_part_match(pd->lp_mod, "vmlinux");
		w->fw_mods = kd_fbt_modules(pd->lp_mod);
		if (!w->fw_lit) {
			fm->fm_glob[fm->fm_nglob++] = fm->fm_nw;
		} else if (strlen(w->fw_fc.fc_pat) < DOF_FUNCNAMELEN) {
			h = kd_fname_hash(w->fw_fc.fc_pat) & fm->fm_hmask;
			w->fw_next = fm->fm_head[h];
			fm->fm_head[h] = fm->fm_nw + 1;
		}	/* else a name no symbol has */
		fm->fm_nw++;
	}
	return fm;
}

/* May want "w" have module "mod"'s (NULL: the kernel's) functions? */
static int
kd_fwant_takes(const struct kd_fmatch *fm, const struct kd_fwant *w,
    const struct module *mod)
{
	if (mod == NULL)
		return w->fw_core;
	return w->fw_mods && (fm->fm_only == NULL || mod == fm->fm_only) &&
	    kd_part_match(w->fw_modpat, mod->name);
}

/*
 * Symbol "name" at "addr" of module "mod" (NULL: the kernel, already
 * known to be text): add it to every want that matches it.  1 stops the
 * walk (no memory).
 */
/* kd_fcollect_add() for "fm": 1 is no memory. */
static int
kd_fmatch_add(struct kd_fmatch *fm, struct kd_fwant *w, const char *mname,
    const char *name, unsigned long addr)
{
	uint32_t n = w->fw_fc.fc_n;

	if (kd_fcollect_add(&w->fw_fc, mname, name, addr) != 0)
		return 1;
	fm->fm_nhits += w->fw_fc.fc_n - n;	/* not a padding symbol */
	return 0;
}

static int
kd_fmatch_hit(struct kd_fmatch *fm, const char *name, struct module *mod,
    unsigned long addr)
{
	const char *mname = mod != NULL ? mod->name : "kernel";
	struct kd_fwant *w;
	uint32_t x, i;
	int text = mod == NULL ? 1 : -1;	/* kd_mod_text(), once */

	for (x = fm->fm_head[kd_fname_hash(name) & fm->fm_hmask]; x != 0;
	    x = w->fw_next) {
		w = &fm->fm_w[x - 1];
		if (!kd_fwant_takes(fm, w, mod) ||
		    strcmp(w->fw_fc.fc_pat, name) != 0)
			continue;
		if (text < 0)
			text = kd_mod_text(mod, addr) != 0;
		if (text && kd_fmatch_add(fm, w, mname, name, addr) != 0)
			goto nomem;
	}
	for (i = 0; i < fm->fm_nglob; i++) {
		w = &fm->fm_w[fm->fm_glob[i]];
		if (!kd_fwant_takes(fm, w, mod) ||
		    !dof_glob_match(w->fw_fc.fc_pat, name))
			continue;
		if (text < 0)
			text = kd_mod_text(mod, addr) != 0;
		if (text && kd_fmatch_add(fm, w, mname, name, addr) != 0)
			goto nomem;
	}
	return 0;
nomem:
	fm->fm_err = -ENOMEM;
	return 1;
}

static int
kd_fmatch_coretext(const struct kd_fmatch *fm, unsigned long addr)
{
	return (addr >= fm->fm_stext && addr < fm->fm_etext) ||
	    (addr >= fm->fm_sinit && addr < fm->fm_einit);
}

/* kd_ksym_each callback: a core-kernel symbol. */
static int
kd_fmatch_core_cb(void *arg, const char *name, unsigned long addr)
{
	struct kd_fmatch *fm = arg;

	if (!kd_fmatch_coretext(fm, addr) || strlen(name) >= DOF_FUNCNAMELEN)
		return 0;
	return kd_fmatch_hit(fm, name, NULL, addr);
}

/* kallsyms_on_each_match_symbol callback: a symbol named fm_name. */
static int
kd_fmatch_name_cb(void *arg, unsigned long addr)
{
	struct kd_fmatch *fm = arg;

	if (!kd_fmatch_coretext(fm, addr))
		return 0;
	return kd_fmatch_hit(fm, fm->fm_name, NULL, addr);
}

/*
 * module_kallsyms_on_each_symbol callback: a module's symbol.  kdt.ko's
 * own are not fbt's (kmod/Kbuild: built without ftrace's entry hooks).
 */
static int
kd_fmatch_mod_cb(void *arg, const char *name, struct module *mod,
    unsigned long addr)
{
	if (mod == THIS_MODULE || strlen(name) >= DOF_FUNCNAMELEN)
		return 0;
	return kd_fmatch_hit(arg, name, mod, addr);
}

/* Is want "x" the first core plain name of its spelling? */
static int
kd_fmatch_first(const struct kd_fmatch *fm, uint32_t x)
{
	const struct kd_fwant *w = &fm->fm_w[x], *o;
	uint32_t y;

	for (y = fm->fm_head[kd_fname_hash(w->fw_fc.fc_pat) & fm->fm_hmask];
	    y != 0; y = o->fw_next) {
		o = &fm->fm_w[y - 1];
		if (y - 1 < x && o->fw_core &&
		    strcmp(o->fw_fc.fc_pat, w->fw_fc.fc_pat) == 0)
			return 0;
	}
	return 1;
}

/*
 * Kernel symbol hints (common/ksh.h): the anonymous enabling's function
 * addresses, computed by "kdt -A" from the target vmlinux, as offsets
 * from _stext.  kd_fbt_hints() keeps the file; the first matching that
 * would use it (kd_fbt_hints_ok) takes it only when ksh_check() passes,
 * its build id is this kernel's (vmlinux_build_id[], 20 bytes) and its
 * text size is this kernel's _etext - _stext.  kd_fbt_hint_name() then
 * resolves a name only when every address the file gives for it is
 * inside this kernel's text and kallsyms names that address, offset 0,
 * with that very name, or with another name of the function that the
 * file puts at that offset too (kd_fbt_hint_at); sprint_symbol gives the
 * name: one address look-up.  Else, and for a name the file lacks, the
 * name is searched in kallsyms as without hints.  Measured at boot
 * (bench/run-boot-overhead): ~7 k instructions per name from the hints
 * for 100 names, all told (ksh_find 0.75 k, once: kd_fmatch_core()
 * keeps what it found in fw_hfirst and fw_hn; sprint_symbol 2.9 k;
 * collecting it 2 k), ~12 k for 10,000 (the file's
 * check and binary searches grow), against ~33 k searched, and 104 M for
 * one decompressing walk of kallsyms -- so past KD_FBT_BYHINT names
 * (weighing a searched name three times a hinted one) the walk stays,
 * and the file is not even checked (10,000 names through the hints:
 * 282 M of kdt's own arming, against 266 M walking).  kd_fbt_hlock keeps
 * the pointers stable while a matching uses them.
 */
static DEFINE_MUTEX(kd_fbt_hlock);
static const void *kd_fbt_hraw;		/* as given, not yet checked */
static size_t kd_fbt_hlen;
static const void *kd_fbt_hbuf;		/* checked, this kernel's */

int
kd_fbt_hints(const void *buf, size_t len)
{
	mutex_lock(&kd_fbt_hlock);
	kd_fbt_hraw = buf;
	kd_fbt_hlen = len;
	kd_fbt_hbuf = NULL;
	mutex_unlock(&kd_fbt_hlock);
	return buf != NULL;
}

/* kd_fbt_hlock held: are there hints for this kernel?  Checked once. */
static int
kd_fbt_hints_ok(void)
{
	const void *buf = kd_fbt_hraw;
	size_t len = kd_fbt_hlen;
	const uint8_t *bid;
	struct ksh_hdr kh;
	struct kdt_err err;

	if (buf == NULL)
		return kd_fbt_hbuf != NULL;
	kd_fbt_hraw = NULL;	/* one check, whatever it finds */
	if (ksh_check(buf, len, &err) != 0) {
		pr_info("kdt: fbt: kernel symbol hints not used: %s (%s, offset %lld)\n",
		    err.ke_msg, err.ke_tag, err.ke_off == KDT_ERR_NOOFF ?
		    -1LL : (long long)err.ke_off);
		goto out;
	}
	ksh_hdr(buf, &kh);
	bid = (const uint8_t *)kd_ksym_lookup("vmlinux_build_id");
	if (bid == NULL || kh.kh_bidlen != KD_FBT_BIDLEN ||
	    memcmp(bid, kh.kh_bid, KD_FBT_BIDLEN) != 0) {
		pr_info("kdt: fbt: kernel symbol hints not used: computed for kernel build id %*phN, this kernel's is %*phN: names searched in kallsyms\n",
		    (int)min_t(uint32_t, kh.kh_bidlen, KSH_BIDMAX), kh.kh_bid,
		    bid != NULL ? KD_FBT_BIDLEN : 0, bid);
		goto out;
	}
	if (kd_fbt_ks.ks_etext - kd_fbt_ks.ks_stext != kh.kh_textsz) {
		pr_info("kdt: fbt: kernel symbol hints not used: text size 0x%llx, this kernel's is 0x%lx\n",
		    (unsigned long long)kh.kh_textsz,
		    kd_fbt_ks.ks_etext - kd_fbt_ks.ks_stext);
		goto out;
	}
	kd_fbt_hbuf = buf;
	pr_info("kdt: fbt: kernel symbol hints for %u functions\n",
	    kh.kh_nsyms);
out:
	return kd_fbt_hbuf != NULL;
}

/*
 * Does kallsyms' "sym+0x0/0xsize" ("sb") for the address hinted at
 * offset "off" confirm "name" (length "len") there: it is "name", or
 * another name of that function (kallsyms gives one: __do_sys_getppid
 * for __x64_sys_getppid) that the hints put at that very offset too
 * (kdt -A lists them: anon/an_ksym.c).  Offset 0 and no " [module]"
 * either way.  "sb" is cut at the '+'.
 */
static int
kd_fbt_hint_at(char *sb, const char *name, size_t len, uint32_t off)
{
	char *plus = strchr(sb, '+');
	struct ksh_ent ke;
	uint32_t first, n, i;

	if (plus == NULL || strncmp(plus, "+0x0/", 5) != 0 ||
	    strchr(plus, ' ') != NULL)
		return 0;
	if ((size_t)(plus - sb) == len && strncmp(sb, name, len) == 0)
		return 1;
	*plus = '\0';
	n = ksh_find(kd_fbt_hbuf, sb, &first);
	for (i = 0; i < n; i++) {
		ksh_ent(kd_fbt_hbuf, first + i, &ke);
		if (ke.ke_off == off)
			return 1;
	}
	return 0;
}

/*
 * Find want "w"'s name through the hints (kd_fbt_hlock held), whose
 * entries kd_fmatch_core() looked up (fw_hfirst, fw_hn): 1 when every
 * hinted address checked out and kd_fmatch_name_cb() had them, 0 to
 * search.
 */
static int
kd_fbt_hint_name(struct kd_fmatch *fm, const struct kd_fwant *w)
{
	unsigned long a[KD_FBT_HINTMAX];
	char sb[KSYM_SYMBOL_LEN];
	const char *name = w->fw_fc.fc_pat;
	size_t len = strlen(name);
	struct ksh_ent ke;
	uint32_t first = w->fw_hfirst, n = w->fw_hn, i;

	if (kd_fbt_hbuf == NULL)
		return 0;
	if (n == 0 || n > KD_FBT_HINTMAX)
		return 0;
	for (i = 0; i < n; i++) {
		ksh_ent(kd_fbt_hbuf, first + i, &ke);
		a[i] = kd_fbt_ks.ks_stext + ke.ke_off;
		if (a[i] < kd_fbt_ks.ks_stext || a[i] >= kd_fbt_ks.ks_etext)
			return 0;
		sprint_symbol(sb, a[i]);	/* "name+0x0/0xsize" */
		if (!kd_fbt_hint_at(sb, name, len, ke.ke_off))
			return 0;
	}
	for (i = 0; i < n; i++)
		if (kd_fmatch_name_cb(fm, a[i]) != 0)
			break;
	return 1;
}

/* The core kernel's functions, for every want that may have them. */
static void
kd_fmatch_core(struct kd_fmatch *fm)
{
	uint32_t i, nlit = 0, nglob = 0, nsearch, nhint = 0;
	struct kd_fwant *w;
	int rv = 0, hints = 0;

	for (i = 0; i < fm->fm_nw; i++) {
		w = &fm->fm_w[i];
		if (!w->fw_core)
			continue;
		if (!w->fw_lit)
			nglob++;
		else if (strlen(w->fw_fc.fc_pat) < DOF_FUNCNAMELEN &&
		    kd_fmatch_first(fm, i))
			nlit++;
	}
	if (nlit == 0 && nglob == 0)
		return;
	nsearch = nlit;
	if (nglob == 0 && nlit <= KD_FBT_BYHINT && kd_fbt_hints_ok()) {
		hints = 1;	/* names the hints lack are searched */
		for (i = 0, nsearch = 0; i < fm->fm_nw; i++) {
			w = &fm->fm_w[i];
			w->fw_hn = 0;
			if (w->fw_core && w->fw_lit &&
			    strlen(w->fw_fc.fc_pat) < DOF_FUNCNAMELEN &&
			    kd_fmatch_first(fm, i) &&
			    (w->fw_hn = ksh_find(kd_fbt_hbuf, w->fw_fc.fc_pat,
			    &w->fw_hfirst)) == 0)
				nsearch++;
		}
	}
	if (nglob == 0 && (nsearch <= KD_FBT_BYNAME || (hints &&
	    3 * nsearch + (nlit - nsearch) <= KD_FBT_BYHINT)) &&
	    kd_fbt_ks.ks_nameeach != NULL) {
		for (i = 0; rv >= 0 && fm->fm_err == 0 && i < fm->fm_nw; i++) {
			w = &fm->fm_w[i];
			if (!w->fw_core || !w->fw_lit ||
			    strlen(w->fw_fc.fc_pat) >= DOF_FUNCNAMELEN ||
			    !kd_fmatch_first(fm, i))
				continue;
			fm->fm_name = w->fw_fc.fc_pat;
			if (hints && kd_fbt_hint_name(fm, w)) {
				nhint++;
				continue;
			}
			rv = kd_fbt_ks.ks_nameeach(kd_fmatch_name_cb,
			    fm->fm_name, fm);
		}
		if (hints)
			pr_info("kdt: fbt: %u of %u function names found through the kernel symbol hints, the others searched in kallsyms\n",
			    nhint, nlit);
	} else {
		rv = kd_ksym_each(kd_fmatch_core_cb, fm);
	}
	if (rv < 0 && fm->fm_err == 0)
		fm->fm_coreerr = rv;
}

/*
 * The symbols of module "mod", which is coming: it cannot go away while
 * its own notifier runs, and its symbol table changes only when it goes
 * live, so the table may be read without RCU here.
 */
static void
kd_fmatch_coming(struct kd_fmatch *fm, struct module *mod)
{
	const struct mod_kallsyms *ks = rcu_dereference_raw(mod->kallsyms);
	const Elf_Sym *sym;
	uint32_t i;

	for (i = 0; ks != NULL && i < ks->num_symtab; i++) {
		sym = &ks->symtab[i];
		if (sym->st_shndx == SHN_UNDEF || sym->st_name == 0)
			continue;
		if (kd_fmatch_mod_cb(fm, ks->strtab + sym->st_name, mod,
		    (unsigned long)sym->st_value) != 0)
			break;
	}
}

/*
 * Collect every want's functions in the kernel and the loaded modules,
 * or (mod) in module "mod", coming: each walk once.
 */
static void
kd_fmatch_run(struct kd_fmatch *fm, struct module *mod)
{
	kd_modeach_fn modeach;
	uint32_t i;

	kd_fmatch_reset(fm);
	fm->fm_valid = 1;
	fm->fm_only = mod;
	kd_fbt_ks_init();
	modeach = kd_fbt_ks.ks_modeach;
	fm->fm_stext = kd_fbt_ks.ks_stext;
	fm->fm_etext = kd_fbt_ks.ks_etext;
	fm->fm_sinit = fm->fm_einit = 0;
	if (system_state < SYSTEM_FREEING_INITMEM) {
		fm->fm_sinit = kd_fbt_ks.ks_sinit;
		fm->fm_einit = kd_fbt_ks.ks_einit;
	}
	if (mod != NULL) {
		kd_fmatch_coming(fm, mod);
		return;
	}
	if (fm->fm_stext == 0 || fm->fm_etext == 0)
		return;		/* kd_fwant_attach says so */
	mutex_lock(&kd_fbt_hlock);	/* kd_fbt_hbuf stays */
	kd_fmatch_core(fm);
	mutex_unlock(&kd_fbt_hlock);
	for (i = 0; i < fm->fm_nw && !fm->fm_w[i].fw_mods; i++)
		;
	if (fm->fm_err == 0 && i < fm->fm_nw && modeach != NULL)
		(void) kd_module_kallsyms_each((unsigned long)modeach,
		    kd_fmatch_mod_cb, fm);	/* kd_compat.h: 6.3 */
}

/* Attach ECB "ecb" to the functions "w" collected; as pv_match. */
static int
kd_fwant_attach(struct kd_cstate *cs, struct kd_fmatch *fm,
    struct kd_fwant *w, uint32_t ecb)
{
	const struct dof_pdesc *pd = w->fw_pd;
	int entry, ret;

	(void) kd_fbt_wants(pd, &entry, &ret);
	if (fm->fm_only == NULL && (fm->fm_stext == 0 || fm->fm_etext == 0)) {
		kd_cs_msg(cs, "fbt: kernel symbols are unavailable, so %s:%s:%s:%s matches nothing",
		    pd->lp_prov, pd->lp_mod, pd->lp_func, pd->lp_name);
		return 0;
	}
	if (w->fw_core && fm->fm_coreerr != 0)
		kd_cs_msg(cs, "fbt: cannot list kernel functions for \"%s\": error %d",
		    w->fw_fc.fc_pat, fm->fm_coreerr);
	if (fm->fm_err != 0) {
		if (fm->fm_only != NULL)
			kd_cs_msg(cs, "fbt: out of memory listing the functions of module %s",
			    fm->fm_only->name);
		else
			kd_cs_msg(cs, "fbt: out of memory listing the functions that match \"%s\"",
			    w->fw_fc.fc_pat);
		return fm->fm_err;
	}
	return kd_fbt_attach_all(cs, &w->fw_fc, entry, ret, ecb);
}

/* The want of "pd", ECB "ecb", in the state's prematch for "mod"; or NULL. */
static struct kd_fwant *
kd_fmatch_find(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb, struct module *mod)
{
	struct kd_fbt_cs *fp = kd_fbt_cs(cs, 0);
	struct kd_fmatch *fm = fp != NULL ? fp->fp_match : NULL;
	uint32_t lo = 0, hi, mid;

	if (fm == NULL || !fm->fm_valid || fm->fm_only != mod)
		return NULL;
	for (hi = fm->fm_nw; lo < hi; ) {	/* fm_w is in ECB order */
		mid = lo + (hi - lo) / 2;
		if (fm->fm_w[mid].fw_ecb < ecb)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < fm->fm_nw && fm->fm_w[lo].fw_ecb == ecb &&
	    fm->fm_w[lo].fw_pd == pd)
		return &fm->fm_w[lo];
	return NULL;
}

/* pv_match and pv_match_mod: from the prematch, or for "pd" alone. */
static int
kd_fbt_match_one(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb, struct module *mod)
{
	struct kd_fwant *w = kd_fmatch_find(cs, pd, ecb, mod);
	struct kd_fmatch *fm;
	int rv;

	if (w != NULL)
		return kd_fwant_attach(cs, kd_fbt_cs(cs, 0)->fp_match, w, ecb);
	fm = kd_fmatch_new(NULL, pd, ecb);
	if (fm == NULL) {
		kd_cs_msg(cs, "fbt: out of memory matching %s:%s:%s:%s",
		    pd->lp_prov, pd->lp_mod, pd->lp_func, pd->lp_name);
		return -ENOMEM;
	}
	kd_fmatch_run(fm, mod);
	rv = kd_fwant_attach(cs, fm, &fm->fm_w[0], ecb);
	kd_fmatch_free(fm);
	return rv;
}

/*
 * Has the state's prematch, for "mod", found nothing for "pd" of ECB
 * "ecb"?  Then matching it attaches nothing: a shortcut past testing
 * the description again, once per ECB and module.
 */
static int
kd_fmatch_none(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb, struct module *mod)
{
	struct kd_fbt_cs *fp = kd_fbt_cs(cs, 0);
	struct kd_fmatch *fm = fp != NULL ? fp->fp_match : NULL;

	return fm != NULL && fm->fm_valid && fm->fm_only == mod &&
	    fm->fm_err == 0 && fm->fm_coreerr == 0 && fm->fm_nhits == 0 &&
	    fm->fm_den == cs->cs_den && fm->fm_den != NULL &&
	    ecb < fm->fm_den->den_necbs &&
	    pd == &fm->fm_den->den_ecbs[ecb].le_pdesc &&
	    (mod != NULL || (fm->fm_stext != 0 && fm->fm_etext != 0));
}

static int
kd_fbt_match(struct kd_cstate *cs, const struct dof_pdesc *pd, uint32_t ecb)
{
	if (kd_fmatch_none(cs, pd, ecb, NULL) || !kd_fbt_wants_mod(pd, NULL))
		return 0;
	return kd_fbt_match_one(cs, pd, ecb, NULL);
}

static int
kd_fbt_match_mod(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb, struct module *mod)
{
	if (kd_fmatch_none(cs, pd, ecb, mod) || !kd_fbt_wants_mod(pd, mod))
		return 0;
	return kd_fbt_match_one(cs, pd, ecb, mod);
}

/*
 * pv_prematch: find the functions of all of "den"'s fbt descriptions
 * (of module "mod", coming; NULL: the kernel and the loaded modules);
 * "den" NULL drops what the last call found, keeping the table of
 * descriptions for the next module (kd_fbt_free() frees it).  No
 * memory: nothing kept, kd_fbt_match() matches one description at a
 * time.  1 when "mod" has no function any description names: what
 * kd_fmatch_none() would tell kd_fbt_match_mod() for every one.
 */
static int
kd_fbt_prematch(struct kd_cstate *cs, const struct dof_enabling *den,
    struct module *mod)
{
	struct kd_fbt_cs *fp = kd_fbt_cs(cs, 0);
	struct kd_fmatch *fm = fp != NULL ? fp->fp_match : NULL;

	if (fm != NULL && (den == NULL || fm->fm_den != den)) {
		kd_fmatch_reset(fm);
		if (den == NULL)
			return 0;
		kd_fmatch_free(fm);
		fp->fp_match = fm = NULL;
	}
	if (den == NULL || cs->cs_list)
		return 0;
	if (fm == NULL) {
		if ((fm = kd_fmatch_new(den, NULL, 0)) == NULL)
			return 0;	/* no fbt description, or no memory */
		if ((fp = kd_fbt_cs(cs, 1)) == NULL) {
			kd_fmatch_free(fm);
			return 0;
		}
		fp->fp_match = fm;
	}
	kd_fmatch_run(fm, mod);
	return mod != NULL && fm->fm_valid && fm->fm_only == mod &&
	    fm->fm_err == 0 && fm->fm_nhits == 0;
}

/*
 * kd_fbt_entry() for a probe with kp_gated: the gate, then the firing.
 * Out of line, so that an ungated probe's handler has no argument array
 * (kd_gate_open()'s) and no stack protector.  Probe context.
 */
static noinline int
kd_fbt_entry_gated(struct kd_probe *kp, struct pt_regs *regs)
{
	if (!kd_gate_open(kp, regs))
		return 0;
	if (kp->kp_simple)	/* ecb.h: no context to build */
		kd_fire_simple_regs(kp, regs);
	else
		kd_fire_regs(kp, regs, 1);
	return 0;
}

/*
 * Probe context: kprobe pre-handler (ftrace-based kprobes call it with
 * preemption off and interrupts as they were; kd_probe.c turns them off).
 */
static int
kd_fbt_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kd_probe *kp = container_of(p, struct kd_probe, kp_u.u_kprobe);

	if (kp->kp_gated)
		return kd_fbt_entry_gated(kp, regs);
	if (kp->kp_simple)	/* ecb.h: no context to build */
		kd_fire_simple_regs(kp, regs);
	else
		kd_fire_regs(kp, regs, 1);
	return 0;
}

/* Probe context: kretprobe handler. */
static int
kd_fbt_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	uint64_t args[DIF_NARGS] = { 0 };

	if (rp == NULL)
		return 0;
	args[0] = get_kretprobe_retaddr(ri);
	args[1] = regs_return_value(regs);
	kd_fire(container_of(rp, struct kd_probe, kp_u.u_kretprobe), args, 0);
	return 0;
}

static int
kd_fbt_is_return(const struct kd_probe *kp)
{
	return strcmp(kp->kp_ep.ep_name, "return") == 0;
}

static int
kd_fbt_arm(struct kd_cstate *cs, uint32_t from)
{
	struct kd_probe *kp;
	uint32_t i, nret = 0;
	int rv, live = 0;

	for (i = 0; i < cs->cs_nprobes; i++)
		if (cs->cs_probes[i]->kp_prov == &kd_prov_fbt &&
		    kd_fbt_is_return(cs->cs_probes[i]))
			nret++;
	for (i = from; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_fbt || kp->kp_necbs == 0 ||
		    kp->kp_live)	/* kp_live: armed in bulk (kd_fbt_bulk) */
			continue;
		memset(&kp->kp_u, 0, sizeof (kp->kp_u));
		if (kd_fbt_is_return(kp)) {
			kp->kp_u.u_kretprobe.kp.addr =
			    (kprobe_opcode_t *)(uintptr_t)kp->kp_key;
			kp->kp_u.u_kretprobe.handler = kd_fbt_return;
			kp->kp_u.u_kretprobe.maxactive =
			    nret < KD_FBT_MANY ? KD_FBT_MAXACTIVE : 0;
			/* kd_fire()'s gate, on arg0 (return offset), arg1
			   (return value), pid, ... (ecb.h) */
			kp->kp_gated = ecb_gate_usable(cs->cs_es, &kp->kp_ep);
			rv = register_kretprobe(&kp->kp_u.u_kretprobe);
		} else {
			kp->kp_u.u_kprobe.addr =
			    (kprobe_opcode_t *)(uintptr_t)kp->kp_key;
			kp->kp_u.u_kprobe.pre_handler = kd_fbt_entry;
			kp->kp_gated = ecb_gate_usable(cs->cs_es, &kp->kp_ep);
			kp->kp_gate1 = ecb_gate_single(cs->cs_es, &kp->kp_ep);
			rv = register_kprobe(&kp->kp_u.u_kprobe);
		}
		if (rv == 0) {
			kp->kp_live = 1;
			live++;
			continue;
		}
		if (cs->cs_nfailed++ < KD_FBT_LOGFAIL)
			pr_info("kdt: fbt:%s:%s:%s (probe %u) not enabled: kprobe registration error %d\n",
			    kp->kp_ep.ep_mod, kp->kp_ep.ep_func, kp->kp_ep.ep_name,
			    kp->kp_ep.ep_id, rv);
	}
	return live;
}

/*
 * Entry probes in bulk.  Every register_kprobe() of an ftrace-based
 * kprobe adds its address to the filter of kprobes' single ftrace_ops,
 * and ftrace then walks all of its call-site records (~38,000 on the
 * pinned kernel) three times: ~10 M instructions per probe, so arming 100
 * entry probes at boot made the boot 57 % longer (bench/run-boot-overhead).
 * 6.1 has no batched kprobe registration (and no fprobe in Debian's
 * config).  So when an enabling arms at least KD_FBT_FTRACE_MIN
 * probes (KD_FBT_FTRACE_ANON at boot), those of the core kernel's text
 * whose address is an ftrace call site and that kprobes would accept (not
 * in its blocklist) go through an ftrace_ops of the state's own instead:
 * its filter gets every address in one ftrace_set_filter_ips() before the
 * ops is registered, so ftrace walks its records once for all of them.
 * The handler finds the address by binary search of fb_tab (sorted by
 * address, one entry per address) and runs kd_fbt_entry() for its entry
 * probe as kprobes would: preemption off, regs->ip just past the probed
 * address.  Return probes of such functions are armed in the same ops,
 * the way kretprobes and fprobe hook a return in this kernel: the handler
 * takes a node of the state's rethook (fb_rh: KD_FBT_MAXACTIVE nodes per
 * return probe, kd_fbt_arm's maxactive) and rethook_hook() swaps the
 * return address for the rethook trampoline, which calls
 * kd_fbt_bulk_ret() when the function returns; no node free is a missed
 * firing, counted in the probe's kretprobe nmissed as kretprobes do.
 * So the initcall enabling of bench/run-boot-overhead (3 functions, entry
 * and return) costs one ftrace update instead of three (~5 M instructions
 * each).  rethook is not exported: its functions are found by name
 * (kd_fbt_ks); without them return probes stay kretprobes.
 * The rest (module functions, whose text can go away; init text; the few
 * odd addresses; __switch_to's return, which kretprobes refuse too) stay
 * kprobes and kretprobes.  These probes show in
 * tracing/enabled_functions, not in kprobes/list; small enablings (the
 * per-firing benchmarks) keep using kprobes.
 */
struct kd_fbt_bent {
	unsigned long	fe_addr;
	struct kd_probe	*fe_kp;		/* entry probe, or NULL */
	struct kd_probe	*fe_rkp;	/* return probe, or NULL */
};

/* A return in flight; kmalloc'd, rethook frees it (kfree) with fb_rh. */
struct kd_fbt_rnode {
	struct rethook_node	fr_node;	/* first: rethook kfree()s it */
	struct kd_probe		*fr_kp;
};

struct kd_fbt_bulk {
	struct ftrace_ops	fb_ops;
	struct kd_fbt_bent	*fb_tab;
	uint32_t		fb_n;
	int			fb_on;		/* fb_ops registered */
	struct rethook		*fb_rh;		/* return probes' nodes */
};

static int
kd_fbt_bent_cmp(const void *a, const void *b)
{
	const struct kd_fbt_bent *x = a, *y = b;

	return x->fe_addr < y->fe_addr ? -1 : x->fe_addr > y->fe_addr;
}

/* Probe context: ftrace callback of a bulk-armed entry probe. */
static void notrace
kd_fbt_bulk_hit(unsigned long ip, unsigned long parent_ip,
    struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct kd_fbt_bulk *fb = container_of(ops, struct kd_fbt_bulk, fb_ops);
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct kd_fbt_bent key = { .fe_addr = ip }, *fe;
	unsigned long orig;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);	/* preempt off */
	if (bit < 0)
		return;
	fe = bsearch(&key, fb->fb_tab, fb->fb_n, sizeof (*fe),
	    kd_fbt_bent_cmp);
	if (fe != NULL && regs != NULL && fe->fe_kp != NULL) {
		orig = instruction_pointer(regs);
		instruction_pointer_set(regs, ip + sizeof (kprobe_opcode_t));
		kd_fbt_entry(&fe->fe_kp->kp_u.u_kprobe, regs);
		instruction_pointer_set(regs, orig);
	}
	if (fe != NULL && regs != NULL && fe->fe_rkp != NULL) {
		struct rethook_node *rn = kd_fbt_ks.ks_rh_get(fb->fb_rh);

		if (rn == NULL) {
			fe->fe_rkp->kp_u.u_kretprobe.nmissed++;
		} else {
			container_of(rn, struct kd_fbt_rnode, fr_node)->fr_kp =
			    fe->fe_rkp;
			kd_fbt_ks.ks_rh_hook(rn, regs, true);
		}
	}
	ftrace_test_recursion_unlock(bit);
}

/*
 * Probe context: rethook handler (preemption off), a bulk return probe's
 * function returned.  Arguments as kd_fbt_return() gives them.
 */
static void
kd_fbt_bulk_ret(struct rethook_node *rn, void *data, struct pt_regs *regs)
{
	uint64_t args[DIF_NARGS] = { 0 };

	args[0] = rn->ret_addr;
	args[1] = regs_return_value(regs);
	kd_fire(container_of(rn, struct kd_fbt_rnode, fr_node)->fr_kp, args,
	    0);
}

/* May probe "kp" be armed in bulk? */
static int
kd_fbt_bulk_ok(const struct kd_probe *kp)
{
	unsigned long a = (unsigned long)kp->kp_key;

	if (kp->kp_prov == &kd_prov_fbt && kd_fbt_is_return(kp)) {
		kd_fbt_ks_rh_init();	/* the first return probe looks up */
		if (kd_fbt_ks.ks_rh_alloc == NULL ||
		    kd_fbt_ks.ks_rh_add == NULL ||
		    kd_fbt_ks.ks_rh_get == NULL ||
		    kd_fbt_ks.ks_rh_hook == NULL ||
		    kd_fbt_ks.ks_rh_free == NULL ||
		    strcmp(kp->kp_ep.ep_func, "__switch_to") == 0)
			return 0;
	}
	return kp->kp_prov == &kd_prov_fbt && kp->kp_necbs != 0 &&
	    !kp->kp_live &&
	    strcmp(kp->kp_ep.ep_mod, "kernel") == 0 &&
	    a >= kd_fbt_ks.ks_stext && a < kd_fbt_ks.ks_etext &&
	    kd_fbt_ks.ks_ftloc(a) == a && !kd_fbt_ks.ks_kpblock(a);
}

/* Sort by address, entry before return at one address. */
static int
kd_fbt_okcmp(const void *a, const void *b)
{
	const struct kd_probe *x = *(struct kd_probe * const *)a;
	const struct kd_probe *y = *(struct kd_probe * const *)b;

	if (x->kp_key != y->kp_key)
		return x->kp_key < y->kp_key ? -1 : 1;
	return kd_fbt_is_return(x) - kd_fbt_is_return(y);
}

/*
 * The rethook of "nret" bulk return probes: KD_FBT_MAXACTIVE nodes each
 * (kd_fbt_arm's maxactive: fewer per probe when there are many); NULL
 * when out of memory.
 */
static struct rethook *
kd_fbt_rethook(struct kd_fbt_bulk *fb, uint32_t nret)
{
	struct rethook *rh;
	struct kd_fbt_rnode *fr;
	uint32_t i, per;

	per = nret < KD_FBT_MANY ? KD_FBT_MAXACTIVE :
	    max_t(uint32_t, 10, 2 * num_possible_cpus());
	rh = kd_rethook_alloc(kd_fbt_ks.ks_rh_alloc, fb, kd_fbt_bulk_ret);	/* kd_compat.h */
	if (IS_ERR_OR_NULL(rh))
		return NULL;
	for (i = 0; i < nret * per; i++) {
		fr = kzalloc(sizeof (*fr), GFP_KERNEL);
		if (fr == NULL) {
			kd_fbt_ks.ks_rh_free(rh);	/* frees the nodes */
			return NULL;
		}
		kd_fbt_ks.ks_rh_add(rh, &fr->fr_node);
	}
	return rh;
}

/* Arm what kd_fbt_bulk_ok() allows in one go; the count armed. */
static int
kd_fbt_bulk_arm(struct kd_cstate *cs)
{
	struct kd_fbt_cs *fp = kd_fbt_cs(cs, 1);
	struct kd_fbt_bulk *fb = NULL;
	struct kd_fbt_bent *fe;
	struct kd_probe **ok, *kp;
	unsigned long *ips = NULL;
	uint32_t i, n = 0, nret = 0;
	u64 t0;
	int rv;

	kd_fbt_ks_init();
	if (kd_fbt_ks.ks_ftloc == NULL || kd_fbt_ks.ks_kpblock == NULL ||
	    fp == NULL || fp->fp_bulk != NULL || cs->cs_nprobes == 0)
		return 0;
	/* kd_fbt_bulk_ok() once per probe: the blocklist test walks a list */
	ok = kvmalloc_array(cs->cs_nprobes, sizeof (*ok), GFP_KERNEL);
	if (ok == NULL)
		return 0;	/* kprobes, one by one */
	for (i = 0; i < cs->cs_nprobes; i++)
		if (kd_fbt_bulk_ok(cs->cs_probes[i]))
			ok[n++] = cs->cs_probes[i];
	/*
	 * Registering the ftrace_ops costs about what 1.5 kprobes do (~7 M
	 * instructions at boot, bench/run-boot-overhead), so at boot it pays
	 * from 4 probes.  Live, small enablings keep kprobes (the per-firing
	 * benchmarks measure those).
	 */
	if (n < (cs->cs_anon ? KD_FBT_FTRACE_ANON : KD_FBT_FTRACE_MIN))
		goto fail;
	sort(ok, n, sizeof (*ok), kd_fbt_okcmp, NULL);
	fb = kzalloc(sizeof (*fb), GFP_KERNEL);
	ips = kvmalloc_array(n, sizeof (*ips), GFP_KERNEL);
	if (fb != NULL)
		fb->fb_tab = kvcalloc(n, sizeof (*fb->fb_tab), GFP_KERNEL);
	if (fb == NULL || ips == NULL || fb->fb_tab == NULL)
		goto fail;	/* kprobes, one by one */
	for (i = 0; i < n; i++) {	/* one entry per address */
		kp = ok[i];
		if (fb->fb_n == 0 ||
		    fb->fb_tab[fb->fb_n - 1].fe_addr != kp->kp_key)
			fb->fb_tab[fb->fb_n++].fe_addr = kp->kp_key;
		fe = &fb->fb_tab[fb->fb_n - 1];
		memset(&kp->kp_u, 0, sizeof (kp->kp_u));
		kp->kp_gated = ecb_gate_usable(cs->cs_es, &kp->kp_ep);
		if (kd_fbt_is_return(kp)) {
			kp->kp_u.u_kretprobe.kp.addr =
			    (kprobe_opcode_t *)(uintptr_t)kp->kp_key;
			fe->fe_rkp = kp;
			nret++;
		} else {
			kp->kp_u.u_kprobe.addr =
			    (kprobe_opcode_t *)(uintptr_t)kp->kp_key;
			kp->kp_gate1 = ecb_gate_single(cs->cs_es, &kp->kp_ep);
			fe->fe_kp = kp;
		}
	}
	if (nret != 0 && (fb->fb_rh = kd_fbt_rethook(fb, nret)) == NULL) {
		pr_info("kdt: fbt: out of memory for %u return probes' rethook nodes: kprobes and kretprobes one by one\n",
		    nret);
		goto fail;
	}
	for (i = 0; i < fb->fb_n; i++)
		ips[i] = fb->fb_tab[i].fe_addr;
	fb->fb_ops.func = kd_fbt_bulk_hit;
	/*
	 * No FTRACE_OPS_FL_RECURSION: that flag asks ftrace to wrap the
	 * callback in its recursion guard (ftrace_ops_assist_func), which
	 * kd_fbt_bulk_hit takes itself.
	 */
	fb->fb_ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	t0 = ktime_get_ns();
	rv = ftrace_set_filter_ips(&fb->fb_ops, ips, fb->fb_n, 0, 0);
	if (rv == 0)
		rv = register_ftrace_function(&fb->fb_ops);
	/*
	 * At boot, say what the kernel's own part of arming took: one ftrace
	 * update walks every ftrace record of the kernel (~39 k on Debian's
	 * 6.1) whatever the number of functions, the floor of any ftrace
	 * tracer (bench/run-boot-overhead prints it beside kdt's arming).
	 */
	if (rv == 0) {
		cs->cs_ftrace_n = fb->fb_n;
		cs->cs_ftrace_ns = ktime_get_ns() - t0;
	}
	if (rv == 0 && cs->cs_anon && !cs->cs_rehearse)
		pr_info("kdt: fbt: %u functions armed through one ftrace_ops in %llu ns\n",
		    fb->fb_n, (unsigned long long)cs->cs_ftrace_ns);
	if (rv != 0) {
		pr_info("kdt: fbt: %u probes not armed in bulk (ftrace error %d): kprobes and kretprobes one by one\n",
		    n, rv);
		ftrace_free_filter(&fb->fb_ops);
		goto fail;
	}
	kvfree(ips);
	kvfree(ok);
	fb->fb_on = 1;
	for (i = 0; i < fb->fb_n; i++) {
		if (fb->fb_tab[i].fe_kp != NULL)
			fb->fb_tab[i].fe_kp->kp_live = 1;
		if (fb->fb_tab[i].fe_rkp != NULL)
			fb->fb_tab[i].fe_rkp->kp_live = 1;
	}
	fp->fp_bulk = fb;
	return n;
fail:
	kvfree(ips);
	kvfree(ok);
	if (fb != NULL) {
		if (fb->fb_rh != NULL)
			kd_fbt_ks.ks_rh_free(fb->fb_rh);	/* never hooked */
		kvfree(fb->fb_tab);
	}
	kfree(fb);
	return 0;
}

/* Disarm the bulk probes; when this returns, no handler runs any more. */
static void
kd_fbt_bulk_disarm(struct kd_cstate *cs)
{
	struct kd_fbt_cs *fp = kd_fbt_cs(cs, 0);
	struct kd_fbt_bulk *fb = fp != NULL ? fp->fp_bulk : NULL;
	uint32_t i;

	if (fb == NULL)
		return;
	if (fb->fb_on) {
		unregister_ftrace_function(&fb->fb_ops);
		ftrace_free_filter(&fb->fb_ops);
		fb->fb_on = 0;
	}
	if (fb->fb_rh != NULL) {
		/*
		 * No more hooks (the ops is gone); returns still in flight
		 * find the handler NULL and give their nodes back to be
		 * freed.  A handler running now has preemption off: after
		 * the grace period none is, and "fb" and the probes may go.
		 */
		kd_fbt_ks.ks_rh_free(fb->fb_rh);
		fb->fb_rh = NULL;
		synchronize_rcu();
	}
	for (i = 0; i < fb->fb_n; i++) {
		if (fb->fb_tab[i].fe_kp != NULL)
			fb->fb_tab[i].fe_kp->kp_live = 0;
		if (fb->fb_tab[i].fe_rkp != NULL)
			fb->fb_tab[i].fe_rkp->kp_live = 0;
	}
	kvfree(fb->fb_tab);
	kfree(fb);
	fp->fp_bulk = NULL;
}

static int
kd_fbt_enable(struct kd_cstate *cs)
{
	int n = kd_fbt_bulk_arm(cs);

	return n + kd_fbt_arm(cs, 0);
}

/* Unregister the armed probes that "gone" selects (NULL: all). */
static void
kd_fbt_unregister(struct kd_cstate *cs, struct module *gone)
{
	struct kretprobe *krps_stack[KD_FBT_BATCH_MIN], **krps;
	struct kprobe *kps_stack[KD_FBT_BATCH_MIN], **kps;
	struct kd_probe *kp;
	uint32_t i, nk = 0, nr = 0, batch = 0;

	if (gone == NULL)	/* bulk probes are core-kernel ones only */
		kd_fbt_bulk_disarm(cs);
	for (i = 0; i < cs->cs_nprobes; i++)
		if (cs->cs_probes[i]->kp_prov == &kd_prov_fbt &&
		    cs->cs_probes[i]->kp_live)
			batch++;
	/*
	 * One batch for all, so unregister_kprobes() waits for an RCU grace
	 * period once (a batch per 64 probes made stopping 5,000 probes
	 * take seconds); if the arrays cannot be allocated, small batches
	 * on the stack -- the stack never holds more than 2 x 16 pointers
	 * (the kernel's frame limit is 1 KiB on some configurations).
	 */
	batch = clamp_t(uint32_t, batch, 1, KD_FBT_BATCH_MAX);
	kps = kvmalloc_array(batch, sizeof (*kps), GFP_KERNEL);
	krps = kvmalloc_array(batch, sizeof (*krps), GFP_KERNEL);
	if (kps == NULL || krps == NULL) {
		kvfree(kps);
		kvfree(krps);
		kps = kps_stack;
		krps = krps_stack;
		batch = KD_FBT_BATCH_MIN;
	}
	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_fbt)
			continue;
		if (gone != NULL) {
			if (strcmp(kp->kp_ep.ep_mod, gone->name) != 0)
				continue;
			hlist_del_init(&kp->kp_hash);	/* never found again */
		}
		if (!kp->kp_live)
			continue;
		kp->kp_live = 0;
		if (kd_fbt_is_return(kp))
			krps[nr++] = &kp->kp_u.u_kretprobe;
		else
			kps[nk++] = &kp->kp_u.u_kprobe;
		if (nk == batch) {
			unregister_kprobes(kps, nk);
			nk = 0;
		}
		if (nr == batch) {
			unregister_kretprobes(krps, nr);
			nr = 0;
		}
	}
	if (nk != 0)
		unregister_kprobes(kps, nk);
	if (nr != 0)
		unregister_kretprobes(krps, nr);
	if (kps != kps_stack) {
		kvfree(kps);
		kvfree(krps);
	}
}

static void
kd_fbt_disable(struct kd_cstate *cs)
{
	kd_fbt_unregister(cs, NULL);
}

static void
kd_fbt_mod_gone(struct kd_cstate *cs, struct module *mod)
{
	kd_fbt_unregister(cs, mod);
}

static void
kd_fbt_free(struct kd_cstate *cs)
{
	struct kd_fbt_cs *fp = kd_fbt_cs(cs, 0);

	kd_fbt_bulk_disarm(cs);		/* normally done by kd_fbt_disable */
	if (fp != NULL) {
		kd_fmatch_free(fp->fp_match);
		kfree(fp);
		cs->cs_pdata[kd_prov_fbt.pv_id] = NULL;
	}
}

static uint64_t
kd_fbt_missed(struct kd_cstate *cs)
{
	struct kd_probe *kp;
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < cs->cs_nprobes; i++) {
		kp = cs->cs_probes[i];
		if (kp->kp_prov != &kd_prov_fbt || kp->kp_necbs == 0)
			continue;	/* counts stay after unregistering */
		if (kd_fbt_is_return(kp))
			n += kp->kp_u.u_kretprobe.nmissed;
		else
			n += kp->kp_u.u_kprobe.nmissed;
	}
	return n;
}

const struct kd_prov kd_prov_fbt = {
	.pv_name	= "fbt",
	.pv_provs	= (const char *const[]){ "fbt", NULL },
	.pv_id		= 1,
	.pv_match	= kd_fbt_match,
	.pv_prematch	= kd_fbt_prematch,
	.pv_enable	= kd_fbt_enable,
	.pv_disable	= kd_fbt_disable,
	.pv_free	= kd_fbt_free,
	.pv_missed	= kd_fbt_missed,
	.pv_match_mod	= kd_fbt_match_mod,
	.pv_arm		= kd_fbt_arm,
	.pv_mod_gone	= kd_fbt_mod_gone,
};
