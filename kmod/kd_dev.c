/*
 * kd_dev.c -- /dev/kdt, the consumer's door into kdt.ko (ABI in kio.h).
 *
 * A misc device, mode 0600.  KIO_INFO reports the anonymous state, the
 * reason it failed and the region; KIO_CLAIM hands the anonymous state to
 * one consumer per boot ("kdt -a"); read() and llseek() expose the region
 * image byte for byte at its own offsets, so the consumer decodes it with
 * rgn_read.c exactly as kdt-extract decodes a dump.  The misc device also
 * gives request_firmware() the struct device it wants (kd_anon.c).
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/uaccess.h>
#include <linux/compat.h>

#include "kd_impl.h"

static void
kd_fill_info(struct kio_info *ki)
{
	struct kd_state *ks = &kd_state;

	memset(ki, 0, sizeof (*ki));
	ki->ki_version = KIO_VERSION;
	ki->ki_anon = atomic_read(&ks->ks_anon);
	if (ks->ks_region != NULL) {
		ki->ki_region_phys = ks->ks_phys;
		ki->ki_region_size = ks->ks_size;
	}
	ki->ki_nprobes = ks->ks_nenabled;
	strscpy(ki->ki_reason, ks->ks_reason, sizeof (ki->ki_reason));
}

static long
kd_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct kio_info ki;
	int old;

	switch (cmd) {
	case KIO_INFO:
		kd_fill_info(&ki);
		if (copy_to_user((void __user *)arg, &ki, sizeof (ki)) != 0)
			return -EFAULT;
		return 0;
	case KIO_CLAIM:
		old = atomic_cmpxchg(&kd_state.ks_anon, KIO_ANON_ACTIVE,
		    KIO_ANON_CLAIMED);
		if (old == KIO_ANON_ACTIVE)
			return 0;
		return old == KIO_ANON_CLAIMED ? -EBUSY : -ENOENT;
	default:
		return -ENOTTY;
	}
}

static ssize_t
kd_read(struct file *f, char __user *buf, size_t len, loff_t *ppos)
{
	struct kd_state *ks = &kd_state;
	loff_t pos = *ppos;

	if (ks->ks_region == NULL || pos < 0 || (uint64_t)pos >= ks->ks_size)
		return 0;
	len = min_t(uint64_t, len, ks->ks_size - pos);
	if (copy_to_user(buf, (uint8_t *)ks->ks_region + pos, len) != 0)
		return -EFAULT;
	*ppos = pos + len;
	return len;
}

static loff_t
kd_llseek(struct file *f, loff_t off, int whence)
{
	return fixed_size_llseek(f, off, whence, kd_state.ks_size);
}

static const struct file_operations kd_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= kd_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.read		= kd_read,
	.llseek		= kd_llseek,
};

static struct miscdevice kd_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "kdt",
	.fops	= &kd_fops,
	.mode	= 0600,
};

int
kd_dev_init(void)
{
	return misc_register(&kd_misc);
}

void
kd_dev_exit(void)
{
	misc_deregister(&kd_misc);
}

struct device *
kd_dev_device(void)
{
	return kd_misc.this_device;
}
