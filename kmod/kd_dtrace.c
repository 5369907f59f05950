/*
 * kd_dtrace.c -- the dtrace provider: dtrace:::BEGIN, END and ERROR.
 *
 * Nothing is armed: kd_cs.c fires BEGIN when the consumer says go
 * (KIO_GO, or at once for the anonymous enabling) and END when it stops
 * (KIO_STOP); the ECB runner fires ERROR itself when a clause faults,
 * with dtrace's arguments (common/ecb.h).  Ids are dtrace's: 1, 2, 3.
 */
#include "kd_impl.h"

static const char *const kd_dnames[] = { "BEGIN", "END", "ERROR" };

static int
kd_dtrace_match(struct kd_cstate *cs, const struct dof_pdesc *pd,
    uint32_t ecb)
{
	struct kd_probe *kp;
	uint32_t i;
	int n = 0;

	if (!kd_part_match(pd->lp_prov, "dtrace") ||
	    !kd_part_match(pd->lp_mod, "") || !kd_part_match(pd->lp_func, ""))
		return 0;
	for (i = 0; i < ARRAY_SIZE(kd_dnames); i++) {
		if (!kd_part_match(pd->lp_name, kd_dnames[i]))
			continue;
		kp = kd_probe_attach(cs, &kd_prov_dtrace, 0, "", "",
		    kd_dnames[i], KD_PROBEID_BEGIN + i, ecb);
		if (IS_ERR(kp))
			return PTR_ERR(kp);
		n++;
	}
	return n;
}

static int
kd_dtrace_enable(struct kd_cstate *cs)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(cs->cs_dprobes); i++) {
		if (cs->cs_dprobes[i] == NULL)
			continue;
		cs->cs_dprobes[i]->kp_live = 1;
		n++;
	}
	return n;
}

static void
kd_dtrace_disable(struct kd_cstate *cs)
{
	uint32_t i;

	for (i = 0; i < ARRAY_SIZE(cs->cs_dprobes); i++)
		if (cs->cs_dprobes[i] != NULL)
			cs->cs_dprobes[i]->kp_live = 0;
}

static void
kd_dtrace_free(struct kd_cstate *cs)
{
}

const struct kd_prov kd_prov_dtrace = {
	.pv_name	= "dtrace",
	.pv_provs	= (const char *const[]){ "dtrace", NULL },
	.pv_id		= 0,
	.pv_match	= kd_dtrace_match,
	.pv_enable	= kd_dtrace_enable,
	.pv_disable	= kd_dtrace_disable,
	.pv_free	= kd_dtrace_free,
};
