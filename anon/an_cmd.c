/*
 * an_cmd.c -- "kdt -A": dispatch between installing, removing and
 * writing the boot artifacts (anon/an.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "anon/an.h"

/* "16M", "512K" or plain bytes: the kernel's memparse() suffixes. */
static void
an_size_str(char *buf, size_t bufsz, uint64_t v)
{
	if ((v & ((1ull << 20) - 1)) == 0)
		snprintf(buf, bufsz, "%lluM", (unsigned long long)(v >> 20));
	else if ((v & ((1ull << 10) - 1)) == 0)
		snprintf(buf, bufsz, "%lluK", (unsigned long long)(v >> 10));
	else
		snprintf(buf, bufsz, "%llu", (unsigned long long)v);
}

static int
an_write_file(const char *path, const void *data, size_t len, FILE *err)
{
	FILE *fp = fopen(path, "wb");

	if (fp == NULL) {
		fprintf(err, "kdt: failed to create %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fwrite(data, 1, len, fp) != len || fclose(fp) != 0) {
		fprintf(err, "kdt: failed to write %zu bytes to %s: %s\n", len, path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
an_write_dir(const char *dir, const struct dc_out *o, FILE *err)
{
	char path[4096], line[256], sz[32];

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(err, "kdt: failed to create directory %s: %s\n", dir, strerror(errno));
		return 2;
	}
	an_size_str(sz, sizeof (sz), o->dco_regsize);
	snprintf(line, sizeof (line), "kdt.anon=1 kdt.region=%s@0x%llx memmap=%s$0x%llx\n", sz, (unsigned long long)o->dco_regaddr, sz, (unsigned long long)o->dco_regaddr);
	snprintf(path, sizeof (path), "%s/anon.dof", dir);
	if (an_write_file(path, o->dco_dof, o->dco_dofsz, err) != 0)
		return 2;
	snprintf(path, sizeof (path), "%s/cmdline", dir);
	if (an_write_file(path, line, strlen(line), err) != 0)
		return 2;
	fprintf(err, "kdt: anonymous enabling written to %s/anon.dof (%zu bytes); boot with: %s", dir, o->dco_dofsz, line);
	return 0;
}

int
an_main(const struct an_opts *ao, const struct dc_out *o, FILE *out,
    FILE *err)
{
	if (o != NULL && ao->ao_outdir != NULL)
		return an_write_dir(ao->ao_outdir, o, err);
	fprintf(err, "kdt: installing an anonymous enabling into this system arrives in a later version; use 'kdt -A -o DIR' to write DIR/anon.dof and DIR/cmdline\n");
	return 2;
}
