/*
 * cd_dir.c -- "kdt-extract DIR": a dump directory as the capture kernel
 * left it, the vmcore and kdt's copy of the region side by side.
 *
 * Why a directory: an anonymous enabling's buffers live in a memmap=
 * reserved region, and kexec leaves reserved memory out of the capture
 * kernel's /proc/vmcore, so the vmcore that kdump-tools or kdumpctl save
 * does not hold the trace.  kdt.ko in the capture kernel keeps the
 * region and offers it as /dev/kdt-previous (kmod/kd_prev.c); kdt's kdump
 * hook (boot/kdump/: kdt-kdump-save for Debian's kdump-tools, kdt-kdump-
 * post for kdumpctl) copies it, whole, into the directory the vmcore is
 * saved in, as CD_DIR_IMAGE ("kdt-region.img", a raw region image:
 * cd_raw.c).  Given the directory, kdt-extract takes the trace from that
 * image and uses the vmcore for context:
 *
 *   image and vmcore  the trace from the image; the vmcore is opened and
 *                     the image's physical range looked up in it: absent
 *                     (the usual case, said once), the same boot's region
 *                     (the image is still used: it is the one the hook
 *                     took before makedumpfile ran), or memory that is no
 *                     region of that boot -- then the image is not of
 *                     this crash, and kdt-extract warns but still decodes.
 *                     The vmcore is also scanned for live sessions'
 *                     regions (vmalloc'd: kexec keeps them): each is
 *                     printed after the image's, all under "== region N
 *                     of M ==" lines; none, and nothing is said
 *   vmcore only       the vmcore is scanned as "kdt-extract VMCORE" would
 *                     (a region that was not memmap= reserved, or a QEMU
 *                     dump, is in it) and every region in it is printed,
 *                     several each under the "== region N of M ==" line
 *                     "kdt-extract VMCORE" prints (cd_print_regions);
 *                     when there is none, the failure names the file
 *                     looked for and the hook that writes it
 *   image only        the trace from the image, saying there is no vmcore
 *   neither           a failure naming what was looked for
 *
 * The file names the dump tools use (cd_dir_classify):
 *
 *   kdump-tools 1.8.1  DIR = KDUMP_COREDIR/YYYYMMDDHHMM: dump.YYYYMMDDHHMM
 *                      (makedumpfile -F: flattened kdump-compressed), with
 *                      .gz/.bz2/.lz4/.xz when KDUMP_COMPRESSION is set (not
 *                      readable here: decompress it first); vmcore.STAMP
 *                      when makedumpfile failed and /proc/vmcore was cp'd
 *                      (ELF); dump-incomplete[.EXT] / vmcore-incomplete
 *                      while being written; dmesg.STAMP (not a dump)
 *   kdumpctl           DIR = /var/crash/HOST-DATE: vmcore (ELF or
 *                      kdump-compressed), vmcore.flat (ssh targets),
 *                      vmcore-incomplete; vmcore-dmesg.txt (not a dump)
 *
 * Which files were used is said on stderr (not with -q) so stdout stays
 * exactly what "kdt-extract IMAGE" prints.  Called by cd_extract_main()
 * (cd_extract.c) when DUMP is a directory.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/rgn.h"
#include "consumer/kc.h"
#include "crashdump/cd.h"

/* The name with only digits after "prefix", at least one. */
static int
cd_dir_stamped(const char *name, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);
	const char *p;

	if (strncmp(name, prefix, n) != 0)
		return 0;
	for (p = name + n; *p >= '0' && *p <= '9'; p++)
		;
	*rest = p;
	return p > name + n;
}

/* A compression suffix kdump-tools' KDUMP_COMPRESSION adds. */
static int
cd_dir_packed(const char *ext)
{
	return strcmp(ext, ".gz") == 0 || strcmp(ext, ".bz2") == 0 ||
	    strcmp(ext, ".lz4") == 0 || strcmp(ext, ".xz") == 0;
}

