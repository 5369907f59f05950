/*
 * kdt_main.c -- the `kdt` command: dtrace(1)-style front end.
 *
 * Parses dtrace-like flags, compiles the program with the compiler library
 * (compiler/dc.h) and then, by mode:
 *
 *	-e [-o FILE]	compile only, optionally writing the DOF to FILE
 *	-S		print the DIF of every clause (compiler/dc_dis.c)
 *	-A -o DIR	write an anonymous enabling: DIR/anon.dof and
 *			DIR/cmdline
 *			(the kernel command-line words it needs)
 *	-a		claim the anonymous state and print it (consumer/kc.h)
 *
 * Live tracing through /dev/kdt comes in a later version.  Exit status: 0
 * success, 1 compile (or claim) failure, 2 bad usage or I/O problems.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "compiler/dc.h"
#include "consumer/kc.h"

#define KDT_EXIT_OK	0
#define KDT_EXIT_FAIL	1
#define KDT_EXIT_USAGE	2

struct km_args {
	const char	*ka_script;	/* -s FILE */
	char		*ka_text;	/* -n texts joined by newlines */
	size_t		ka_textlen;
	const char	*ka_out;	/* -o */
	int		ka_compile_only;	/* -e */
	int		ka_dis;		/* -S */
	int		ka_anon;	/* -A */
	int		ka_claim;	/* -a */
	struct dc_opts	ka_dc;
};

static void
km_usage(FILE *fp)
{
	fputs("Usage: kdt [-aAeqS] [-o output] [-x opt[=val]] [--btf=PATH]\n"
	    "\t[-s script] [-n 'probe-description { actions }']\n"
	    "\n"
	    "\t-s  compile the D program in the given file\n"
	    "\t-n  compile the D program text given on the command line\n"
	    "\t-e  exit after compiling (with -o FILE: write the DOF there)\n"
	    "\t-S  print the DIF code generated for each clause\n"
	    "\t-A  with -o DIR: write an anonymous (boot-time) enabling to\n"
	    "\t    DIR/anon.dof and its kernel command line to DIR/cmdline\n"
	    "\t-a  claim the anonymous enabling's data and print it\n"
	    "\t-q  quiet: print only what actions print\n"
	    "\t-x  set an option (quiet, strsize, bufsize, bufpolicy, ...,\n"
	    "\t    regionsize, regionaddr)\n"
	    "\t--btf=PATH  kernel types (default $KDT_BTF, else\n"
	    "\t    /sys/kernel/btf/vmlinux)\n"
	    "\t-h, --help  this text\n", fp);
}

static int
km_add_xopt(struct km_args *a, const char *opt)
{
	if (a->ka_dc.dco_nxopts == DC_MAXOPTS) {
		fprintf(stderr, "kdt: too many -x options (limit %d)\n", DC_MAXOPTS);
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

static int
km_badopt(int c, const char *arg)
{
	if (c == 0 || c == '?')
		fprintf(stderr, "kdt: unknown option %s\n", arg);
	else
		fprintf(stderr, "kdt: option -%c requires an argument\n", c);
	fprintf(stderr, "kdt: try 'kdt --help' for usage\n");
	return KDT_EXIT_USAGE;
}

/* Returns -1 to go on, else the exit status. */
static int
km_parse(struct km_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "btf", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char bad[8];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:n:eSx:qo:Aah", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 's':
			if (a->ka_script != NULL) {
				fprintf(stderr, "kdt: only one -s script may be given\n");
				return KDT_EXIT_USAGE;
			}
			a->ka_script = optarg;
			break;
		case 'n':
			if (km_add_text(a, optarg) != 0)
				return KDT_EXIT_USAGE;
			break;
		case 'e': a->ka_compile_only = 1; break;
		case 'S': a->ka_dis = 1; break;
		case 'x':
			if (km_add_xopt(a, optarg) != 0)
				return KDT_EXIT_USAGE;
			break;
		case 'q':
			if (km_add_xopt(a, "quiet") != 0)
				return KDT_EXIT_USAGE;
			break;
		case 'o': a->ka_out = optarg; break;
		case 'A': a->ka_anon = 1; break;
		case 'a': a->ka_claim = 1; break;
		case 'B': a->ka_dc.dco_btf = optarg; break;
		case 'h':
			km_usage(stdout);
			return KDT_EXIT_OK;
		case ':':
			return km_badopt(optopt, NULL);
		default:
			if (optopt != 0) {
				snprintf(bad, sizeof (bad), "-%c", optopt);
				return km_badopt('?', bad);
			}
			return km_badopt('?', argv[optind - 1]);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kdt: unexpected argument '%s'\n", argv[optind]);
		fprintf(stderr, "kdt: try 'kdt --help' for usage\n");
		return KDT_EXIT_USAGE;
	}
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

/* "16M", "512K" or plain bytes: the kernel's memparse() suffixes. */
static void
km_size_str(char *buf, size_t bufsz, uint64_t v)
{
	if ((v & ((1ull << 20) - 1)) == 0)
		snprintf(buf, bufsz, "%lluM", (unsigned long long)(v >> 20));
	else if ((v & ((1ull << 10) - 1)) == 0)
		snprintf(buf, bufsz, "%lluK", (unsigned long long)(v >> 10));
	else
		snprintf(buf, bufsz, "%llu", (unsigned long long)v);
}

static int
km_anon_write(const char *dir, const struct dc_out *o)
{
	char path[4096], line[256], sz[32];

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "kdt: failed to create directory %s: %s\n", dir, strerror(errno));
		return KDT_EXIT_USAGE;
	}
	km_size_str(sz, sizeof (sz), o->dco_regsize);
	snprintf(line, sizeof (line), "kdt.anon=1 kdt.region=%s@0x%llx memmap=%s$0x%llx\n", sz, (unsigned long long)o->dco_regaddr, sz, (unsigned long long)o->dco_regaddr);
	snprintf(path, sizeof (path), "%s/anon.dof", dir);
	if (km_write_file(path, o->dco_dof, o->dco_dofsz) != 0)
		return KDT_EXIT_USAGE;
	snprintf(path, sizeof (path), "%s/cmdline", dir);
	if (km_write_file(path, line, strlen(line)) != 0)
		return KDT_EXIT_USAGE;
	fprintf(stderr, "kdt: anonymous enabling written to %s/anon.dof (%zu bytes); boot with: %s", dir, o->dco_dofsz, line);
	return KDT_EXIT_OK;
}

