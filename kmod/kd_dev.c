/*
 * kd_dev.c -- /dev/kdt, the consumer's door into kdt.ko (ABI in kio.h).
 *
 * A misc device, mode 0600, and open() also wants CAP_SYS_ADMIN: a
 * consumer runs D in the kernel and reads kernel memory.  Each open file
 * may hold one consumer state (kd_cs.c): a live one made by KIO_ENABLE,
 * or the anonymous one taken over by KIO_CLAIM; either is stopped and
 * freed at close (kio.h).  KIO_INFO describes the anonymous state.  read()
 * and llseek() expose the file's region image byte for byte at its own
 * offsets -- the live state's buffers once enabled, else the reserved
 * region -- so the consumer decodes it with rgn_read.c exactly as
 * kdt-extract decodes a dump.  The misc device also gives
 * request_firmware() the struct device it wants (kd_anon.c).
 *
 * Every ioctl of a live state runs under its cs_lock; the file's state
 * pointer is set once, under kd_dev_lock.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/uaccess.h>
#include <linux/compat.h>
#include <linux/capability.h>
#include <linux/security.h>
#include <linux/vmalloc.h>

#include "kd_impl.h"

static DEFINE_MUTEX(kd_dev_lock);

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
	mutex_lock(&kd_dev_lock);
	ki->ki_nprobes = ks->ks_acs != NULL ? ks->ks_acs->cs_nlive : 0;
	ki->ki_claim_pid = ks->ks_claim_pid;
	strscpy(ki->ki_reason, ks->ks_reason, sizeof (ki->ki_reason));
	mutex_unlock(&kd_dev_lock);
	kd_prev_info(ki);
}

static int
kd_open(struct inode *ino, struct file *f)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	f->private_data = NULL;
	return 0;
}

static int
kd_release(struct inode *ino, struct file *f)
{
	struct kd_state *ks = &kd_state;
	struct kd_cstate *cs = f->private_data;

	f->private_data = NULL;
	if (cs != NULL && cs->cs_anon) {
		/* the claimed state ends with its consumer (kio.h) */
		mutex_lock(&kd_dev_lock);
		if (ks->ks_acs == cs)
			ks->ks_acs = NULL;
		snprintf(ks->ks_reason, sizeof (ks->ks_reason),
		    "it was claimed by pid %u and ended when that process closed /dev/kdt; the region keeps its records",
		    ks->ks_claim_pid);
		mutex_unlock(&kd_dev_lock);
		pr_info("kdt: the anonymous state claimed by pid %u has ended\n",
		    ks->ks_claim_pid);
	}
	kd_cs_free(cs);		/* stopped: nothing writes its region now */
	mutex_lock(&kd_dev_lock);
	if (cs != NULL && ks->ks_rowner == cs)
		ks->ks_rowner = NULL;	/* the data stays there */
	mutex_unlock(&kd_dev_lock);
	return 0;
}

/*
 * -x region: may this state have the reserved region?  Called with
 * kd_dev_lock held.  0, or -errno with the reason in ken_msg.
 */
static int
kd_take_region(struct kd_cstate *cs, struct kio_enable *ken,
    const struct dof_enabling *den)
{
	struct kd_state *ks = &kd_state;

	if (ks->ks_region == NULL) {
		snprintf(ken->ken_msg, sizeof (ken->ken_msg),
		    "-x region: kdt.ko has no reserved region; boot with memmap=SIZE$PHYS and load kdt.ko with region=SIZE@PHYS (kdt.region= on the kernel command line)");
		return -ENODEV;
	}
	if (kd_prev_hold(ken->ken_msg, sizeof (ken->ken_msg)))
		return -EBUSY;
	if (ks->ks_rowner != NULL) {
		snprintf(ken->ken_msg, sizeof (ken->ken_msg),
		    "-x region: the reserved region at phys 0x%llx is in use by %s",
		    ks->ks_phys, ks->ks_rowner->cs_anon ?
		    "the anonymous enabling" : "another consumer");
		return -EBUSY;
	}
	if (den->den_opts[DTRACEOPT_BUFPOLICY] == DTRACEOPT_BUFPOLICY_SWITCH) {
		snprintf(ken->ken_msg, sizeof (ken->ken_msg),
		    "-x region: bufpolicy=switch needs buffers outside the region; use ring (the default there) or fill");
		return -EINVAL;
	}
	cs->cs_inregion = 1;
	ks->ks_rowner = cs;
	return 0;
}

