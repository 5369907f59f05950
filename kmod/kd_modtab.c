/*
 * kd_modtab.c -- the region's module table (rgn.h, "module table"): what
 * a reader of a dump needs to name addresses inside loadable modules.
 *
 * At setup kd_modtab_size() measures the modules loaded now (their entry
 * and text symbols, as rgn_mod_sym() will store them) and adds headroom
 * for modules that load later: KD_MODTAB_LIVE_ROOM for a live state's
 * vmalloc'd region, KD_MODTAB_FIXED_ROOM for a reserved region, whose
 * table may take at most 1/KD_MODTAB_FIXED_DIV of it and, through
 * kd_modtab_fit(), only room the buffers do not need for their bufsize:
 * the trace comes first.  After rgn_init() kd_modtab_fill() writes the
 * kernel's build id and every loaded module;
 * the module notifier (kd_cs.c) calls kd_modtab_coming() for a module
 * that loads while the state is enabled -- its core and, in an entry of
 * its own, its init text, which kd_modtab_live() flags gone when the
 * module is live and the kernel frees that text -- and kd_modtab_going()
 * when one unloads.  When the table is full the writer leaves symbols, then
 * modules, out and counts them; the reader says so.
 *
 * Modules are listed through module_kallsyms_on_each_symbol (found by
 * name, kd_ksym.c), which holds module_mutex while it calls us: for each
 * module it reports we read that module's whole symbol table ourselves
 * (mod->kallsyms, stable under module_mutex) and skip its other symbols.
 * A coming module's table is read as kd_fbt.c's kd_fcollect_coming does.
 * Only symbols in text are kept: stack frames, %a, sym() and func() name
 * code.  Module layouts are read through kd_compat.h.
 *
 * Build ids (rgn.h, "Build ids"), so that kdt-extract can refuse debug
 * files of another build: the kernel's comes from its own ELF notes,
 * __start_notes to __stop_notes (found by name: they are what
 * /sys/kernel/notes shows), walked note by note for NT_GNU_BUILD_ID
 * with owner "GNU"; when those symbols are missing, lib/buildid.c's
 * vmlinux_build_id[] (20 bytes, set at boot for CONFIG_CRASH_CORE).  A
 * module's .note.gnu.build-id is SHF_ALLOC and not executable or
 * writable, so the loader copies it into the core read-only data
 * (kd_mod_rodata_base(), kd_compat.h) -- as its first section of that
 * kind in a .ko it comes first there.  6.1 keeps no pointer to it that
 * is set when the notifier runs (mod->notes_attrs and, with
 * CONFIG_STACKTRACE_BUILD_ID -- not set in Debian's 6.1 --
 * mod->build_id are filled after MODULE_STATE_COMING), so the read-only
 * data is scanned, 4 bytes at a time and at most KD_BID_SCAN bytes, for
 * the note header (name size 4, type NT_GNU_BUILD_ID, "GNU\0", 1 to
 * RGN_BUILDID_MAX bytes of descriptor inside the range).  An id not
 * found is not recorded and the reader says so.  Only the writing walk
 * scans, once per module for its core and init entries; the measuring
 * walk reserves RGN_BUILDID_MAX a module (8 bytes more than a 20-byte
 * id takes) instead, so no scan result has to outlive one hold of
 * module_mutex, and a module that loads between the walks is scanned
 * like any other.
 *
 * Setup context with cs_lock held (kd_region), or the module notifier
 * with cs_lock held.
 */
#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/string.h>
#include <linux/elf.h>

#include "kd_impl.h"
#include "kd_compat.h"

#define KD_MODTAB_LIVE_ROOM	(256ULL << 10)
#define KD_MODTAB_LIVE_MAX	(8ULL << 20)
#define KD_MODTAB_FIXED_ROOM	(512ULL << 10)
#define KD_MODTAB_FIXED_DIV	16
#define KD_BID_SCAN		(64UL << 10)	/* rodata scanned for the note */
#define KD_BID_VMLINUX_LEN	20	/* vmlinux_build_id[]: sha1 */
#define KD_NT_GNU_BUILD_ID	3	/* the ELF note type (GNU's elf.h) */

/*
 * A GNU build-id note starting at p (4-aligned, "avail" bytes there):
 * its descriptor's length with *idp, or 0.  *next: the note's bytes.
 */
