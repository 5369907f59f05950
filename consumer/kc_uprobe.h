/*
 * kc_uprobe.h -- the consumer half of user-space probes: the table of
 * resolved pid and USDT probes (struct kio_uprobe, common/kio.h has the
 * contract) that the kernel engine hands to kdt.ko with KIO_ENABLE.
 *
 * kdt.ko cannot read a process's ELF files; kc_uprobe.c does, for every
 * ECB description that names a process:
 *
 *   pid<N>:mod:func:name     functions of process N.  mod is the basename
 *                            of an object mapped in N (/proc/N/maps), or
 *                            "a.out" for the main executable; func a
 *                            symbol (STT_FUNC, .symtab and .dynsym); name
 *                            "entry", "return" or a hex offset into the
 *                            function.  Globs in mod and func; a glob
 *                            name matches entry and return only.
 *   <prov><N>:mod:func:name  the sys/sdt.h (USDT) probes of provider
 *                            <prov> in process N, from .note.stapsdt; func
 *                            is the function holding the probe site ("" if
 *                            none), "__" in names reads "-" as in dtrace.
 *
 * A glob provider part ("pid*", "kdttest*") matches the probes of the -c
 * and -p processes ("targets") only; an empty one matches no user-space
 * probe (dtrace too creates pid probes only where a pid is named).
 *
 * The file offset of an address is st_value - p_vaddr + p_offset of the
 * PT_LOAD holding it, which is right for PIE and non-PIE executables and
 * shared objects alike; the address in the process comes from the mapping
 * of that file offset in /proc/N/maps.  Paths are taken from maps as they
 * are: kdt and the traced process are assumed to share a mount namespace
 * (no /proc/N/root prefix), which holds in our guest and most systems.
 *
 * Offset probes (pid1:a.out:main:1c) are checked against the symbol's
 * size only: without a disassembler kdt cannot tell whether the offset
 * starts an instruction.  A wrong offset corrupts the traced process's
 * instruction stream when the probe fires -- as with dtrace, the user is
 * trusted to have read the disassembly.
 */
#ifndef KDT_KC_UPROBE_H
#define KDT_KC_UPROBE_H

#include <stdio.h>
#include <stdint.h>

#include "common/kio.h"

struct dof_enabling;

/* The table handed over with KIO_ENABLE (ken_uprobes, ken_nuprobes). */
struct kc_uptab {
	struct kio_uprobe *ut_ents;
	uint32_t	ut_n;
	uint32_t	ut_cap;
};

/*
 * Build the table for every ECB of "den" that names a process; "targets"
 * are the -c/-p pids ("ntargets" of them), for glob provider parts.
 * Returns 0, or -1 after saying why on "err" (a named process that does
 * not exist, more than KIO_UPROBES_MAX probes, no memory).
 */
int kc_uprobe_build(struct kc_uptab *ut, const struct dof_enabling *den,
    const uint32_t *targets, uint32_t ntargets, const char *prog,
    FILE *err);
void kc_uprobe_fini(struct kc_uptab *ut);

/*
 * Parse one USDT argument spec ("-4@%edi", "8@-16(%rbp)", "4@$5") into
 * "a".  "rip_base" is added to a %rip-relative symbolic displacement's
 * symbol, which "symval" looks up (NULL: such arguments are refused).
 * Returns 0, or -1 with the reason in "why".
 */
typedef int (*kc_upsym_fn)(void *arg, const char *name, uint64_t *addr);
int kc_uparg_parse(const char *spec, struct kio_uparg *a,
    kc_upsym_fn symval, void *symarg, char *why, size_t whysz);

/*
 * Parse a whole note argument string (space-separated specs) into up to
 * KIO_UP_NARGS arguments; *nargs gets their count.  An argument that
 * cannot be expressed is KIO_UA_NONE (reads 0) and its reason is put in
 * "why" (the first one); returns the number of such arguments.
 */
int kc_uparg_parse_all(const char *args, struct kio_uparg *out,
    uint32_t *nargs, kc_upsym_fn symval, void *symarg, char *why,
    size_t whysz);

/*
 * usym(), umod() and uaddr() records name an address of process "pid":
 * the object mapping it (the basename of its path in /proc/N/maps, as
 * dtrace prints it: the executable by its own name, not "a.out") and the
 * function of that object holding it (ELF .symtab and .dynsym, the same
 * tables pid probes are resolved with), with the offset into it.
 * Returns 0 when an object maps "addr" (ua_hassym says whether a function
 * was found too), -1 when the process is gone or maps nothing there --
 * the caller prints the address in hex, as dtrace does.  The last
 * process read is cached; it is read again when an address misses.
 */
struct kc_uaddr {
	char		ua_obj[256];
	char		ua_sym[256];
	uint64_t	ua_off;		/* addr - the function's address */
	int		ua_hassym;
};
int kc_uaddr_lookup(uint32_t pid, uint64_t addr, struct kc_uaddr *ua);

#endif /* KDT_KC_UPROBE_H */
