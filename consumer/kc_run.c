/*
 * kc_run.c -- kc_run(): choose the engine a compiled D program runs on
 * (kc_run.h has the contract; the kdt command calls it).
 *
 * Today the userspace engine (kc_engine.c) is the only one: the kernel
 * engine behind /dev/kdt arrives in a later issue.  KC_ENGINE_AUTO
 * therefore runs every program on the userspace engine, which refuses,
 * naming the probe, a program that needs kdt.ko; KC_ENGINE_KERNEL says
 * that the kernel engine is not available yet.
 */
#include <stdio.h>

#include "consumer/kc_run.h"
#include "consumer/kc_engine.h"

int
kc_run(const void *dof, uint64_t dofsz, const struct kc_run_opts *ro,
    FILE *out, FILE *err)
{
	const char *prog = ro->ro_prog != NULL ? ro->ro_prog : "kdt";

	if (ro->ro_engine == KC_ENGINE_KERNEL) {
		fprintf(err, "%s: -x engine=kernel: live tracing through kdt.ko (/dev/kdt) arrives in a later version; use -x engine=user for programs on dtrace:::BEGIN, END, ERROR and profile:::tick-*/profile-*\n",
		    prog);
		return 1;
	}
	return kc_engine_run(dof, dofsz, ro, out, err);
}
