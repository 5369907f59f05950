/*
 * kc_run.h -- running a compiled D program: the entry the kdt command uses
 * when it is asked neither to only compile (-e, -S), nor to write an
 * anonymous enabling (-A), nor to claim one (-a).
 *
 * kc_run() takes the DOF the compiler produced and runs it on an engine:
 * the kernel engine (consumer/kc_kernel.c: kdt.ko through /dev/kdt, every
 * provider) or the userspace engine (consumer/kc_engine.c: BEGIN, END,
 * ERROR, tick-N and profile-N probes run in-process on the same common/
 * validator, emulator, record, aggregation and speculation code kdt.ko
 * uses).  KC_ENGINE_AUTO takes the kernel engine when /dev/kdt exists and
 * the userspace one otherwise.  It prints exactly what dtrace(1) would
 * (records as they are consumed, then the aggregations), reports drops and
 * errors on "err", and returns the exit status dtrace would: the value
 * given to exit(), 0 by default, 1 when the program cannot run (e.g. a
 * probe the chosen engine does not provide, named in the message).
 */
#ifndef KDT_KC_RUN_H
#define KDT_KC_RUN_H

#include <stdio.h>
#include <stdint.h>

struct kc_procs;

#define KC_ENGINE_AUTO		0	/* kernel if /dev/kdt exists, else user */
#define KC_ENGINE_USER		1	/* -x engine=user */
#define KC_ENGINE_KERNEL	2	/* -x engine=kernel */

struct kc_run_opts {
	const char	*ro_prog;	/* program name for messages ("kdt") */
	const char	*ro_input;	/* the script as named on the command
					   line, for "script 'x.d' matched N
					   probes" and error messages */
	uint32_t	ro_engine;	/* KC_ENGINE_* */
	uint32_t	ro_quiet;	/* -q given (the DOF may also say so) */
	uint32_t	ro_destructive;	/* -w given */
	uint32_t	ro_is_script;	/* 1: -s file, 0: -n description */
	uint32_t	ro_region;	/* -x region: buffers in the reserved
					   region (kernel engine only) */
	uint32_t	ro_zdefs;	/* -Z given: descriptions may match
					   no probe (the kernel engine's
					   KIO_EN_ZDEFS) */
	const char	*ro_spec;	/* -n/-P/-m/-f: the first probe
					   specifier whole, as given, for
					   dtrace's "invalid probe specifier"
					   message; NULL for -s */
	struct kc_procs	*ro_procs;	/* -c/-p processes (kc_proc.h), or
					   NULL: the kernel engine resolves
					   their probes, lets the -c ones
					   run after KIO_GO and stops when
					   all have exited */
};

int kc_run(const void *dof, uint64_t dofsz, const struct kc_run_opts *ro,
    FILE *out, FILE *err);

#endif /* KDT_KC_RUN_H */
