/*
 * kd_prev.c -- the previous boot's region, kept after a warm reboot.
 *
 * Memory reserved with memmap= keeps its content across a warm reboot
 * (reboot -f, a reset, a panic with panic=N): the firmware does not clear
 * it and the kernel leaves it alone (reference/vm-recipes.md, measured).
 * So when kdt.ko maps the region at load (kd_main.c calls kd_prev_save()
 * right after memremap, before anything here writes to it) the region may
 * still hold what the previous boot recorded -- the only copy of it when
 * no dump was taken.  This boot's anonymous enabling, or a "-x region"
 * session, would overwrite it, so first:
 *
 *   1. rgn_open() the region (common/rgn_read.c, the one validator).  Not
 *      a valid region: nothing to keep (cold boot, or never written).
 *   2. rh_created earlier than this boot's start (wall clock now minus
 *      the time since boot), or a KASLR offset (rh_kaslr) other than
 *      this boot's: a previous boot wrote it.  Otherwise this boot did
 *      (kdt.ko reloaded): nothing to keep.  (The offset catches a wall
 *      clock set back between the boots, where KASLR is on.)
 *   3. Copy rh_size bytes into vmalloc'd memory, at most KIO_PREV_MAX
 *      and a quarter of RAM.  If that is refused or fails, keep the
 *      region itself: kd_prev_hold() then tells the anonymous enabling
 *      and "-x region" to leave it alone, with the reason.
 *   4. Offer the image read-only as the misc device /dev/kdt-previous
 *      (mode 0400, CAP_SYS_ADMIN): read() and llseek() over the raw
 *      region image, which kdt-extract and "kdt -a --previous" decode
 *      with the same reader as any region image (kio.h documents it).
 *      It is registered once both the image and /dev/kdt exist
 *      (kd_prev_dev_ready() from kd_dev_init()): built into the kernel,
 *      the region is mapped at a pure initcall, before the misc class.
 *
 * What was found, or why nothing was, is kept for KIO_INFO (ki_prev_*)
 * and logged once.  Nothing here can stop the module from loading.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>

#include "kd_impl.h"

static const void *kd_prev_img;	/* the copy, or the region in place */
static uint64_t kd_prev_size;
static int kd_prev_copied;	/* kd_prev_img is vmalloc'd */
static int kd_prev_inplace;	/* no copy: the region must stay as it is */
static int kd_prev_dev;		/* /dev/kdt-previous is registered */
static int kd_prev_misc_ok;	/* misc devices can be registered */
static char kd_prev_msg[256] = "kdt.ko has mapped no region";

static int
kd_prev_open(struct inode *ino, struct file *f)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (f->f_mode & FMODE_WRITE)
		return -EROFS;
	return 0;
}

static ssize_t
kd_prev_read(struct file *f, char __user *buf, size_t len, loff_t *ppos)
{
	loff_t pos = *ppos;

	if (kd_prev_img == NULL || pos < 0 || (uint64_t)pos >= kd_prev_size)
		return 0;
	len = min_t(uint64_t, len, kd_prev_size - pos);
	if (copy_to_user(buf, (const uint8_t *)kd_prev_img + pos, len) != 0)
		return -EFAULT;
	*ppos = pos + len;
	return len;
}

static loff_t
kd_prev_llseek(struct file *f, loff_t off, int whence)
{
	return fixed_size_llseek(f, off, whence, kd_prev_size);
}

static const struct file_operations kd_prev_fops = {
	.owner		= THIS_MODULE,
	.open		= kd_prev_open,
	.read		= kd_prev_read,
	.llseek		= kd_prev_llseek,
};

static struct miscdevice kd_prev_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "kdt-previous",
	.fops	= &kd_prev_fops,
	.mode	= 0400,
};

