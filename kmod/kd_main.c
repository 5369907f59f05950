/*
 * kd_main.c -- kdt.ko's entry points: parameters, load, unload, region.
 *
 * In module mode the initramfs /init loads kdt.ko before anything else:
 *
 *	insmod kdt.ko anon=1 region=16M@0x10000000
 *
 * (the kdt.* words of the kernel command line, which modprobe would also
 * apply by itself).  region=SIZE@PHYS names memory the kernel was told to
 * leave alone with memmap=SIZE$PHYS; we refuse anything that is System RAM.
 * The region is mapped write-back with memremap().  Without anon=1 the
 * region is mapped but not touched, so /dev/kdt shows whatever a previous
 * boot left there.  With anon=1, kd_anon.c sets up the enabling.
 *
 * Nothing here may stop the boot: bad parameters and failed enablings are
 * logged (kd_fail), the reason is kept for KIO_INFO, and the module still
 * loads so that /dev/kdt can report what happened.
 *
 * Built into the kernel (boot/kdt-builtin), the same kdt.* words are this
 * object's parameters, and kd_builtin.c's initcalls replace kd_init:
 * kd_start() early, with the DOF from the initrd trailer, /dev/kdt later.
 *
 * Parameters:
 *
 *	region=SIZE@PHYS	the reserved region (above)
 *	anon=1			run the anonymous enabling
 *	deadman_timeout=SEC	stop a live consumer's tracing when it has
 *				not been heard from for SEC seconds (kio.h,
 *				"The deadman"); 0 to 3600, default
 *				KIO_DEADMAN_SEC (30); 0: no deadman
 *	deadman_interval_ms=MS	how often the deadman looks: 10 to 60000,
 *				default 1000; the cut-off comes between SEC
 *				and SEC + MS/1000 seconds of silence
 *
 * The deadman's two are writable at run time in
 * /sys/module/kdt/parameters/; each enabling keeps the values in force
 * when it started (KIO_GO).  An out-of-range value is refused (-EINVAL,
 * and the kernel log names the parameter, the value and the range); at
 * load that fails the insmod, as for any bad module parameter.
 */
#include <linux/module.h>
#include <linux/crash_dump.h>	/* is_kdump_kernel */
#include <linux/moduleparam.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "kd_impl.h"

#define KD_REGION_MIN	(64ULL << 10)
#define KD_REGION_MAX	(64ULL << 30)

static char *region;
module_param(region, charp, 0444);
MODULE_PARM_DESC(region, "reserved region SIZE@PHYS, e.g. 16M@0x10000000 (needs memmap=SIZE$PHYS)");

static bool anon;
module_param(anon, bool, 0444);
MODULE_PARM_DESC(anon, "enable the anonymous enabling in /lib/firmware/kdt/anon.dof");

#define KD_DEADMAN_TIMEOUT_MAX	3600
#define KD_DEADMAN_IVAL_MIN	10
#define KD_DEADMAN_IVAL_MAX	60000

unsigned int kd_deadman_timeout = KIO_DEADMAN_SEC;
unsigned int kd_deadman_interval_ms = 1000;

/* Set an unsigned parameter to "val" if it is in [lo, hi]. */
static int
kd_param_range(const char *val, const struct kernel_param *kp,
    unsigned int lo, unsigned int hi)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) != 0 || v < lo || v > hi) {
		pr_err("kdt: parameter %s=%.*s refused: want an integer from %u to %u\n",
		    kp->name, (int)strcspn(val, "\n"), val, lo, hi);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static int
kd_set_dm_timeout(const char *val, const struct kernel_param *kp)
{
	return kd_param_range(val, kp, 0, KD_DEADMAN_TIMEOUT_MAX);
}

static int
kd_set_dm_ival(const char *val, const struct kernel_param *kp)
{
	return kd_param_range(val, kp, KD_DEADMAN_IVAL_MIN,
	    KD_DEADMAN_IVAL_MAX);
}

static const struct kernel_param_ops kd_dm_timeout_ops = {
	.set	= kd_set_dm_timeout,
	.get	= param_get_uint,
};
static const struct kernel_param_ops kd_dm_ival_ops = {
	.set	= kd_set_dm_ival,
	.get	= param_get_uint,
};
module_param_cb(deadman_timeout, &kd_dm_timeout_ops, &kd_deadman_timeout,
    0644);
MODULE_PARM_DESC(deadman_timeout, "seconds a live consumer may go unheard before its tracing is stopped, 0-3600, 0: never (default 30)");
module_param_cb(deadman_interval_ms, &kd_dm_ival_ops,
    &kd_deadman_interval_ms, 0644);
MODULE_PARM_DESC(deadman_interval_ms, "milliseconds between deadman checks, 10-60000 (default 1000)");

struct kd_state kd_state;

/*
 * Drop the enabling (or report a bad region= without one): log why, keep
 * the reason for KIO_INFO, and mark the region's enabling FAILED if a
 * region header was written.
 */
void
kd_fail(const char *fmt, ...)
{
	struct kd_state *ks = &kd_state;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ks->ks_reason, sizeof (ks->ks_reason), fmt, ap);
	va_end(ap);
	if (anon)
		atomic_set(&ks->ks_anon, KIO_ANON_FAILED);
	if (ks->ks_rgn_ready)
		rgn_set_state(ks->ks_region, RGN_STATE_FAILED);
	pr_err("kdt: %s%s\n", anon ? "anonymous enabling dropped: " : "",
	    ks->ks_reason);
}

