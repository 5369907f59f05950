/*
 * kc_sym.h -- kernel symbol tables for %a, %k, stack(), sym() and mod().
 *
 * A table maps kernel addresses to (module, symbol, offset).  It is built
 * either from /proc/kallsyms text (kc_sym_load_kallsyms(): the live kernel
 * engine, or a saved copy next to a dump), from a System.map or vmlinux
 * of the dumped kernel moved by its KASLR offset (kc_sym_load_map():
 * kdt-extract), from the module table a region carries (module ranges
 * and sized text symbols, kc_sym_add_region_mods(): rgn.h), or symbol by
 * symbol (kc_sym_add(): tests).  Core kernel
 * symbols belong to the module "vmlinux"; kallsyms' "[name]" suffix names
 * a loadable module.  kallsyms carries no sizes: a symbol of size 0 spans
 * up to the next symbol's address when that symbol is in the same module;
 * the last symbol of a module (next symbol elsewhere, or none) reaches 64
 * KiB, a bound chosen so that module and kernel-image tails resolve while
 * far-away addresses stay hexadecimal.  An address
 * in no symbol is "inside the module but not in a symbol" when the
 * symbols on both sides of it belong to that module, or when it is in a
 * module range (kc_sym_add_module(); the newest range wins, and an
 * unsized symbol does not reach into another module's range).
 *
 * Invariant when kb_sorted is set (kc_sym_finish(), called by the loader
 * and by whoever adds symbols): kb_syms is sorted by address, ties by
 * name, and lookups binary-search; an unsorted table is scanned linearly
 * (still correct).  Lookups never modify the table.
 *
 * The formatter uses the process-wide default table (kc_sym_default()),
 * which is empty until a front end installs one: the userspace engine has
 * no kernel frames and prints addresses in hex, as dtrace does for
 * addresses it cannot resolve.  Called by consumer/kc_fmt.c, set up by
 * the kdt command and tests/unit/test_fmt.c.
 */
#ifndef KDT_KC_SYM_H
#define KDT_KC_SYM_H

#include <stdint.h>
#include <stddef.h>

struct kc_sym {
	uint64_t	sy_addr;
	uint64_t	sy_size;	/* 0: up to the next symbol */
	char		*sy_name;
	char		*sy_mod;	/* "vmlinux" or the module name */
};

/* A module's address range, for addresses in it but in no symbol. */
struct kc_modrange {
	uint64_t	mr_base;
	uint64_t	mr_size;
	char		*mr_name;
};

struct kc_linesrc;

struct kc_symtab {
	struct kc_sym	*kb_syms;
	uint32_t	kb_nsyms;
	uint32_t	kb_cap;
	uint32_t	kb_sorted;	/* sorted since the last add */
	uint32_t	kb_nmods;
	struct kc_modrange *kb_mods;	/* kc_sym_add_module() */
	uint32_t	kb_nlines;
	struct kc_linesrc *kb_lines;	/* kc_sym_load_lines() */
};

/* Result of kc_sym_lookup(). */
#define KC_SYM_NONE	0	/* unknown address */
#define KC_SYM_MODULE	1	/* inside a module, not in a symbol */
#define KC_SYM_FOUND	2	/* inside *symp */

struct kc_symtab *kc_sym_new(void);
void kc_sym_free(struct kc_symtab *t);

/* Add one symbol; name and module are copied.  0 or -ENOMEM. */
int kc_sym_add(struct kc_symtab *t, uint64_t addr, uint64_t size,
    const char *name, const char *mod);

/*
 * Declare that module "name" occupies [base, base + size): an address
 * there that no symbol covers looks up as KC_SYM_MODULE (name`0xaddr).
 * 0 or -ENOMEM.
 */
int kc_sym_add_module(struct kc_symtab *t, uint64_t base, uint64_t size,
    const char *name);

/*
 * Add the modules the region image img[0, len) carries (its module
 * table, rgn.h): each one's range and text symbols, at the addresses of
 * the boot that wrote the region.  A module recorded as unloaded whose
 * range a later module took is left out.  Returns the number of modules
 * added (0 when the region has no table), or -1 with why[0, whysz) when
 * the table is damaged or memory runs out (what was added stays).
 * *notes (may be NULL) gets how many modules had symbols cut short or
 * were left out by kdt.ko for lack of room (ma_trunc + ma_lost).
 */