static int
km_compile(struct km_args *a, struct dc_out *o)
{
	const char *name = a->ka_script != NULL ? a->ka_script : "-n";
	char *src = a->ka_text;
	size_t len = a->ka_textlen;
	int rc;

	if (a->ka_script != NULL) {
		src = km_read_file(a->ka_script, &len);
		if (src == NULL)
			return KDT_EXIT_USAGE;
	}
	if (a->ka_dis)
		a->ka_dc.dco_dis = stdout;
	rc = dc_compile(src, len, name, &a->ka_dc, o);
	if (a->ka_script != NULL)
		free(src);
	if (rc == 0)
		return KDT_EXIT_OK;
	fprintf(stderr, "%s\n", o->dco_diag);
	if (o->dco_line == 0)
		fprintf(stderr, "kdt: failed to compile %s: %s\n", name, o->dco_msg);
	else if (a->ka_script != NULL)
		fprintf(stderr, "kdt: failed to compile script %s: line %d: %s\n", a->ka_script, o->dco_line, o->dco_msg);
	else
		fprintf(stderr, "kdt: invalid probe specifier: line %d: %s\n", o->dco_line, o->dco_msg);
	return KDT_EXIT_FAIL;
}

static int
km_run(struct km_args *a)
{
	struct dc_out o;
	int rc;

	if (a->ka_claim && a->ka_script == NULL && a->ka_text == NULL)
		return kc_anon_claim(stdout, stderr);
	if (a->ka_script != NULL && a->ka_text != NULL) {
		fprintf(stderr, "kdt: give the program either with -s or with -n, not both\n");
		return KDT_EXIT_USAGE;
	}
	if (a->ka_script == NULL && a->ka_text == NULL) {
		km_usage(stderr);
		return KDT_EXIT_USAGE;
	}
	if (a->ka_anon && a->ka_out == NULL) {
		fprintf(stderr, "kdt: installing an anonymous enabling into this system arrives in a later version; use 'kdt -A -o DIR' to write DIR/anon.dof and DIR/cmdline\n");
		return KDT_EXIT_USAGE;
	}
	rc = km_compile(a, &o);
	if (rc != KDT_EXIT_OK)
		return rc;
	if (a->ka_anon)
		rc = km_anon_write(a->ka_out, &o);
	else if (a->ka_out != NULL)
		rc = km_write_file(a->ka_out, o.dco_dof, o.dco_dofsz) == 0 ?
		    KDT_EXIT_OK : KDT_EXIT_USAGE;
	else if (!a->ka_compile_only && !a->ka_dis) {
		fprintf(stderr, "kdt: live tracing through /dev/kdt arrives in a later version; use -e, -S, -A -o DIR or -a\n");
		rc = KDT_EXIT_USAGE;
	}
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
	free(a.ka_text);
	return rc;
}
