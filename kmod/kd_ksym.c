/*
 * kd_ksym.c -- kernel symbols for a module that is not allowed to ask.
 *
 * In 6.1 neither kallsyms_lookup_name nor kallsyms_on_each_symbol is
 * exported to modules, but kprobes resolve symbol names internally.  So
 * kd_ksym_init() registers a kprobe on "kallsyms_lookup_name" only to
 * learn its address, and from then on calls the function through that
 * pointer; kallsyms_on_each_symbol is found the same way through it, and
 * so are the stack walkers stack() needs (kd_env.c).  Used by kd_fbt.c
 * (globbing fbt function names) and kd_anon.c (the KASLR offset stored in
 * the region header).  Setup context only.
 *
 * The kprobe is registered disabled (never armed: no ftrace code update)
 * and stays registered until kdt.ko unloads (kd_ksym_exit(), from
 * kd_exit() and from a failed kd_init()): unregister_kprobe() waits for an
 * RCU grace period, which cost the boot ~11 M instructions (icount,
 * bench/run-boot-overhead) when it came right after the registration.
 * Built in there is no unload and it stays for good.  It shows in
 * /sys/kernel/debug/kprobes/list as kallsyms_lookup_name+0x0 [DISABLED].
 * kd_start() calls kd_ksym_init() when kdt.ko loads, so that line is
 * there from the start, not added by the first enabling.
 */
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/tracepoint.h>
#include <asm/page_types.h>

#include "kd_impl.h"
#include "kd_compat.h"

typedef unsigned long (*kd_lookup_fn)(const char *);
typedef int (*kd_each_fn)(int (*)(void *, const char *, struct module *,
    unsigned long), void *);

static kd_lookup_fn kd_lookup;
static DEFINE_MUTEX(kd_ksym_lock);	/* kd_ksym_kp's registration */
static struct kprobe kd_ksym_kp;	/* registered while kd_lookup is set */
unsigned int (*kd_stack_save_regs)(struct pt_regs *, unsigned long *,
    unsigned int, unsigned int);
unsigned int (*kd_stack_save_user)(unsigned long *, unsigned int);
static kd_each_fn kd_each;

int
kd_ksym_init(void)
{
	int rv = 0;

	if (smp_load_acquire(&kd_lookup) != NULL)
		return 0;
	mutex_lock(&kd_ksym_lock);
	if (kd_lookup != NULL)
		goto out;
	memset(&kd_ksym_kp, 0, sizeof (kd_ksym_kp));
	kd_ksym_kp.symbol_name = "kallsyms_lookup_name";
	kd_ksym_kp.flags = KPROBE_FLAG_DISABLED;
	rv = register_kprobe(&kd_ksym_kp);
	if (rv != 0) {
		pr_err("kdt: cannot find kallsyms_lookup_name through a kprobe: error %d\n",
		    rv);
		goto out;
	}
	kd_each = (kd_each_fn)((kd_lookup_fn)kd_ksym_kp.addr)(
	    "kallsyms_on_each_symbol");
	kd_stack_save_regs = (void *)((kd_lookup_fn)kd_ksym_kp.addr)(
	    "stack_trace_save_regs");
	kd_stack_save_user = (void *)((kd_lookup_fn)kd_ksym_kp.addr)(
	    "stack_trace_save_user");
	smp_store_release(&kd_lookup, (kd_lookup_fn)kd_ksym_kp.addr);
out:
	mutex_unlock(&kd_ksym_lock);
	return rv;
}

/*
 * Unload (or a failed load): unregister the kprobe, one grace period.
 * Nothing may call kd_ksym_*() any more.
 */
void
kd_ksym_exit(void)
{
	mutex_lock(&kd_ksym_lock);
	if (kd_lookup != NULL) {
		unregister_kprobe(&kd_ksym_kp);
		kd_lookup = NULL;
		kd_each = NULL;
		kd_stack_save_regs = NULL;
		kd_stack_save_user = NULL;
	}
	mutex_unlock(&kd_ksym_lock);
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
