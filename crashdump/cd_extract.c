/*
 * cd_extract.c -- kdt-extract: print what kdt recorded, from a crash dump.
 *
 *   kdt-extract DUMP [-q] [--phys ADDR] [-h]
 *
 * Opens the dump as a memory source (cd_open), finds the region in it
 * (cd_find_region: by scanning, or at --phys ADDR) and prints it with the
 * consumer's one decoder (kc_print_region_opts), so the output is what a
 * live "kdt" run would have printed.  -q forces quiet output (only what
 * the actions print).  This is a library function so that the unit tests
 * run the whole tool in-process; crashdump/kdt_extract_main.c is only
 * main().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "consumer/kc.h"
#include "crashdump/cd.h"

#define CD_PROG		"kdt-extract"

/* Parsed command line. */
struct cd_args {
	const char	*ca_dump;
	uint64_t	ca_phys;	/* CD_NOADDR: scan */
	int		ca_quiet;
	int		ca_help;
};

static void
cd_usage(FILE *f)
{
	fprintf(f, "usage: %s DUMP [-q] [--phys ADDR] [-h]\n"
	    "  DUMP         ELF vmcore (kdump, makedumpfile -E, QEMU dump-guest-memory)\n"
	    "  -q           quiet: print only what the D program's actions print\n"
	    "  --phys ADDR  the region is at physical address ADDR (default: scan)\n"
	    "  -h           this help\n", CD_PROG);
}

static int
cd_parse_phys(const char *s, uint64_t *pa, FILE *err)
{
	char *end;

	errno = 0;
	*pa = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || *pa % CD_PAGE ||
	    *pa == CD_NOADDR) {
		fprintf(err, "%s: --phys %s: not a page-aligned physical address (e.g. 0x10000000)\n",
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
			fprintf(err, "%s: one DUMP expected, got %s and %s\n",
			    CD_PROG, ca->ca_dump, argv[i]);
			return 2;
		}
	}
	if (ca->ca_dump == NULL && !ca->ca_help) {
		cd_usage(err);
		return 2;
	}
	return 0;
}

int
cd_extract_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct kc_opts ko = { CD_PROG, 0 };
	struct cd_args ca;
	struct cd_region rg;
	struct cd_src *s;
	char input[1200];
	int rv;

	rv = cd_parse(argc, argv, &ca, err);
	if (rv != 0 || ca.ca_help) {
		if (ca.ca_help)
			cd_usage(out);
		return rv;
	}
	if (cd_open(ca.ca_dump, CD_PROG, &s, err) != 0)
		return 1;
	rv = cd_find_region(s, ca.ca_phys, CD_PROG, &rg, err);
	cd_close(s);
	if (rv != 0)
		return 1;
	snprintf(input, sizeof (input), "%s: region at phys 0x%llx",
	    ca.ca_dump, (unsigned long long)rg.cg_pa);
	ko.ko_flags = ca.ca_quiet ? KC_F_QUIET : 0;
	rv = kc_print_region_opts(rg.cg_img, rg.cg_size, rg.cg_pa, input,
	    out, err, &ko);
	free(rg.cg_img);
	return rv;
}
