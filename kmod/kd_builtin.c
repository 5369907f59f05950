/*
 * kd_builtin.c -- kdt built into the kernel (CONFIG_KDT=y, boot/kdt-builtin):
 * the anonymous enabling from the initrd trailer, before the initcalls of
 * built-in drivers.
 *
 * Module mode cannot see a built-in driver's init function: by the time
 * /init loads kdt.ko every built-in initcall has run.  Built in, the same
 * code (kd_start, kd_anon.c, kd_cs.c, the providers) runs from an initcall
 * instead, in two steps, because /dev/kdt is a misc device and misc_init
 * is itself a subsys_initcall:
 *
 *   1. kd_builtin_early(), a pure_initcall (level 0, the first level of
 *      do_initcalls): find the trailer at the end of the initrd
 *      (common/itrl.h), copy the DOF out -- the initrd is freed once the
 *      initramfs is unpacked -- and move initrd_end back to the end of the
 *      original initrd, so that the unpacker (populate_rootfs, a
 *      rootfs_initcall) never sees the trailer, as the kernel does for a
 *      bootconfig appended to the initrd; then kd_start(): module-load
 *      watching, the region (kdt.region=), the enabling (kdt.anon=1).
 *      The kdt.* words are this object's module parameters, which the
 *      kernel sets from its command line before any initcall.
 *   2. kd_builtin_dev(), a device_initcall: register /dev/kdt, through
 *      which "kdt -a" claims the state once userspace runs.
 *
 * Why level 0.  Everything kdt needs is up before do_initcalls() starts:
 * kprobes (init_kprobes is an early_initcall, run before smp_init), all
 * CPUs (smp_init; kd_cs.c sizes per-CPU buffers by nr_cpu_ids and the
 * profile provider starts timers on each online CPU), the scheduler, RCU
 * and workqueues (kprobe and tracepoint unregistration wait for grace
 * periods), the driver core (driver_init), the iomem tree with the e820
 * map (kd_map_region refuses System RAM), memremap, kallsyms, the trace
 * event list (kd_sdt.c) and jump labels (tracepoints).  An early_initcall
 * would run before smp_init, with one CPU online and no kworkers: too
 * early for the profile provider and for waiting on RCU.  So level 0 is
 * the earliest point at which the enabling runs exactly as in module
 * mode, and every core, postcore, arch, subsys, fs, rootfs and device
 * initcall runs after it.  (Other pure initcalls may come before ours in
 * link order; there are a handful and none is a driver.)
 *
 * The region: kd_main.c checks that kdt.region= is memmap= reserved
 * memory in /proc/iomem, which at level 0 does not list e820's reserved
 * ranges yet; kd_boot_reserved() answers from the e820 map itself.
 *
 * Nothing here stops the boot: no initrd, no trailer, a bad trailer or a
 * bad DOF is logged with its reason (kd_fail, also kept for KIO_INFO) and
 * the kernel carries on.  A trailer is stripped whether or not kdt.anon=1
 * is given, so that the unpacker never sees it; so is one whose footer is
 * sound but whose DOF fails its CRC (the footer says where it starts).  A
 * damaged footer says nothing reliable: the initrd is left whole.  The
 * pages the trailer occupied past the new initrd_end are not handed back
 * when the initrd is freed (at most the trailer's size, rounded up to a
 * page), as with bootconfig.
 *
 * Init text: fbt probes on __init functions are armed like any other
 * while the kernel is booting (kd_fbt.c collects init text until
 * SYSTEM_FREEING_INITMEM); when the kernel frees init memory, kprobes
 * marks probes there gone (kprobe_free_init_mem, which also takes them
 * off ftrace) and they stop firing.  The state keeps their records and
 * unregisters them normally later.
 *
 * The kernel needs KPROBES_ON_FTRACE (boot/builtin/kdt.config): then an
 * fbt entry probe is an ftrace callback.  A plain kprobe is an int3 until
 * the optimiser turns it into a jump, and the optimiser does not run
 * before init_optprobes, a subsys_initcall; on x86 an int3 handler runs
 * in NMI context, where kd_probe.c does not record (it counts a miss).
 * Measured without ftrace: the 63 initcalls of levels 0-3 were missed.
 *
 * In kdt.ko (MODULE defined) this file is empty.
 */
#ifndef MODULE

#include <linux/init.h>
#include <linux/initrd.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <asm/e820/api.h>

#include "kd_impl.h"
#include "itrl.h"

static char kd_bi_why[200];

