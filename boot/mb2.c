/*
 * mb2.c -- validating and walking a Multiboot2 information structure (the
 * format and the rules: boot/mb2.h).
 *
 * Freestanding: it uses only what common/kdt_env.h gives (fixed-width
 * types, memcpy, errno values) and common/kdt_err.h, so the same file is
 * compiled into libkdt (unit tests and fuzzer under ASan/UBSan) and into
 * the multiboot2 test kernel (tests/vm/mb2/, with common/kdt_env_free.h).
 *
 * The bytes come from the bootloader and are not trusted.  bt_mb2_walk()
 * makes one validating pass over all tags (mb2_check) before it calls the
 * caller back on any of them (validate once, then trust): the callback
 * and bt_mb2_find_module() read tag fields directly, relying on rules 1-7.
 * Offsets are computed in 64 bits so that no size can wrap.
 */
#include "boot/mb2.h"

static uint64_t
mb2_align8(uint64_t v)
{
	return (v + MB2_TAG_ALIGN - 1) & ~(uint64_t)(MB2_TAG_ALIGN - 1);
}

/* True when s[0, n) holds a NUL. */
static int
mb2_has_nul(const char *s, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\0')
			return 1;
	return 0;
}

/* Rules 5-7 for the tag at "off" (header and size already checked). */
static int
mb2_check_tag(const uint8_t *b, uint32_t off, const struct mb2_tag *t,
    struct kdt_err *err)
{
	const struct mb2_tag_module *m;
	const struct mb2_tag_mmap *mp;

	switch (t->mt_type) {
	case MB2_TAG_CMDLINE:
	case MB2_TAG_LOADER_NAME:
		if (t->mt_size < 9 || !mb2_has_nul((const char *)b + off + 8,
		    t->mt_size - 8))
			return kdt_err_set(err, EINVAL, "MB2_STRING", off,
			    "multiboot2 tag %u at offset 0x%x, size %u: its string has no NUL within the tag",
			    t->mt_type, off, t->mt_size);
		return 0;
	case MB2_TAG_MODULE:
		m = (const struct mb2_tag_module *)(const void *)t;
		if (t->mt_size < 17 || !mb2_has_nul(m->mm_string,
		    t->mt_size - 16))
			return kdt_err_set(err, EINVAL, "MB2_MODULE_STRING", off,
			    "multiboot2 module tag at offset 0x%x, size %u: its command line has no NUL within the tag (at least 17 bytes)",
			    off, t->mt_size);
		if (m->mm_mod_start > m->mm_mod_end)
			return kdt_err_set(err, EINVAL, "MB2_MODULE_RANGE", off,
			    "multiboot2 module tag at offset 0x%x: mod_start 0x%x is above mod_end 0x%x",
			    off, m->mm_mod_start, m->mm_mod_end);
		return 0;
	case MB2_TAG_BASIC_MEMINFO:
		if (t->mt_size < sizeof (struct mb2_tag_meminfo))
			return kdt_err_set(err, EINVAL, "MB2_TAG_SIZE", off,
			    "multiboot2 meminfo tag at offset 0x%x: size %u is below %u",
			    off, t->mt_size,
			    (unsigned)sizeof (struct mb2_tag_meminfo));
		return 0;
	case MB2_TAG_MMAP:
		mp = (const struct mb2_tag_mmap *)(const void *)t;
		if (t->mt_size < sizeof (*mp) || mp->mp_entry_size <
		    sizeof (struct mb2_mmap_entry) || mp->mp_entry_size % 8)
			return kdt_err_set(err, EINVAL, "MB2_MMAP", off,
			    "multiboot2 memory map tag at offset 0x%x, size %u: entry size %u is not a multiple of 8 of at least %u",
			    off, t->mt_size, t->mt_size < sizeof (*mp) ? 0 :
			    mp->mp_entry_size,
			    (unsigned)sizeof (struct mb2_mmap_entry));
		return 0;
	default:
		return 0;
	}
}

/*
 * The validating pass (rules 1-7 of mb2.h).  Returns the offset of the
 * end tag (> 0) or -EINVAL.
 */
