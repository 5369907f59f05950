/*
 * cd_extract.c -- kdt-extract: print what kdt recorded, from a crash dump.
 *
 *   kdt-extract DUMP [-q] [--merge] [--vars] [--phys ADDR] [--symbols FILE]
 *               [--format=F] [-h]
 *
 * Opens the dump as a memory source (cd_open), finds the region in it
 * (cd_find_region: by scanning, or at --phys ADDR; a raw region image is
 * the region, read whole and decoded without the physical-address check,
 * after saying on stderr which boot wrote it; a directory a capture
 * kernel saved a dump in is cd_dir.c's: the copy of the region kdt's
 * kdump hook put beside the vmcore, the vmcore for context) and prints
 * it with the consumer's one decoder (kc_print_region_opts), so the
 * output is what a live "kdt" run would have printed.  -q forces quiet output (only what
 * the actions print); --merge prints all cpus' records in timestamp
 * order instead of cpu after cpu; --vars adds the variables
 * (consumer/kc_vars.h: uncommitted speculations are always shown);
 * --format=json|perfetto|html hands the
 * region to the export writers instead (consumer/kc_export.h, through
 * ko_format).  This is a library function so that
 * the unit tests run the whole tool in-process;
 * crashdump/kdt_extract_main.c is only main().  Everything after opening
 * the dump is cd_extract_src(), which the crash(8) extension
 * (mdb-module/) runs over its readmem() source.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "common/kio.h"	/* KIO_PREV_DEV */
#include "common/rgn.h"
#include "consumer/kc.h"
#include "consumer/kc_sym.h"
#include "consumer/kc_export.h"	/* --format */
#include "crashdump/cd.h"

#define CD_PROG		"kdt-extract"

/* Parsed command line. */
struct cd_args {
	const char	*ca_dump;
	uint64_t	ca_phys;	/* CD_NOADDR: scan */
	int		ca_quiet;
	int		ca_merge;
	int		ca_vars;	/* --vars */
	int		ca_help;
	uint32_t	ca_format;	/* --format: KC_FORMAT_* (kc.h) */
	const char	*ca_symbols;	/* --symbols FILE */
	const char	*ca_kallsyms;	/* --kallsyms FILE */
	const char	*ca_vmlinux;	/* --vmlinux FILE (kc_sym.h) */
	const char	*ca_modules;	/* --modules DIR (kc_sym.h) */
};

static void
cd_usage(FILE *f)
{
	fprintf(f, "usage: %s DUMP [-q] [--merge] [--vars] [--phys ADDR] [--symbols FILE | --kallsyms FILE] [--vmlinux FILE] [--modules DIR] [--format=F] [-h]\n"
	    "  DUMP         ELF vmcore (kdump, makedumpfile -E, QEMU dump-guest-memory),\n"
	    "               kdump-compressed (plain or flattened; zlib, lzo, snappy, zstd)\n"
	    "               or a raw region image (dd of the region, kdt's kdump hook,\n"
	    "               /dev/kdt-previous: the previous boot's region after a warm reboot),\n"
	    "               or a kdump directory: the trace from the kdt-region.img kdt's\n"
	    "               kdump hook saved beside the vmcore, the vmcore for context\n"
	    "  -q           quiet: print only what the D program's actions print\n"
	    "  --merge      all CPUs' records in timestamp order, not CPU after CPU\n"
	    "  --vars       also the D program's variables: globals, associative\n"
	    "               arrays, self-> thread-locals (a region-backed state)\n"
	    "  --phys ADDR  the region is at physical address ADDR (default: scan)\n"
	    "  --symbols FILE  System.map or vmlinux of the kernel that wrote the\n"
	    "               region, for stack() and symbols (default: its -dbg\n"
	    "               package's, or /proc/kallsyms when this machine runs\n"
	    "               the same kernel; else addresses)\n"
	    "  --kallsyms FILE  a copy of /proc/kallsyms saved on the boot that\n"
	    "               wrote the region (its own addresses: module symbols too)\n"
	    "  --vmlinux FILE  that kernel's vmlinux with DWARF (the -dbg package's):\n"
	    "               stack() frames get their source line, [fs/read_write.c:454];\n"
	    "               also the symbol file unless --symbols or --kallsyms\n"
	    "  --modules DIR  NAME.ko files with DWARF (searched for recursively, e.g.\n"
	    "               /usr/lib/debug/lib/modules/RELEASE from the -dbg package):\n"
	    "               module frames get their source line too\n"
	    "  --format=F   text (dtrace's, the default), json (JSON lines), perfetto\n"
	    "               (Chrome trace events for ui.perfetto.dev) or html (a\n"
	    "               self-contained report); consumer/kc_export.h has the schemas\n"
	    "  -h           this help\n"
	    "Exit status: 0 every record printed, 3 partial: printed, but records\n"
	    "were torn or corrupt or parts of the region (a CPU's buffer, the\n"
	    "aggregations...) were not in the dump (each reported), 1 no region\n"
	    "found, 2 bad usage.\n"
	    "See kdt-extract(1).\n", CD_PROG);
}