/*
 * The region check of kd_main.c wants the region to be memmap= reserved
 * memory; at level 0 /proc/iomem does not list e820's reserved ranges yet
 * (pcibios_resource_survey adds them), so look at the e820 map: entries
 * of type E820_TYPE_RESERVED must cover the range without a gap.  The map
 * is sorted and its entries do not overlap once the kernel has set it up.
 */
int
kd_boot_reserved(uint64_t phys, uint64_t size)
{
	uint64_t next = phys, end = phys + size;
	struct e820_entry *e;
	uint32_t i;

	for (i = 0; i < e820_table->nr_entries && next < end; i++) {
		e = &e820_table->entries[i];
		if (e->type != E820_TYPE_RESERVED ||
		    e->addr + e->size <= next || e->addr >= end)
			continue;
		if (e->addr > next)
			return 0;	/* a gap */
		next = e->addr + e->size;
	}
	return next >= end;
}

/*
 * Take the DOF out of the initrd trailer: returns a kvmalloc'd copy and
 * its length, or NULL with kd_bi_why saying why there is none.
 */
static void *__init
kd_bi_trailer(size_t *lenp)
{
	unsigned long start = initrd_start, end = initrd_end;
	struct itrl_info ii;
	struct kdt_err err;
	void *dof;
	int rv;

	if (start == 0 || end <= start) {
		snprintf(kd_bi_why, sizeof (kd_bi_why),
		    "no initrd, so no initrd trailer with the enabling's DOF (kdt-initrd add INITRD DOF adds one)");
		return NULL;
	}
	rv = itrl_find((const void *)start, end - start, &ii, &err);
	if (rv == 0) {
		snprintf(kd_bi_why, sizeof (kd_bi_why),
		    "the initrd (0x%lx bytes) has no kdt trailer (its last %d bytes are not \"#KDTDOF\\n\"; kdt-initrd add INITRD DOF adds one)",
		    end - start, ITRL_MAGICLEN);
		return NULL;
	}
	if (rv < 0) {
		snprintf(kd_bi_why, sizeof (kd_bi_why),
		    "initrd trailer: %s (%s, offset 0x%llx of the 0x%lx-byte initrd)",
		    err.ke_msg, err.ke_tag, (unsigned long long)err.ke_off,
		    end - start);	/* itrl_find always gives one */
		/*
		 * Only the DOF's CRC is wrong: the footer is sound, so where
		 * the trailer starts (the error's offset) is known; cut it
		 * off.  Otherwise the unpacker will complain about the bytes
		 * after the cpio archive -- after extracting it.
		 */
		if (strcmp(err.ke_tag, "ITRL_DOFCRC") == 0 &&
		    err.ke_off != KDT_ERR_NOOFF && err.ke_off < end - start)
			initrd_end = start + err.ke_off;
		return NULL;
	}
	dof = kvmalloc(ii.ii_dofsz, GFP_KERNEL);
	if (dof == NULL) {
		snprintf(kd_bi_why, sizeof (kd_bi_why),
		    "initrd trailer: no memory for a copy of its 0x%llx-byte DOF",
		    ii.ii_dofsz);
	} else {
		memcpy(dof, (const void *)(start + ii.ii_dof_off),
		    ii.ii_dofsz);
		*lenp = ii.ii_dofsz;
	}
	/* The unpacker sees the original initrd only, DOF or no copy. */
	initrd_end = start + ii.ii_initrd_len;
	pr_info("kdt: initrd trailer: 0x%llx bytes of DOF at offset 0x%llx, initrd cut back from 0x%lx to 0x%llx bytes\n",
	    ii.ii_dofsz, ii.ii_dof_off, end - start, ii.ii_initrd_len);
	return dof;
}

static int __init
kd_builtin_early(void)
{
	size_t len = 0;
	void *dof;

	dof = kd_bi_trailer(&len);
	/* kd_start logs its own failures; the boot goes on regardless. */
	(void) kd_start(dof, len, dof != NULL ? "initrd trailer" : kd_bi_why);
	kvfree(dof);	/* dof_load() kept what it needs */
	return 0;
}
pure_initcall(kd_builtin_early);

static int __init
kd_builtin_dev(void)
{
	int rv = kd_dev_init();

	if (rv != 0)
		pr_err("kdt: cannot register /dev/kdt: error %d; the anonymous enabling records on but cannot be claimed\n",
		    rv);
	return 0;
}
device_initcall(kd_builtin_dev);

#endif /* !MODULE */
