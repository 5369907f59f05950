/*
 * an_kmod.c -- kdt -A: which kdt.ko goes into the initramfs of which kernel.
 *
 * Which kdt.ko, for which kernels: --module=PATH, else
 * ROOT/lib/modules/KVER/{updates/dkms,updates,extra}/kdt.ko (where DKMS,
 * "make modules_install" and distribution packages put out-of-tree
 * modules).  On "/" the kernel is the running one (uname -r); under
 * --root every kernel in ROOT/lib/modules that has a kdt.ko (or, with
 * --module, the one its vermagic names).  A kdt.ko whose vermagic names
 * another kernel is refused: it would not load.
 *
 * The version is read from the module's .modinfo section (libelf), the
 * "vermagic=" string whose first word is the kernel release.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "anon/an_impl.h"


/*
 * One walk over the sections of the ELF at fd: "vermagic=" of .modinfo
 * into vm (when vm is not NULL; "" when there is none), and into *dbg
 * (when not NULL) the bytes of .debug* and .zdebug* sections and their
 * .rela.debug* relocations.  -1 when it cannot be read as ELF.
 */
static int
an_elf_scan(int fd, char *vm, size_t vmsz, uint64_t *dbg)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t shstr, i;
	const char *name, *s;
	int rv = -1;

	if (vm != NULL)
		vm[0] = '\0';
	if (dbg != NULL)
		*dbg = 0;
	elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return -1;
	if (elf_getshdrstrndx(e, &shstr) != 0)
		goto out;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (name = elf_strptr(e, shstr, sh.sh_name)) == NULL)
			continue;
		if (dbg != NULL && sh.sh_type != SHT_NOBITS &&
		    (strncmp(name, ".debug", 6) == 0 ||
		    strncmp(name, ".zdebug", 7) == 0 ||
		    strncmp(name, ".rela.debug", 11) == 0))
			*dbg += sh.sh_size;
		if (vm == NULL || vm[0] != '\0' ||
		    strcmp(name, ".modinfo") != 0 ||
		    (d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL)
			continue;
		s = d->d_buf;
		for (i = 0; i < d->d_size; i += strnlen(s + i,
		    d->d_size - i) + 1) {
			if (strncmp(s + i, "vermagic=", 9) != 0 ||
			    strnlen(s + i, d->d_size - i) == d->d_size - i)
				continue;
			snprintf(vm, vmsz, "%s", s + i + 9);
			break;
		}
	}
	rv = 0;
out:
	elf_end(e);
	return rv;
}

int
an_module_kver(const char *path, char *kver, size_t kversz, FILE *err)
{
	char vm[256], *sp;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		fprintf(err, "kdt: cannot open kdt.ko %s: %s\n", path,
		    strerror(errno));
		return -1;
	}
	if (an_elf_scan(fd, vm, sizeof (vm), NULL) != 0 || vm[0] == '\0') {
		fprintf(err, "kdt: %s: not a kernel module (no vermagic in an ELF .modinfo section)\n",
		    path);
		close(fd);
		return -1;
	}
	close(fd);
	if ((sp = strchr(vm, ' ')) != NULL)
		*sp = '\0';
	snprintf(kver, kversz, "%s", vm);
	return 0;
}

/*
 * Debug sections in the kdt.ko at path: *dbg bytes (an_elf_scan) of a
 * file of *size bytes.  -1 when it cannot be read as ELF.
 */
int
an_module_debug(const char *path, uint64_t *dbg, uint64_t *size)
{
	struct stat st;
	int fd, rv = -1;

	*dbg = *size = 0;
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	if (fstat(fd, &st) == 0 && an_elf_scan(fd, NULL, 0, dbg) == 0) {
		*size = (uint64_t)st.st_size;
		rv = 0;
	}
	close(fd);
	return rv;
}

/*
 * Say, on out, when the kdt.ko at path carries debug sections: the
 * initramfs holds them and every boot reads them before kdt.ko loads
 * (bench/README.md, ninth round: 4.8 of kdt.ko's 5.4 MiB cost a QEMU
 * guest's boot 29 M instructions, 1.5 %, three times what arming 100
 * probes costs).  DKMS strips modules (strip -g) before it signs them.
 */
void
an_module_note(FILE *out, const char *path)
{
	uint64_t dbg, size;

	if (an_module_debug(path, &dbg, &size) != 0 || dbg == 0)
		return;
	fprintf(out, "  note: %.1f MiB of kdt.ko's %.1f MiB are debug sections, which the initramfs carries and every boot reads before kdt.ko loads; \"strip --strip-debug\" it (before signing it), or install it with DKMS, which does\n",
	    dbg / 1048576.0, size / 1048576.0);
}