static int
cd_parse_phys(const char *s, uint64_t *pa, FILE *err)
{
	char *end;

	errno = 0;
	*pa = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || *pa % CD_PAGE ||
	    *pa == CD_NOADDR) {
		fprintf(err, "%s: --phys %s: not a page-aligned physical address (e.g. 0x10000000); see kdt-extract(1), OPTIONS\n",
		    CD_PROG, s);
		return 2;
	}
	return 0;
}

/* 0, or the exit status for a usage error (after saying why). */
static int
cd_parse(int argc, char **argv, struct cd_args *ca, FILE *err)
{
	int i;

	memset(ca, 0, sizeof (*ca));
	ca->ca_phys = CD_NOADDR;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0)
			ca->ca_help = 1;
		else if (strcmp(argv[i], "-q") == 0)
			ca->ca_quiet = 1;
		else if (strcmp(argv[i], "--merge") == 0)
			ca->ca_merge = 1;
		else if (strcmp(argv[i], "--vars") == 0)
			ca->ca_vars = 1;
		else if (strncmp(argv[i], "--format", 8) == 0 &&
		    (argv[i][8] == '=' || (argv[i][8] == '\0' && i + 1 < argc))) {
			const char *f = argv[i][8] == '=' ? argv[i] + 9 :
			    argv[++i];

			if (kc_export_format(f, &ca->ca_format) != 0) {
				fprintf(err, "%s: --format %s: unknown format (one of %s); see kdt-extract(1), OPTIONS\n",
				    CD_PROG, f, KC_EXPORT_FORMATS);
				return 2;
			}
		} else if (strcmp(argv[i], "--format") == 0) {
			fprintf(err, "%s: --format needs a value: one of %s; see kdt-extract(1), OPTIONS\n",
			    CD_PROG, KC_EXPORT_FORMATS);
			return 2;
		}
		else if (strcmp(argv[i], "--symbols") == 0 && i + 1 < argc)
			ca->ca_symbols = argv[++i];
		else if (strncmp(argv[i], "--symbols=", 10) == 0)
			ca->ca_symbols = argv[i] + 10;
		else if (strcmp(argv[i], "--vmlinux") == 0 && i + 1 < argc)
			ca->ca_vmlinux = argv[++i];
		else if (strncmp(argv[i], "--vmlinux=", 10) == 0)
			ca->ca_vmlinux = argv[i] + 10;
		else if (strcmp(argv[i], "--modules") == 0 && i + 1 < argc)
			ca->ca_modules = argv[++i];
		else if (strncmp(argv[i], "--modules=", 10) == 0)
			ca->ca_modules = argv[i] + 10;
		else if (strcmp(argv[i], "--kallsyms") == 0 && i + 1 < argc)
			ca->ca_kallsyms = argv[++i];
		else if (strncmp(argv[i], "--kallsyms=", 11) == 0)
			ca->ca_kallsyms = argv[i] + 11;
		else if (strcmp(argv[i], "--phys") == 0 && i + 1 < argc) {
			if (cd_parse_phys(argv[++i], &ca->ca_phys, err))
				return 2;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(err, "%s: unknown option %s\n", CD_PROG,
			    argv[i]);
			cd_usage(err);
			return 2;
		} else if (ca->ca_dump == NULL)
			ca->ca_dump = argv[i];
		else {
			fprintf(err, "%s: one DUMP expected, got %s and %s; see kdt-extract(1), OPTIONS\n",
			    CD_PROG, ca->ca_dump, argv[i]);
			return 2;
		}
	}
	if (ca->ca_symbols != NULL && ca->ca_kallsyms != NULL) {
		fprintf(err, "%s: give --symbols or --kallsyms, not both; see kdt-extract(1), OPTIONS\n",
		    CD_PROG);
		return 2;
	}
	if (ca->ca_dump == NULL && !ca->ca_help) {
		cd_usage(err);
		return 2;
	}
	return 0;
}

