/*
 * kd_compat.h -- the kernel interfaces kdt.ko uses that differ between
 * the pinned 6.1 kernel and later ones, one place per difference.
 *
 * kdt.ko is built and tested against 6.1 (mk/versions.mk).  Each block
 * below names the kernel release that changed an interface and gives kmod/
 * one spelling for both sides, chosen with LINUX_VERSION_CODE at compile
 * time; on 6.1 every helper is exactly the call the code made before the
 * layer existed, so behaviour there is unchanged.  The newer side is
 * built against Debian's 6.12 (KVER_612 in mk/versions.mk, from
 * bookworm-security: make kmod-612, mk/kernel-612.sh) and CI boots that
 * kernel with it (tests/vm/scenarios/tst.kernel-612.sh: an anonymous
 * enabling, BEGIN/END, exact fbt, syscall and sdt counts, aggregations,
 * fbt on a module as it loads).
 *
 * Differences:
 *
 *   Module memory (6.4, "module: replace module_layout with
 *   module_memory"): mod->core_layout / mod->init_layout (struct
 *   module_layout: base, size, text_size, ...) became mod->mem[type]
 *   (struct module_memory: base, size), one allocation per type:
 *   MOD_TEXT, MOD_DATA, MOD_RODATA, MOD_RO_AFTER_INIT, MOD_INIT_TEXT, ...
 *   On 6.1 the core is one allocation starting with its text; from 6.4 on
 *   the text is its own allocation, so kd_mod_core_base()/size() give the
 *   text's there (what kdt uses the range for: naming code addresses).
 *   kd_mod_rodata_base()/size() give the core read-only data (6.1: from
 *   text_size to ro_size of the core; later: MOD_RODATA), where the
 *   loader puts SHF_ALLOC notes such as .note.gnu.build-id.
 *
 *   The last function of a module's text (6.4, same change): nothing is
 *   mapped after it any more, and kprobes' optimizer decodes past its
 *   end; kd_mod_fbt_ok() leaves it out of fbt unless it has an ftrace
 *   site.
 *
 *   Function padding (6.2, "x86: Add prefix symbols for function
 *   padding"): with CONFIG_FUNCTION_PADDING_ALIGNMENT (set in Debian's
 *   6.12) every function has a __pfx_<name> symbol over the NOPs before
 *   it, which kallsyms lists like a function; kd_ksym_is_padding()
 *   tells fbt to leave them out.
 *
 *   kallsyms walks (6.3, "kallsyms: Delete an unused parameter related to
 *   {module_}kallsyms_on_each_symbol()" and the livepatch change before
 *   it): the callbacks of kallsyms_on_each_symbol() and
 *   module_kallsyms_on_each_symbol() lost their struct module * argument,
 *   and module_kallsyms_on_each_symbol() gained a leading module name
 *   (NULL: every module).  kmod/ finds both by name (kd_ksym_lookup(), they
 *   are not exported) and calls them through pointers, so a mismatch
 *   compiles and then misbehaves: kd_kallsyms_each() and
 *   kd_module_kallsyms_each() keep 6.1's callback shape on both sides,
 *   the newer side finding a symbol's module with __module_address()
 *   (found by name too; module_mutex is held by the walk, as it needs)
 *   and leaving out symbols outside every module's memory.
 *
 *   rethook (6.5, 6.7): kd_rethook_alloc() calls rethook_alloc() the
 *   6.1 way and gives NULL (kretprobes instead) where the handler and the
 *   node allocation changed.
 *
 *   uprobes (6.12): uprobe_register() takes the reference-counter offset
 *   and returns the struct uprobe (or an ERR_PTR), uprobe_register_refctr()
 *   is gone; uprobe_unregister(inode, offset, uc) became
 *   uprobe_unregister_nosync(uprobe, uc), which no longer waits for
 *   running handlers, plus uprobe_unregister_sync(), called once after a
 *   batch, which does; the consumer's filter() lost its
 *   enum uprobe_filter_ctx argument.  (6.13 then adds a session-cookie
 *   argument to handler() and ret_handler(); not handled yet.)
 *
 * Checked and not needed (kmod/ does not use them, or uses a form both
 * kernels share): class_create() (6.4 dropped its module argument: kdt
 * uses misc devices), proc_ops, vm_flags_set() (6.3: kdt maps nothing
 * into user space), tracepoint_probe_register() and
 * for_each_kernel_tracepoint() (same in 6.12), struct bpf_raw_event_map
 * (same fields), kprobes and kretprobes (same handler signatures),
 * strlcpy() (gone in 6.8: kmod/ uses strscpy()); and the other functions
 * kmod/ calls through looked-up pointers, whose prototypes 6.12 keeps:
 * kallsyms_on_each_match_symbol(), kallsyms_lookup_size_offset(),
 * insn_decode(), within_kprobe_blacklist(), ftrace_location(),
 * stack_trace_save_regs() and stack_trace_save_user().
 *
 * Include it from the kmod/ files that need it, after the kernel headers
 * and kd_impl.h (for kd_ksym_lookup()) (the Makefile links the headers of kmod/compat/ next to the sources in
 * build/kmod).
 */