static int64_t
mb2_check(const uint8_t *b, uint64_t len, struct kdt_err *err)
{
	struct mb2_info mi;
	const struct mb2_tag *t;
	uint64_t off, lim;
	int rv;

	if (((uintptr_t)b & (MB2_TAG_ALIGN - 1)) != 0)
		return kdt_err_set(err, EINVAL, "MB2_ALIGN", KDT_ERR_NOOFF,
		    "multiboot2 information at 0x%llx is not 8-byte aligned",
		    (unsigned long long)(uintptr_t)b);
	lim = len < MB2_INFO_MAX ? len : MB2_INFO_MAX;
	if (lim < sizeof (mi))
		return kdt_err_set(err, EINVAL, "MB2_SIZE", 0,
		    "multiboot2 information: only %llu bytes, the fixed part alone is 8",
		    (unsigned long long)lim);
	memcpy(&mi, b, sizeof (mi));
	if (mi.mi_total_size < 16 || mi.mi_total_size % 8 != 0 ||
	    mi.mi_total_size > lim)
		return kdt_err_set(err, EINVAL, "MB2_SIZE", 0,
		    "multiboot2 information: total_size %u is not a multiple of 8 in [16, %llu]",
		    mi.mi_total_size, (unsigned long long)lim);
	for (off = sizeof (mi); ; off = mb2_align8(off + t->mt_size)) {
		/* total_size and off are multiples of 8: off <= total */
		if (off == mi.mi_total_size)
			return kdt_err_set(err, EINVAL, "MB2_NO_END", off,
			    "multiboot2 information: no end tag within total_size %u",
			    mi.mi_total_size);
		t = (const struct mb2_tag *)(const void *)(b + off);
		if (t->mt_size < sizeof (*t) ||
		    t->mt_size > mi.mi_total_size - off ||
		    (t->mt_type == MB2_TAG_END && t->mt_size != 8))
			return kdt_err_set(err, EINVAL, "MB2_TAG_SIZE", off,
			    "multiboot2 tag %u at offset 0x%llx: size %u is outside [8, %llu]%s",
			    t->mt_type, (unsigned long long)off, t->mt_size,
			    (unsigned long long)(mi.mi_total_size - off),
			    t->mt_type == MB2_TAG_END ?
			    " (an end tag is 8 bytes)" : "");
		if (t->mt_type == MB2_TAG_END)
			return (int64_t)off;
		rv = mb2_check_tag(b, (uint32_t)off, t, err);
		if (rv < 0)
			return rv;
	}
}

int
bt_mb2_walk(const void *mbi, uint64_t len, bt_mb2_fn fn, void *arg,
    struct kdt_err *err)
{
	const uint8_t *b = mbi;
	const struct mb2_tag *t;
	int64_t end;
	uint64_t off;
	int rv;

	end = mb2_check(b, len, err);
	if (end < 0)
		return (int)end;
	if (fn == NULL)
		return 0;
	/* rules 1-4 hold: every tag up to "end" is in bounds */
	for (off = 8; off < (uint64_t)end; off = mb2_align8(off + t->mt_size)) {
		t = (const struct mb2_tag *)(const void *)(b + off);
		rv = fn(arg, t, (uint32_t)off);
		if (rv != 0)
			return rv;
	}
	return 0;
}

/* Is module command line "s" the word "name", alone or followed by a blank? */
static int
mb2_name_is(const char *s, const char *name)
{
	while (*name != '\0' && *s == *name) {
		s++;
		name++;
	}
	return *name == '\0' && (*s == '\0' || *s == ' ' || *s == '\t');
}

struct mb2_find {
	const char	*mf_name;
	struct bt_mb2_mod *mf_mod;
	const char	*mf_cmdline;
	uint32_t	mf_nmods;
	uint32_t	mf_found;
};

static int
mb2_find_cb(void *arg, const struct mb2_tag *t, uint32_t off)
{
	struct mb2_find *f = arg;
	const struct mb2_tag_module *m;

	if (t->mt_type == MB2_TAG_CMDLINE && f->mf_cmdline == NULL)
		f->mf_cmdline = ((const struct mb2_tag_string *)
		    (const void *)t)->mt_string;
	if (t->mt_type != MB2_TAG_MODULE)
		return 0;
	m = (const struct mb2_tag_module *)(const void *)t;
	if (!f->mf_found && mb2_name_is(m->mm_string, f->mf_name)) {
		f->mf_found = 1;
		f->mf_mod->bm_start = m->mm_mod_start;
		f->mf_mod->bm_size = (uint64_t)m->mm_mod_end - m->mm_mod_start;
		f->mf_mod->bm_cmdline = m->mm_string;
		f->mf_mod->bm_index = f->mf_nmods;
		f->mf_mod->bm_off = off;
	}
	f->mf_nmods++;
	return 0;
}

int
bt_mb2_find_module(const void *mbi, uint64_t len, const char *name,
    struct bt_mb2_mod *mod, const char **cmdline, struct kdt_err *err)
{
	struct mb2_find f;
	int rv;

	memset(&f, 0, sizeof (f));
	f.mf_name = name;
	f.mf_mod = mod;
	rv = bt_mb2_walk(mbi, len, mb2_find_cb, &f, err);
	if (rv < 0)
		return rv;
	if (cmdline != NULL)
		*cmdline = f.mf_cmdline;
	return f.mf_found ? 1 : 0;
}