int kc_sym_add_region_mods(struct kc_symtab *t, const void *img,
    uint64_t len, uint32_t *notes, char *why, size_t whysz);

/* Sort after the last add, for fast lookups. */
void kc_sym_finish(struct kc_symtab *t);

/*
 * Parse kallsyms text ("ffffffff81000000 T _text", optional "\t[mod]")
 * from "path".  Lines with address 0 (kptr_restrict) are skipped.
 * Returns the table, or NULL with why[0, whysz) naming the file and the
 * problem (cannot open, malformed line N, no usable address).
 */
struct kc_symtab *kc_sym_load_kallsyms(const char *path, char *why,
    size_t whysz);

/*
 * The symbols of a kernel other than the running one, for a dump or a
 * previous boot's region: "path" is a System.map (the same text as
 * kallsyms, every symbol in vmlinux) or an ELF vmlinux with a symbol
 * table (read with libelf; symbol sizes from st_size).  "slide" is added
 * to every address: the dumped kernel's KASLR text offset (rgn_hdr's
 * rh_kaslr), since both files hold link-time addresses.  Returns the
 * table, or NULL with why[0, whysz) naming the file and the problem.
 */
struct kc_symtab *kc_sym_load_map(const char *path, uint64_t slide,
    char *why, size_t whysz);

/*
 * The symbols of the kernel that wrote region image img[0, len) (its
 * rgn_hdr names the release and the KASLR offset), for kdt-extract and
 * kdt -a --previous:
 *   "path" (--symbols FILE)  that System.map or vmlinux; unusable is an
 *                            error (*failed = 1, after a message);
 *   otherwise the first of   /usr/lib/debug/boot/System.map-RELEASE,
 *                            /usr/lib/debug/boot/vmlinux-RELEASE,
 *                            /usr/lib/debug/lib/modules/RELEASE/vmlinux
 *                            (Debian's linux-image-RELEASE-dbg) and
 *                            /boot/System.map-RELEASE (Debian's is a
 *                            placeholder, recognised as such);
 *   else, when RELEASE is the running kernel's, /proc/kallsyms: its
 *                            core-kernel symbols moved from this boot's
 *                            KASLR offset to the region's (module symbols
 *                            are left out: modules load elsewhere each
 *                            boot);
 *   else nothing: core-kernel frames print as addresses (*failed = 0).
 * A vmlinux (ELF) of another build of the release -- its GNU build id
 * differs from the one the region records (rgn.h, "Build ids") -- is
 * refused when it is "path" (*failed = 1, the message names the file
 * and both ids) and skipped with a warning when the search found it;
 * /proc/kallsyms is skipped when /sys/kernel/notes gives another build
 * id than the region's.  A System.map has no build id: not checked.
 * In every case the modules the region carries (kc_sym_add_region_mods)
 * are added, so module frames print as module`function+0xoff without
 * any file; with nothing else known the table holds only them, and with
 * no module table either the answer is NULL.
 * One line on "err" says which file was used, unless "quiet" (the
 * module table is used silently; only its problems are said).
 */
struct kc_symtab *kc_sym_for_region(const void *img, uint64_t len,
    const char *path, int quiet, const char *prog, FILE *err, int *failed);

/*
 * Find "addr".  KC_SYM_FOUND sets *symp; KC_SYM_MODULE sets *modp (the
 * module name); KC_SYM_NONE sets neither.  t may be NULL (nothing known).
 */
int kc_sym_lookup(const struct kc_symtab *t, uint64_t addr,
    const struct kc_sym **symp, const char **modp);