/*
 * Say on err which boot wrote a raw image (its header is valid enough);
 * for kdt.ko's copy of the previous boot's region (/dev/kdt-previous,
 * common/kio.h) also when that boot set it up.
 */
static void
cd_raw_whence(const char *path, const struct rgn_hdr *h, FILE *err)
{
	time_t t = (time_t)(h->rh_created / 1000000000ULL);
	char id[33], when[64];
	struct tm tm;
	int i;

	for (i = 0; i < 16; i++)
		snprintf(id + 2 * i, 3, "%02x", h->rh_bootid[i]);
	if (strcmp(path, KIO_PREV_DEV) != 0) {
		fprintf(err, "%s: %s: raw region image written by kernel %.*s, boot id %s, region was at phys 0x%llx\n",
		    CD_PROG, path, (int)sizeof (h->rh_release),
		    h->rh_release[0] != '\0' ? h->rh_release : "(unknown)", id,
		    (unsigned long long)h->rh_phys);
		return;
	}
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof (when), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(when, sizeof (when), "at an unknown time");
	fprintf(err, "%s: %s: the previous boot's region, kept by kdt.ko: written by kernel %.*s, boot id %s, set up %s, at phys 0x%llx\n",
	    CD_PROG, path, (int)sizeof (h->rh_release),
	    h->rh_release[0] != '\0' ? h->rh_release : "(unknown)", id, when,
	    (unsigned long long)h->rh_phys);
}

/* A raw image is the region: read it whole.  0, or 1 after saying why. */
int
cd_raw_region(struct cd_src *s, int quiet, struct cd_region *rg, FILE *err)
{
	struct rgn_hdr h;
	uint64_t miss;

	memset(rg, 0, sizeof (*rg));
	if (cd_read_phys(s, 0, &h, sizeof (h), &miss) != 0 ||
	    h.rh_size < CD_PAGE || h.rh_size > CD_REGION_MAX) {
		fprintf(err, "%s: %s: raw region image: header size field 0x%llx is outside [0x%llx, 0x%llx]\n",
		    CD_PROG, s->cs_name, (unsigned long long)h.rh_size,
		    CD_PAGE, CD_REGION_MAX);
		return 1;
	}
	/* cut short: the header and metadata must be there (the rest: gaps) */
	if (h.rh_size > s->cs_total && (h.rh_meta_off > s->cs_total ||
	    h.rh_meta_size > s->cs_total - h.rh_meta_off)) {
		fprintf(err, "%s: %s: raw region image is truncated: its header says %llu bytes, the file has %llu; see kdt-extract(1), DIAGNOSTICS\n",
		    CD_PROG, s->cs_name, (unsigned long long)h.rh_size,
		    (unsigned long long)s->cs_total);
		return 1;
	}
	rg->cg_img = cd_img_alloc(h.rh_size);
	rg->cg_size = h.rh_size;	/* cd_region_free() unmaps it */
	if (rg->cg_img == NULL || cd_read_gaps(s, 0, h.rh_size, rg->cg_img,
	    &rg->cg_gaps, &rg->cg_ngaps) != 0) {
		fprintf(err, "%s: %s: cannot read the %llu-byte raw region image\n",
		    CD_PROG, s->cs_name, (unsigned long long)h.rh_size);
		cd_region_free(rg);
		return 1;
	}
	if (h.rh_size > s->cs_total)
		fprintf(err, "%s: %s: raw region image is truncated: its header says %llu bytes, the file has %llu: what it holds is printed\n",
		    CD_PROG, s->cs_name, (unsigned long long)h.rh_size,
		    (unsigned long long)s->cs_total);
	rg->cg_size = h.rh_size;
	rg->cg_pa = RGN_PHYS_ANY;
	if (!quiet)
		cd_raw_whence(s->cs_name, &h, err);
	return 0;
}

