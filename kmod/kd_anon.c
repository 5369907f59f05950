/*
 * kd_anon.c -- the anonymous enabling: set up at module load, before init.
 *
 * kd_main.c calls kd_anon_start() when kdt.anon=1.  The steps, each of
 * which may drop the enabling (kd_fail: the reason goes to the console and
 * to KIO_INFO; the boot carries on):
 *
 *   1. request_firmware("kdt/anon.dof") -- the initramfs carries it as
 *      /lib/firmware/kdt/anon.dof -- and dof_load() it (common/);
 *   2. lay out the reserved region (rgn_init) with the DOF copied in, the
 *      buffer policy from the DOF's bufpolicy option (ring when unset: the
 *      region is a flight recorder);
 *   3. allocate probe-context storage, match the ECBs and register kprobes
 *      (kd_fbt.c), record the live probes and EPIDs in the region;
 *   4. fire dtrace:::BEGIN, then let the fbt probes record.
 *
 * kd_anon_stop() undoes all of it at unload.
 */
#include <linux/firmware.h>
#include <linux/random.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>
#include <linux/cpumask.h>
#include <linux/kprobes.h>

#include "kd_impl.h"

#define KD_ANON_DOF	"kdt/anon.dof"

static uint32_t
kd_pick_policy(const struct dof_enabling *den)
{
	uint64_t v = den->den_opts[DTRACEOPT_BUFPOLICY];

	if (v == DTRACEOPT_BUFPOLICY_FILL)
		return DTRACEOPT_BUFPOLICY_FILL;
	if (v == DTRACEOPT_BUFPOLICY_SWITCH) {
		pr_info("kdt: bufpolicy=switch has no consumer to switch to in an anonymous enabling; using fill\n");
		return DTRACEOPT_BUFPOLICY_FILL;
	}
	return DTRACEOPT_BUFPOLICY_RING;
}

static int
kd_load_dof(struct dof_enabling **denp)
{
	const struct firmware *fw;
	struct kdt_err err;
	int rv;

	rv = request_firmware(&fw, KD_ANON_DOF, kd_dev_device());
	if (rv != 0) {
		kd_fail("cannot load /lib/firmware/%s: error %d", KD_ANON_DOF,
		    rv);
		return rv;
	}
	rv = dof_load(fw->data, fw->size, denp, &err);
	if (rv != 0)
		kd_fail("%s: %s (%s, offset %lld)", KD_ANON_DOF, err.ke_msg,
		    err.ke_tag, err.ke_off == KDT_ERR_NOOFF ? -1LL :
		    (long long)err.ke_off);
	else
		pr_info("kdt: DOF loaded: %s, %zu bytes, %u ECBs\n",
		    KD_ANON_DOF, fw->size, (*denp)->den_necbs);
	release_firmware(fw);
	return rv;
}

static int
kd_setup_region(const struct dof_enabling *den)
{
	struct kd_state *ks = &kd_state;
	struct rgn_params p;
	struct kdt_err err;
	int rv;

	memset(&p, 0, sizeof (p));
	p.rp_phys = ks->ks_phys;
	p.rp_ncpu = num_possible_cpus();
	p.rp_policy = ks->ks_policy;
	p.rp_kaslr = kd_ksym_kaslr();
	p.rp_created = ktime_get_real_ns();
	get_random_bytes(p.rp_bootid, sizeof (p.rp_bootid));
	p.rp_release = init_uts_ns.name.release;
	p.rp_dof = den->den_dof;
	p.rp_dofsz = den->den_dofsz;
	rv = rgn_init(ks->ks_region, ks->ks_size, &p, &err);
	if (rv != 0) {
		kd_fail("%s (region at phys 0x%llx)", err.ke_msg, ks->ks_phys);
		return rv;
	}
	ks->ks_rgn_ready = 1;
	pr_info("kdt: region initialised: %u cpus, 0x%llx buffer bytes per cpu, bufpolicy %s\n",
	    p.rp_ncpu, ((struct rgn_hdr *)ks->ks_region)->rh_bufsize,
	    ks->ks_policy == DTRACEOPT_BUFPOLICY_RING ? "ring" : "fill");
	return 0;
}

