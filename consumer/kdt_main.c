/*
 * kdt_main.c -- the `kdt` command: dtrace(1)-style front end.
 *
 * Parses dtrace-like flags, compiles the program with the compiler library
 * (compiler/dc.h) and then, by mode:
 *
 *	-e [-o FILE]	compile only, optionally writing the DOF to FILE
 *	-S		print the DIF of every clause (compiler/dc_dis.c)
 *	-A		install the program as this system's anonymous
 *			(boot-time) enabling, remove it (no program), or
 *			write the boot artifacts to a directory (-o DIR):
 *			anon/an.h
 *	-a		claim the anonymous state, print it and go on
 *			tracing (-ae: print and exit; --previous: the
 *			previous boot's region) (consumer/kc.h)
 *	-l		list the probes kdt.ko offers: all of them, or
 *			those the program's descriptions match
 *			(consumer/kc_kernel.h), pid and USDT probes too;
 *			with -v each with its argument types
 *	otherwise	run it (consumer/kc_run.h: kdt.ko through /dev/kdt,
 *			or the userspace engine for BEGIN/END/ERROR/profile/
 *			tick programs when kdt.ko is not loaded)
 *
 * The program comes from -s FILE or from probe specifiers: -n, -P, -m
 * and -f, each a description list with an optional predicate and action
 * block, whose short descriptions name a name, provider, module or
 * function as in dtrace(1) (consumer/kc_pspec.h writes them out).
 *
 * Arguments after the options are the program's macro arguments ($1 ..,
 * $$1 ..); -C runs cpp over the program with -D/-U/-I; -q, -b, -F map to
 * options, -w permits destructive actions, -Z empty probe matches.
 * -c CMD and -p PID name the processes the program traces
 * (consumer/kc_proc.h): $target is the first, their pid and USDT probes
 * are resolved (consumer/kc_uprobe.h), and kdt stops when they exit.
 * --list-options, left out of the usage, prints the -x option names
 * (dc_opt_name()) for the bash completion (contrib/bash-completion/kdt).
 * Exit status: what the program passes to exit() when it runs; 0 success,
 * 1 compile (or claim, or run setup) failure, 2 bad usage or I/O problems.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/dof_load.h"
#include "compiler/dc.h"
#include "consumer/kc.h"
#include "consumer/kc_agg.h"	/* -x encoding */
#include "consumer/kc_export.h"	/* -a --format */
#include "consumer/kc_kernel.h"
#include "consumer/kc_proc.h"
#include "consumer/kc_pspec.h"
#include "consumer/kc_uprobe.h"
#include "consumer/kc_run.h"
#include "consumer/kc_est.h"	/* --estimate, --calibrate */
#include "common/kio.h"		/* -i: KIO_PROBE */
#include "common/rgn.h"
#include "anon/an.h"

#define KDT_EXIT_OK	0
#define KDT_EXIT_FAIL	1
#define KDT_EXIT_USAGE	2

struct km_args {
	const char	*ka_script;	/* -s FILE */
	char		*ka_text;	/* -n/-P/-m/-f texts joined by
					   newlines (descriptions in full) */
	const char	*ka_spec;	/* the first of them as given */
	size_t		ka_textlen;
	const char	*ka_out;	/* -o */
	int		ka_compile_only;	/* -e */
	int		ka_dis;		/* -S */
	int		ka_anon;	/* -A */
	int		ka_claim;	/* -a */
	int		ka_list;	/* -l */
	int		ka_verbose;	/* -v: -l lists argument types */
	struct an_opts	ka_ao;		/* -A: --dry-run, --root, --module */
	struct kc_claim_opts ka_co;	/* -a: -e, --previous */
	int		ka_cpp;		/* -C */
	int		ka_quiet;	/* -q */
	const char	*ka_cppargs[DC_MAXOPTS];	/* -D -U -I as given */
	int		ka_ncppargs;
	char		ka_bufopt[80];	/* -b SIZE as "bufsize=SIZE" */
	const char	**ka_argv;	/* macro arguments, $0 first */
	const char	*ka_procarg[KC_PROCS_MAX];	/* -c CMD, -p PID */
	char		ka_prockind[KC_PROCS_MAX];	/* 'c' or 'p' */
	int		ka_nprocs;
	struct kc_procs	ka_procs;
	struct dc_opts	ka_dc;
	int		ka_estimate;	/* --estimate */
	double		ka_rate;	/* --rate=N (firings/s) */
	double		ka_sample;	/* --estimate-sample=SECONDS */
	int		ka_calibrate;	/* --calibrate[=PAIRS] */
	uint32_t	ka_calpairs;
};

