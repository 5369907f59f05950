/*
 * kc.h -- libkdt's consumer: the one decoder and the one formatter.
 *
 * Every front end that shows what kdt recorded -- "kdt -a" on the live
 * region (kc_anon.c), kdt-extract on a crash dump (crashdump/), later the
 * crash(8) extension -- hands a region image to kc_print_region() and gets
 * dtrace(1)'s text output.  They differ only in where the bytes come from
 * (DESIGN.md, "One decoder").
 *
 *   region image --rgn_open()--> view --dof_load(DOF copy)--> ECB layouts
 *        |                                                       |
 *        +--rgn_walk_cpu() per cpu, oldest first--> record --kc_print.c
 *                                                     per action: kc_fmt.c
 *
 * Output follows reference section 5 (dof-dif-facts.md): the heading and
 * the "%3d %6d %32s " prefix unless quiet, trace() by record size,
 * printf() conversions, a newline per record, one blank line at the end.
 * Drops, errors, torn and corrupt records go to the error stream with the
 * program name, the input and the place.
 */
#ifndef KDT_KC_H
#define KDT_KC_H

#include <stdio.h>
#include <stdint.h>
#include <stddef.h>

#include "consumer/kc_fmt.h"	/* the formatter: struct kc_val, kc_fmt_* */

/* Options of one decoding run. */
#define KC_F_QUIET	0x1	/* as if the quiet option were set */
#define KC_F_MERGE	0x2	/* all cpus in timestamp order (kdt-extract
				   --merge), not cpu after cpu */
#define KC_F_PARTIAL	0x4	/* return KC_PARTIAL when records were
				   torn or corrupt (kdt-extract's status) */
#define KC_F_VARS	0x8	/* also the variables (kdt-extract --vars,
				   crash "kdt -v"; kc_vars.h) */
#define KC_PARTIAL	3	/* decoded, but records were lost */

/*
 * Output formats (--format=): dtrace text, or one of the export writers
 * of consumer/kc_export.h (JSON lines, Chrome trace events for Perfetto,
 * a self-contained HTML report), fed by this same decoder.
 */
#define KC_FORMAT_TEXT		0
#define KC_FORMAT_JSON		1
#define KC_FORMAT_PERFETTO	2
#define KC_FORMAT_HTML		3

struct kc_opts {
	const char	*ko_prog;	/* message prefix, e.g. "kdt-extract" */
	uint32_t	ko_flags;	/* KC_F_* */
	uint32_t	ko_format;	/* KC_FORMAT_* (0: text) */
	const char	*ko_symbols;	/* kdt-extract --symbols FILE, or NULL */
	const char	*ko_kallsyms;	/* --kallsyms FILE: the crashed boot's
					   own /proc/kallsyms, or NULL */
	const char	*ko_vmlinux;	/* --vmlinux FILE: symbols and source
					   lines (kc_sym.h), or NULL */
	const char	*ko_modules;	/* --modules DIR: modules' source
					   lines (kc_sym.h), or NULL */
	const struct rgn_gap *ko_gaps;	/* parts of the image its source
					   lacked (rgn.h), reported and
					   left out; NULL: none */
	uint32_t	ko_ngaps;
};

/*
 * Decode and print the region image img[0, len) found at physical address
 * "phys" (RGN_PHYS_ANY: do not check).  "input" names the image in
 * messages.  Returns 0 when the region was decoded (problems inside the
 * record streams are reported on "err" but do not fail it), 1 when the
 * image or its DOF is unusable.
 */
int kc_print_region(const void *img, uint64_t len, uint64_t phys,
    const char *input, FILE *out, FILE *err);
int kc_print_region_opts(const void *img, uint64_t len, uint64_t phys,
    const char *input, FILE *out, FILE *err, const struct kc_opts *opts);

/*
 * "kdt -a": claim the anonymous state through /dev/kdt and print what it
 * recorded since boot; then, unless cl_exit (-ae), go on consuming it
 * like a live session until it exits or kdt is interrupted.  With
 * cl_previous, print the previous boot's region instead (warm reboot).
 * Returns the process exit status.
 */
struct kc_claim_opts {
	int	cl_exit;	/* -e: print what is buffered and exit */
	int	cl_previous;	/* --previous */
	int	cl_quiet;	/* -q */
	int	cl_vars;	/* --vars: also the variables (kc_vars.h) */
	uint32_t cl_format;	/* --format: KC_FORMAT_*; not text implies
				   -e (an export is one finished document) */
};

int kc_anon_claim(const struct kc_claim_opts *co, FILE *out, FILE *err);

/*
 * An anonymous enabling's default principal buffer bytes per CPU when its
 * DOF sets no bufsize: 4 MiB, but no more than 64 MiB over all "ncpu"
 * CPUs and no less than 256 KiB each.  kdt -A sizes the region with it
 * (anon/an_size.c); kdt -a and kdt-extract compare the region against it.
 */
uint64_t kc_anon_bufsize_default(uint32_t ncpu);

/*
 * kdt.ko lays an anonymous region out for the CPUs of the boot, dividing
 * whatever the region holds after its metadata among them: more CPUs than
 * kdt -A sized it for give each a smaller buffer than the enabling asked
 * for.  Say so on "err", in dtrace's words ("PROG: buffer size lowered to
 * 2m") with the reason, when the image img[0, len)'s rh_bufsize is below
 * the bufsize of the DOF it carries (kc_anon_bufsize_default() of the
 * region's CPU count for an anonymous enabling without one).  Quiet when
 * the image does not open (the decoder says why).  1 if it said so.
 */
int kc_region_lowered(const void *img, uint64_t len, const char *prog,
    FILE *err);

#endif /* KDT_KC_H */