/* Steps 1 and 2: the previous boot's valid region image, else NULL. */
static const struct rgn_hdr *
kd_prev_find(void *region, uint64_t size, uint64_t phys)
{
	uint64_t boot = ktime_get_real_ns() - ktime_get_boottime_ns();
	const struct rgn_hdr *h = region;
	struct rgn_view v;
	struct kdt_err err;

	if (!rgn_probe_hdr(region, size)) {
		snprintf(kd_prev_msg, sizeof (kd_prev_msg),
		    "the region at phys 0x%llx holds no kdt region header (cold boot, or never written)",
		    phys);
		return NULL;
	}
	if (rgn_open(&v, region, size, phys, &err) != 0) {
		snprintf(kd_prev_msg, sizeof (kd_prev_msg),
		    "the region at phys 0x%llx holds a kdt region that is not valid, not kept: %s",
		    phys, err.ke_msg);
		return NULL;
	}
	if (h->rh_created >= boot &&
	    (kd_ksym_init() != 0 || h->rh_kaslr == kd_ksym_kaslr())) {
		snprintf(kd_prev_msg, sizeof (kd_prev_msg),
		    "the region at phys 0x%llx was written by this boot (created %llu s after it began), not by a previous one",
		    phys, (h->rh_created - boot) / NSEC_PER_SEC);
		return NULL;
	}
	return h;
}

/* Register /dev/kdt-previous once there is an image and misc is up. */
static void
kd_prev_register(void)
{
	int rv;

	if (kd_prev_img == NULL || !kd_prev_misc_ok || kd_prev_dev)
		return;
	rv = misc_register(&kd_prev_misc);
	if (rv != 0)
		pr_warn("kdt: cannot register %s: error %d\n", KIO_PREV_DEV,
		    rv);
	else
		kd_prev_dev = 1;
}

void
kd_prev_dev_ready(void)
{
	kd_prev_misc_ok = 1;
	kd_prev_register();
}

void
kd_prev_save(void *region, uint64_t size, uint64_t phys)
{
	uint64_t limit = ((uint64_t)totalram_pages() << PAGE_SHIFT) / 4;
	const struct rgn_hdr *h = kd_prev_find(region, size, phys);
	uint64_t n, age;
	void *copy = NULL;

	if (h == NULL) {
		pr_info("kdt: no previous boot's region: %s\n", kd_prev_msg);
		return;
	}
	n = h->rh_size;		/* rgn_open checked it is <= size */
	age = (ktime_get_real_ns() - h->rh_created) / NSEC_PER_SEC;
	if (limit > KIO_PREV_MAX)
		limit = KIO_PREV_MAX;
	if (n <= limit)
		copy = __vmalloc(n, GFP_KERNEL | __GFP_NOWARN);
	if (copy != NULL) {
		memcpy(copy, region, n);
		kd_prev_img = copy;
		kd_prev_copied = 1;
		snprintf(kd_prev_msg, sizeof (kd_prev_msg),
		    "the previous boot's region (0x%llx bytes from phys 0x%llx, kernel %.65s, written %llu s ago) is kept as %s",
		    n, phys, h->rh_release, age, KIO_PREV_DEV);
	} else {
		kd_prev_img = region;
		kd_prev_inplace = 1;
		snprintf(kd_prev_msg, sizeof (kd_prev_msg),
		    "the previous boot's region (0x%llx bytes at phys 0x%llx) cannot be copied (limit 0x%llx bytes, or no memory): it is left in place as %s and this boot will not record into it",
		    n, phys, limit, KIO_PREV_DEV);
	}
	kd_prev_size = n;
	pr_info("kdt: %s\n", kd_prev_msg);
	kd_prev_register();
}

int
kd_prev_hold(char *why, size_t len)
{
	if (!kd_prev_inplace)
		return 0;
	snprintf(why, len, "%s", kd_prev_msg);
	return 1;
}

void
kd_prev_info(struct kio_info *ki)
{
	ki->ki_prev_size = kd_prev_img != NULL ? kd_prev_size : 0;
	strscpy(ki->ki_prev_msg, kd_prev_msg, sizeof (ki->ki_prev_msg));
}

void
kd_prev_free(void)
{
	if (kd_prev_dev)
		misc_deregister(&kd_prev_misc);
	kd_prev_dev = 0;
	if (kd_prev_copied)
		vfree(kd_prev_img);
	kd_prev_img = NULL;
	kd_prev_copied = kd_prev_inplace = 0;
	kd_prev_size = 0;
}