#ifndef KD_COMPAT_H
#define KD_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>
#include <linux/uprobes.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/rethook.h>

/* ---- module memory (6.4) ---- */

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
static inline unsigned long
kd_mod_core_base(const struct module *mod)
{
	return (unsigned long)mod->mem[MOD_TEXT].base;
}

static inline unsigned long
kd_mod_core_size(const struct module *mod)
{
	return mod->mem[MOD_TEXT].size;
}

static inline unsigned long
kd_mod_core_text_size(const struct module *mod)
{
	return mod->mem[MOD_TEXT].size;
}

static inline unsigned long
kd_mod_init_base(const struct module *mod)
{
	return (unsigned long)mod->mem[MOD_INIT_TEXT].base;
}

static inline unsigned long
kd_mod_init_text_size(const struct module *mod)
{
	return mod->mem[MOD_INIT_TEXT].size;
}

/* The core read-only data (where a module's .note.gnu.build-id lies). */
static inline unsigned long
kd_mod_rodata_base(const struct module *mod)
{
	return (unsigned long)mod->mem[MOD_RODATA].base;
}

static inline unsigned long
kd_mod_rodata_size(const struct module *mod)
{
	return mod->mem[MOD_RODATA].size;
}
#else
static inline unsigned long
kd_mod_core_base(const struct module *mod)
{
	return (unsigned long)mod->core_layout.base;
}

static inline unsigned long
kd_mod_core_size(const struct module *mod)
{
	return mod->core_layout.size;
}

static inline unsigned long
kd_mod_core_text_size(const struct module *mod)
{
	return mod->core_layout.text_size;
}

static inline unsigned long
kd_mod_init_base(const struct module *mod)
{
	return (unsigned long)mod->init_layout.base;
}

static inline unsigned long
kd_mod_init_text_size(const struct module *mod)
{
	return mod->init_layout.text_size;
}

/* 6.1: the core is text, then read-only data up to ro_size. */
static inline unsigned long
kd_mod_rodata_base(const struct module *mod)
{
	return (unsigned long)mod->core_layout.base +
	    mod->core_layout.text_size;
}

static inline unsigned long
kd_mod_rodata_size(const struct module *mod)
{
	return mod->core_layout.ro_size > mod->core_layout.text_size ?
	    mod->core_layout.ro_size - mod->core_layout.text_size : 0;
}
#endif

/* Is "addr" in the core text of "mod" (or its init text, with "init")? */
static inline int
kd_mod_in_text(const struct module *mod, unsigned long addr, int init)
{
	unsigned long b = kd_mod_core_base(mod);

	if (b != 0 && addr >= b && addr - b < kd_mod_core_text_size(mod))
		return 1;
	b = kd_mod_init_base(mod);
	return init && b != 0 && addr >= b &&
	    addr - b < kd_mod_init_text_size(mod);
}

