/*
 * fuzz_region.c -- libFuzzer target: the readers of what survives a boot
 * or a panic, on arbitrary bytes.  The first byte chooses:
 *
 *   'A' + u32 DOF length (native) + DOF + aggregation buffer image:
 *        dof_load() on the DOF; agg_buf_check() (common/agg.c) on the
 *        buffer; when it passes, agg_next() over every entry and the
 *        consumer's snapshot and printing (consumer/kc_agg.c);
 *   anything else + region image:
 *        rgn_open() (common/rgn_read.c), rgn_walk_cpu() over every CPU,
 *        then the consumer's whole decoder, kc_print_region_opts()
 *        (consumer/kc_print.c: its own rgn_open, dof_load of the DOF
 *        copy in the metadata, every record and printf format), once in
 *        CPU order and once merged by timestamp.
 *
 * Output goes to /dev/null.  The corpus comes from fuzz_dif (KF_SAVE).
 */
#include "kf.h"
#include "consumer/kc.h"

static uint64_t kf_sink;

static int
kf_rec(void *arg, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff)
{
	uint32_t i, n = rec->rr_size - RGN_REC_HDRSIZE;

	for (i = 0; i < n; i++)	/* the walker promises these bytes */
		kf_sink += payload[i];
	return 0;
}

static int
kf_bad(void *arg, uint32_t cpu, uint64_t loff, const char *what)
{
	kf_sink += strlen(what);
	return 0;
}

static void
kf_region_img(const uint8_t *img, size_t len)
{
	static const struct rgn_walk_cb cb = { kf_rec, kf_bad, NULL };
	struct kc_opts ko = { "fuzz", 0 };
	struct rgn_view v;
	struct kdt_err ke;
	uint32_t c;

	if (rgn_open(&v, img, len, RGN_PHYS_ANY, &ke) == 0)
		for (c = 0; c < v.rv_hdr->rh_ncpu; c++)
			(void) rgn_walk_cpu(&v, c, &cb, &ke);
	(void) kc_print_region_opts(img, len, RGN_PHYS_ANY, "fuzz", kf_null(),
	    kf_null(), &ko);
	ko.ko_flags = KC_F_MERGE | KC_F_QUIET;
	(void) kc_print_region_opts(img, len, RGN_PHYS_ANY, "fuzz", kf_null(),
	    kf_null(), &ko);
}

static void
kf_agg_img(const uint8_t *data, size_t size)
{
	struct dof_enabling *den = NULL;
	const struct agg_ent *ae = NULL;
	const struct agg_buf *ab;
	struct kc_aggs *ka;
	struct kdt_err ke;
	uint32_t dlen;
	void *dof, *buf;

	if (size < 4)
		return;
	memcpy(&dlen, data, 4);
	if (dlen > size - 4)
		return;
	dof = kf_copy(data + 4, dlen);
	if (dof_load(dof, dlen, &den, &ke) != 0) {
		free(dof);
		return;
	}
	free(dof);
	size -= 4 + (size_t)dlen;
	buf = kf_copy(data + 4 + dlen, size);
	ab = buf;
	if (agg_buf_check(buf, size, den, &ke) == 0) {
		while ((ae = agg_next(ab, ae)) != NULL)
			kf_sink += agg_ent_key(ae)[0] + agg_ent_data(ae)[0];
		if ((ka = kc_aggs_new(den)) != NULL) {
			if (kc_aggs_snap(ka, ab) == 0)
				(void) kc_aggs_print_all(ka, kf_null());
			kc_aggs_free(ka);
		}
	}
	free(buf);
	dof_free(den);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *img;

	if (size < 1)
		return 0;
	if (data[0] == 'A') {
		kf_agg_img(data + 1, size - 1);
		return 0;
	}
	img = kf_copy(data + 1, size - 1);
	kf_jail_enter();
	kf_region_img(img, size - 1);
	kf_jail_leave();
	free(img);
	return 0;
}