static void
km_usage(FILE *fp)
{
	fputs("Usage: kdt [-aACeFlqSvwZ] [-b bufsz] [-o output] [-x opt[=val]]\n"
	    "\t[-D name[=def]] [-U name] [-I path] [--btf=PATH]\n"
	    "\t[-s script] [-P provider [[ predicate ] action ]]\n"
	    "\t[-m [ provider: ] module [[ predicate ] action ]]\n"
	    "\t[-f [[ provider: ] module: ] func [[ predicate ] action ]]\n"
	    "\t[-n [[[ provider: ] module: ] func: ] name [[ predicate ] action ]]\n"
	    "\t[-i probe-id [[ predicate ] action ]]\n"
	    "\t[-c cmd] [-p pid] [args ...]\n"
	    "\n"
	    "\t-s  run (or with -l list) the D program in the given file\n"
	    "\t    (args are $1, $2 ...)\n"
	    "\t-n  run (or list) probes matching the probe name; the\n"
	    "\t    argument is D program text: descriptions, an optional\n"
	    "\t    /predicate/ and { actions }\n"
	    "\t-P  the same for a provider name (-P syscall is syscall:::)\n"
	    "\t-m  the same for a module name (-m ext4 is :ext4::)\n"
	    "\t-f  the same for a function name (-f vfs_read is ::vfs_read:)\n"
	    "\t-i  the same for the probe kdt.ko numbers probe-id (the ID\n"
	    "\t    column of kdt -l and of the default output)\n"
	    "\t-c  run the command 'cmd args' (words split on blanks) and trace\n"
	    "\t    it: $target is its pid; kdt exits when it exits\n"
	    "\t-p  trace the running process pid ($target), until it exits;\n"
	    "\t    with -c or -p, pid$target:mod:func:entry|return|offset\n"
	    "\t    probes its functions, prov$target:::name its USDT probes\n"
	    "\t-l  list the probes kdt.ko offers, all of them or those the\n"
	    "\t    -n/-P/-m/-f/-s descriptions match (needs kdt.ko and root)\n"
	    "\t-e  exit after compiling (with -o FILE: write the DOF there)\n"
	    "\t-S  print the DIF code generated for each clause\n"
	    "\t-C  run the C preprocessor (cpp -P) over the program first,\n"
	    "\t    with -D, -U and -I passed to it\n"
	    "\t-b  principal buffer size (option bufsize)\n"
	    "\t-w  permit destructive actions\n"
	    "\t-Z  permit probe descriptions that match no probes\n"
	    "\t-F  indent function entry and return (option flowindent)\n"
	    "\t-v  with -l, list each probe's argument types\n"
	    "\t-A  install the program as the anonymous (boot-time) enabling\n"
	    "\t    of this system (initramfs, GRUB); with no program, remove\n"
	    "\t    it again; with -o DIR only write the boot artifacts to DIR\n"
	    "\t    --dry-run  print what -A would change, change nothing\n"
	    "\t    --root=DIR  install into the system mounted at DIR\n"
	    "\t    --module=PATH  the kdt.ko to install\n"
	    "\t-a  claim the anonymous enabling: print what it buffered\n"
	    "\t    since boot, then go on tracing (-ae: print and exit)\n"
	    "\t    --previous  print the previous boot's region instead\n"
	    "\t    --vars  also its variables (globals, arrays, self->)\n"
	    "\t    --format=F  text (default), json, perfetto or html\n"
	    "\t    (not text: -ae, one document; see consumer/kc_export.h)\n"
	    "\t-q  quiet: print only what actions print\n"
	    "\t-x  set an option (quiet, strsize, bufsize, bufpolicy, ...,\n"
	    "\t    regionsize, regionaddr; engine=kernel or engine=user\n"
	    "\t    to run on kdt.ko or in-process: by default kdt.ko when\n"
	    "\t    /dev/kdt exists; region: keep a live session's buffers\n"
	    "\t    in kdt.ko's reserved region, so they survive a panic)\n"
	    "\t--estimate  print what one firing of each clause will cost\n"
	    "\t    (ns, from kdt --calibrate), arm nothing; --rate=N or\n"
	    "\t    --estimate-sample=SECONDS add the share of a CPU\n"
	    "\t--calibrate[=PAIRS]  measure those costs on this machine\n"
	    "\t    (needs kdt.ko; saved for --estimate)\n"
	    "\t--btf=PATH  kernel types (default $KDT_BTF, else\n"
	    "\t    /sys/kernel/btf/vmlinux)\n"
	    "\t-h, --help  this text\n"
	    "See kdt(1).\n", fp);
}

static int
km_add_xopt(struct km_args *a, const char *opt)
{
	if (a->ka_dc.dco_nxopts == DC_MAXOPTS) {
		fprintf(stderr, "kdt: too many -x options (limit %d); see kdt(1), OPTIONS\n", DC_MAXOPTS);
		return -1;
	}
	a->ka_dc.dco_xopts[a->ka_dc.dco_nxopts++] = opt;
	return 0;
}

static int
km_add_text(struct km_args *a, const char *text)
{
	size_t n = strlen(text);
	char *p = realloc(a->ka_text, a->ka_textlen + n + 2);

	if (p == NULL) {
		fprintf(stderr, "kdt: out of memory\n");
		return -1;
	}
	memcpy(p + a->ka_textlen, text, n);
	p[a->ka_textlen + n] = '\n';
	a->ka_textlen += n + 1;
	p[a->ka_textlen] = '\0';
	a->ka_text = p;
	return 0;
}

/*
 * A probe specifier (-n, -P, -m, -f): its text, descriptions written out
 * in full.  Returns -1 to go on, else the exit status.
 */