/* The installed kdt.ko of kernel kver in root, or 0. */
static int
an_module_find(const char *root, const char *kver, char *out, size_t outsz)
{
	static const char *const subs[] = { "updates/dkms", "updates",
	    "extra" };
	char rel[AN_PATHMAX];
	size_t i;

	for (i = 0; i < sizeof (subs) / sizeof (subs[0]); i++) {
		snprintf(rel, sizeof (rel), "/lib/modules/%s/%s/kdt.ko", kver,
		    subs[i]);
		an_path(out, outsz, root, rel);
		if (access(out, R_OK) == 0)
			return 1;
	}
	return 0;
}

static int
an_kernel_add(struct an_kernel *ks, uint32_t *nks, const char *kver,
    const char *module, FILE *err)
{
	char mk[64];

	if (an_module_kver(module, mk, sizeof (mk), err) != 0)
		return -1;
	if (strcmp(mk, kver) != 0) {
		fprintf(err, "kdt: %s was built for kernel %s (vermagic), not for %s; it would not load; build kdt.ko for %s\n",
		    module, mk, kver, kver);
		return -1;
	}
	if (*nks == AN_MAXKERNELS) {
		fprintf(err, "kdt: more than %d kernels to prepare\n",
		    AN_MAXKERNELS);
		return -1;
	}
	snprintf(ks[*nks].ak_kver, sizeof (ks[*nks].ak_kver), "%s", kver);
	snprintf(ks[*nks].ak_module, sizeof (ks[*nks].ak_module), "%s",
	    module);
	(*nks)++;
	return 0;
}

static int
an_kver_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Kernels under --root: every ROOT/lib/modules/KVER. */
static int
an_kernels_root(const struct an_opts *ao, struct an_kernel *ks,
    uint32_t *nks, FILE *err)
{
	char dir[AN_PATHMAX], ko[AN_PATHMAX], mk[64], *names[256];
	struct dirent *de;
	size_t n = 0, i;
	DIR *d;
	int rv = 0;

	an_path(dir, sizeof (dir), ao->ao_root, "/lib/modules");
	if ((d = opendir(dir)) == NULL) {
		fprintf(err, "kdt: --root=%s: cannot read %s: %s; is a kernel installed there?\n",
		    ao->ao_root, dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL && n < 256)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof (names[0]), an_kver_cmp);
	if (ao->ao_module != NULL &&
	    an_module_kver(ao->ao_module, mk, sizeof (mk), err) != 0)
		rv = -1;
	for (i = 0; i < n && rv == 0; i++) {
		if (ao->ao_module != NULL) {
			if (strcmp(names[i], mk) == 0)
				rv = an_kernel_add(ks, nks, names[i],
				    ao->ao_module, err);
		} else if (an_module_find(ao->ao_root, names[i], ko,
		    sizeof (ko)))
			rv = an_kernel_add(ks, nks, names[i], ko, err);
	}
	if (rv == 0 && *nks == 0) {
		if (ao->ao_module != NULL)
			fprintf(err, "kdt: --module=%s is built for kernel %s, which is not installed in %s (%zu kernels there)\n",
			    ao->ao_module, mk, dir, n);
		else
			fprintf(err, "kdt: none of the %zu kernels in %s has a kdt.ko in updates/dkms, updates or extra; give --module=PATH\n",
			    n, dir);
		rv = -1;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	return rv;
}

int
an_kernels_find(const struct an_opts *ao, struct an_kernel *ks,
    uint32_t *nks, FILE *err)
{
	char ko[AN_PATHMAX];
	struct utsname u;

	*nks = 0;
	if (ao->ao_root != NULL && strcmp(ao->ao_root, "/") != 0)
		return an_kernels_root(ao, ks, nks, err);
	if (uname(&u) != 0)
		return -1;
	if (ao->ao_module != NULL)
		return an_kernel_add(ks, nks, u.release, ao->ao_module, err);
	if (!an_module_find("/", u.release, ko, sizeof (ko))) {
		fprintf(err, "kdt: no kdt.ko for the running kernel %s in /lib/modules/%s/{updates/dkms,updates,extra}/; install it there or give --module=PATH\n",
		    u.release, u.release);
		return -1;
	}
	return an_kernel_add(ks, nks, u.release, ko, err);
}