/*
 * Several regions in one dump (a reserved region and live sessions, or
 * several live sessions): each is printed after a line naming it --
 * "region N of M", what wrote it and its id (rh_bootid: the boot's for
 * a reserved region, the session's own for a live one), where it was --
 * on the output in text format and on err otherwise, so JSON and
 * Perfetto output stay parseable (man/kdt-extract.1).  A raw image (the
 * kdump hook's copy, cd_dir.c) is placed by the phys its header names.
 */
void
cd_region_label(const struct cd_region *rg, uint32_t i, uint32_t n,
    const struct kc_opts *ko, FILE *out, FILE *err)
{
	const struct rgn_hdr *h = (const void *)rg->cg_img;
	char id[33];
	int k;

	for (k = 0; k < 16; k++)
		snprintf(id + 2 * k, 3, "%02x", h->rh_bootid[k]);
	fprintf(ko->ko_format == KC_FORMAT_TEXT ? out : err,
	    "%s== region %u of %u: %s, %s id %s, at phys 0x%llx ==\n",
	    i > 0 && ko->ko_format == KC_FORMAT_TEXT ? "\n" : "", i + 1, n,
	    h->rh_pl_off != 0 ? "live session" : (h->rh_flags & RGN_F_ANON) ?
	    "anonymous enabling" : "reserved region",
	    h->rh_pl_off != 0 ? "state" : "boot", id,
	    (unsigned long long)(rg->cg_pa == RGN_PHYS_ANY ? h->rh_phys :
	    rg->cg_pa));
}

int
cd_print_regions(struct cd_src *s, const uint64_t *pas, uint32_t n,
    uint32_t first, uint32_t total, const struct kc_opts *ko, FILE *out,
    FILE *err)
{
	struct cd_region rg;
	uint32_t i, printed;
	int rv, worst;

	for (i = 0, worst = 0, printed = 0; i < n; i++) {
		if (cd_find_region(s, pas[i], ko->ko_prog, &rg, err) != 0) {
			worst = 3;	/* the others are partial */
			continue;
		}
		if (total > 1)
			cd_region_label(&rg, first + i, total, ko, out, err);
		rv = cd_print_region(s, &rg, ko, out, err);
		worst = rv > worst ? rv : worst;
		printed++;
	}
	return printed == 0 ? 1 : worst;
}

int
cd_extract_src(struct cd_src *s, uint64_t pa, const struct kc_opts *ko,
    FILE *out, FILE *err)
{
	struct cd_region rg;
	uint64_t *pas;
	uint32_t n;
	int rv;

	if (s->cs_raw && pa == CD_NOADDR)
		rv = cd_raw_region(s, (ko->ko_flags & KC_F_QUIET) != 0, &rg,
		    err);
	else if (pa != CD_NOADDR)
		rv = cd_find_region(s, pa, ko->ko_prog, &rg, err);
	else {
		if (cd_find_regions(s, ko->ko_prog, &pas, &n, err) != 0)
			return 1;
		rv = cd_print_regions(s, pas, n, 0, n, ko, out, err);
		free(pas);
		return rv;
	}
	if (rv != 0)
		return 1;
	return cd_print_region(s, &rg, ko, out, err);
}

