/*
 * fuzz_mb2.c -- libFuzzer target: bt_mb2_walk() and bt_mb2_find_module()
 * (boot/mb2.c) on arbitrary bytes taken as a multiboot2 information
 * structure, as the test kernel gets it from the bootloader.
 *
 * The input is copied to an exact-size 8-aligned buffer (kf_copy), so
 * ASan sees any read past it.  For an MBI the validator accepts, the
 * callback then reads every tag the way a kernel would trust it -- the
 * strings up to their NUL, module ranges, every memory map entry -- and
 * checks that each tag lies inside total_size.  A rejection must carry a
 * tag and a message.  Seeds (corpus/mb2/) are real MBIs that GRUB built
 * for the test kernel under SeaBIOS and OVMF (dumped by it, see
 * tests/vm/mb2/README.md) and hand-made ones.
 */
#include "kf.h"
#include "boot/mb2.h"

struct kf_mb2 {
	uint32_t	km_total;
	uint64_t	km_sink;
};

static int
kf_tag(void *arg, const struct mb2_tag *t, uint32_t off)
{
	struct kf_mb2 *k = arg;
	const struct mb2_tag_module *m;
	const struct mb2_tag_mmap *mp;
	const struct mb2_tag_string *s;
	const uint8_t *e;
	uint32_t i;

	if (off % 8 != 0 || t->mt_size < 8 || off + (uint64_t)t->mt_size >
	    k->km_total)
		abort();	/* a tag outside the validated bounds */
	switch (t->mt_type) {
	case MB2_TAG_CMDLINE:
	case MB2_TAG_LOADER_NAME:
		s = (const void *)t;
		k->km_sink += strlen(s->mt_string);
		break;
	case MB2_TAG_MODULE:
		m = (const void *)t;
		if (m->mm_mod_start > m->mm_mod_end)
			abort();
		k->km_sink += strlen(m->mm_string) + m->mm_mod_end;
		break;
	case MB2_TAG_MMAP:
		mp = (const void *)t;
		e = (const uint8_t *)t + sizeof (*mp);
		for (i = 0; sizeof (*mp) + (uint64_t)(i + 1) *
		    mp->mp_entry_size <= t->mt_size; i++)
			k->km_sink += ((const struct mb2_mmap_entry *)
			    (const void *)(e + (uint64_t)i *
			    mp->mp_entry_size))->me_length;
		break;
	default:
		for (i = 8; i < t->mt_size; i++)
			k->km_sink += ((const uint8_t *)t)[i];
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kf_mb2 k;
	struct bt_mb2_mod mod;
	struct kdt_err ke;
	const char *cmd;
	uint8_t *b;
	int rv;

	b = kf_copy(data, size);
	memset(&k, 0, sizeof (k));
	memset(&ke, 0, sizeof (ke));
	if (size >= 4)
		memcpy(&k.km_total, b, 4);
	rv = bt_mb2_walk(b, size, kf_tag, &k, &ke);
	if (rv < 0 && (ke.ke_tag == NULL || ke.ke_msg[0] == '\0'))
		abort();	/* a rejection must say why */
	rv = bt_mb2_find_module(b, size, "kdt-anon-dof", &mod, &cmd, &ke);
	if (rv == 1 && ((const uint8_t *)mod.bm_cmdline < b ||
	    (const uint8_t *)mod.bm_cmdline >= b + size ||
	    mod.bm_off % 8 != 0))
		abort();
	if (rv >= 0 && cmd != NULL)
		k.km_sink += strlen(cmd);
	free(b);
	return 0;
}