static int
km_add_spec(struct km_args *a, int opt, uint32_t level, const char *arg)
{
	char why[256], *text;
	int rc;

	text = kc_pspec_expand(arg, level, why, sizeof (why));
	if (text == NULL) {
		fprintf(stderr, "kdt: -%c '%s': %s\n", opt, arg, why);
		return KDT_EXIT_USAGE;
	}
	if (a->ka_spec == NULL)
		a->ka_spec = arg;
	rc = km_add_text(a, text);
	free(text);
	return rc != 0 ? KDT_EXIT_USAGE : -1;
}

/*
 * -i ID[[predicate] action]: the probe kdt.ko numbers ID (KIO_PROBE; ids
 * are global, kmod/kd_cs.c), given to -n by its full name.  Without
 * kdt.ko only dtrace's fixed ids 1-3 (BEGIN, END, ERROR) are known.
 */
static int
km_add_id(struct km_args *a, const char *arg)
{
	static const char *const dn[3] = { "BEGIN", "END", "ERROR" };
	struct rgn_probe rp;
	unsigned long id;
	char *end, *text;
	size_t n;
	int fd, rc;

	errno = 0;
	id = strtoul(arg, &end, 10);
	if (errno != 0 || end == arg || *arg == '-' || id == 0 ||
	    id > UINT32_MAX) {
		fprintf(stderr, "kdt: -i '%s': want a probe id, a number from 1 to %u (kdt -l lists them); see kdt(1), OPTIONS\n",
		    arg, UINT32_MAX);
		return KDT_EXIT_USAGE;
	}
	memset(&rp, 0, sizeof (rp));
	rp.rp_id = (uint32_t)id;
	if (kc_dev_present()) {
		if ((fd = kc_dev_open(O_RDWR, stderr)) < 0)
			return KDT_EXIT_USAGE;
		rc = ioctl(fd, KIO_PROBE, &rp);
		close(fd);
		if (rc != 0) {
			fprintf(stderr, "kdt: -i %lu: %s\n", id,
			    errno == ENOENT ? "no probe has this id (kdt -l lists the probes and their ids)" :
			    strerror(errno));
			return KDT_EXIT_USAGE;
		}
	} else if (id <= 3) {
		snprintf(rp.rp_prov, sizeof (rp.rp_prov), "dtrace");
		snprintf(rp.rp_name, sizeof (rp.rp_name), "%s", dn[id - 1]);
	} else {
		fprintf(stderr, "kdt: -i %lu: probe ids above 3 are kdt.ko's, and %s is absent (kdt.ko is not loaded)\n",
		    id, KC_DEV);
		return KDT_EXIT_USAGE;
	}
	rp.rp_prov[sizeof (rp.rp_prov) - 1] = '\0';
	rp.rp_mod[sizeof (rp.rp_mod) - 1] = '\0';
	rp.rp_func[sizeof (rp.rp_func) - 1] = '\0';
	rp.rp_name[sizeof (rp.rp_name) - 1] = '\0';
	n = sizeof (rp) + strlen(end) + 8;
	if ((text = malloc(n)) == NULL) {
		fprintf(stderr, "kdt: out of memory\n");
		return KDT_EXIT_USAGE;
	}
	snprintf(text, n, "%s:%s:%s:%s%s", rp.rp_prov, rp.rp_mod,
	    rp.rp_func, rp.rp_name, end);
	if (a->ka_spec == NULL)
		a->ka_spec = arg;
	rc = km_add_spec(a, 'i', KC_PSPEC_NAME, text);
	free(text);
	return rc;
}

static int
km_badopt(int c, const char *arg)
{
	if (c == 0 || c == '?')
		fprintf(stderr, "kdt: unknown option %s\n", arg != NULL ? arg : "?");
	else
		fprintf(stderr, "kdt: option -%c requires an argument\n", c);
	fprintf(stderr, "kdt: try 'kdt --help' for usage. See kdt(1), OPTIONS.\n");
	return KDT_EXIT_USAGE;
}

static int
km_add_cpparg(struct km_args *a, int c, const char *arg)
{
	char *p;

	if (a->ka_ncppargs == DC_MAXOPTS) {
		fprintf(stderr, "kdt: too many -D, -U and -I options (limit %d); see kdt(1), OPTIONS\n", DC_MAXOPTS);
		return -1;
	}
	p = malloc(strlen(arg) + 3);
	if (p == NULL) {
		fprintf(stderr, "kdt: out of memory\n");
		return -1;
	}
	snprintf(p, strlen(arg) + 3, "-%c%s", c, arg);
	a->ka_cppargs[a->ka_ncppargs++] = p;
	return 0;
}

/* A number in (0, max] for option "name": 0, or -1 after a message. */
static int
km_posnum(const char *name, const char *arg, double max, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' || !(*v > 0) ||
	    *v > max) {
		fprintf(stderr, "kdt: %s=%s: want a number greater than 0 and at most %g; see kdt(1), OPTIONS\n",
		    name, arg, max);
		return -1;
	}
	return 0;
}

