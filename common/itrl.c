/*
 * itrl.c -- finding and making the initrd trailer (theory: itrl.h).
 *
 * Compiled unchanged into kdt.ko (the built-in early initcall reads the
 * trailer at the end of the initrd) and into the tools (boot/kdt-initrd,
 * kdt -A -o).  The footer is read with memcpy, never through a cast: its
 * place in the file has no alignment.
 */
#include "itrl.h"

static uint32_t
itrl_footcrc(const struct itrl_foot *f)
{
	struct itrl_foot c = *f;

	c.it_footcrc = 0;
	return kenv_crc32(&c, sizeof (c));
}

int
itrl_find(const void *buf, uint64_t len, struct itrl_info *ii,
    struct kdt_err *err)
{
	const uint8_t *b = buf;
	struct itrl_foot f;
	uint64_t foff, dofoff;
	uint32_t crc;

	/* rule 1: no magic at the end, no trailer */
	if (len < ITRL_FOOTSZ)
		return 0;
	foff = len - ITRL_FOOTSZ;
	memcpy(&f, b + foff, sizeof (f));
	if (memcmp(f.it_magic, ITRL_MAGIC, ITRL_MAGICLEN) != 0)
		return 0;
	/* rule 2 */
	crc = itrl_footcrc(&f);
	if (crc != f.it_footcrc)
		return kdt_err_set(err, EINVAL, "ITRL_FOOTCRC", foff,
		    "trailer footer at offset 0x%llx: CRC-32 0x%08x does not match the stored 0x%08x",
		    (unsigned long long)foff, crc, f.it_footcrc);
	/* rule 3 */
	if (f.it_version != ITRL_VERSION || f.it_footsz != ITRL_FOOTSZ)
		return kdt_err_set(err, EINVAL, "ITRL_VERSION", foff + 12,
		    "trailer version %u with a %u-byte footer: this reader knows version %u with %u bytes",
		    f.it_version, f.it_footsz, ITRL_VERSION, ITRL_FOOTSZ);
	/* rule 4 */
	if (f.it_dofsz == 0 || f.it_dofsz > ITRL_DOF_MAX || f.it_dofsz > foff)
		return kdt_err_set(err, EINVAL, "ITRL_SIZE", foff,
		    "trailer DOF size 0x%llx is outside [1, 0x%llx] (the file has 0x%llx bytes before the footer)",
		    (unsigned long long)f.it_dofsz,
		    (unsigned long long)ITRL_DOF_MAX,
		    (unsigned long long)foff);
	/* rule 5 */
	dofoff = foff - f.it_dofsz;
	crc = kenv_crc32(b + dofoff, f.it_dofsz);
	if (crc != f.it_dofcrc)
		return kdt_err_set(err, EINVAL, "ITRL_DOFCRC", dofoff,
		    "trailer DOF at offset 0x%llx, 0x%llx bytes: CRC-32 0x%08x does not match the stored 0x%08x",
		    (unsigned long long)dofoff,
		    (unsigned long long)f.it_dofsz, crc, f.it_dofcrc);
	memset(ii, 0, sizeof (*ii));
	ii->ii_initrd_len = dofoff;
	ii->ii_dof_off = dofoff;
	ii->ii_dofsz = f.it_dofsz;
	ii->ii_dofcrc = f.it_dofcrc;
	return 1;
}

int
itrl_foot_make(struct itrl_foot *f, const void *dof, uint64_t dofsz,
    struct kdt_err *err)
{
	if (dofsz == 0 || dofsz > ITRL_DOF_MAX)
		return kdt_err_set(err, EINVAL, "ITRL_SIZE", KDT_ERR_NOOFF,
		    "DOF size 0x%llx is outside [1, 0x%llx]",
		    (unsigned long long)dofsz,
		    (unsigned long long)ITRL_DOF_MAX);
	memset(f, 0, sizeof (*f));
	f->it_dofsz = dofsz;
	f->it_dofcrc = kenv_crc32(dof, dofsz);
	f->it_version = ITRL_VERSION;
	f->it_footsz = ITRL_FOOTSZ;
	memcpy(f->it_magic, ITRL_MAGIC, ITRL_MAGICLEN);
	f->it_footcrc = itrl_footcrc(f);
	return 0;
}