int
cd_dir_classify(const char *name)
{
	const char *rest;

	if (strcmp(name, CD_DIR_IMAGE) == 0)
		return CD_DN_IMAGE;
	if (strncmp(name, CD_DIR_IMAGE ".", sizeof (CD_DIR_IMAGE)) == 0)
		return CD_DN_IMAGE_PARTIAL;
	if (strcmp(name, "vmcore") == 0 || strcmp(name, "vmcore.flat") == 0)
		return CD_DN_VMCORE;
	if (cd_dir_stamped(name, "dump.", &rest) ||
	    cd_dir_stamped(name, "vmcore.", &rest)) {
		if (*rest == '\0')
			return CD_DN_VMCORE;
		if (name[0] == 'd' && cd_dir_packed(rest))
			return CD_DN_VMCORE_PACKED;
		return CD_DN_OTHER;
	}
	if (strcmp(name, "vmcore-incomplete") == 0 ||
	    strcmp(name, "dump-incomplete") == 0 ||
	    (strncmp(name, "dump-incomplete", 15) == 0 &&
	    cd_dir_packed(name + 15)))
		return CD_DN_VMCORE_PARTIAL;
	return CD_DN_OTHER;
}

/* Keep "name" in slot if it sorts after what is there (newest stamp). */
static void
cd_dir_keep(char *slot, const char *name)
{
	if (slot[0] == '\0' || strcmp(name, slot) > 0)
		snprintf(slot, CD_DIR_NAMESZ, "%s", name);
}

static void
cd_dir_note(struct cd_dir *d, const char *name, int kind)
{
	switch (kind) {
	case CD_DN_IMAGE:
		cd_dir_keep(d->dd_image, name);
		break;
	case CD_DN_IMAGE_PARTIAL:
		cd_dir_keep(d->dd_image_partial, name);
		break;
	case CD_DN_VMCORE:
		if (d->dd_vmcore[0] != '\0')
			d->dd_nvmcores++;
		cd_dir_keep(d->dd_vmcore, name);
		break;
	case CD_DN_VMCORE_PACKED:
		cd_dir_keep(d->dd_packed, name);
		break;
	case CD_DN_VMCORE_PARTIAL:
		cd_dir_keep(d->dd_partial, name);
		break;
	}
}