/* Parse "SIZE@PHYS" (memparse suffixes K, M, G) into *size and *phys. */
static int
kd_parse_region(const char *s, uint64_t *size, uint64_t *phys)
{
	char *end;

	*size = memparse(s, &end);
	if (end == s || *end != '@') {
		kd_fail("kdt.region=%s: expected SIZE@PHYS, e.g. 16M@0x10000000",
		    s);
		return -EINVAL;
	}
	s = end + 1;
	*phys = memparse(s, &end);
	if (end == s || *end != '\0') {
		kd_fail("kdt.region=%s: physical address \"%s\" is not a number",
		    region, s);
		return -EINVAL;
	}
	return 0;
}

/* Where the "Reserved" entries of /proc/iomem cover [phys, next). */
struct kd_cover {
	uint64_t	kc_next;
	int		kc_gap;
};

static int
kd_cover_one(struct resource *r, void *arg)
{
	struct kd_cover *c = arg;

	if (r->start > c->kc_next)
		c->kc_gap = 1;
	if (!c->kc_gap && r->end + 1 > c->kc_next)
		c->kc_next = r->end + 1;
	return 0;
}

/*
 * memmap=SIZE$PHYS makes the range "Reserved" in /proc/iomem (e820
 * reserved).  A region that is not wholly such memory would lie on
 * device memory (PCI windows, the APIC), firmware tables or nothing.
 */
static int
kd_check_reserved(uint64_t size, uint64_t phys)
{
	struct kd_cover c = { phys, 0 };

	if (kd_boot_reserved(phys, size))	/* built in: kd_builtin.c */
		return 0;
	(void) walk_iomem_res_desc(IORES_DESC_RESERVED, IORESOURCE_MEM, phys,
	    phys + size - 1, &c, kd_cover_one);
	if (c.kc_next >= phys + size)
		return 0;
	kd_fail("kdt.region=%s: [0x%llx, 0x%llx) is not all reserved memory: from 0x%llx on it is device, firmware or absent memory, not a memmap= reservation (see /proc/iomem)",
	    region, phys, phys + size, c.kc_next);
	return -EBUSY;
}

static int
kd_check_region(uint64_t size, uint64_t phys)
{
	if (size < KD_REGION_MIN || size > KD_REGION_MAX ||
	    (size & (PAGE_SIZE - 1)) != 0) {
		kd_fail("kdt.region=%s: size 0x%llx must be a multiple of 0x%lx between 0x%llx and 0x%llx",
		    region, size, PAGE_SIZE, KD_REGION_MIN, KD_REGION_MAX);
		return -EINVAL;
	}
	if ((phys & (PAGE_SIZE - 1)) != 0 || phys + size < phys) {
		kd_fail("kdt.region=%s: address 0x%llx is not page-aligned (0x%lx) or the region wraps",
		    region, phys, PAGE_SIZE);
		return -EINVAL;
	}
	if (region_intersects(phys, size, IORESOURCE_SYSTEM_RAM,
	    IORES_DESC_NONE) != REGION_DISJOINT) {
		kd_fail("kdt.region=%s: [0x%llx, 0x%llx) overlaps System RAM; reserve it with memmap=0x%llx$0x%llx",
		    region, phys, phys + size, size, phys);
		return -EBUSY;
	}
	return kd_check_reserved(size, phys);
}

