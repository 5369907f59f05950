/*
 * fuzz_itrl.c -- libFuzzer target: itrl_find() (common/itrl.c) on an
 * initrd image as the kernel gets it from the bootloader, then dof_load()
 * on the DOF it returns, exactly as kdt.ko's early initcall does.
 *
 * Input: one mode byte, then the image.  Mode bit 0 set: before the
 * search the harness rewrites the footer CRC (and, with bit 1 as well,
 * the DOF CRC over the DOF the stored size names, when that size fits) so
 * that the fuzzer gets past rules 2 and 5 to rules 3 and 4 and into
 * dof_load() without having to forge a CRC-32.  Mode 0 is the raw bytes.
 *
 * Oracles beyond the sanitizers: a found trailer must describe exactly
 * the file (initrd + DOF + footer = length, the DOF CRC right), the
 * footer itrl_foot_make() builds for that DOF must equal the input's
 * footer byte for byte (every field is checked, so the format has one
 * encoding), and every rejection, by itrl_find() or dof_load(), must
 * carry a tag and a message.
 */
#include <zlib.h>

#include "kf.h"
#include "common/itrl.h"

static void
kf_fix(uint8_t *img, uint64_t len, uint8_t mode)
{
	struct itrl_foot f;
	uint64_t foff;

	if (len < ITRL_FOOTSZ || !(mode & 1))
		return;
	foff = len - ITRL_FOOTSZ;
	memcpy(&f, img + foff, sizeof (f));
	if ((mode & 2) && f.it_dofsz != 0 && f.it_dofsz <= foff)
		f.it_dofcrc = (uint32_t)crc32_z(0, img + foff - f.it_dofsz,
		    f.it_dofsz);
	f.it_footcrc = 0;
	f.it_footcrc = (uint32_t)crc32_z(0, (const void *)&f, sizeof (f));
	memcpy(img + foff, &f, sizeof (f));
}

static void
kf_check_found(const uint8_t *img, uint64_t len, const struct itrl_info *ii)
{
	struct itrl_foot mine;
	struct kdt_err ke;

	if (ii->ii_initrd_len + ii->ii_dofsz + ITRL_FOOTSZ != len ||
	    ii->ii_dof_off != ii->ii_initrd_len ||
	    ii->ii_dofcrc != (uint32_t)crc32_z(0, img + ii->ii_dof_off,
	    ii->ii_dofsz))
		abort();	/* the trailer does not describe the file */
	if (itrl_foot_make(&mine, img + ii->ii_dof_off, ii->ii_dofsz,
	    &ke) != 0 || memcmp(&mine, img + len - ITRL_FOOTSZ,
	    ITRL_FOOTSZ) != 0)
		abort();	/* a second encoding of one trailer */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dof_enabling *den = NULL;
	struct itrl_info ii;
	struct kdt_err ke;
	uint8_t *img;
	void *dof;
	int rv;

	if (size < 1)
		return 0;
	img = kf_copy(data + 1, size - 1);
	kf_fix(img, size - 1, data[0]);
	memset(&ke, 0, sizeof (ke));
	rv = itrl_find(img, size - 1, &ii, &ke);
	if (rv < 0 && (ke.ke_tag == NULL || ke.ke_msg[0] == '\0'))
		abort();	/* a rejection must say why */
	if (rv == 1) {
		kf_check_found(img, size - 1, &ii);
		/* the kernel copies the DOF out before loading it */
		dof = kf_copy(img + ii.ii_dof_off, ii.ii_dofsz);
		memset(&ke, 0, sizeof (ke));
		if (dof_load(dof, ii.ii_dofsz, &den, &ke) == 0)
			dof_free(den);
		else if (ke.ke_msg[0] == '\0')
			abort();
		free(dof);
	}
	free(img);
	return 0;
}