int
cd_dir_scan(const char *dir, struct cd_dir *d, const char *prog, FILE *err)
{
	struct dirent *de;
	DIR *dp;

	memset(d, 0, sizeof (*d));
	d->dd_path = dir;
	if (strlen(dir) + 2 + NAME_MAX >= PATH_MAX) {
		fprintf(err, "%s: %s: directory name is %zu bytes, longer than the %d this tool joins with a file name\n",
		    prog, dir, strlen(dir), PATH_MAX - 2 - NAME_MAX);
		return 1;
	}
	dp = opendir(dir);
	if (dp == NULL) {
		fprintf(err, "%s: %s: cannot read the directory: %s\n", prog,
		    dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(dp)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		cd_dir_note(d, de->d_name, cd_dir_classify(de->d_name));
		if ((de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) &&
		    de->d_name[0] >= '0' && de->d_name[0] <= '9')
			cd_dir_keep(d->dd_subdir, de->d_name);
	}
	closedir(dp);
	/* Only an incomplete vmcore: better than none, said when used. */
	if (d->dd_vmcore[0] == '\0' && d->dd_partial[0] != '\0')
		snprintf(d->dd_vmcore, sizeof (d->dd_vmcore), "%s",
		    d->dd_partial);
	return 0;
}

void
cd_dir_path(const struct cd_dir *d, const char *name, char *buf,
    size_t len)
{
	size_t n = strlen(d->dd_path);

	snprintf(buf, len, "%s%s%s", d->dd_path,
	    n > 0 && d->dd_path[n - 1] == '/' ? "" : "/", name);
}

/* ---- the image's place in the vmcore (context) ---- */

static void
cd_dir_bootid(const uint8_t *id, char *buf)
{
	int i;

	for (i = 0; i < 16; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
}

/*
 * Look the image's physical range up in the vmcore: 0 when that says
 * nothing against the image, 1 when the vmcore holds another boot's
 * region or no region there (a warning was printed).
 */
static int
cd_dir_context(const char *prog, const char *vmpath, struct cd_src *vm,
    const struct rgn_hdr *ih, int quiet, FILE *err)
{
	struct rgn_hdr vh;
	char iid[33], vid[33];
	uint64_t miss;
	int rv;

	rv = cd_read_phys(vm, ih->rh_phys, &vh, sizeof (vh), &miss);
	if (rv != 0 && rv != -ENXIO) {
		fprintf(err, "%s: %s: cannot read phys 0x%llx: %s: the trace is the image's, without this check\n",
		    prog, vmpath, (unsigned long long)ih->rh_phys,
		    strerror(-rv));
		return 0;
	}
	if (rv != 0) {
		if (!quiet)
			fprintf(err, "%s: %s: does not hold the region's phys 0x%llx-0x%llx (kexec leaves memmap= reserved memory out of /proc/vmcore): the trace is the image's\n",
			    prog, vmpath, (unsigned long long)ih->rh_phys,
			    (unsigned long long)(ih->rh_phys + ih->rh_size));
		return 0;
	}
	cd_dir_bootid(ih->rh_bootid, iid);
	if (!rgn_probe_hdr(&vh, sizeof (vh))) {
		fprintf(err, "%s: %s: warning: holds phys 0x%llx but no kdt region there: the image (boot id %s) may not be of this crash\n",
		    prog, vmpath, (unsigned long long)ih->rh_phys, iid);
		return 1;
	}
	cd_dir_bootid(vh.rh_bootid, vid);
	if (memcmp(vh.rh_bootid, ih->rh_bootid, 16) != 0) {
		fprintf(err, "%s: %s: warning: holds at phys 0x%llx the region of boot id %s, the image is of boot id %s: the image may not be of this crash\n",
		    prog, vmpath, (unsigned long long)ih->rh_phys, vid, iid);
		return 1;
	}
	if (!quiet)
		fprintf(err, "%s: %s: also holds the region (phys 0x%llx, boot id %s): the image is used, as the hook copied it\n",
		    prog, vmpath, (unsigned long long)ih->rh_phys, iid);
	return 0;
}

/* Open the vmcore for context; NULL (after a note) if it does not open. */
static struct cd_src *
cd_dir_open_vmcore(const char *prog, const char *vmpath, FILE *err)
{
	struct cd_src *vm;

	if (cd_open(vmpath, prog, &vm, err) == 0)
		return vm;
	fprintf(err, "%s: %s: the vmcore does not open (above): the trace is the image's, without its context\n",
	    prog, vmpath);
	return NULL;
}

/*
 * The regions the vmcore holds besides the image's (at phys "skip"):
 * live sessions' (vmalloc'd, so in the vmcore; rgn.h "Page list").  The
 * number, with *pas (malloc'd) when not 0; a vmcore without any says
 * nothing, since the image is the trace.
 */
static uint32_t
cd_dir_others(struct cd_src *vm, uint64_t skip, const struct kc_opts *ko,
    uint64_t **pas, FILE *err)
{
	char *msg = NULL;
	uint64_t *all;
	uint32_t n, i, k;
	size_t ml;
	FILE *m;
	int rv;

	if ((m = open_memstream(&msg, &ml)) == NULL)
		return 0;
	rv = cd_find_regions(vm, ko->ko_prog, &all, &n, m);
	fclose(m);
	if (rv != 0) {
		free(msg);
		return 0;
	}
	fputs(msg, err);	/* live regions whose page list failed */
	free(msg);
	for (i = k = 0; i < n; i++)
		if (all[i] != skip)
			all[k++] = all[i];
	if (k == 0) {
		free(all);
		return 0;
	}
	*pas = all;
	return k;
}

/*
 * The image's region as region 1 of n + 1, then the vmcore's others
 * (pas[0..n)), each under its label.  The worst status; 3 (partial) when
 * one side printed nothing, 1 when neither printed.
 */
static int
cd_dir_print_all(struct cd_src *is, struct cd_src *vm, const char *vmpath,
    const uint64_t *pas, uint32_t n, const struct kc_opts *ko, FILE *out,
    FILE *err)
{
	int quiet = (ko->ko_flags & KC_F_QUIET) != 0, rv, rv2;
	struct cd_region rg;

	if (!quiet)
		fprintf(err, "%s: %s: also holds %u more kdt region%s (live sessions keep theirs in kernel memory): printed after the image's\n",
		    ko->ko_prog, vmpath, n, n == 1 ? "" : "s");
	if (cd_raw_region(is, quiet, &rg, err) != 0)
		rv = 1;
	else {
		cd_region_label(&rg, 0, n + 1, ko, out, err);
		rv = cd_print_region(is, &rg, ko, out, err);
	}
	rv2 = cd_print_regions(vm, pas, n, 1, n + 1, ko, out, err);
	if (rv == 1 && rv2 == 1)
		return 1;
	if (rv == 1 || rv2 == 1)
		return 3;
	return rv > rv2 ? rv : rv2;
}

/* The trace from the image, the vmcore (if any) for context. */
static int
cd_dir_image(const struct cd_dir *d, uint64_t pa, const struct kc_opts *ko,
    FILE *out, FILE *err)
{
	char img[PATH_MAX], vmpath[PATH_MAX];
	int quiet = (ko->ko_flags & KC_F_QUIET) != 0, rv;
	struct cd_src *is, *vm = NULL;
	struct rgn_hdr ih;
	uint64_t miss, *pas = NULL;
	uint32_t n = 0;

	cd_dir_path(d, d->dd_image, img, sizeof (img));
	if (cd_open(img, ko->ko_prog, &is, err) != 0)
		return 1;
	if (!is->cs_raw) {
		fprintf(err, "%s: %s: is not the raw region image kdt's kdump hook writes but a dump (%s)\n",
		    ko->ko_prog, img, is->cs_format);
		cd_close(is);
		return 1;
	}
	if (d->dd_vmcore[0] != '\0') {
		cd_dir_path(d, d->dd_vmcore, vmpath, sizeof (vmpath));
		vm = cd_dir_open_vmcore(ko->ko_prog, vmpath, err);
	}
	if (!quiet && vm != NULL)
		fprintf(err, "%s: %s: the trace from %s, the context from %s (%s)\n",
		    ko->ko_prog, d->dd_path, d->dd_image, d->dd_vmcore,
		    vm->cs_format);
	else if (!quiet && d->dd_vmcore[0] == '\0')
		fprintf(err, "%s: %s: the trace from %s; no vmcore beside it\n",
		    ko->ko_prog, d->dd_path, d->dd_image);
	if (vm != NULL && d->dd_partial[0] != '\0' &&
	    strcmp(d->dd_vmcore, d->dd_partial) == 0)
		fprintf(err, "%s: %s: warning: incomplete: the capture kernel did not finish writing it\n",
		    ko->ko_prog, vmpath);
	if (vm != NULL &&
	    cd_read_phys(is, 0, &ih, sizeof (ih), &miss) == 0) {
		(void) cd_dir_context(ko->ko_prog, vmpath, vm, &ih, quiet,
		    err);
		if (pa == CD_NOADDR)
			n = cd_dir_others(vm, ih.rh_phys, ko, &pas, err);
	}
	if (n == 0) {
		cd_close(vm);
		rv = cd_extract_src(is, pa, ko, out, err);
		cd_close(is);
		return rv;
	}
	/* the image's region first, then the live sessions in the vmcore */
	rv = cd_dir_print_all(is, vm, vmpath, pas, n, ko, out, err);
	free(pas);
	cd_close(vm);
	cd_close(is);
	return rv;
}

/* No image: the region may still be in the vmcore; say where else. */
static int
cd_dir_vmcore(const struct cd_dir *d, uint64_t pa, const struct kc_opts *ko,
    FILE *out, FILE *err)
{
	char vmpath[PATH_MAX], img[PATH_MAX];
	struct cd_region rg;
	struct cd_src *vm;
	uint64_t *pas;
	uint32_t n;
	int rv;

	cd_dir_path(d, d->dd_vmcore, vmpath, sizeof (vmpath));
	cd_dir_path(d, CD_DIR_IMAGE, img, sizeof (img));
	if (cd_open(vmpath, ko->ko_prog, &vm, err) != 0)
		return 1;
	if ((ko->ko_flags & KC_F_QUIET) == 0)
		fprintf(err, "%s: %s: no %s: looking for the region in %s (%s)\n",
		    ko->ko_prog, d->dd_path, CD_DIR_IMAGE, d->dd_vmcore,
		    vm->cs_format);
	if (d->dd_partial[0] != '\0' &&
	    strcmp(d->dd_vmcore, d->dd_partial) == 0)
		fprintf(err, "%s: %s: warning: incomplete: the capture kernel did not finish writing it\n",
		    ko->ko_prog, vmpath);
	/* as "kdt-extract VMCORE": every region, live sessions' too */
	if (pa == CD_NOADDR) {
		if (cd_find_regions(vm, ko->ko_prog, &pas, &n, err) == 0) {
			rv = cd_print_regions(vm, pas, n, 0, n, ko, out, err);
			free(pas);
			cd_close(vm);
			return rv;
		}
	} else if (cd_find_region(vm, pa, ko->ko_prog, &rg, err) == 0) {
		rv = cd_print_region(vm, &rg, ko, out, err);
		cd_close(vm);
		return rv;
	}
	fprintf(err, "%s: %s: no kdt region: %s does not hold it and there is no %s, where kdt's kdump hook (%s, installed by kdt -A) copies the crashed kernel's region; kexec leaves a memmap= region out of /proc/vmcore, so only that copy holds the trace; see kdt-extract(1), DIAGNOSTICS\n",
	    ko->ko_prog, d->dd_path, d->dd_vmcore, img, CD_HOOK_PATH);
	if (d->dd_image_partial[0] != '\0')
		fprintf(err, "%s: %s: %s is the hook's unfinished copy (the capture kernel stopped while writing it): not used\n",
		    ko->ko_prog, d->dd_path, d->dd_image_partial);
	cd_close(vm);
	return 1;
}

/* Neither a vmcore nor an image: say what was looked for. */
static int
cd_dir_empty(const struct cd_dir *d, const char *prog, FILE *err)
{
	char sub[PATH_MAX];

	if (d->dd_packed[0] != '\0') {
		fprintf(err, "%s: %s/%s: compressed by kdump-tools (KDUMP_COMPRESSION): decompress it first, e.g. with gunzip -k, bunzip2 -k, lz4 -d or unxz -k\n",
		    prog, d->dd_path, d->dd_packed);
		return 1;
	}
	fprintf(err, "%s: %s: no vmcore (dump.STAMP, vmcore.STAMP, vmcore, vmcore.flat) and no %s: not a kdump directory\n",
	    prog, d->dd_path, CD_DIR_IMAGE);
	if (d->dd_subdir[0] != '\0') {
		cd_dir_path(d, d->dd_subdir, sub, sizeof (sub));
		fprintf(err, "%s: %s: is it KDUMP_COREDIR? name one dump's directory, e.g. %s\n",
		    prog, d->dd_path, sub);
	}
	if (d->dd_image_partial[0] != '\0')
		fprintf(err, "%s: %s: %s is the hook's unfinished copy (the capture kernel stopped while writing it): not used\n",
		    prog, d->dd_path, d->dd_image_partial);
	return 1;
}

int
cd_dir_extract(const char *dir, uint64_t pa, const struct kc_opts *ko,
    FILE *out, FILE *err)
{
	struct cd_dir d;

	if (cd_dir_scan(dir, &d, ko->ko_prog, err) != 0)
		return 1;
	if (d.dd_nvmcores > 0 && (ko->ko_flags & KC_F_QUIET) == 0)
		fprintf(err, "%s: %s: %u vmcores: using the last by name, %s\n",
		    ko->ko_prog, dir, d.dd_nvmcores + 1, d.dd_vmcore);
	if (d.dd_image[0] != '\0')
		return cd_dir_image(&d, pa, ko, out, err);
	if (d.dd_vmcore[0] != '\0')
		return cd_dir_vmcore(&d, pa, ko, out, err);
	return cd_dir_empty(&d, ko->ko_prog, err);
}
