/*
 * an.h -- the anonymous-enabling lifecycle: "kdt -A".
 *
 * consumer/kdt_main.c parses the command line, compiles the program
 * (compiler/dc.h) and calls an_main() with the result:
 *
 *	kdt -A -s boot.d [-x ...]	install the enabling into this system
 *	kdt -A -s boot.d --dry-run	print the plan, change nothing
 *	kdt -A				remove everything a previous kdt -A
 *					installed (the manifest says what)
 *	kdt -A -s boot.d -o DIR		only write the boot artifacts to DIR
 *
 * The theory of each step (region sizing and placement, the initramfs
 * and GRUB integration, the manifest) is in the anon/ file that does it.
 */
#ifndef KDT_AN_H
#define KDT_AN_H

#include <stdint.h>
#include <stdio.h>

#include "compiler/dc.h"

struct an_opts {
	const char	*ao_outdir;	/* -o DIR: artifacts only */
	int		ao_dry_run;	/* --dry-run */
	const char	*ao_root;	/* --root=DIR: the system to change
					   ("/" when NULL) */
	const char	*ao_module;	/* --module=PATH: the kdt.ko to
					   install (found when NULL) */
	const char	*ao_vmlinux;	/* the target kernel's vmlinux (the
					   --btf file): kernel symbol hints,
					   an_ksym.c; NULL: $KDT_BTF */
};

/*
 * kdt -A: with a compiled program "o", install it (or write it to
 * ao_outdir); with o == NULL, remove what was installed.  Messages go to
 * "err", the plan and the summary of changes to "out".  Returns the
 * process exit status (0, 1 failure, 2 bad usage).
 */
int an_main(const struct an_opts *ao, const struct dc_out *o, FILE *out,
    FILE *err);

/*
 * kdt -A --estimate: rehearse the boot's arming of compiled enabling "o"
 * on the running kernel (anon/an_rehearse.c, kio.h KIO_REHEARSE): the
 * region kdt -A would reserve here, the kernel symbol hints it would
 * write for this kernel, kdt.ko's anonymous path, stopped at once.  0
 * with the figures in *ar, or -1 with "why" naming what failed (no
 * /dev/kdt, kdt.ko's refusal).
 */
struct an_rehearsal {
	uint64_t	ar_rgnsize;	/* the region rehearsed */
	uint32_t	ar_ncpu;	/* ... for these possible CPUs */
	uint32_t	ar_nhints;	/* names the hints resolve, 0: none */
	char		ar_hints[256];	/* where the hints came from, or why
					   there are none */
	char		ar_release[65];	/* the running kernel */
	uint64_t	ar_load_ns;	/* kio_rehearse's figures */
	uint64_t	ar_arm_ns;
	uint64_t	ar_ftrace_ns;
	uint32_t	ar_nfuncs;
	uint32_t	ar_nprobes;
	uint32_t	ar_nmatched;
	uint64_t	ar_tinit_ns;	/* this boot's time to init (kernel
					   log), 0: unknown, ar_tinit_why */
	char		ar_tinit_why[128];
};

int an_rehearse(const struct dc_out *o, struct an_rehearsal *ar, char *why,
    size_t whysz);

#endif /* KDT_AN_H */