/* Take over the consumer's table of resolved user-space probes. */
static int
kd_uprobes_in(struct kd_cstate *cs, struct kio_enable *ken)
{
	struct kio_uprobe *ents;
	uint32_t i;
	int rv;

	if (ken->ken_nuprobes > KIO_UPROBES_MAX) {
		snprintf(ken->ken_msg, sizeof (ken->ken_msg),
		    "%u user-space probes exceed the limit of %u",
		    ken->ken_nuprobes, KIO_UPROBES_MAX);
		return -E2BIG;
	}
	ents = vmemdup_user(u64_to_user_ptr(ken->ken_uprobes),
	    (size_t)ken->ken_nuprobes * sizeof (*ents));
	if (IS_ERR(ents))
		return PTR_ERR(ents);
	for (i = 0; i < ken->ken_nuprobes; i++) {
		/* untrusted strings: terminate them */
		ents[i].ku_path[sizeof (ents[i].ku_path) - 1] = '\0';
		ents[i].ku_prov[sizeof (ents[i].ku_prov) - 1] = '\0';
		ents[i].ku_mod[sizeof (ents[i].ku_mod) - 1] = '\0';
		ents[i].ku_func[sizeof (ents[i].ku_func) - 1] = '\0';
		ents[i].ku_name[sizeof (ents[i].ku_name) - 1] = '\0';
		if (ents[i].ku_nargs > KIO_UP_NARGS)
			ents[i].ku_nargs = KIO_UP_NARGS;
	}
	if ((rv = kd_pid_set_table(cs, ents, ken->ken_nuprobes)) != 0)
		kvfree(ents);
	return rv;
}

/*
 * KIO_ENABLE's and KIO_REHEARSE's DOF: refused under lockdown, copied in
 * and loaded (its loading timed into *load_ns).  0 with *denp, or -errno
 * with msg[256] saying why.
 */
static int
kd_dof_in(uint64_t uaddr, uint64_t size, struct dof_enabling **denp,
    char *msg, u64 *load_ns)
{
	struct kdt_err err;
	void *dof;
	u64 t0;
	int rv;

	if (security_locked_down(LOCKDOWN_KPROBES) != 0) {
		snprintf(msg, 256,
		    "the kernel is locked down for confidentiality (lockdown=confidentiality): kprobes and tracing by kdt.ko are refused");
		return -EPERM;
	}
	if (size == 0 || size > DOF_MAX_SIZE) {
		snprintf(msg, 256,
		    "DOF of %llu bytes: the size must be between 1 and %u bytes",
		    size, DOF_MAX_SIZE);
		return -E2BIG;
	}
	dof = vmemdup_user(u64_to_user_ptr(uaddr), size);
	if (IS_ERR(dof))
		return PTR_ERR(dof);
	t0 = ktime_get_ns();
	rv = dof_load(dof, size, denp, &err);
	*load_ns = ktime_get_ns() - t0;
	kvfree(dof);
	if (rv != 0)
		snprintf(msg, 256, "DOF: %s (%s, offset %lld)", err.ke_msg,
		    err.ke_tag, err.ke_off == KDT_ERR_NOOFF ? -1LL :
		    (long long)err.ke_off);
	return rv;
}

