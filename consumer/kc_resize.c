/*
 * kc_resize.c -- fitting dynvarsize to a limit and saying what
 * bufresize=auto lowered (kc_resize.h has the rule).
 *
 * kc_dynvar_fit() is arithmetic only: it asks dif_vstate_size() what the
 * variable state of the enabling costs for a candidate dynvarsize and
 * halves the candidate while that is over the limit.  Whether the memory
 * can then be had is the caller's business (the userspace engine halves
 * again when ecb_create() cannot allocate it, as kdt.ko does).
 */
#include <stdio.h>
#include <string.h>

#include "common/dof.h"
#include "common/dof_load.h"
#include "common/dif_vm.h"
#include "consumer/kc_fmt.h"
#include "consumer/kc_resize.h"

#define KC_BUFRESIZE_MANUAL	1	/* compiler/dc_opt.c's value */

int
kc_resize_manual(const struct dof_enabling *den)
{
	return den->den_opts[DTRACEOPT_BUFRESIZE] == KC_BUFRESIZE_MANUAL;
}

/* The variable state's bytes for "dyn", or ~0 when that overflows. */
static uint64_t
kc_vstate_bytes(const struct dof_enabling *den, uint64_t dyn)
{
	uint64_t fixed = dif_vstate_size(den, 0);
	uint64_t all = dif_vstate_size(den, dyn);

	return all < fixed ? ~0ULL : all;
}

int
kc_dynvar_fit(const struct dof_enabling *den, uint64_t want, uint64_t limit,
    const char *limitwhat, int manual, uint64_t *out, char *msg, size_t len)
{
	uint64_t dyn = want, need = kc_vstate_bytes(den, want);

	if (len > 0)
		msg[0] = '\0';
	*out = want;
	if (need <= limit)
		return 0;
	if (manual) {
		snprintf(msg, len, "dynvarsize %llu needs %llu bytes of variable state, over the limit of %llu bytes, %s (bufresize=manual)",
		    (unsigned long long)want, (unsigned long long)need,
		    (unsigned long long)limit, limitwhat);
		return -1;
	}
	while (dyn / 2 >= KC_DYNVARSIZE_MIN) {
		dyn /= 2;
		if (kc_vstate_bytes(den, dyn) <= limit) {
			*out = dyn;
			return 0;
		}
	}
	snprintf(msg, len, "cannot allocate variable state: dynvarsize %llu lowered to %llu and still needs %llu bytes, over the limit of %llu bytes, %s (bufresize=auto stops at %llu bytes)",
	    (unsigned long long)want, (unsigned long long)dyn,
	    (unsigned long long)kc_vstate_bytes(den, dyn),
	    (unsigned long long)limit, limitwhat,
	    (unsigned long long)KC_DYNVARSIZE_MIN);
	return -1;
}

int
kc_dynvar_lowered(FILE *err, const char *prog, uint64_t want, uint64_t used)
{
	char sz[32];

	if (used >= want)
		return 0;
	kc_size_str(used, sz, sizeof (sz));
	fprintf(err, "%s: dynamic variable size lowered to %s\n", prog, sz);
	return 1;
}