int
cd_print_region(struct cd_src *s, struct cd_region *rg,
    const struct kc_opts *ko, FILE *out, FILE *err)
{
	struct kc_symtab *syms;
	struct kc_opts kg = *ko;	/* with the region's gaps */
	char input[1200], why[600];
	int rv, failed;

	if (rg->cg_pa == RGN_PHYS_ANY)
		snprintf(input, sizeof (input), "%s: raw region image",
		    s->cs_name);
	else
		snprintf(input, sizeof (input), "%s: region at phys 0x%llx",
		    s->cs_name, (unsigned long long)rg->cg_pa);
	if (ko->ko_kallsyms != NULL) {
		/* the crashed boot's own kallsyms: its addresses, no slide */
		syms = kc_sym_load_kallsyms(ko->ko_kallsyms, why,
		    sizeof (why));
		failed = syms == NULL;
		if (failed)
			fprintf(err, "%s: --kallsyms: %s\n", ko->ko_prog, why);
	} else {
		/* --vmlinux is the symbol file too unless --symbols */
		syms = kc_sym_for_region(rg->cg_img, rg->cg_size,
		    ko->ko_symbols != NULL ? ko->ko_symbols : ko->ko_vmlinux,
		    (ko->ko_flags & KC_F_QUIET) != 0,
		    ko->ko_prog, err, &failed);
	}
	if (!failed && kc_sym_lines_for_region(syms, rg->cg_img,
	    rg->cg_size, ko->ko_vmlinux, (ko->ko_flags & KC_F_QUIET) != 0,
	    ko->ko_prog, err) != 0) {
		kc_sym_free(syms);
		failed = 1;
	}
	if (!failed && kc_sym_modlines_for_region(syms, rg->cg_img,
	    rg->cg_size, ko->ko_modules, (ko->ko_flags & KC_F_QUIET) != 0,
	    ko->ko_prog, err) < 0) {
		kc_sym_free(syms);
		failed = 1;
	}
	if (failed) {
		cd_region_free(rg);
		return 2;
	}
	if (syms != NULL)
		kc_sym_set_default(syms);
	/* more CPUs than the region was sized for (kc.h) */
	(void) kc_region_lowered(rg->cg_img, rg->cg_size, ko->ko_prog, err);
	kg.ko_gaps = rg->cg_gaps;
	kg.ko_ngaps = rg->cg_ngaps;
	rv = kc_print_region_opts(rg->cg_img, rg->cg_size, rg->cg_pa, input,
	    out, err, &kg);
	if (syms != NULL) {
		kc_sym_set_default(NULL);
		kc_sym_free(syms);
	}
	cd_region_free(rg);
	return rv;
}

int
cd_extract_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct kc_opts ko = { CD_PROG, 0 };
	struct cd_args ca;
	struct cd_src *s;
	struct stat st;
	int rv;

	rv = cd_parse(argc, argv, &ca, err);
	if (rv != 0 || ca.ca_help) {
		if (ca.ca_help)
			cd_usage(out);
		return rv;
	}
	ko.ko_flags = (ca.ca_quiet ? KC_F_QUIET : 0) |
	    (ca.ca_merge ? KC_F_MERGE : 0) | (ca.ca_vars ? KC_F_VARS : 0) |
	    KC_F_PARTIAL;
	ko.ko_format = ca.ca_format;
	ko.ko_symbols = ca.ca_symbols;
	ko.ko_kallsyms = ca.ca_kallsyms;
	ko.ko_vmlinux = ca.ca_vmlinux;
	ko.ko_modules = ca.ca_modules;
	if (stat(ca.ca_dump, &st) == 0 && S_ISDIR(st.st_mode))
		return cd_dir_extract(ca.ca_dump, ca.ca_phys, &ko, out, err);
	if (cd_open(ca.ca_dump, CD_PROG, &s, err) != 0)
		return 1;
	rv = cd_extract_src(s, ca.ca_phys, &ko, out, err);
	cd_close(s);
	return rv;
}