/* KIO_ENABLE: load the DOF and make this file's consumer state. */
static int
kd_enable(struct file *f, struct kio_enable *ken)
{
	struct dof_enabling *den = NULL;
	struct kd_cstate *cs;
	u64 load_ns;
	int rv;

	BUILD_BUG_ON(sizeof (ken->ken_msg) != 256);
	ken->ken_badecb = ~0U;
	ken->ken_msg[0] = '\0';
	rv = kd_dof_in(ken->ken_dof, ken->ken_dofsz, &den, ken->ken_msg,
	    &load_ns);
	if (rv != 0)
		return rv;
	if (kd_ksym_init() != 0)
		pr_warn("kdt: kernel symbols unavailable: fbt matches nothing\n");
	if ((cs = kd_cs_new()) == NULL) {
		dof_free(den);
		return -ENOMEM;
	}
	mutex_lock(&kd_dev_lock);
	if (f->private_data != NULL) {
		mutex_unlock(&kd_dev_lock);
		kd_cs_free(cs);
		dof_free(den);
		snprintf(ken->ken_msg, sizeof (ken->ken_msg),
		    "this /dev/kdt file already has an enabling; open it again for another");
		return -EBUSY;
	}
	cs->cs_den = den;	/* freed with cs from here on */
	if (ken->ken_nuprobes != 0 && (rv = kd_uprobes_in(cs, ken)) != 0) {
		mutex_unlock(&kd_dev_lock);
		kd_cs_free(cs);
		return rv;
	}
	if ((ken->ken_flags & KIO_EN_REGION) &&
	    (rv = kd_take_region(cs, ken, den)) != 0) {
		mutex_unlock(&kd_dev_lock);
		kd_cs_free(cs);
		return rv;
	}
	mutex_lock(&cs->cs_lock);
	rv = kd_cs_enable(cs, den, ken->ken_flags &
	    (KIO_EN_DESTRUCTIVE | KIO_EN_ZDEFS),
	    cs->cs_inregion ? kd_state.ks_region : NULL,
	    cs->cs_inregion ? kd_state.ks_size : 0,
	    cs->cs_inregion ? kd_state.ks_phys : 0);
	if (rv == 0) {
		ken->ken_ncpu = cs->cs_ncpu;
		ken->ken_rgnsize = cs->cs_rgnsize;
		ken->ken_aggsize = cs->cs_aggsize;
		ken->ken_nprobes = cs->cs_nlive;
		ken->ken_nmatched = cs->cs_npairs;
		ken->ken_policy = cs->cs_policy;
		ken->ken_resized = cs->cs_resized;
		f->private_data = cs;
	} else if (rv == -ENOENT) {
		ken->ken_badecb = cs->cs_badecb;
	}
	strscpy(ken->ken_msg, cs->cs_msg, sizeof (ken->ken_msg));
	mutex_unlock(&cs->cs_lock);
	if (rv != 0 && kd_state.ks_rowner == cs)
		kd_state.ks_rowner = NULL;
	mutex_unlock(&kd_dev_lock);
	if (rv != 0)
		kd_cs_free(cs);		/* frees den too */
	else
		kd_cs_register(cs);
	return rv;
}

/*
 * KIO_REHEARSE (kio.h): the anonymous state's path, on a scratch state
 * and a vmalloc'd region, measured, then stopped and freed.  Under
 * kd_dev_lock, as KIO_ENABLE: the kernel symbol hints are global
 * (kd_fbt_hints) while it matches, and no live enabling matches
 * meanwhile.  The anonymous start at load (kd_anon.c) does not take the
 * lock; a rehearsal racing it in that moment can only make one of the
 * two search kallsyms for names the other's hints had: the hints are
 * read under kd_fbt_hlock only, and every hinted address is checked.
 * 0, or -errno with kr_msg saying why.
 */
