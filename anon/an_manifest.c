/*
 * an_manifest.c -- the list of everything kdt -A installed, so that
 * "kdt -A" with no program removes exactly that and a second install
 * replaces the first cleanly.
 *
 * The manifest is ROOT/var/lib/kdt/anon/manifest (AN_MANIFEST), a text
 * file written last by an install (atomically, like every file) and
 * removed last by a removal.  Paths are absolute inside the root, so a
 * root prepared with --root=DIR and booted later describes itself.
 *
 *	LINE                                    MEANING
 *	kdt-anon-manifest 1                     magic and version (first line)
 *	region SIZE ADDR                        the reservation (hex), so the
 *	                                        next install keeps the address
 *	integrations N                          AN_INT_* bits (hex): what to
 *	                                        regenerate after a removal
 *	kernel KVER                             a kernel whose initramfs got
 *	                                        the enabling (repeated)
 *	file MODE SIZE CRC PATH                 a file kdt wrote: octal mode,
 *	                                        decimal size, CRC-32 (hex) of
 *	                                        its bytes, its path (repeated)
 *	# ...                                   comment
 *
 * Example:
 *
 *	kdt-anon-manifest 1
 *	region 0xc00000 0x100000000
 *	integrations 0x5
 *	kernel 6.1.0-56-amd64
 *	file 0644 1234 89ab186f /var/lib/kdt/anon/anon.dof
 *
 * Ownership: a removal deletes a listed file only if its size and CRC-32
 * still match -- a file an administrator edited since is left in place
 * and named in the output, never silently destroyed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include "anon/an_impl.h"
#include "common/kdt_env.h"

#define AN_MANIFEST_MAGIC	"kdt-anon-manifest 1"

char *
an_manifest_format(const struct an_manifest *mn)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	uint32_t i;

	if (fp == NULL)
		return NULL;
	fprintf(fp, "%s\n# written by kdt -A; \"kdt -A\" with no program removes every file listed\n", AN_MANIFEST_MAGIC);
	fprintf(fp, "region 0x%" PRIx64 " 0x%" PRIx64 "\n", mn->mn_size,
	    mn->mn_addr);
	fprintf(fp, "integrations 0x%x\n", mn->mn_ints);
	for (i = 0; i < mn->mn_nkernels; i++)
		fprintf(fp, "kernel %s\n", mn->mn_kernels[i]);
	for (i = 0; i < mn->mn_nfiles; i++)
		fprintf(fp, "file %04o %" PRIu64 " %08x %s\n",
		    mn->mn_files[i].mf_mode, mn->mn_files[i].mf_size,
		    mn->mn_files[i].mf_crc, mn->mn_files[i].mf_path);
	if (fclose(fp) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int
an_manifest_line(const char *line, struct an_manifest *mn)
{
	struct an_mfile *mf;
	unsigned mode, crc;
	unsigned long long a, b;
	char path[256];
	int n = 0;

	if (sscanf(line, "region %llx %llx %n", &a, &b, &n) == 2 &&
	    line[n] == '\0') {
		mn->mn_size = a;
		mn->mn_addr = b;
		return 0;
	}
	if (sscanf(line, "integrations %x %n", &mode, &n) == 1 &&
	    line[n] == '\0') {
		mn->mn_ints = mode;
		return 0;
	}
	if (sscanf(line, "kernel %63s %n", path, &n) == 1 &&
	    line[n] == '\0' && mn->mn_nkernels < AN_MAXKERNELS) {
		memcpy(mn->mn_kernels[mn->mn_nkernels++], path, 64);
		return 0;
	}
	if (sscanf(line, "file %o %llu %x %255s %n", &mode, &a, &crc, path,
	    &n) == 4 && line[n] == '\0' && path[0] == '/' &&
	    strstr(path, "/../") == NULL && mn->mn_nfiles < AN_MAXFILES) {
		mf = &mn->mn_files[mn->mn_nfiles++];
		snprintf(mf->mf_path, sizeof (mf->mf_path), "%s", path);
		mf->mf_mode = mode;
		mf->mf_size = a;
		mf->mf_crc = crc;
		return 0;
	}
	return -1;
}

int
an_manifest_parse(const char *text, const char *name,
    struct an_manifest *mn, FILE *err)
{
	const char *s = text, *nl;
	char line[512];
	size_t lineno = 0, n;

	memset(mn, 0, sizeof (*mn));
	if (strncmp(text, AN_MANIFEST_MAGIC "\n", strlen(AN_MANIFEST_MAGIC)
	    + 1) != 0) {
		fprintf(err, "kdt: %s:1: not a kdt manifest of version 1 (expected \"%s\")\n",
		    name, AN_MANIFEST_MAGIC);
		return -1;
	}
	for (; *s != '\0'; s = *nl == '\0' ? nl : nl + 1) {
		nl = strchr(s, '\n');
		if (nl == NULL)
			nl = s + strlen(s);
		lineno++;
		n = (size_t)(nl - s);
		if (lineno == 1 || n == 0 || *s == '#')
			continue;
		if (n >= sizeof (line) ||
		    (memcpy(line, s, n), line[n] = '\0',
		    an_manifest_line(line, mn) != 0)) {
			fprintf(err, "kdt: %s:%zu: unrecognised or out-of-range line \"%.*s\" (at most %d files and %d kernels)\n",
			    name, lineno, (int)(n > 100 ? 100 : n), s,
			    AN_MAXFILES, AN_MAXKERNELS);
			return -1;
		}
	}
	return 0;
}

int
an_manifest_add(struct an_manifest *mn, const char *path, uint32_t mode,
    const void *data, size_t len, FILE *err)
{
	struct an_mfile *mf;

	if (mn->mn_nfiles == AN_MAXFILES ||
	    strlen(path) >= sizeof (mf->mf_path)) {
		fprintf(err, "kdt: manifest: cannot list %s (%u files, at most %d; paths below %zu bytes)\n",
		    path, mn->mn_nfiles, AN_MAXFILES, sizeof (mf->mf_path));
		return -1;
	}
	mf = &mn->mn_files[mn->mn_nfiles++];
	snprintf(mf->mf_path, sizeof (mf->mf_path), "%s", path);
	mf->mf_mode = mode;
	mf->mf_size = len;
	mf->mf_crc = kenv_crc32(data, len);
	return 0;
}