static int
kd_map_region(void)
{
	struct kd_state *ks = &kd_state;
	uint64_t size, phys;
	int rv;

	if ((rv = kd_parse_region(region, &size, &phys)) != 0 ||
	    (rv = kd_check_region(size, phys)) != 0)
		return rv;
	ks->ks_region = memremap(phys, size, MEMREMAP_WB);
	if (ks->ks_region == NULL) {
		kd_fail("kdt.region=%s: memremap of [0x%llx, 0x%llx) failed",
		    region, phys, phys + size);
		return -ENOMEM;
	}
	ks->ks_phys = phys;
	ks->ks_size = size;
	pr_info("kdt: region mapped at phys 0x%llx, 0x%llx bytes\n", phys,
	    size);
	kd_prev_save(ks->ks_region, size, phys);	/* before any write */
	return 0;
}

/*
 * Everything but /dev/kdt: watch module loads, map the region, start the
 * anonymous enabling.  Its DOF: the firmware file when "what" is NULL
 * (module mode); "dof" when not NULL (built in: the initrd trailer,
 * kd_builtin.c); when "dof" is NULL, "what" says why there is none.
 */
int __init
kd_start(const void *dof, size_t len, const char *what)
{
	int rv;

	atomic_set(&kd_state.ks_anon, KIO_ANON_NONE);
	rv = kd_mod_init();
	if (rv != 0) {
		pr_err("kdt: cannot watch module loads: error %d\n", rv);
		return rv;
	}
	/*
	 * Kernel symbols now, once (kd_ksym.c: a disabled kprobe that stays
	 * registered until unload, so no enabling adds or waits for one).
	 */
	if (kd_ksym_init() != 0)
		pr_warn("kdt: kernel symbols unavailable: fbt matches nothing and the KASLR offset is recorded as 0\n");
	if (region != NULL && region[0] != '\0')
		kd_map_region();
	/*
	 * A kdump capture kernel inherits the crashed kernel's command line,
	 * kdt.anon=1 included, and often its initramfs hook: starting the
	 * enabling would write over the very region that holds the crash's
	 * records.  So it does not start; the region stays as the crashed
	 * kernel left it, for the dump tools to save (/dev/kdt-previous
	 * offers it, kd_prev.c) and for the next boot to find.
	 */
	if (anon && is_kdump_kernel()) {
		snprintf(kd_state.ks_reason, sizeof (kd_state.ks_reason),
		    "this is a kdump capture kernel: the anonymous enabling is not started, so the crashed kernel's region stays as it was (kdt -a --previous or kdt-extract /dev/kdt-previous prints it)");
		pr_info("kdt: %s\n", kd_state.ks_reason);
		return 0;
	}
	/* A bad region= has already failed the enabling, with its reason. */
	if (anon && atomic_read(&kd_state.ks_anon) != KIO_ANON_FAILED) {
		if (what == NULL)
			kd_anon_start();
		else if (dof == NULL)
			kd_fail("%s", what);
		else
			kd_anon_start_dof(dof, len, what);
	} else if (region == NULL)
		pr_info("kdt: loaded; no region and no anonymous enabling\n");
	return 0;
}

#ifdef MODULE
static int __init
kd_init(void)
{
	int rv;

	rv = kd_dev_init();
	if (rv != 0) {
		pr_err("kdt: cannot register /dev/kdt: error %d\n", rv);
		return rv;
	}
	rv = kd_start(NULL, 0, NULL);
	if (rv != 0) {
		kd_dev_exit();
		kd_ksym_exit();
	}
	return rv;
}
module_init(kd_init);	/* built in: kd_builtin.c's initcalls instead */
#endif

static void __exit
kd_exit(void)
{
	struct kd_state *ks = &kd_state;

	kd_mod_exit();
	kd_anon_stop();
	kd_dev_exit();
	kd_prev_free();
	kd_signal_exit();
	if (ks->ks_region != NULL)
		memunmap(ks->ks_region);
	ks->ks_region = NULL;
	kd_ksym_exit();		/* last: nothing looks symbols up any more */
	pr_info("kdt: unloaded\n");
}

module_exit(kd_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kdt: D-language tracing from early boot into the crash dump");