static int
kd_rehearse(struct kio_rehearse *kr)
{
	const uint64_t limit = kd_buf_limit();
	struct dof_enabling *den = NULL;
	struct kd_cstate *cs = NULL;
	void *ksh = NULL, *region = NULL;
	u64 t0;
	int rv;

	BUILD_BUG_ON(sizeof (kr->kr_msg) != 256);
	kr->kr_badecb = ~0U;
	kr->kr_msg[0] = '\0';
	kr->kr_load_ns = kr->kr_arm_ns = kr->kr_ftrace_ns = 0;
	kr->kr_nfuncs = kr->kr_nprobes = kr->kr_nmatched = 0;
	if (kr->kr_kshsz > KIO_REHEARSE_KSHMAX ||
	    (kr->kr_kshsz != 0) != (kr->kr_ksh != 0)) {
		snprintf(kr->kr_msg, sizeof (kr->kr_msg),
		    "kernel symbol hints of %llu bytes at 0x%llx: give both an address and a size of at most %llu bytes, or neither",
		    kr->kr_kshsz, kr->kr_ksh, KIO_REHEARSE_KSHMAX);
		return -EINVAL;
	}
	if (kr->kr_rgnsize < KIO_REHEARSE_RGNMIN || kr->kr_rgnsize > limit) {
		snprintf(kr->kr_msg, sizeof (kr->kr_msg),
		    "region of %llu bytes: the size must be between %llu bytes and a quarter of memory, %llu bytes",
		    kr->kr_rgnsize, KIO_REHEARSE_RGNMIN, limit);
		return -E2BIG;
	}
	rv = kd_dof_in(kr->kr_dof, kr->kr_dofsz, &den, kr->kr_msg,
	    &kr->kr_load_ns);
	if (rv != 0)
		return rv;
	if (kr->kr_kshsz != 0) {
		ksh = vmemdup_user(u64_to_user_ptr(kr->kr_ksh), kr->kr_kshsz);
		if (IS_ERR(ksh)) {
			dof_free(den);
			return PTR_ERR(ksh);
		}
	}
	/* zeroed as the reserved region's bytes are not: not timed */
	region = vzalloc(kr->kr_rgnsize);
	cs = kd_cs_new();
	if (region == NULL || cs == NULL) {
		snprintf(kr->kr_msg, sizeof (kr->kr_msg),
		    "out of memory for a %llu-byte region", kr->kr_rgnsize);
		vfree(region);
		kd_cs_free(cs);
		kvfree(ksh);
		dof_free(den);
		return -ENOMEM;
	}
	if (kd_ksym_init() != 0)
		pr_warn("kdt: kernel symbols unavailable: fbt matches nothing\n");
	cs->cs_anon = 1;
	cs->cs_rehearse = 1;
	cs->cs_den = den;	/* freed with cs from here on */
	cs->cs_region = region;
	cs->cs_rgn_owned = 1;	/* ... and so is the region */
	mutex_lock(&kd_dev_lock);
	if (ksh != NULL)
		(void) kd_fbt_hints(ksh, kr->kr_kshsz);
	mutex_lock(&cs->cs_lock);
	t0 = ktime_get_ns();
	rv = kd_cs_enable(cs, den, KIO_EN_ZDEFS, region, kr->kr_rgnsize, 0);
	kr->kr_arm_ns = ktime_get_ns() - t0;
	if (ksh != NULL)
		(void) kd_fbt_hints(NULL, 0);	/* matching is over */
	kr->kr_nprobes = cs->cs_nlive;
	kr->kr_nmatched = cs->cs_npairs;
	kr->kr_nfuncs = cs->cs_ftrace_n;
	kr->kr_ftrace_ns = cs->cs_ftrace_ns;
	if (rv == -ENOENT)
		kr->kr_badecb = cs->cs_badecb;
	strscpy(kr->kr_msg, cs->cs_msg, sizeof (kr->kr_msg));
	kd_cs_stop(cs);
	mutex_unlock(&cs->cs_lock);
	mutex_unlock(&kd_dev_lock);
	kd_cs_free(cs);		/* the DOF's enabling and the region too */
	kvfree(ksh);
	if (rv == 0)
		pr_info("kdt: rehearsed an anonymous enabling (kdt -A --estimate): %u probes armed in %llu ns, then stopped\n",
		    kr->kr_nprobes, kr->kr_arm_ns);
	return rv;
}

/*
 * KIO_CLAIM: the anonymous state becomes this file's consumer state
 * (kio.h).  0, or -errno with kc_msg (and kc_pid for -EBUSY) filled.
 */
