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

#endif /* KDT_AN_H */
