/*
 * kdt_initrd_main.c -- kdt-initrd: put an anonymous enabling's DOF at the
 * end of an initrd, show it, take it out, cut it off.
 *
 * In the manner of Linux's tools/bootconfig: the initrd trailer
 * (common/itrl.h has the format) is a DOF plus a 32-byte footer appended
 * to the initrd file; a kernel with kdt built in finds it there before the
 * initramfs is unpacked.  All file work is boot/bt_initrd.c (bt.h), which
 * kdt -A shares; this file is the command line only.
 *
 *	kdt-initrd add [--force] INITRD DOF
 *	kdt-initrd show INITRD
 *	kdt-initrd extract INITRD OUT.dof
 *	kdt-initrd remove [--force] INITRD
 *
 * Exit status: 0 success; 1 failure ("show" and "extract": no kdt
 * trailer); 2 bad usage, or for "show" a bad trailer or unreadable file.
 * The full text is usage() below.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/bt.h"
#include "common/dof_load.h"

#define BT_EXIT_OK	0
#define BT_EXIT_FAIL	1
#define BT_EXIT_USAGE	2

static const char bt_usage_text[] =
"usage: kdt-initrd add [--force] INITRD DOF\n"
"       kdt-initrd show INITRD\n"
"       kdt-initrd extract INITRD OUT.dof\n"
"       kdt-initrd remove [--force] INITRD\n"
"\n"
"Appends an anonymous enabling (DOF, from kdt -e -o or kdt -A -o) to an\n"
"initrd as a kdt trailer: the DOF and a 32-byte footer at the end of the\n"
"file (format: common/itrl.h).  The bootloader loads the whole file; a\n"
"kernel with kdt built in takes the DOF off the end before the initramfs\n"
"is unpacked.\n"
"\n"
"  add      check DOF with the kdt loader, then append it, replacing a kdt\n"
"           trailer that is already there (never stacking two)\n"
"  show     print the trailer: DOF size and CRC-32, the original initrd's\n"
"           length and a summary of the DOF; or \"no kdt trailer\"\n"
"  extract  write the trailer's DOF to OUT.dof\n"
"  remove   cut the trailer off, restoring the original initrd\n"
"\n"
"Files are replaced atomically (temporary file in the same directory,\n"
"fsync, rename; mode and owner kept): a failure leaves them unchanged.\n"
"A symbolic link is followed and kept.\n"
"\n"
"A trailer that is damaged (footer or DOF CRC-32 mismatch, impossible\n"
"size, unknown version) is reported and add/remove refuse the file.\n"
"  --force  when only the DOF's CRC-32 is wrong, the footer is intact and\n"
"           its length trusted: remove cuts the damaged trailer, add\n"
"           replaces it.  When the footer itself is damaged, add keeps\n"
"           every byte as part of the initrd and appends after them, and\n"
"           remove fails, leaving the file unchanged.\n"
"\n"
"Exit status: 0 success; 1 failure, or show/extract found no trailer;\n"
"2 bad usage, or show found a damaged trailer or cannot read the file.\n";

static int
bt_usage(FILE *f, int status)
{
	fputs(bt_usage_text, f);
	return status;
}

/* "show": one line about the trailer, one about its DOF. */
static int
bt_cmd_show(const char *initrd)
{
	struct itrl_info ii;
	struct kdt_err ke;
	void *dof = NULL;
	int rv, necbs;

	rv = bt_initrd_inspect(initrd, &ii, &dof, &ke, stderr);
	if (rv < 0)
		return BT_EXIT_USAGE;
	if (rv == 0) {
		printf("%s: no kdt trailer\n", initrd);
		return BT_EXIT_FAIL;
	}
	printf("%s: kdt trailer v%u: DOF %llu bytes at offset %llu, CRC-32 0x%08x; original initrd %llu bytes\n",
	    initrd, ITRL_VERSION, (unsigned long long)ii.ii_dofsz,
	    (unsigned long long)ii.ii_dof_off, ii.ii_dofcrc,
	    (unsigned long long)ii.ii_initrd_len);
	necbs = bt_dof_check(initrd, dof, ii.ii_dofsz, stderr);
	free(dof);
	if (necbs < 0)
		return BT_EXIT_USAGE;
	printf("%s: DOF loads: %d ECB%s\n", initrd, necbs,
	    necbs == 1 ? "" : "s");
	return BT_EXIT_OK;
}