/*
 * May fbt put a kprobe on the module function at "addr"?  It must be in
 * the module's core or init text, and from 6.4 on not be the last
 * function of either unless it has an ftrace site.  Since each module
 * memory type became an allocation of its own, nothing is mapped after a
 * module's text; kallsyms gives the last function of the text an extent
 * that runs to the allocation's end (the fill after the code included),
 * and kprobes, when it tries to optimize a probe that is not on an ftrace
 * site (arch/x86 can_optimize()), decodes that whole extent in place, so
 * the fill's last "instruction" reads past the end: an oops in
 * insn_get_modrm() under register_kprobe(), seen on 6.12 with fbt:xor::
 * entry as xor.ko loaded (xor_exit: __exit is notrace).  On 6.1 rodata
 * followed the text in the same allocation.  Such a function is left out
 * of fbt (never listed or matched); a probe on an ftrace site goes
 * through ftrace and is never optimized, so __init functions (traceable)
 * stay.  ftrace_location() and kallsyms_lookup_size_offset() are found by
 * name, once per file.
 */
static inline int
kd_mod_fbt_ok(const struct module *mod, unsigned long addr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	static int (*size_off)(unsigned long, unsigned long *,
	    unsigned long *);
	static unsigned long (*ftloc)(unsigned long);
	unsigned long size, off, end;

	if (!kd_mod_in_text(mod, addr, 1))
		return 0;
	if (ftloc == NULL)
		ftloc = (unsigned long (*)(unsigned long))kd_ksym_lookup(
		    "ftrace_location");
	if (ftloc != NULL && ftloc(addr) != 0)
		return 1;
	if (size_off == NULL)
		size_off = (int (*)(unsigned long, unsigned long *,
		    unsigned long *))kd_ksym_lookup(
		    "kallsyms_lookup_size_offset");
	if (size_off == NULL || !size_off(addr, &size, &off))
		return 0;
	end = kd_mod_in_text(mod, addr, 0) ?
	    kd_mod_core_base(mod) + kd_mod_core_text_size(mod) :
	    kd_mod_init_base(mod) + kd_mod_init_text_size(mod);
	return addr - off + size < end;
#else
	return kd_mod_in_text(mod, addr, 1);
#endif
}

/* ---- function padding symbols (6.2) ---- */

/* Is "name" the padding before a function rather than a function? */
static inline int
kd_ksym_is_padding(const char *name)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return strncmp(name, "__pfx_", strlen("__pfx_")) == 0;
#else
	return 0;
#endif
}

/* ---- kallsyms walks (6.3) ---- */

/* The callbacks kmod/ writes: 6.1's module_kallsyms_on_each_symbol's. */
typedef int (*kd_ksym_modcb)(void *arg, const char *name, struct module *mod,
    unsigned long addr);
typedef int (*kd_ksym_cb)(void *arg, const char *name, unsigned long addr);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
/* kallsyms_on_each_symbol() ("each": its address) with a 3-argument fn. */
static inline int
kd_kallsyms_each(unsigned long each, kd_ksym_cb fn, void *arg)
{
	return ((int (*)(kd_ksym_cb, void *))each)(fn, arg);
}

struct kd_modwalk_compat {
	kd_ksym_modcb	mc_fn;
	void		*mc_arg;
	struct module	*(*mc_modaddr)(unsigned long);
};

/*
 * A symbol whose value lies in no module's memory (absolute and per-CPU
 * symbols: 6.1 passed them with their module) is skipped: kmod/'s
 * callbacks want module text, and take the module as never NULL.
 */
static inline int
kd_modwalk_compat_cb(void *arg, const char *name, unsigned long addr)
{
	struct kd_modwalk_compat *mc = arg;
	struct module *mod = mc->mc_modaddr(addr);

	return mod != NULL ? mc->mc_fn(mc->mc_arg, name, mod, addr) : 0;
}

/* module_kallsyms_on_each_symbol() ("each") over every module. */
static inline int
kd_module_kallsyms_each(unsigned long each, kd_ksym_modcb fn, void *arg)
{
	struct kd_modwalk_compat mc = { .mc_fn = fn, .mc_arg = arg };

	mc.mc_modaddr = (struct module *(*)(unsigned long))
	    kd_ksym_lookup("__module_address");
	if (mc.mc_modaddr == NULL)
		return -ENOENT;
	return ((int (*)(const char *, kd_ksym_cb, void *))each)(NULL,
	    kd_modwalk_compat_cb, &mc);
}
#else
struct kd_kswalk_compat {
	kd_ksym_cb	kc_fn;
	void		*kc_arg;
};

