/*
 * kd_anon.c -- the anonymous enabling: set up at module load, before init.
 *
 * kd_main.c calls kd_anon_start() when kdt.anon=1.  The steps, each of
 * which may drop the enabling (kd_fail: the reason goes to the console and
 * to KIO_INFO; the boot carries on):
 *
 *   1. request_firmware("kdt/anon.dof") -- the initramfs carries it as
 *      /lib/firmware/kdt/anon.dof -- and dof_load() it (common/); with it,
 *      when "kdt -A" wrote them, the kernel symbol hints kdt/anon.ksym
 *      (common/ksh.h: where the fbt functions are in the kernel it was
 *      given; kd_fbt.c uses them only on that kernel, checking each
 *      address, and searches kallsyms otherwise), held until matching is
 *      over;
 *   2. make it a consumer state (kd_cs.c) whose buffers are the reserved
 *      region: match the probes (a description that matches nothing is
 *      logged, not fatal), lay out the region with the DOF copied in, the
 *      buffer policy from the DOF's bufpolicy option (ring when unset: the
 *      region is a flight recorder), arm the probes;
 *   3. fire dtrace:::BEGIN, then let the other probes record.
 *
 * Dropped (kd_fail, the boot goes on) when: the region is missing or
 * cannot be used (kd_main.c: bad kdt.region=, System RAM or other memory
 * in the way); it holds the previous boot's records that could not be
 * copied (kd_prev.c); the DOF is missing or corrupt; the region is too
 * small for the enabling's metadata and buffers; an action or probe
 * cannot be set up; or no description matched any probe at all
 * (kd_cs.c; one that matches nothing while others match is logged and
 * kept for modules that load later: retained enablings).
 *
 * "kdt -a" claims the state (kd_dev.c, KIO_CLAIM): from then on it is
 * that /dev/kdt file's state, and it ends when the file is closed.
 *
 * kd_anon_stop() undoes all of it at unload.
 */
#include <linux/firmware.h>
#include <linux/security.h>

#include "kd_impl.h"

#define KD_ANON_DOF	"kdt/anon.dof"
#define KD_ANON_KSYM	"kdt/anon.ksym"	/* kernel symbol hints, optional */

/* Load "len" bytes of DOF; 0, or -errno after kd_fail() says why. */
static int
kd_load_buf(const void *dof, size_t len, const char *what,
    struct dof_enabling **denp)
{
	struct kdt_err err;
	int rv;

	rv = dof_load(dof, len, denp, &err);
	if (rv != 0)
		kd_fail("%s: %s (%s, offset %lld)", what, err.ke_msg,
		    err.ke_tag, err.ke_off == KDT_ERR_NOOFF ? -1LL :
		    (long long)err.ke_off);
	else
		pr_info("kdt: DOF loaded: %s, %zu bytes, %u ECBs\n", what,
		    len, (*denp)->den_necbs);
	return rv;
}

static int
kd_load_dof(struct dof_enabling **denp)
{
	const struct firmware *fw;
	int rv;

	rv = request_firmware(&fw, KD_ANON_DOF, kd_dev_device());
	if (rv != 0) {
		kd_fail("cannot load /lib/firmware/%s: error %d", KD_ANON_DOF,
		    rv);
		return rv;
	}
	rv = kd_load_buf(fw->data, fw->size, KD_ANON_DOF, denp);
	release_firmware(fw);
	return rv;
}

/*
 * Steps 2 and 3 of the file comment, for either source of the DOF:
 * "dof" NULL means the firmware file.
 */
static void
kd_anon_begin(const void *dof, size_t len, const char *what)
{
	struct kd_state *ks = &kd_state;
	const struct firmware *ksh = NULL;
	struct dof_enabling *den;
	struct kd_cstate *cs;
	char why[256];
	int rv;

	/* what KIO_ENABLE refuses, the boot-time enabling refuses too */
	if (security_locked_down(LOCKDOWN_KPROBES) != 0) {
		kd_fail("the kernel is locked down for confidentiality (lockdown=confidentiality): kprobes and tracing by kdt.ko are refused");
		return;
	}
	if (ks->ks_region == NULL) {
		if (ks->ks_reason[0] == '\0')
			kd_fail("kdt.anon=1 needs a region: add kdt.region=SIZE@PHYS and memmap=SIZE$PHYS to the kernel command line");
		return;
	}
	if (kd_prev_hold(why, sizeof (why))) {
		kd_fail("%s", why);
		return;
	}
	if (kd_ksym_init() != 0)
		pr_warn("kdt: kernel symbols unavailable: fbt matches nothing and the KASLR offset is recorded as 0\n");
	if ((dof == NULL ? kd_load_dof(&den) :
	    kd_load_buf(dof, len, what, &den)) != 0)
		return;
	if ((cs = kd_cs_new()) == NULL) {
		dof_free(den);
		kd_fail("out of memory for the anonymous state");
		return;
	}
	/* no file: no message (request_firmware_direct) and no hints */
	if (dof == NULL && request_firmware_direct(&ksh, KD_ANON_KSYM,
	    kd_dev_device()) == 0)
		(void) kd_fbt_hints(ksh->data, ksh->size);
	cs->cs_anon = 1;
	ks->ks_acs = cs;
	ks->ks_rowner = cs;
	mutex_lock(&cs->cs_lock);
	rv = kd_cs_enable(cs, den, KIO_EN_ZDEFS, ks->ks_region, ks->ks_size,
	    ks->ks_phys);
	ks->ks_rgn_ready = cs->cs_rgn_init;
	if (ksh != NULL) {	/* matching is over */
		(void) kd_fbt_hints(NULL, 0);
		release_firmware(ksh);
	}
	if (rv == 0) {
		pr_info("kdt: region initialised: %u cpus, 0x%llx buffer bytes per cpu, bufpolicy %s\n",
		    cs->cs_ncpu,
		    ((struct rgn_hdr *)ks->ks_region)->rh_bufsize,
		    cs->cs_policy == DTRACEOPT_BUFPOLICY_RING ? "ring" : "fill");
		pr_info("kdt: probes enabled: %u of %u matched, %u EPIDs\n",
		    cs->cs_nlive, cs->cs_nprobes, cs->cs_npairs);
		atomic_set(&ks->ks_anon, KIO_ANON_ACTIVE);
		rv = kd_cs_go(cs);
	}
	mutex_unlock(&cs->cs_lock);
	if (rv == 0)
		kd_cs_register(cs);	/* modules that load later */
	if (rv != 0) {
		kd_fail("%s", cs->cs_msg[0] != '\0' ? cs->cs_msg :
		    "the enabling could not be started");
		kd_anon_stop();
	}
}

void
kd_anon_start(void)
{
	kd_anon_begin(NULL, 0, KD_ANON_DOF);
}

void
kd_anon_start_dof(const void *dof, size_t len, const char *what)
{
	kd_anon_begin(dof, len, what);
}

void
kd_anon_stop(void)
{
	struct kd_state *ks = &kd_state;
	struct kd_cstate *cs = ks->ks_acs;

	if (cs == NULL)
		return;
	ks->ks_acs = NULL;
	/* under cs_lock, as the module notifier works on registered states */
	mutex_lock(&cs->cs_lock);
	kd_cs_stop(cs);
	mutex_unlock(&cs->cs_lock);
	if (ks->ks_rowner == cs)
		ks->ks_rowner = NULL;
	if (atomic_read(&ks->ks_anon) == KIO_ANON_FAILED && cs->cs_rgn_init)
		rgn_set_state(cs->cs_region, RGN_STATE_FAILED);
	kd_cs_free(cs);
}
