/*
 * kd_ksym.c -- kernel symbols for a module that is not allowed to ask.
 *
 * In 6.1 neither kallsyms_lookup_name nor kallsyms_on_each_symbol is
 * exported to modules, but kprobes resolve symbol names internally.  So at
 * setup kd_ksym_init() registers a kprobe on "kallsyms_lookup_name" only
 * to learn its address, unregisters it at once, and from then on calls the
 * function through that pointer; kallsyms_on_each_symbol is found the same
 * way through it, and so are the stack walkers stack() needs (kd_env.c).
 * Used by kd_fbt.c (globbing fbt function names) and
 * kd_anon.c (the KASLR offset stored in the region header).  Setup context
 * only.
 */
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/tracepoint.h>
#include <asm/page_types.h>

#include "kd_impl.h"
#include "kd_compat.h"

typedef unsigned long (*kd_lookup_fn)(const char *);
typedef int (*kd_each_fn)(int (*)(void *, const char *, struct module *,
    unsigned long), void *);

static kd_lookup_fn kd_lookup;
unsigned int (*kd_stack_save_regs)(struct pt_regs *, unsigned long *,
    unsigned int, unsigned int);
unsigned int (*kd_stack_save_user)(unsigned long *, unsigned int);
static kd_each_fn kd_each;

int
kd_ksym_init(void)
{
	/*
	 * Disabled: registering resolves the name and never arms it, so no
	 * ftrace code update (~5 M instructions at boot) and nothing to
	 * disarm when it is unregistered.
	 */
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name",
	    .flags = KPROBE_FLAG_DISABLED };
	int rv;

	if (kd_lookup != NULL)
		return 0;
	rv = register_kprobe(&kp);
	if (rv != 0) {
		pr_err("kdt: cannot find kallsyms_lookup_name through a kprobe: error %d\n",
		    rv);
		return rv;
	}
	kd_lookup = (kd_lookup_fn)kp.addr;
	unregister_kprobe(&kp);
	kd_each = (kd_each_fn)kd_lookup("kallsyms_on_each_symbol");
	kd_stack_save_regs = (void *)kd_lookup("stack_trace_save_regs");
	kd_stack_save_user = (void *)kd_lookup("stack_trace_save_user");
	return 0;
}

unsigned long
kd_ksym_lookup(const char *name)
{
	return kd_lookup != NULL ? kd_lookup(name) : 0;
}

/*
 * Call fn for every core-kernel symbol; -ENOENT when we cannot iterate.
 * The callback's shape changed in 6.3: kd_compat.h.
 */
int
kd_ksym_each(int (*fn)(void *, const char *, unsigned long), void *arg)
{
	if (kd_each == NULL)
		return -ENOENT;
	return kd_kallsyms_each((unsigned long)kd_each, fn, arg);
}

/* Where the kernel text was relocated to, as kaslr_offset() computes it. */
uint64_t
kd_ksym_kaslr(void)
{
	unsigned long text = kd_ksym_lookup("_text");

	return text != 0 ? (uint64_t)(text - __START_KERNEL) : 0;
}

struct kd_tpfind {
	const char	*tf_name;
	struct tracepoint *tf_tp;
};

static void
kd_tpfind_cb(struct tracepoint *tp, void *arg)
{
	struct kd_tpfind *tf = arg;

	if (tf->tf_tp == NULL && strcmp(tp->name, tf->tf_name) == 0)
		tf->tf_tp = tp;
}

struct tracepoint *
kd_tp_find(const char *name)
{
	struct kd_tpfind tf = { name, NULL };

	for_each_kernel_tracepoint(kd_tpfind_cb, &tf);
	return tf.tf_tp;
}