static uint32_t
kd_bid_note(const uint8_t *p, unsigned long avail, const uint8_t **idp,
    unsigned long *next)
{
	const Elf64_Nhdr *n = (const Elf64_Nhdr *)p;
	unsigned long nlen, dlen;

	*next = 0;
	if (avail < sizeof (*n))
		return 0;
	nlen = ALIGN((unsigned long)n->n_namesz, 4);
	dlen = ALIGN((unsigned long)n->n_descsz, 4);
	if (n->n_namesz > avail || n->n_descsz > avail ||
	    sizeof (*n) + nlen + dlen > avail)
		return 0;
	*next = sizeof (*n) + nlen + dlen;
	if (n->n_type != KD_NT_GNU_BUILD_ID || n->n_namesz != 4 ||
	    memcmp(p + sizeof (*n), "GNU", 4) != 0 || n->n_descsz == 0 ||
	    n->n_descsz > RGN_BUILDID_MAX)
		return 0;
	*idp = p + sizeof (*n) + nlen;
	return n->n_descsz;
}

/* The running kernel's build id: its length with *idp, or 0. */
static uint32_t
kd_bid_kernel(const uint8_t **idp)
{
	unsigned long start = kd_ksym_lookup("__start_notes");
	unsigned long stop = kd_ksym_lookup("__stop_notes");
	unsigned long off, next;
	const uint8_t *v;
	uint32_t len, i;

	if (start != 0 && stop > start && stop - start < (1UL << 20) &&
	    start % 4 == 0) {
		for (off = 0; off < stop - start; off += next) {
			len = kd_bid_note((const uint8_t *)start + off,
			    stop - start - off, idp, &next);
			if (len != 0)
				return len;
			if (next == 0)
				break;
		}
	}
	v = (const uint8_t *)kd_ksym_lookup("vmlinux_build_id");
	for (i = 0; v != NULL && i < KD_BID_VMLINUX_LEN; i++)
		if (v[i] != 0) {
			*idp = v;
			return KD_BID_VMLINUX_LEN;
		}
	return 0;
}

/* Module "mod"'s build id (kd_compat.h's rodata): its length, or 0. */
static uint32_t
kd_bid_module(struct module *mod, const uint8_t **idp)
{
	unsigned long base = kd_mod_rodata_base(mod);
	unsigned long size = min(kd_mod_rodata_size(mod), KD_BID_SCAN);
	unsigned long off, next;
	uint32_t len;

	if (base == 0 || base % 4 != 0)
		return 0;
	for (off = 0; off + sizeof (Elf64_Nhdr) + 4 < size; off += 4) {
		len = kd_bid_note((const uint8_t *)base + off, size - off,
		    idp, &next);
		if (len != 0)
			return len;
	}
	return 0;
}

typedef int (*kd_modeach_fn)(int (*)(void *, const char *, struct module *,
    unsigned long), void *);

/* One walk over the loaded modules: measuring or writing. */
struct kd_modwalk {
	struct module	*mw_last;	/* module already handled */
	void		*mw_region;	/* NULL: measure only */
	uint64_t	mw_bytes;	/* bytes the entries need */
	uint32_t	mw_nmods;
	uint32_t	mw_bidlen;	/* the module's build id, 0: none */
	const uint8_t	*mw_bid;	/* writing: its bytes */
};

/*
 * Measure or write one part of module "mod" (its symbol table must be
 * stable): [base, base + size) with text in its first "text" bytes; the
 * core, or with RGN_MOD_F_INIT the init text.
 */
static void
kd_modtab_part(struct kd_modwalk *mw, struct module *mod, unsigned long base,
    unsigned long size, unsigned long text, uint32_t flags)
{
	const struct mod_kallsyms *ks = rcu_dereference_raw(mod->kallsyms);
	const Elf_Sym *sym;
	const char *name;
	unsigned long a;
	uint32_t i;
	size_t len;

	if (base == 0 || size == 0)
		return;
	mw->mw_nmods++;
	mw->mw_bytes += sizeof (struct rgn_mod);
	if (mw->mw_region != NULL && rgn_mod_begin(mw->mw_region, mod->name,
	    base, size, text, flags) != 0)
		return;
	for (i = 0; ks != NULL && i < ks->num_symtab; i++) {
		sym = &ks->symtab[i];
		a = (unsigned long)sym->st_value;
		if (sym->st_shndx == SHN_UNDEF || sym->st_name == 0 ||
		    a < base || a - base >= text)
			continue;
		name = ks->strtab + sym->st_name;
		len = strnlen(name, RGN_MODSYM_NAMELEN);
		if (len == 0 || len >= RGN_MODSYM_NAMELEN)
			continue;
		mw->mw_bytes += ALIGN(sizeof (struct rgn_modsym) + len + 1, 8);
		if (mw->mw_region != NULL)
			(void) rgn_mod_sym(mw->mw_region, a, sym->st_size,
			    name);
	}
	/* the build id ends the entry (rgn.h); not found: not recorded */
	mw->mw_bytes += ALIGN(mw->mw_bidlen, 8);
	if (mw->mw_region != NULL && mw->mw_bidlen != 0)
		(void) rgn_mod_buildid(mw->mw_region, mw->mw_bid,
		    mw->mw_bidlen);
	if (mw->mw_region != NULL)
		rgn_mod_end(mw->mw_region);
}