/* One option letter; returns -1 to go on, else the exit status. */
static int
km_opt(struct km_args *a, int c, char **argv)
{
	switch (c) {
	case 's':
		if (a->ka_script != NULL) {
			fprintf(stderr, "kdt: only one -s script may be given; see kdt(1), OPTIONS\n");
			return KDT_EXIT_USAGE;
		}
		a->ka_script = optarg;
		return -1;
	case 'n': return km_add_spec(a, 'n', KC_PSPEC_NAME, optarg);
	case 'P': return km_add_spec(a, 'P', KC_PSPEC_PROVIDER, optarg);
	case 'm': return km_add_spec(a, 'm', KC_PSPEC_MOD, optarg);
	case 'f': return km_add_spec(a, 'f', KC_PSPEC_FUNC, optarg);
	case 'i': return km_add_id(a, optarg);
	case 'l': a->ka_list = 1; return -1;
	case 'e': a->ka_compile_only = 1; return -1;
	case 'S': a->ka_dis = 1; return -1;
	case 'x': return km_add_xopt(a, optarg) != 0 ? KDT_EXIT_USAGE : -1;
	case 'q':
		a->ka_quiet = 1;
		return km_add_xopt(a, "quiet") != 0 ? KDT_EXIT_USAGE : -1;
	case 'F':
		return km_add_xopt(a, "flowindent") != 0 ? KDT_EXIT_USAGE : -1;
	case 'b':
		snprintf(a->ka_bufopt, sizeof (a->ka_bufopt), "bufsize=%s",
		    optarg);
		return km_add_xopt(a, a->ka_bufopt) != 0 ? KDT_EXIT_USAGE : -1;
	case 'w': a->ka_dc.dco_destructive = 1; return -1;
	case 'Z': a->ka_dc.dco_zdefs = 1; return -1;
	case 'v': a->ka_verbose = 1; return -1;
	case 'C': a->ka_cpp = 1; return -1;
	case 'D': case 'U': case 'I':
		return km_add_cpparg(a, c, optarg) != 0 ? KDT_EXIT_USAGE : -1;
	case 'o': a->ka_out = optarg; return -1;
	case 'c': case 'p':
		if (a->ka_nprocs == KC_PROCS_MAX) {
			fprintf(stderr, "kdt: more than %d -c and -p options; see kdt(1), OPTIONS\n", KC_PROCS_MAX);
			return KDT_EXIT_USAGE;
		}
		a->ka_prockind[a->ka_nprocs] = (char)c;
		a->ka_procarg[a->ka_nprocs++] = optarg;
		return -1;
	case 'A': a->ka_anon = 1; return -1;
	case 'a': a->ka_claim = 1; return -1;
	case 'B': a->ka_dc.dco_btf = optarg; return -1;
	case 1: a->ka_ao.ao_dry_run = 1; return -1;
	case 2: a->ka_ao.ao_root = optarg; return -1;
	case 3: a->ka_ao.ao_module = optarg; return -1;
	case 4: a->ka_co.cl_previous = 1; return -1;
	case 12: a->ka_co.cl_vars = 1; return -1;	/* -a --vars */
	case 6:
		if (kc_export_format(optarg, &a->ka_co.cl_format) == 0)
			return -1;
		fprintf(stderr, "kdt: --format %s: unknown format (one of %s); see kdt(1), OPTIONS\n",
		    optarg, KC_EXPORT_FORMATS);
		return KDT_EXIT_USAGE;
	case 5: {	/* --list-options: -x names, for shell completion */
		const char *name;
		size_t i;
		int tv;

		for (i = 0; (name = dc_opt_name(i, &tv)) != NULL; i++)
			printf("%s%s\n", name, tv ? "=" : "");
		return KDT_EXIT_OK;
	}
	case 7: a->ka_estimate = 1; return -1;
	case 8:
		a->ka_calibrate = 1;
		if (optarg != NULL && km_posnum("--calibrate", optarg, 64,
		    &a->ka_rate) == 0) {
			a->ka_calpairs = (uint32_t)a->ka_rate;
			a->ka_rate = 0;
			return -1;
		}
		return optarg == NULL ? -1 : KDT_EXIT_USAGE;
	case 9: return kc_cal_loop(atol(optarg));
	case 10:
		a->ka_estimate = 1;
		return km_posnum("--rate", optarg, 1e9, &a->ka_rate) == 0 ? -1 :
		    KDT_EXIT_USAGE;
	case 11:
		a->ka_estimate = 1;
		return km_posnum("--estimate-sample", optarg, 3600,
		    &a->ka_sample) == 0 ? -1 : KDT_EXIT_USAGE;
	case 'h':
		km_usage(stdout);
		return KDT_EXIT_OK;
	case ':':
		return km_badopt(optopt, NULL);
	default:
		if (optopt != 0) {
			char bad[8];

			snprintf(bad, sizeof (bad), "-%c", optopt);
			return km_badopt('?', bad);
		}
		return km_badopt('?', argv[optind - 1]);
	}
}

/*
 * Returns -1 to go on, else the exit status.  Arguments after the options
 * are the program's macro arguments ($1, $2, ...); $0 is the script.
 */