static inline int
kd_kswalk_compat_cb(void *arg, const char *name, struct module *mod,
    unsigned long addr)
{
	struct kd_kswalk_compat *kc = arg;

	return kc->kc_fn(kc->kc_arg, name, addr);
}

static inline int
kd_kallsyms_each(unsigned long each, kd_ksym_cb fn, void *arg)
{
	struct kd_kswalk_compat kc = { .kc_fn = fn, .kc_arg = arg };

	return ((int (*)(kd_ksym_modcb, void *))each)(kd_kswalk_compat_cb,
	    &kc);
}

static inline int
kd_module_kallsyms_each(unsigned long each, kd_ksym_modcb fn, void *arg)
{
	return ((int (*)(kd_ksym_modcb, void *))each)(fn, arg);
}
#endif

/* ---- rethook (6.5 / 6.7) ---- */

struct rethook;
struct rethook_node;

/* The return handler kmod/ writes: 6.1's rethook_handler_t. */
typedef void (*kd_rethook_fn)(struct rethook_node *, void *,
    struct pt_regs *);

/*
 * rethook_alloc() ("alloc", found by name: not exported) with 6.1's
 * interface, where the caller adds the nodes (rethook_add_node()).  Later
 * kernels changed both halves: the handler gained the return address
 * (6.5), and rethook_alloc(data, handler, size, num) allocates the nodes
 * itself from an objpool, rethook_add_node() gone (6.7; as in 6.12).
 * There, NULL: kmod/ falls back to kretprobes, as it does when the
 * symbols are missing (on 6.12, rethook_add_node is never found, so this
 * is not even reached).
 */
static inline struct rethook *
kd_rethook_alloc(struct rethook *(*alloc)(void *, rethook_handler_t),
    void *data, kd_rethook_fn fn)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return NULL;
#else
	return alloc(data, fn);
#endif
}

/* ---- uprobes (6.12) ---- */

struct uprobe;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
/* The parameters of a uprobe_consumer filter(). */
#define KD_UPROBE_FILTER_PARAMS(uc, mm)					\
	struct uprobe_consumer *uc, struct mm_struct *mm

/* Register "uc" at inode:off; *upp is what unregistering needs. */
static inline int
kd_uprobe_register(struct inode *inode, loff_t off, loff_t refctr,
    struct uprobe_consumer *uc, struct uprobe **upp)
{
	struct uprobe *up = uprobe_register(inode, off, refctr, uc);

	if (IS_ERR(up))
		return (int)PTR_ERR(up);
	*upp = up;
	return 0;
}

/* Unregister; handlers may still run until kd_uprobe_unregister_sync(). */
static inline void
kd_uprobe_unregister(struct inode *inode, loff_t off,
    struct uprobe_consumer *uc, struct uprobe *up)
{
	uprobe_unregister_nosync(up, uc);
}

static inline void
kd_uprobe_unregister_sync(void)
{
	uprobe_unregister_sync();
}
#else
#define KD_UPROBE_FILTER_PARAMS(uc, mm)					\
	struct uprobe_consumer *uc, enum uprobe_filter_ctx kd_filter_ctx, \
	struct mm_struct *mm

static inline int
kd_uprobe_register(struct inode *inode, loff_t off, loff_t refctr,
    struct uprobe_consumer *uc, struct uprobe **upp)
{
	*upp = NULL;
	return refctr != 0 ? uprobe_register_refctr(inode, off, refctr, uc) :
	    uprobe_register(inode, off, uc);
}

/* 6.1's uprobe_unregister() waits for running handlers itself. */
static inline void
kd_uprobe_unregister(struct inode *inode, loff_t off,
    struct uprobe_consumer *uc, struct uprobe *up)
{
	uprobe_unregister(inode, off, uc);
}

static inline void
kd_uprobe_unregister_sync(void)
{
}
#endif

#endif /* KD_COMPAT_H */