/* Module "mod": its core; a coming module's init text too (kd_compat.h). */
static void
kd_modtab_one(struct kd_modwalk *mw, struct module *mod)
{
	/* measuring: room for any id; writing: one scan for both entries */
	mw->mw_bid = NULL;
	mw->mw_bidlen = mw->mw_region == NULL ? RGN_BUILDID_MAX :
	    kd_bid_module(mod, &mw->mw_bid);
	kd_modtab_part(mw, mod, kd_mod_core_base(mod), kd_mod_core_size(mod),
	    kd_mod_core_text_size(mod), 0);
	if (mod->state == MODULE_STATE_COMING)
		kd_modtab_part(mw, mod, kd_mod_init_base(mod),
		    kd_mod_init_text_size(mod), kd_mod_init_text_size(mod),
		    RGN_MOD_F_INIT);
}

/* module_kallsyms_on_each_symbol callback: module_mutex is held. */
static int
kd_modtab_cb(void *arg, const char *name, struct module *mod,
    unsigned long addr)
{
	struct kd_modwalk *mw = arg;

	if (mod != NULL && mod != mw->mw_last) {
		mw->mw_last = mod;
		kd_modtab_one(mw, mod);
	}
	return 0;
}

static int
kd_modtab_walk(struct kd_modwalk *mw)
{
	kd_modeach_fn each = (kd_modeach_fn)kd_ksym_lookup(
	    "module_kallsyms_on_each_symbol");

	if (each == NULL)
		return -ENOENT;
	(void) kd_module_kallsyms_each((unsigned long)each, kd_modtab_cb,
	    mw);	/* kd_compat.h: 6.3 */
	return 0;
}

uint64_t
kd_modtab_size(uint64_t fixed)
{
	struct kd_modwalk mw = { 0 };
	uint64_t size;

	(void) kd_modtab_walk(&mw);
	size = sizeof (struct rgn_modarea) + mw.mw_bytes;
	if (fixed == 0)
		return min(ALIGN(size + KD_MODTAB_LIVE_ROOM, PAGE_SIZE),
		    KD_MODTAB_LIVE_MAX);
	size = min(size + KD_MODTAB_FIXED_ROOM, fixed / KD_MODTAB_FIXED_DIV);
	return size < PAGE_SIZE ? 0 : size & ~(uint64_t)(PAGE_SIZE - 1);
}

uint64_t
kd_modtab_fit(struct rgn_params *p, uint64_t size, uint64_t bufsize)
{
	uint64_t want = p->rp_modsize, need;

	p->rp_modsize = 0;
	need = rgn_size_for(p, bufsize);
	p->rp_modsize = want;
	if (need >= size)
		return 0;
	return min(want, (size - need) & ~(uint64_t)(PAGE_SIZE - 1));
}

void
kd_modtab_fill(struct kd_cstate *cs)
{
	struct kd_modwalk mw = { .mw_region = cs->cs_region };
	const uint8_t *bid = NULL;
	uint32_t bidlen;

	if (cs->cs_region == NULL)
		return;
	bidlen = kd_bid_kernel(&bid);
	if (bidlen == 0 || rgn_set_kbid(cs->cs_region, bid, bidlen) != 0)
		pr_info("kdt: no GNU build id found in the kernel's notes (__start_notes, vmlinux_build_id): the region does not record it, and kdt-extract cannot check a vmlinux against it\n");
	if (kd_modtab_walk(&mw) != 0)
		pr_info("kdt: module_kallsyms_on_each_symbol not found: the region names no module loaded before the enabling\n");
}

void
kd_modtab_coming(struct kd_cstate *cs, struct module *mod)
{
	struct kd_modwalk mw = { .mw_region = cs->cs_region };

	if (cs->cs_region != NULL)
		kd_modtab_one(&mw, mod);
}

void
kd_modtab_live(struct kd_cstate *cs, struct module *mod)
{
	/* the kernel frees the init text now: its entry is history */
	if (cs->cs_region != NULL && kd_mod_init_base(mod) != 0)
		rgn_mod_gone(cs->cs_region, mod->name, kd_mod_init_base(mod));
}

void
kd_modtab_going(struct kd_cstate *cs, struct module *mod)
{
	if (cs->cs_region == NULL)
		return;
	rgn_mod_gone(cs->cs_region, mod->name, kd_mod_core_base(mod));
	/* an init function that failed: the module never went live */
	if (kd_mod_init_base(mod) != 0)
		rgn_mod_gone(cs->cs_region, mod->name, kd_mod_init_base(mod));
}
