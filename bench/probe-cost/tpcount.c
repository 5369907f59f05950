/*
 * tpcount.c -- the bare tracepoint floor of bench/run-probe-cost: a probe
 * on the sys_enter tracepoint whose body only bumps a per-CPU counter.
 *
 * insmod tpcount.ko; then 1 or 0 into /sys/module/tpcount/parameters/armed
 * registers or unregisters the probe.  hits (read-only) sums the per-CPU
 * counters; every system call of the guest fires it, not only getppid().
 *
 * sys_enter is not exported to modules by name, so the module finds it
 * with for_each_kernel_tracepoint() at load.  Unregistering waits with
 * tracepoint_synchronize_unregister() so that no call is still inside the
 * probe when "armed" reads 0 (and none can be when the module goes).
 * This is the smallest cost a tracer on a static tracepoint can have: the
 * reference for kdt's syscall:: and sdt: rows (perf-anchors.md, "g").
 */
#include <linux/module.h>
#include <linux/tracepoint.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/ptrace.h>

static DEFINE_PER_CPU(unsigned long, tpc_hits);
static struct tracepoint *tpc_tp;
static bool tpc_armed;

/* Probe context: no locks, no allocation, no sleeping. */
static void
tpc_probe(void *data, struct pt_regs *regs, long id)
{
	this_cpu_inc(tpc_hits);
}

static void
tpc_find(struct tracepoint *tp, void *priv)
{
	if (strcmp(tp->name, "sys_enter") == 0)
		tpc_tp = tp;
}

static int
tpc_armed_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int rv;

	rv = kstrtobool(val, &on);
	if (rv != 0)
		return rv;
	if (on == tpc_armed)
		return 0;
	if (on) {
		rv = tracepoint_probe_register(tpc_tp, (void *)tpc_probe, NULL);
	} else {
		rv = tracepoint_probe_unregister(tpc_tp, (void *)tpc_probe,
		    NULL);
		tracepoint_synchronize_unregister();
	}
	if (rv == 0)
		tpc_armed = on;
	return rv;
}

static int
tpc_armed_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%d\n", tpc_armed);
}

static const struct kernel_param_ops tpc_armed_ops = {
	.set = tpc_armed_set,
	.get = tpc_armed_get,
};
module_param_cb(armed, &tpc_armed_ops, NULL, 0644);
MODULE_PARM_DESC(armed, "1 registers the sys_enter probe, 0 removes it");

static int
tpc_hits_get(char *buf, const struct kernel_param *kp)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(tpc_hits, cpu);
	return sprintf(buf, "%lu\n", n);
}

static const struct kernel_param_ops tpc_hits_ops = {
	.get = tpc_hits_get,
};
module_param_cb(hits, &tpc_hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "firings so far, all CPUs");

static int __init
tpc_init(void)
{
	for_each_kernel_tracepoint(tpc_find, NULL);
	if (tpc_tp == NULL) {
		pr_err("tpcount: no sys_enter tracepoint in this kernel\n");
		return -ENOENT;
	}
	return 0;
}

static void __exit
tpc_exit(void)
{
	if (tpc_armed) {
		tracepoint_probe_unregister(tpc_tp, (void *)tpc_probe, NULL);
		tracepoint_synchronize_unregister();
	}
}

module_init(tpc_init);
module_exit(tpc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bare tracepoint floor for kdt's probe-cost benchmark");