static int
kd_claim(struct file *f, struct kio_claim *kc)
{
	struct kd_state *ks = &kd_state;
	struct kd_cstate *cs;
	int rv;

	memset(kc, 0, sizeof (*kc));
	mutex_lock(&kd_dev_lock);
	cs = ks->ks_acs;
	if (f->private_data != NULL) {
		snprintf(kc->kc_msg, sizeof (kc->kc_msg),
		    "this /dev/kdt file already has an enabling; open it again to claim");
		rv = -EBUSY;
	} else if (atomic_read(&ks->ks_anon) == KIO_ANON_CLAIMED) {
		kc->kc_pid = ks->ks_claim_pid;
		snprintf(kc->kc_msg, sizeof (kc->kc_msg),
		    "the anonymous state is already claimed by pid %u%s",
		    ks->ks_claim_pid,
		    cs == NULL ? ", which has since ended it" : "");
		rv = -EBUSY;
	} else if (atomic_read(&ks->ks_anon) != KIO_ANON_ACTIVE ||
	    cs == NULL) {
		strscpy(kc->kc_msg, ks->ks_reason, sizeof (kc->kc_msg));
		rv = -ENOENT;
	} else {
		mutex_lock(&cs->cs_lock);
		rv = kd_cs_claim(cs);
		if (rv == 0) {
			kc->kc_ncpu = cs->cs_ncpu;
			kc->kc_policy = cs->cs_policy;
			kc->kc_rgnsize = cs->cs_rgnsize;
			kc->kc_aggsize = cs->cs_aggsize;
			kc->kc_nprobes = cs->cs_nlive;
			kc->kc_nmatched = cs->cs_npairs;
			ks->ks_claim_pid = task_tgid_nr(current);
			atomic_set(&ks->ks_anon, KIO_ANON_CLAIMED);
			WRITE_ONCE(f->private_data, cs);
		} else {
			strscpy(kc->kc_msg, cs->cs_msg, sizeof (kc->kc_msg));
		}
		mutex_unlock(&cs->cs_lock);
	}
	mutex_unlock(&kd_dev_lock);
	if (rv == 0)
		pr_info("kdt: the anonymous state is claimed by pid %u (%s)\n",
		    ks->ks_claim_pid, current->comm);
	return rv;
}

static long
kd_ioctl_cs(struct file *f, unsigned int cmd, void __user *uarg)
{
	struct kd_cstate *cs = f->private_data;
	struct kio_status st;
	struct kio_snap ks;
	struct kio_aggtot kt;
	int rv;

	if (cs == NULL)
		return -ENXIO;
	WRITE_ONCE(cs->cs_heard, jiffies);
	mutex_lock(&cs->cs_lock);
	switch (cmd) {
	case KIO_GO:
		rv = kd_cs_go(cs);
		break;
	case KIO_STOP:
		kd_cs_stop(cs);
		rv = 0;
		break;
	case KIO_SNAP:
		rv = -EFAULT;
		if (copy_from_user(&ks, uarg, sizeof (ks)) != 0)
			break;
		rv = kd_cs_snap(cs, &ks);
		if (copy_to_user(uarg, &ks, sizeof (ks)) != 0)
			rv = -EFAULT;
		break;
	case KIO_STATUS:
		kd_cs_status(cs, &st);
		rv = copy_to_user(uarg, &st, sizeof (st)) != 0 ? -EFAULT : 0;
		break;
	case KIO_AGGTOT:
		rv = -EFAULT;
		if (copy_from_user(&kt, uarg, sizeof (kt)) != 0)
			break;
		rv = kd_cs_aggtot(cs, &kt);
		if (copy_to_user(uarg, &kt, sizeof (kt)) != 0)
			rv = -EFAULT;
		break;
	default:
		rv = -ENOTTY;
	}
	mutex_unlock(&cs->cs_lock);
	return rv;
}

