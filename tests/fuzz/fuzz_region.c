/*
 * fuzz_region.c -- libFuzzer target: the readers of what survives a boot
 * or a panic, on arbitrary bytes.  The first byte chooses:
 *
 *   'A' + u32 DOF length (native) + DOF + aggregation buffer image:
 *        dof_load() on the DOF; agg_buf_check() (common/agg.c) on the
 *        buffer; when it passes, agg_next() over every entry and the
 *        consumer's snapshot and printing (consumer/kc_agg.c);
 *   'P' + u32 physical address of a header page (native) + physical
 *        memory from address 0: rgn_pagelist_assemble() (rgn.h, "Page
 *        list": a live session's scattered region) reading that memory,
 *        and on success the region image as below;
 *   anything else + region image:
 *        rgn_open() (common/rgn_read.c), rgn_walk_cpu() over every CPU,
 *        then the consumer's whole decoder, kc_print_region_opts()
 *        (consumer/kc_print.c: its own rgn_open, dof_load of the DOF
 *        copy in the metadata, every record and printf format), once in
 *        CPU order and once merged by timestamp with the variables
 *        (--vars: consumer/kc_vars.c, dif_vstate_attach and
 *        dif_dstore_walk); rgn_walk_spec() over the speculation area;
 *        kc_sym_add_region_mods() over the module table (rgn.h).
 *
 * Output goes to /dev/null.  The corpus comes from fuzz_dif (KF_SAVE).
 */
#include "kf.h"
#include "consumer/kc.h"
#include "consumer/kc_sym.h"

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

/* rgn_walk_spec's callbacks: the same promises as rgn_walk_cpu's. */
static int
kf_spec_rec(void *arg, uint32_t id, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t off)
{
	return kf_rec(arg, cpu, rec, payload, off);
}

static int
kf_spec_bad(void *arg, uint32_t id, uint32_t cpu, uint64_t off,
    const char *what)
{
	return kf_bad(arg, cpu, off, what);
}

static void
kf_region_img(const uint8_t *img, size_t len)
{
	static const struct rgn_walk_cb cb = { kf_rec, kf_bad, NULL };
	static const struct rgn_spec_cb scb = { NULL, kf_spec_rec, kf_spec_bad,
	    NULL };
	struct kc_opts ko = { "fuzz", 0 };
	struct kc_symtab *t;
	char why[600];
	struct rgn_view v;
	struct kdt_err ke;
	uint32_t c;

	if (rgn_open(&v, img, len, RGN_PHYS_ANY, &ke) == 0) {
		for (c = 0; c < v.rv_hdr->rh_ncpu; c++)
			(void) rgn_walk_cpu(&v, c, &cb, &ke);
		(void) rgn_walk_spec(&v, &scb, &ke);	/* speculations */
	}
	(void) kc_print_region_opts(img, len, RGN_PHYS_ANY, "fuzz", kf_null(),
	    kf_null(), &ko);
	/* merged, quiet, and with the variables (kdt-extract --vars) */
	ko.ko_flags = KC_F_MERGE | KC_F_QUIET | KC_F_VARS;
	(void) kc_print_region_opts(img, len, RGN_PHYS_ANY, "fuzz", kf_null(),
	    kf_null(), &ko);
	/* the module table (rgn.h): kdt-extract's module symbols */
	if ((t = kc_sym_new()) != NULL) {
		(void) kc_sym_add_region_mods(t, img, len, NULL, why,
		    sizeof (why));
		kc_sym_free(t);
	}
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

/* ---- 'P': a page list over a small physical memory ---- */

struct kf_phys {
	const uint8_t	*kp_mem;
	size_t		kp_len;
};

static int
kf_phys_read(void *arg, uint64_t pa, void *buf, uint64_t n)
{
	const struct kf_phys *kp = arg;

	if (pa > kp->kp_len || n > kp->kp_len - pa)
		return -ENXIO;
	memcpy(buf, kp->kp_mem + pa, n);
	return 0;
}

static void
kf_pagelist(const uint8_t *data, size_t size)
{
	struct kf_phys kp;
	struct rgn_hdr h;
	struct kdt_err ke;
	uint32_t pa;
	uint8_t *img, *reg;

	if (size < 4)
		return;
	memcpy(&pa, data, 4);
	kp.kp_mem = data + 4;
	kp.kp_len = size - 4;
	if (pa % RGN_PAGE != 0 || pa > kp.kp_len ||
	    kp.kp_len - pa < RGN_PAGE)
		return;
	img = kf_copy(kp.kp_mem + pa, RGN_PAGE);	/* page 0, aligned */
	memcpy(&h, img, sizeof (h));
	/* what the scan checks first (cd_scan.c): bound the image */
	if (!rgn_probe_hdr(img, RGN_PAGE) || !rgn_pagelist_present(&h) ||
	    h.rh_size < RGN_PAGE || h.rh_size > (16u << 20)) {
		free(img);
		return;
	}
	reg = malloc(h.rh_size);	/* exact size: ASan sees overruns */
	if (reg == NULL) {
		free(img);
		return;
	}
	memset(&ke, 0, sizeof (ke));
	if (rgn_pagelist_assemble(img, pa, kf_phys_read, &kp, reg,
	    &ke) == 0) {
		kf_jail_enter();
		kf_region_img(reg, h.rh_size);
		kf_jail_leave();
	} else if (ke.ke_msg[0] == '\0' || ke.ke_tag == NULL)
		abort();	/* a refusal must say why */
	free(reg);
	free(img);
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
	if (data[0] == 'P') {
		kf_pagelist(data + 1, size - 1);
		return 0;
	}
	img = kf_copy(data + 1, size - 1);
	kf_jail_enter();
	kf_region_img(img, size - 1);
	kf_jail_leave();
	free(img);
	return 0;
}
