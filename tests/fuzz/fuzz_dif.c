/*
 * fuzz_dif.c -- libFuzzer target: a DOF that dof_load() accepts (so every
 * DIF object passed dif_validate()) is run on the ECB runner
 * (common/ecb.c) and the DIF emulator (common/dif_vm.c) exactly as the
 * userspace engine runs it -- BEGIN, three ticks, END -- with the memory
 * model of kf.h: DIF may read only what the harness handed out, and
 * everything else must fault (an ERROR-probe record), never crash.  Then
 * the consumer decodes the records and merges the aggregations.
 *
 * With KF_SAVE=DIR in the environment, each input's region image and
 * aggregation buffer are also written to DIR in fuzz_region's input
 * format: that is how the region corpus is made from this one.
 */
#include <unistd.h>

#include "kf.h"

/* fuzz_region's input: "R" + region image, or "A" + u32 DOF length +
 * DOF + aggregation buffer. */
static void
kf_save(const struct kf *k, const uint8_t *data, size_t size)
{
	const char *dir = getenv("KF_SAVE");
	static unsigned n;
	const struct agg_buf *ab = k->k_es->es_cpus[0].ec_agg;
	char path[512];
	uint32_t len = (uint32_t)size;
	FILE *fp;

	if (dir == NULL)
		return;
	snprintf(path, sizeof (path), "%s/rgn-%d-%u", dir, (int)getpid(), n);
	if ((fp = fopen(path, "w")) != NULL) {
		fputc('R', fp);
		fwrite(k->k_rgn, 1, k->k_rgnsize, fp);
		fclose(fp);
	}
	snprintf(path, sizeof (path), "%s/agg-%d-%u", dir, (int)getpid(), n++);
	if (ab != NULL && ab->ab_nents != 0 && (fp = fopen(path, "w")) != NULL) {
		fputc('A', fp);
		fwrite(&len, 1, 4, fp);
		fwrite(data, 1, size, fp);
		fwrite(ab, 1, k->k_aggsize, fp);
		fclose(fp);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kf k;
	struct kdt_err ke;
	void *buf = kf_copy(data, size);

	memset(&k, 0, sizeof (k));
	if (dof_load(buf, size, &k.k_den, &ke) != 0) {
		free(buf);
		return 0;
	}
	free(buf);
	if (kf_probes(&k) == 0 && kf_region(&k) == 0 && kf_runner(&k) == 0) {
		kf_lifecycle(&k);
		kf_jail_enter();
		kf_consume(&k);
		kf_jail_leave();
		kf_save(&k, data, size);
	}
	kf_free(&k);
	return 0;
}