static long
kd_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct kio_enable *ken;
	struct kio_list kl;
	union {			/* one at a time: keep the frame small */
		struct kio_info ki;
		struct kio_claim kc;
		struct rgn_probe rp;
	} *u;
	int rv;

	switch (cmd) {
	case KIO_INFO:
	case KIO_CLAIM:
		u = kzalloc(sizeof (*u), GFP_KERNEL);
		if (u == NULL)
			return -ENOMEM;
		if (cmd == KIO_INFO) {
			kd_fill_info(&u->ki);
			rv = 0;
			if (copy_to_user(uarg, &u->ki, sizeof (u->ki)) != 0)
				rv = -EFAULT;
		} else {
			rv = kd_claim(f, &u->kc);
			if (copy_to_user(uarg, &u->kc, sizeof (u->kc)) != 0)
				rv = -EFAULT;
		}
		kfree(u);
		return rv;
	case KIO_PROBE:
		u = kzalloc(sizeof (*u), GFP_KERNEL);
		if (u == NULL)
			return -ENOMEM;
		rv = -EFAULT;
		if (copy_from_user(&u->rp, uarg, sizeof (u->rp)) == 0) {
			rv = kd_probe_byid(&u->rp);
			if (rv == 0 &&
			    copy_to_user(uarg, &u->rp, sizeof (u->rp)) != 0)
				rv = -EFAULT;
		}
		kfree(u);
		return rv;
	case KIO_ENABLE:
		ken = kmalloc(sizeof (*ken), GFP_KERNEL);
		if (ken == NULL)
			return -ENOMEM;
		if (copy_from_user(ken, uarg, sizeof (*ken)) != 0) {
			kfree(ken);
			return -EFAULT;
		}
		rv = kd_enable(f, ken);
		if (copy_to_user(uarg, ken, sizeof (*ken)) != 0)
			rv = -EFAULT;
		kfree(ken);
		return rv;
	case KIO_REHEARSE: {
		struct kio_rehearse *kr = kmalloc(sizeof (*kr), GFP_KERNEL);

		if (kr == NULL)
			return -ENOMEM;
		if (copy_from_user(kr, uarg, sizeof (*kr)) != 0) {
			kfree(kr);
			return -EFAULT;
		}
		rv = kd_rehearse(kr);
		if (copy_to_user(uarg, kr, sizeof (*kr)) != 0)
			rv = -EFAULT;
		kfree(kr);
		return rv;
	}
	case KIO_LIST:
		if (copy_from_user(&kl, uarg, sizeof (kl)) != 0)
			return -EFAULT;
		rv = kd_cs_list(&kl, u64_to_user_ptr(kl.kl_buf));
		if (copy_to_user(uarg, &kl, sizeof (kl)) != 0)
			return -EFAULT;
		return rv;
	case KIO_GO:
	case KIO_STOP:
	case KIO_SNAP:
	case KIO_STATUS:
	case KIO_AGGTOT:
		return kd_ioctl_cs(f, cmd, uarg);
	default:
		return -ENOTTY;
	}
}

/* The image this file reads: its live state's region, or the reserved. */
static void *
kd_image(struct file *f, uint64_t *size)
{
	struct kd_cstate *cs = READ_ONCE(f->private_data);

	if (cs != NULL) {
		*size = cs->cs_rgnsize;
		return cs->cs_region;
	}
	*size = kd_state.ks_region != NULL ? kd_state.ks_size : 0;
	return kd_state.ks_region;
}

static ssize_t
kd_read(struct file *f, char __user *buf, size_t len, loff_t *ppos)
{
	loff_t pos = *ppos;
	uint64_t size;
	void *img = kd_image(f, &size);

	if (img == NULL || pos < 0 || (uint64_t)pos >= size)
		return 0;
	len = min_t(uint64_t, len, size - pos);
	if (copy_to_user(buf, (uint8_t *)img + pos, len) != 0)
		return -EFAULT;
	*ppos = pos + len;
	return len;
}

static loff_t
kd_llseek(struct file *f, loff_t off, int whence)
{
	uint64_t size;

	(void) kd_image(f, &size);
	return fixed_size_llseek(f, off, whence, size);
}

static const struct file_operations kd_fops = {
	.owner		= THIS_MODULE,
	.open		= kd_open,
	.release	= kd_release,
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
	int rv = misc_register(&kd_misc);

	if (rv == 0)
		kd_prev_dev_ready();	/* /dev/kdt-previous may follow */
	return rv;
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