static int
bt_cmd_add(const char *initrd, const char *dofpath, uint32_t flags)
{
	void *dof;
	uint64_t dofsz;
	int rv;

	if (bt_file_read(dofpath, &dof, &dofsz, stderr) < 0)
		return BT_EXIT_FAIL;
	rv = bt_dof_check(dofpath, dof, dofsz, stderr);
	if (rv >= 0)
		rv = bt_initrd_add_flags(initrd, dof, dofsz, flags, stderr);
	free(dof);
	return rv < 0 ? BT_EXIT_FAIL : BT_EXIT_OK;
}

static int
bt_cmd_extract(const char *initrd, const char *out)
{
	struct itrl_info ii;
	struct bt_chunk c;
	void *dof = NULL;
	int rv;

	rv = bt_initrd_inspect(initrd, &ii, &dof, NULL, stderr);
	if (rv < 0)
		return BT_EXIT_FAIL;
	if (rv == 0) {
		fprintf(stderr, "kdt-initrd: %s: no kdt trailer\n", initrd);
		return BT_EXIT_FAIL;
	}
	c.bc_buf = dof;
	c.bc_len = ii.ii_dofsz;
	rv = bt_file_replace(out, &c, 1, stderr);
	free(dof);
	return rv < 0 ? BT_EXIT_FAIL : BT_EXIT_OK;
}

static int
bt_cmd_remove(const char *initrd, uint32_t flags)
{
	int rv;

	rv = bt_initrd_remove(initrd, flags, stderr);
	if (rv == 0)
		printf("%s: no kdt trailer removed; unchanged\n", initrd);
	return rv < 0 ? BT_EXIT_FAIL : BT_EXIT_OK;
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint32_t flags = 0;
	const char *cmd;
	int c, nargs;

	while ((c = getopt_long(argc, argv, "+fh", lopts, NULL)) != -1) {
		if (c == 'h')
			return bt_usage(stdout, BT_EXIT_OK);
		if (c != 'f')
			return bt_usage(stderr, BT_EXIT_USAGE);
		flags |= BT_F_FORCE;
	}
	if (optind >= argc) {
		fprintf(stderr, "kdt-initrd: no command given\n");
		return bt_usage(stderr, BT_EXIT_USAGE);
	}
	cmd = argv[optind++];
	/* options may also follow the command: add --force INITRD DOF */
	while ((c = getopt_long(argc, argv, "+fh", lopts, NULL)) != -1) {
		if (c == 'h')
			return bt_usage(stdout, BT_EXIT_OK);
		if (c != 'f')
			return bt_usage(stderr, BT_EXIT_USAGE);
		flags |= BT_F_FORCE;
	}
	nargs = argc - optind;
	argv += optind;
	if (strcmp(cmd, "add") == 0 && nargs == 2)
		return bt_cmd_add(argv[0], argv[1], flags);
	if (strcmp(cmd, "remove") == 0 && nargs == 1)
		return bt_cmd_remove(argv[0], flags);
	if (flags & BT_F_FORCE) {
		fprintf(stderr, "kdt-initrd: --force applies to add and remove only\n");
		return bt_usage(stderr, BT_EXIT_USAGE);
	}
	if (strcmp(cmd, "show") == 0 && nargs == 1)
		return bt_cmd_show(argv[0]);
	if (strcmp(cmd, "extract") == 0 && nargs == 2)
		return bt_cmd_extract(argv[0], argv[1]);
	if (strcmp(cmd, "add") == 0 || strcmp(cmd, "remove") == 0 ||
	    strcmp(cmd, "show") == 0 || strcmp(cmd, "extract") == 0)
		fprintf(stderr, "kdt-initrd: %s: wrong number of arguments (%d)\n",
		    cmd, nargs);
	else
		fprintf(stderr, "kdt-initrd: unknown command '%s'\n", cmd);
	return bt_usage(stderr, BT_EXIT_USAGE);
}