static int
km_parse(struct km_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "btf", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ "dry-run", no_argument, NULL, 1 },
		{ "root", required_argument, NULL, 2 },
		{ "module", required_argument, NULL, 3 },
		{ "previous", no_argument, NULL, 4 },
		{ "list-options", no_argument, NULL, 5 },	/* hidden */
		{ "format", required_argument, NULL, 6 },	/* -a --format */
		{ "estimate", no_argument, NULL, 7 },
		{ "calibrate", optional_argument, NULL, 8 },
		{ "calibrate-loop", required_argument, NULL, 9 }, /* hidden */
		{ "rate", required_argument, NULL, 10 },
		{ "estimate-sample", required_argument, NULL, 11 },
		{ "vars", no_argument, NULL, 12 },	/* -a --vars */
		{ NULL, 0, NULL, 0 },
	};
	int c, rc, i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:s:n:P:m:f:i:leSx:qo:Aahb:wZvFCD:U:I:c:p:",
	    longopts, NULL)) != -1) {
		rc = km_opt(a, c, argv);
		if (rc >= 0)
			return rc;
	}
	a->ka_argv = calloc((size_t)(argc - optind + 2), sizeof (char *));
	if (a->ka_argv == NULL) {
		fprintf(stderr, "kdt: out of memory\n");
		return KDT_EXIT_USAGE;
	}
	a->ka_argv[0] = a->ka_script != NULL ? a->ka_script : argv[0];
	for (i = optind; i < argc; i++)
		a->ka_argv[i - optind + 1] = argv[i];
	a->ka_dc.dco_argv = a->ka_argv;
	a->ka_dc.dco_argc = argc - optind + 1;
	return -1;
}