/*
 * Source lines.  kc_sym_load_lines() attaches the DWARF line tables of
 * ELF file "path" (read with libdwarf) to the symbols of module "mod"
 * ("vmlinux": kdt-extract --vmlinux, the -dbg package's vmlinux); "slide"
 * is the run-time address minus the file's (rh_kaslr for vmlinux).
 * Nothing is read until a lookup needs it: .debug_aranges names the
 * compilation unit of an address and only that unit's line table is
 * loaded, then kept (a file without .debug_aranges is read whole at the
 * first lookup).  0, or -1 with why[0, whysz) naming the file.
 *
 * kc_sym_srcline() writes "FILE:LINE" for code address "pc" (a return
 * address: the line of the call, pc - 1, unless pc starts its function)
 * when pc is in a symbol of a module with line tables; FILE is relative
 * to the unit's compilation directory (the kernel tree: fs/read_write.c).
 * Returns 1, or 0 when unknown.  stack() frames print it after the frame
 * as "vmlinux`vfs_read+0x1f [fs/read_write.c:454]" (kc_fmt.c).
 */
int kc_sym_load_lines(struct kc_symtab *t, const char *path,
    const char *mod, uint64_t slide, char *why, size_t whysz);
int kc_sym_srcline(const struct kc_symtab *t, uint64_t pc, char *buf,
    size_t size);

/*
 * kdt-extract --vmlinux FILE: attach FILE's line tables to t's "vmlinux"
 * symbols, moved by the KASLR offset of the region image img[0, len).
 * FILE must be the build that wrote the region: when its GNU build id
 * (NT_GNU_BUILD_ID note) differs from the region's rm_kbid (rgn.h,
 * "Build ids") it is refused, the message naming the file, both ids and
 * what to give instead.  No id in the file (stripped of its notes) or
 * none recorded in the region (older image): used unchecked, and the
 * line saying where the lines come from says so ("not recorded").
 * 0, or -1 after a message on "err" naming the file (t NULL, no DWARF,
 * another build).
 */
int kc_sym_lines_for_region(struct kc_symtab *t, const void *img,
    uint64_t len, const char *vmlinux, int quiet, const char *prog,
    FILE *err);

/*
 * kdt-extract --modules DIR: source lines for the region's loadable
 * modules from their NAME.ko files with DWARF (the -dbg package's
 * /usr/lib/debug/lib/modules/RELEASE), searched for recursively in DIR
 * (at most KC_MODLINES_DEPTH levels; '-' and '_' in names match either
 * way).  A .ko is relocatable (ET_REL): its line tables for .text,
 * .init.text and .exit.text all start at address 0 and only its
 * .rela.debug_* relocations say which section a sequence describes.  So
 * an in-memory copy of the file is made (a memfd) in which every
 * symbol's st_value is moved to the run-time address of its section,
 * laid out as the kernel's module loader lays out text (layout_sections:
 * the SHF_ALLOC|SHF_EXECINSTR sections in file order, each aligned to
 * sh_addralign, from the core base md_base; those named ".init*" from
 * the init text's base, the module table's RGN_MOD_F_INIT entry, when
 * the region has one); every other section, and init text the region
 * does not record, stays at 0, far below any kernel address, so its
 * lines never match.  libdwarf (20210528 and later) applies the
 * R_X86_64_* relocations of ET_REL objects with those symbol values, and
 * the lines then resolve as vmlinux's do, with slide 0.  A .ko whose
 * text, laid out so and page-aligned, is not the module table's md_text
 * is of another build: a warning naming the file, and no lines for that
 * module.  So, first, is a .ko whose GNU build id differs from the one
 * the module table records for the module (rgn.h, "Build ids"): one
 * line naming the file, the module and both ids; a .ko without a build
 * id note is used, with a line saying it was not checked; an entry
 * without an id (older kdt.ko, or none found) is used and counted as
 * "not recorded".  So is a .ko without .debug_line or one that is not
 * an x86-64 ET_REL ELF.  Returns the number of modules given lines (0
 * with a warning when t is NULL: a region without a module table), or
 * -1 after a message on "err" (DIR is not a directory).  One line on
 * "err" says how many modules got lines from DIR and how their build
 * ids compared, unless "quiet".
 */
#define KC_MODLINES_DEPTH	8
int kc_sym_modlines_for_region(struct kc_symtab *t, const void *img,
    uint64_t len, const char *dir, int quiet, const char *prog, FILE *err);

/* The formatter's table; NULL (the default) means no kernel symbols. */
void kc_sym_set_default(const struct kc_symtab *t);
const struct kc_symtab *kc_sym_default(void);

#endif /* KDT_KC_SYM_H */
