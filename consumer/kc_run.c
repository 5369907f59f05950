/*
 * kc_run.c -- kc_run(): choose the engine a compiled D program runs on
 * (kc_run.h has the contract; the kdt command calls it).
 *
 * KC_ENGINE_AUTO runs every program on kdt.ko (kc_kernel.c) when
 * /dev/kdt exists, as dtrace(1) would; without it, on the userspace
 * engine (kc_engine.c), which provides dtrace:::BEGIN, END, ERROR and the
 * profile timers -- a program naming any other probe is refused with one
 * line saying that kdt.ko is not loaded.  -x engine=kernel insists on
 * kdt.ko, -x engine=user on the userspace engine.
 */
#include <stdio.h>

#include "common/dof_load.h"
#include "consumer/kc_run.h"
#include "consumer/kc_proc.h"
#include "consumer/kc_engine.h"
#include "consumer/kc_kernel.h"

/*
 * AUTO without /dev/kdt: can the userspace engine run the program?  1,
 * or 0 after saying which probe needs kdt.ko.  A DOF that does not load
 * is left to the engine, which reports it.
 */
static int
kc_run_user_ok(const void *dof, uint64_t dofsz, const char *prog,
    FILE *err)
{
	struct dof_enabling *den;
	struct kdt_err ke;
	char bad[DOF_PROVNAMELEN + DOF_MODNAMELEN + DOF_FUNCNAMELEN +
	    DOF_NAMELEN + 4];
	int ok;

	if (dof_load(dof, dofsz, &den, &ke) != 0)
		return 1;
	ok = kc_engine_can_run(den, bad, sizeof (bad));
	dof_free(den);
	if (!ok)
		fprintf(err, "%s: probe description %s needs kdt.ko, which is not loaded (no %s)\n",
		    prog, bad, KC_DEV);
	return ok;
}

int
kc_run(const void *dof, uint64_t dofsz, const struct kc_run_opts *ro,
    FILE *out, FILE *err)
{
	const char *prog = ro->ro_prog != NULL ? ro->ro_prog : "kdt";

	if (ro->ro_region && (ro->ro_engine == KC_ENGINE_USER ||
	    !kc_dev_present())) {
		fprintf(err, "%s: -x region: the buffers would be in kdt.ko's reserved region, but %s\n",
		    prog, ro->ro_engine == KC_ENGINE_USER ?
		    "-x engine=user runs in this process" :
		    "kdt.ko is not loaded (no " KC_DEV ")");
		return 1;
	}
	if (ro->ro_procs != NULL && ro->ro_procs->ps_n != 0 &&
	    (ro->ro_engine == KC_ENGINE_USER || !kc_dev_present())) {
		fprintf(err, "%s: -c and -p need kdt.ko (%s): %s\n", prog,
		    KC_DEV, ro->ro_engine == KC_ENGINE_USER ?
		    "-x engine=user runs no process" : "it is not loaded");
		return 1;
	}
	switch (ro->ro_engine) {
	case KC_ENGINE_USER:
		return kc_engine_run(dof, dofsz, ro, out, err);
	case KC_ENGINE_KERNEL:
		if (!kc_dev_present()) {
			fprintf(err, "%s: -x engine=kernel: %s: kdt.ko is not loaded\n",
			    prog, KC_DEV);
			return 1;
		}
		return kc_kernel_run(dof, dofsz, ro, out, err);
	}
	if (kc_dev_present())
		return kc_kernel_run(dof, dofsz, ro, out, err);
	if (!kc_run_user_ok(dof, dofsz, prog, err))
		return 1;
	return kc_engine_run(dof, dofsz, ro, out, err);
}
