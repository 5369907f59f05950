/*
 * kpcount.c -- the bare kprobe floor of bench/run-probe-cost: a kprobe
 * whose handler only bumps a per-CPU counter.
 *
 * insmod kpcount.ko [sym=__x64_sys_getppid] [off=0]
 *
 * The kprobe on sym+off is registered disabled (KPROBE_FLAG_DISABLED), so
 * loading the module costs the traced path nothing; writing 1 or 0 to
 * /sys/module/kpcount/parameters/armed enables or disables it
 * (enable_kprobe / disable_kprobe), which is the knob the on/off pairs
 * turn.  hits (read-only) is the sum of the per-CPU counters, so the
 * harness can check that every call of an "on" chunk fired.
 *
 * There is no post_handler, so a probe that stays int3-based is boosted
 * (the copied instruction runs out of line and jumps back, no single-step
 * trap); at the function's fentry site the kprobe is ftrace-based
 * ([FTRACE] in /sys/kernel/debug/kprobes/list), at offsets such as +11 of
 * __x64_sys_getppid the optimizer turns it into a jump ([OPTIMIZED]) a
 * few jiffies after it is enabled.  This is the smallest cost any
 * kprobe-based tracer can have on this kernel: the reference every kdt
 * fbt row is divided by (/work/shared/reference/perf-anchors.md, "f0").
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>

static char *sym = "__x64_sys_getppid";
module_param(sym, charp, 0444);
MODULE_PARM_DESC(sym, "function to probe");
static unsigned int off;
module_param(off, uint, 0444);
MODULE_PARM_DESC(off, "offset into the function");

static DEFINE_PER_CPU(unsigned long, kpc_hits);
static struct kprobe kpc_kp;
static bool kpc_armed;

/* Probe context: no locks, no allocation, no sleeping. */
static int
kpc_pre(struct kprobe *p, struct pt_regs *regs)
{
	this_cpu_inc(kpc_hits);
	return 0;
}

static int
kpc_armed_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int rv;

	rv = kstrtobool(val, &on);
	if (rv != 0)
		return rv;
	if (on == kpc_armed)
		return 0;
	rv = on ? enable_kprobe(&kpc_kp) : disable_kprobe(&kpc_kp);
	if (rv == 0)
		kpc_armed = on;
	return rv;
}

static int
kpc_armed_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%d\n", kpc_armed);
}

static const struct kernel_param_ops kpc_armed_ops = {
	.set = kpc_armed_set,
	.get = kpc_armed_get,
};
module_param_cb(armed, &kpc_armed_ops, NULL, 0644);
MODULE_PARM_DESC(armed, "1 enables the kprobe, 0 disables it");

static int
kpc_hits_get(char *buf, const struct kernel_param *kp)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(kpc_hits, cpu);
	return sprintf(buf, "%lu\n", n);
}

static const struct kernel_param_ops kpc_hits_ops = {
	.get = kpc_hits_get,
};
module_param_cb(hits, &kpc_hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "firings so far, all CPUs");

static int __init
kpc_init(void)
{
	int rv;

	kpc_kp.symbol_name = sym;
	kpc_kp.offset = off;
	kpc_kp.pre_handler = kpc_pre;
	kpc_kp.flags = KPROBE_FLAG_DISABLED;
	rv = register_kprobe(&kpc_kp);
	if (rv != 0)
		pr_err("kpcount: register_kprobe(%s+%u): error %d\n", sym, off,
		    rv);
	return rv;
}

static void __exit
kpc_exit(void)
{
	char buf[32];

	unregister_kprobe(&kpc_kp);
	kpc_hits_get(buf, NULL);
	pr_info("kpcount: %s+%u: %s", sym, off, buf);
}

module_init(kpc_init);
module_exit(kpc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bare kprobe floor for kdt's probe-cost benchmark");
