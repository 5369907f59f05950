/*
 * fuzz_dof.c -- libFuzzer target: dof_load() (common/dof_load.c) on
 * arbitrary bytes, then dof_free().  The input is the DOF as kdt.ko gets
 * it from /dev/kdt or from the bootloader: nothing about it is trusted.
 * Whatever dof_load() accepts must be internally consistent, so the
 * loaded enabling is walked too (every ECB, action, DIF object and
 * aggregation the header of dof_load.h promises), reading every byte it
 * points at.  tests/fuzz/README.md has the corpus and the figures.
 */
#include "kf.h"

static uint64_t kf_sink;

static void
kf_difo(const struct dif_object *dp)
{
	uint32_t i;

	if (dp == NULL)
		return;
	for (i = 0; i < dp->do_textlen; i++)
		kf_sink += dp->do_text[i];
	for (i = 0; i < dp->do_intlen; i++)
		kf_sink += dp->do_inttab[i];
	for (i = 0; i < dp->do_strlen; i++)
		kf_sink += (uint8_t)dp->do_strtab[i];
	for (i = 0; i < dp->do_varlen; i++)
		kf_sink += dp->do_vartab[i].dtdv_id;
}

/* Touch everything the loaded enabling points at. */
static void
kf_walk(const struct dof_enabling *den)
{
	const struct dof_lecb *le;
	const struct dof_laction *la;
	uint32_t i, j;

	for (i = 0; i < den->den_necbs; i++) {
		le = &den->den_ecbs[i];
		kf_sink += strlen(le->le_pdesc.lp_prov) +
		    strlen(le->le_pdesc.lp_mod) + strlen(le->le_pdesc.lp_func) +
		    strlen(le->le_pdesc.lp_name);
		kf_difo(le->le_pred);
		for (j = 0; j < le->le_nacts; j++) {
			la = &le->le_acts[j];
			if (la->la_fmt != NULL)
				kf_sink += strlen(la->la_fmt);
			kf_difo(la->la_difo);
			if (la->la_rec_size != 0 &&
			    (la->la_rec_off > le->le_size ||
			    la->la_rec_size > le->le_size - la->la_rec_off) &&
			    la->la_role == DOF_ROLE_REC)
				abort();	/* record layout out of bounds */
		}
	}
	for (i = 0; i < den->den_naggs; i++)
		if (den->den_aggs[i].ag_ecb >= den->den_necbs ||
		    den->den_aggs[i].ag_act >=
		    den->den_ecbs[den->den_aggs[i].ag_ecb].le_nacts)
			abort();	/* aggregation names a missing action */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dof_enabling *den = NULL;
	struct kdt_err ke;
	void *buf = kf_copy(data, size);

	if (dof_load(buf, size, &den, &ke) == 0) {
		kf_walk(den);
		dof_free(den);
	} else if (ke.ke_msg[0] == '\0') {
		abort();	/* a rejection must say why */
	}
	free(buf);
	return 0;
}