static char *
km_read_file(const char *path, size_t *lenp)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, n;

	if (fp == NULL) {
		fprintf(stderr, "kdt: failed to open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap + 1);
			if (nb == NULL) {
				fprintf(stderr, "kdt: %s: out of memory reading %zu bytes\n", path, cap);
				free(buf);
				fclose(fp);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n > 0);
	if (ferror(fp)) {
		fprintf(stderr, "kdt: failed to read %s: %s\n", path, strerror(errno));
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	if (buf != NULL)
		buf[len] = '\0';
	*lenp = len;
	return buf;
}

static int
km_write_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	if (fp == NULL) {
		fprintf(stderr, "kdt: failed to create %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fwrite(data, 1, len, fp) != len || fclose(fp) != 0) {
		fprintf(stderr, "kdt: failed to write %zu bytes to %s: %s\n", len, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Read all of fd into a malloc'ed, NUL-terminated buffer. */
static char *
km_read_fd(int fd, size_t *lenp)
{
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t n;

	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap + 1);
			if (nb == NULL) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

/*
 * -C: run "cpp -P" (with the -D, -U and -I options) over the program
 * text, fed on its standard input; returns the preprocessed text.
 */
static char *
km_cpp(struct km_args *a, const char *src, size_t len, size_t *outlen)
{
	const char *argv[DC_MAXOPTS + 4];
	int in[2], out[2], st, i, n = 0;
	char *res;
	pid_t pid;

	argv[n++] = "cpp";
	argv[n++] = "-P";
	for (i = 0; i < a->ka_ncppargs; i++)
		argv[n++] = a->ka_cppargs[i];
	argv[n] = NULL;
	if (pipe(in) != 0 || pipe(out) != 0) {
		fprintf(stderr, "kdt: failed to run cpp: %s\n", strerror(errno));
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execvp("cpp", (char *const *)argv);
		fprintf(stderr, "kdt: failed to run cpp: %s\n", strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (pid > 0 && write(in[1], src, len) != (ssize_t)len)
		fprintf(stderr, "kdt: failed to write %zu bytes to cpp: %s\n", len, strerror(errno));
	close(in[1]);
	res = pid > 0 ? km_read_fd(out[0], outlen) : NULL;
	close(out[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		fprintf(stderr, "kdt: failed to preprocess %s with cpp\n", a->ka_script != NULL ? a->ka_script : "the program");
		free(res);
		return NULL;
	}
	return res;
}

/* The program text: the -s file or the -n texts, through cpp with -C. */
static char *
km_source(struct km_args *a, size_t *lenp)
{
	char *src, *pp;

	if (a->ka_script != NULL) {
		src = km_read_file(a->ka_script, lenp);
		if (src == NULL)
			return NULL;
	} else {
		src = strdup(a->ka_text);
		*lenp = a->ka_textlen;
		if (src == NULL)
			return NULL;
	}
	if (!a->ka_cpp)
		return src;
	pp = km_cpp(a, src, *lenp, lenp);
	free(src);
	return pp;
}

/*
 * Diagnostics: the positional form for humans, then dtrace's line
 * ("failed to compile script x.d: [D_TAG] line N: message", the tag only
 * with -x errtags), which tests and scripts parse.
 */
static void
km_diag(const struct km_args *a, const struct dc_out *o, const char *name)
{
	char tag[64] = "";

	if (o->dco_errtags && o->dco_tag != NULL)
		snprintf(tag, sizeof (tag), "[%s] ", o->dco_tag);
	fprintf(stderr, "%s\n", o->dco_diag);
	if (o->dco_line == 0)
		fprintf(stderr, "kdt: failed to compile %s: %s%s\n", name, tag, o->dco_msg);
	else if (a->ka_script != NULL)
		fprintf(stderr, "kdt: failed to compile script %s: %sline %d: %s\n", a->ka_script, tag, o->dco_line, o->dco_msg);
	else
		fprintf(stderr, "kdt: invalid probe specifier: %sline %d: %s\n", tag, o->dco_line, o->dco_msg);
}

static int
km_compile(struct km_args *a, struct dc_out *o)
{
	const char *name = a->ka_script != NULL ? a->ka_script : "-n";
	size_t len;
	char *src;
	int rc;

	src = km_source(a, &len);
	/* a program cpp rejects failed to compile, as in dtrace: status 1 */
	if (src == NULL)
		return a->ka_cpp ? KDT_EXIT_FAIL : KDT_EXIT_USAGE;
	if (a->ka_dis)
		a->ka_dc.dco_dis = stdout;
	rc = dc_compile(src, len, name, &a->ka_dc, o);
	free(src);
	if (rc == 0)
		return KDT_EXIT_OK;
	km_diag(a, o, name);
	return KDT_EXIT_FAIL;
}

/* km_compile() and dof_load(): the enabling, for -l and --estimate. */
static int
km_compile_load(struct km_args *a, struct dc_out *o,
    struct dof_enabling **den)
{
	struct kdt_err ke;
	int rc;

	if ((rc = km_compile(a, o)) != KDT_EXIT_OK)
		return rc;
	if (dof_load(o->dco_dof, o->dco_dofsz, den, &ke) != 0) {
		fprintf(stderr, "kdt: the compiled program does not load: %s\n",
		    ke.ke_msg);
		dc_out_free(o);
		return KDT_EXIT_FAIL;
	}
	return KDT_EXIT_OK;
}

/*
 * Run the compiled program on an engine (consumer/kc_run.h).  For -n the
 * notice names the probe description as dtrace does ("description
 * 'BEGIN ' matched 1 probe"): the text up to the predicate or body.
 */
static int
km_exec(struct km_args *a, const struct dc_out *o)
{
	struct kc_run_opts ro;
	char *desc = NULL;
	int rc;

	memset(&ro, 0, sizeof (ro));
	ro.ro_prog = "kdt";
	ro.ro_is_script = a->ka_script != NULL;
	if (a->ka_script != NULL) {
		ro.ro_input = a->ka_script;
	} else {
		ro.ro_spec = a->ka_spec;
		desc = strdup(a->ka_spec);
		if (desc == NULL) {
			fprintf(stderr, "kdt: out of memory\n");
			return KDT_EXIT_USAGE;
		}
		desc[strcspn(desc, "{/\n")] = '\0';
		ro.ro_input = desc;
	}
	ro.ro_engine = o->dco_engine == 1 ? KC_ENGINE_USER :
	    o->dco_engine == 2 ? KC_ENGINE_KERNEL : KC_ENGINE_AUTO;
	ro.ro_quiet = a->ka_quiet || o->dco_quiet;
	kc_fmt_droptags(o->dco_droptags);	/* -x droptags */
	kc_aggs_encoding(o->dco_encoding);	/* -x encoding */
	kc_fmt_noerror(o->dco_noerror);		/* -x noerror */
	ro.ro_destructive = a->ka_dc.dco_destructive || o->dco_destructive;
	ro.ro_zdefs = a->ka_dc.dco_zdefs || o->dco_zdefs;
	ro.ro_region = o->dco_region;
	ro.ro_procs = &a->ka_procs;
	fflush(stdout);
	rc = kc_run(o->dco_dof, o->dco_dofsz, &ro, stdout, stderr);
	free(desc);
	return rc;
}

/*
 * -c and -p: create (stopped) or grab the processes before compiling,
 * since $target is the first one's pid.  -1 to go on, else the status.
 */
static int
km_procs(struct km_args *a)
{
	int i, rv;

	if (a->ka_nprocs == 0)
		return -1;
	if (a->ka_anon || a->ka_claim ||
	    (a->ka_script == NULL && a->ka_text == NULL)) {
		fprintf(stderr, "kdt: -c and -p trace processes with a D program or list its probes (-s, -n, -P, -m, -f; -l); not with -A or -a; see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	for (i = 0; i < a->ka_nprocs; i++) {
		if (a->ka_prockind[i] == 'c' && (a->ka_compile_only ||
		    a->ka_dis || a->ka_out != NULL)) {
			fprintf(stderr, "kdt: -c runs the command under tracing; with -e, -S or -o use -p; see kdt(1), OPTIONS\n");
			return KDT_EXIT_USAGE;
		}
		rv = a->ka_prockind[i] == 'c' ?
		    kc_proc_create(&a->ka_procs, a->ka_procarg[i], stderr) :
		    kc_proc_grab(&a->ka_procs, a->ka_procarg[i], stderr);
		if (rv != 0)
			return KDT_EXIT_FAIL;
	}
	a->ka_dc.dco_target = a->ka_procs.ps_procs[0].pr_pid;
	return -1;
}

/*
 * kdt -l: every probe, or the probes each description of the program
 * matches (the program is compiled as for running it, with -Z implied
 * as in dtrace, and its ECBs' descriptions are listed in order).
 */
static int
km_list(struct km_args *a)
{
	struct dof_enabling *den;
	uint32_t pids[KC_PROCS_MAX], n, i;
	struct dof_pdesc *pds;
	struct kc_list_opts lo;
	struct kc_uptab ut;
	struct dc_out o;
	int rc;

	if (a->ka_anon || a->ka_claim) {
		fprintf(stderr, "kdt: only one of the -A, -a and -l options can be given; see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	lo.lo_verbose = a->ka_verbose;
	lo.lo_btf = a->ka_dc.dco_btf;
	if (a->ka_script == NULL && a->ka_text == NULL)
		return kc_kernel_list(NULL, 0, NULL, &lo, stdout, stderr);
	a->ka_dc.dco_zdefs = 1;
	if ((rc = km_procs(a)) >= 0)
		return rc;
	if ((rc = km_compile_load(a, &o, &den)) != KDT_EXIT_OK)
		return rc;
	pds = calloc(den->den_necbs + 1, sizeof (*pds));
	/* pid and USDT probes: resolved here, as a run would resolve them */
	n = kc_proc_pids(&a->ka_procs, pids);
	if (kc_uprobe_build(&ut, den, pids, n, "kdt", stderr) != 0) {
		rc = KDT_EXIT_FAIL;
	} else if (pds == NULL) {
		fprintf(stderr, "kdt: out of memory\n");
		rc = KDT_EXIT_USAGE;
	} else {
		for (i = 0; i < den->den_necbs; i++)
			pds[i] = den->den_ecbs[i].le_pdesc;
		rc = kc_kernel_list(pds, den->den_necbs, &ut, &lo, stdout,
		    stderr);
	}
	kc_uprobe_fini(&ut);
	free(pds);
	dof_free(den);
	dc_out_free(&o);
	return rc;
}

/* This program's path, for the runs --calibrate makes of itself. */
static const char *
km_self(void)
{
	static char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof (self) - 1);

	if (n <= 0)
		return "kdt";
	self[n] = '\0';
	return self;
}

static int
km_calibrate(struct km_args *a)
{
	if (a->ka_script != NULL || a->ka_text != NULL) {
		fprintf(stderr, "kdt: --calibrate takes no program: it runs its own; see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	return kc_calibrate(km_self(), a->ka_calpairs, 0, stdout, stderr);
}

/*
 * kdt -A --estimate: the boot's arming, rehearsed by kdt.ko on this kernel
 * (anon/an_rehearse.c); what it could not do is said, not failed.
 */
static void
km_rehearse(const struct dc_out *o, FILE *out)
{
	struct an_rehearsal ar;
	char why[600];

	if (an_rehearse(o, &ar, why, sizeof (why)) != 0) {
		fprintf(out, "kdt: arming at boot not rehearsed: %s\n", why);
		return;
	}
	fprintf(out, "kdt: arming at boot, rehearsed just now by kdt.ko on this kernel (%s) along the boot's path, then stopped:\n",
	    ar.ar_release);
	fprintf(out, "kdt:   %u probe%s enabled (%u probe-clause pair%s)",
	    ar.ar_nprobes, ar.ar_nprobes == 1 ? "" : "s", ar.ar_nmatched,
	    ar.ar_nmatched == 1 ? "" : "s");
	if (ar.ar_nfuncs != 0)
		fprintf(out, ", %u function%s armed through one ftrace update",
		    ar.ar_nfuncs, ar.ar_nfuncs == 1 ? "" : "s");
	fprintf(out, "\nkdt:   arming %.3f ms", ar.ar_arm_ns / 1e6);
	if (ar.ar_nfuncs != 0)
		fprintf(out, " (the kernel's ftrace update %.3f ms of it)",
		    ar.ar_ftrace_ns / 1e6);
	fprintf(out, ", loading the DOF %.3f ms\n", ar.ar_load_ns / 1e6);
	if (ar.ar_tinit_ns != 0)
		fprintf(out, "kdt:   together %.2f %% of the %.3f s this boot took to start init (kernel log)\n",
		    (ar.ar_arm_ns + ar.ar_load_ns) * 100.0 / ar.ar_tinit_ns,
		    ar.ar_tinit_ns / 1e9);
	else
		fprintf(out, "kdt:   no share of the boot: %s\n", ar.ar_tinit_why);
	fprintf(out, "kdt:   region %llu bytes for %u possible CPUs; %s%s%s\n",
	    (unsigned long long)ar.ar_rgnsize, ar.ar_ncpu,
	    ar.ar_nhints != 0 ? "kernel symbol hints " : "no kernel symbol hints: ",
	    ar.ar_hints, ar.ar_nhints != 0 ? "" : " (names searched in kallsyms)");
	fprintf(out, "kdt:   the boot pays this once, before init; the firings until the enabling is claimed (their cost per firing: the table) and the matching of each module that loads come on top\n");
}

/* kdt --estimate [-A]: the cost table of the program, nothing armed. */
static int
km_estimate(struct km_args *a)
{
	struct dof_enabling *den = NULL;
	const char *cal = kc_cal_path();
	double *rates = NULL;
	struct kc_cal c;
	struct dc_out o;
	char why[600];
	int rc;

	if (a->ka_script == NULL && a->ka_text == NULL) {
		fprintf(stderr, "kdt: --estimate needs a program (-s or -n ...); see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	if (kc_cal_load(cal, &c, why, sizeof (why)) != 0) {
		/* -A: the rehearsal needs no calibration; say it first */
		if (a->ka_anon &&
		    km_compile_load(a, &o, &den) == KDT_EXIT_OK) {
			km_rehearse(&o, stdout);
			dof_free(den);
			dc_out_free(&o);
		}
		fprintf(stderr, "kdt: --estimate: %s\n", why);
		return KDT_EXIT_FAIL;
	}
	if ((rc = km_compile_load(a, &o, &den)) != KDT_EXIT_OK)
		return rc;
	if (a->ka_sample > 0) {
		rates = calloc(den->den_necbs + 1, sizeof (*rates));
		if (rates == NULL || kc_est_sample(km_self(), den,
		    a->ka_sample, rates, stderr) != 0)
			rc = KDT_EXIT_FAIL;
	}
	if (rc == KDT_EXIT_OK)
		rc = kc_est_print(den, &c, cal, a->ka_rate, rates, a->ka_anon,
		    stdout);
	if (rc == KDT_EXIT_OK && a->ka_anon)
		km_rehearse(&o, stdout);
	free(rates);
	dof_free(den);
	dc_out_free(&o);
	return rc;
}

static int
km_run(struct km_args *a)
{
	struct dc_out o;
	int rc;

	if (a->ka_script != NULL && a->ka_text != NULL) {
		fprintf(stderr, "kdt: give the program either with -s or with -n, -P, -m, -f, not both; see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	if (a->ka_list)
		return km_list(a);
	if (a->ka_calibrate)
		return km_calibrate(a);
	if (a->ka_estimate)
		return km_estimate(a);
	if (a->ka_anon && a->ka_claim) {
		fprintf(stderr, "kdt: -A installs an anonymous enabling and -a claims one; give only one of them; see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	if ((a->ka_ao.ao_dry_run || a->ka_ao.ao_root != NULL ||
	    a->ka_ao.ao_module != NULL) && !a->ka_anon) {
		fprintf(stderr, "kdt: --dry-run, --root and --module go with -A; see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	if (a->ka_co.cl_format != KC_FORMAT_TEXT && !a->ka_claim) {
		fprintf(stderr, "kdt: --format goes with -a (and kdt-extract); see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	if (a->ka_co.cl_previous && !a->ka_claim) {
		fprintf(stderr, "kdt: --previous goes with -a; see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	if (a->ka_co.cl_vars && !a->ka_claim) {
		fprintf(stderr, "kdt: --vars goes with -a (and kdt-extract); see kdt(1), OPTIONS\n");
		return KDT_EXIT_USAGE;
	}
	a->ka_ao.ao_outdir = a->ka_anon ? a->ka_out : NULL;
	a->ka_ao.ao_vmlinux = a->ka_dc.dco_btf;	/* anon/an_ksym.c */
	if (a->ka_claim) {
		if (a->ka_script != NULL || a->ka_text != NULL) {
			fprintf(stderr, "kdt: -a claims the anonymous enabling installed with -A; it takes no program; see kdt(1), ANONYMOUS TRACING\n");
			return KDT_EXIT_USAGE;
		}
		a->ka_co.cl_exit = a->ka_compile_only;
		a->ka_co.cl_quiet = a->ka_quiet;
		return kc_anon_claim(&a->ka_co, stdout, stderr);
	}
	if (a->ka_anon && a->ka_script == NULL && a->ka_text == NULL)
		return an_main(&a->ka_ao, NULL, stdout, stderr);
	if (a->ka_script == NULL && a->ka_text == NULL) {
		km_usage(stderr);
		return KDT_EXIT_USAGE;
	}
	if ((rc = km_procs(a)) >= 0)
		return rc;
	rc = km_compile(a, &o);
	if (rc != KDT_EXIT_OK)
		return rc;
	if (a->ka_anon)
		rc = an_main(&a->ka_ao, &o, stdout, stderr);
	else if (a->ka_out != NULL)
		rc = km_write_file(a->ka_out, o.dco_dof, o.dco_dofsz) == 0 ?
		    KDT_EXIT_OK : KDT_EXIT_USAGE;
	else if (!a->ka_compile_only && !a->ka_dis)
		rc = km_exec(a, &o);
	dc_out_free(&o);
	return rc;
}

int
main(int argc, char **argv)
{
	struct km_args a;
	int rc;

	memset(&a, 0, sizeof (a));
	rc = km_parse(&a, argc, argv);
	if (rc < 0)
		rc = km_run(&a);
	kc_proc_fini(&a.ka_procs);	/* -c commands still running die */
	free(a.ka_text);
	free(a.ka_argv);
	while (a.ka_ncppargs > 0)
		free((char *)a.ka_cppargs[--a.ka_ncppargs]);
	return rc;
}