/* Record the live probes and their EPIDs in the region's tables. */
static int
kd_publish(void)
{
	struct kd_state *ks = &kd_state;
	const struct kd_probe *kp;
	struct kdt_err err;
	uint32_t i, j, nepids = 0;
	int rv = 0;

	for (i = 0; rv == 0 && i < ks->ks_nprobes; i++) {
		kp = &ks->ks_probes[i];
		if (!kp->kp_registered && kp != kd_begin_probe())
			continue;
		rv = rgn_add_probe(ks->ks_region, kp->kp_id, kp->kp_prov,
		    kp->kp_mod, kp->kp_func, kp->kp_name, &err);
		for (j = 0; rv == 0 && j < kp->kp_necbs; j++)
			rv = rgn_add_epid(ks->ks_region, kp->kp_ecbs[j].er_epid,
			    kp->kp_id, kp->kp_ecbs[j].er_ecb,
			    ks->ks_den->den_ecbs[kp->kp_ecbs[j].er_ecb].le_size,
			    &err);
		nepids += j;
	}
	ks->ks_nepids = nepids;
	if (rv != 0)
		kd_fail("%s", err.ke_msg);
	return rv;
}

static int
kd_enable(void)
{
	struct kd_state *ks = &kd_state;
	struct kd_probe *begin;
	int rv, live;

	rv = kd_match_all(ks->ks_den);
	if (rv <= 0) {
		kd_fail(rv == 0 ? "no probe description matched a probe" :
		    "probe matching failed: error %d", rv);
		return rv == 0 ? -ENOENT : rv;
	}
	live = kd_register_all();
	begin = kd_begin_probe();
	if (live == 0 && begin == NULL) {
		kd_fail("none of the %u matched probes could be enabled",
		    ks->ks_nprobes);
		return -ENOENT;
	}
	if ((rv = kd_publish()) != 0)
		return rv;
	ks->ks_nenabled = live + (begin != NULL ? 1 : 0);
	pr_info("kdt: probes enabled: %u (%u fbt, %s BEGIN), %u EPIDs\n",
	    ks->ks_nenabled, live, begin != NULL ? "with" : "no",
	    ks->ks_nepids);
	rgn_set_state(ks->ks_region, RGN_STATE_ACTIVE);
	atomic_set(&ks->ks_anon, KIO_ANON_ACTIVE);
	if (begin != NULL)
		kd_fire(begin, NULL);
	kd_probe_started();
	smp_wmb();
	WRITE_ONCE(ks->ks_active, 1);
	return 0;
}

void
kd_anon_start(void)
{
	struct kd_state *ks = &kd_state;
	int rv;

	if (ks->ks_region == NULL) {
		kd_fail("kdt.anon=1 needs a region: add kdt.region=SIZE@PHYS and memmap=SIZE$PHYS to the kernel command line");
		return;
	}
	if (kd_ksym_init() != 0)
		pr_warn("kdt: kernel symbols unavailable: fbt globs will match nothing and the KASLR offset is recorded as 0\n");
	if (kd_load_dof(&ks->ks_den) != 0)
		return;
	ks->ks_policy = kd_pick_policy(ks->ks_den);
	rv = kd_setup_region(ks->ks_den);
	if (rv == 0)
		rv = kd_probe_alloc(ks->ks_den);	/* says why on failure */
	if (rv == 0)
		rv = kd_enable();
	if (rv != 0)
		kd_anon_stop();
}

void
kd_anon_stop(void)
{
	struct kd_state *ks = &kd_state;

	WRITE_ONCE(ks->ks_active, 0);
	kd_unregister_all();
	if (ks->ks_region != NULL && ks->ks_den != NULL &&
	    atomic_read(&ks->ks_anon) != KIO_ANON_FAILED)
		rgn_set_state(ks->ks_region, RGN_STATE_STOPPED);
	kd_free_probes();
	kd_probe_free();
	if (ks->ks_den != NULL)
		dof_free(ks->ks_den);
	ks->ks_den = NULL;
}
