/*
 * an_install.c -- kdt -A into a system: the files of the initramfs and
 * GRUB integration and their removal (which kdt.ko: an_kmod.c; the
 * regeneration that follows: an_regen.c).
 *
 * What goes where (paths inside the root, "/" or --root=DIR):
 *
 *   /var/lib/kdt/anon/anon.dof                the enabling
 *   /var/lib/kdt/anon/anon.ksym               its kernel symbol hints, when
 *                                             an_ksym.c makes them (one
 *                                             target kernel: --btf's vmlinux
 *                                             or the running kernel)
 *   /var/lib/kdt/anon/modules/KVER/kdt.ko     kdt.ko for each kernel
 *   /var/lib/kdt/anon/cmdline                 the kernel words
 *   /var/lib/kdt/anon/manifest                what was written (an_manifest.c)
 *   /etc/initramfs-tools/hooks/kdt            } initramfs-tools: copy the DOF
 *   /etc/initramfs-tools/scripts/init-top/00kdt } and kdt.ko in, load it first
 *   /etc/default/grub.d/kdt.cfg               the kernel words (an_boot.c)
 *
 * dracut's side is kdt's module /usr/lib/dracut/modules.d/90kdt, which
 * "make install" and the kdt package install (boot/dracut/): it reads the
 * state below and does nothing without it, so on a dracut system kdt -A
 * writes only the state and runs dracut -f.  kdt -A refuses a dracut root
 * without that module (an_dracut_installed()), as the initramfs would
 * carry nothing.  Older kdt -A wrote 90kdt itself and listed it in its
 * manifest; replacing or removing such an install removes those files
 * while they are still kdt -A's bytes, and once the installed module has
 * replaced module-setup.sh leaves them, saying so, without counting it a
 * failure (an_remove_files()).
 *
 * /var/lib is where a program keeps state that must survive reboots and
 * is not configuration (FHS 5.8); the files there are inputs of the
 * hooks, which run again whenever the distribution rebuilds an initramfs
 * (a kernel update keeps the enabling as long as that kernel has a
 * kdt.ko).  kdt.ko is copied rather than referenced so a later "make" or
 * package update cannot change what an installed enabling boots with,
 * and it does not go under /lib/modules, where depmod and modprobe would
 * pick it up for ordinary boots.  The hook and boot-script texts are
 * boot/initramfs-tools/ and boot/kdump/, compiled into kdt
 * (build/gen/an_texts.c) so a copied kdt binary works alone.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anon/an_impl.h"
#include "common/kdt_env.h"

static const char *
an_rootname(const char *root)
{
	return root == NULL ? "/" : root;
}


const char *
an_text(const char *name)
{
	const struct an_text *t;

	for (t = an_texts; t->at_name != NULL; t++)
		if (strcmp(t->at_name, name) == 0)
			return t->at_text;
	return NULL;
}

/* ---- the files ---- */

struct an_wfile {
	char		wf_path[256];
	const void	*wf_data;
	size_t		wf_len;
	uint32_t	wf_mode;
};

struct an_wlist {
	struct an_wfile	wl_f[AN_MAXFILES];
	uint32_t	wl_n;
	void		*wl_free[AN_MAXFILES];
	uint32_t	wl_nfree;
};

static void
an_wadd(struct an_wlist *wl, const char *path, const void *data, size_t len,
    uint32_t mode)
{
	struct an_wfile *wf;

	if (wl->wl_n == AN_MAXFILES || data == NULL)
		return;
	wf = &wl->wl_f[wl->wl_n++];
	snprintf(wf->wf_path, sizeof (wf->wf_path), "%s", path);
	wf->wf_data = data;
	wf->wf_len = len;
	wf->wf_mode = mode;
}

static void
an_wkeep(struct an_wlist *wl, void *p)
{
	if (p != NULL && wl->wl_nfree < AN_MAXFILES)
		wl->wl_free[wl->wl_nfree++] = p;
}

static int
an_wtext(struct an_wlist *wl, const char *path, const char *text,
    uint32_t mode, FILE *err)
{
	const char *t = an_text(text);

	if (t == NULL) {
		fprintf(err, "kdt: internal: no embedded text boot/%s\n",
		    text);
		return -1;
	}
	an_wadd(wl, path, t, strlen(t), mode);
	return 0;
}

static int
an_wmodules(struct an_plan *ap, struct an_wlist *wl, FILE *err)
{
	char path[256], *buf;
	size_t len;
	uint32_t i;

	for (i = 0; i < ap->ap_nks; i++) {
		if (an_file_read(ap->ap_ks[i].ak_module, &buf, &len) != 0) {
			fprintf(err, "kdt: cannot read %s: %s\n",
			    ap->ap_ks[i].ak_module, strerror(errno));
			return -1;
		}
		an_wkeep(wl, buf);
		snprintf(path, sizeof (path), AN_STATE_DIR "/modules/%s/kdt.ko",
		    ap->ap_ks[i].ak_kver);
		an_wadd(wl, path, buf, len, 0644);
	}
	return 0;
}

static int
an_wlist_build(struct an_plan *ap, struct an_wlist *wl, FILE *err)
{
	char words[256], *s;

	memset(wl, 0, sizeof (*wl));
	/*
	 * 0600: only root's hooks read the enabling (what the administrator
	 * traces is no other user's business); the rest is 0644 (kdt.ko, as
	 * under /lib/modules; the kernel words, as in /proc/cmdline) or 0755
	 * (hook and boot scripts).  Nothing is group- or world-writable.
	 */
	an_wadd(wl, AN_STATE_DIR "/anon.dof", ap->ap_o->dco_dof,
	    ap->ap_o->dco_dofsz, 0600);
	if (an_wmodules(ap, wl, err) != 0)
		return -1;
	/* kernel symbol hints: optional, kdt.ko searches kallsyms without */
	if (ap->ap_nks == 1) {
		uint8_t *ksh;
		size_t kshlen;
		uint32_t nk;
		char why[512];

		if (an_ksym_build(ap->ap_o, ap->ap_ao->ao_vmlinux,
		    ap->ap_ks[0].ak_kver, &ksh, &kshlen, &nk, why,
		    sizeof (why)) == 1) {
			an_wkeep(wl, ksh);
			an_wadd(wl, AN_STATE_DIR "/anon.ksym", ksh, kshlen,
			    0644);
		}
	}
	an_boot_words(words, sizeof (words), ap->ap_size.as_size,
	    ap->ap_addr, AN_Q_PLAIN);
	if (asprintf(&s, "%s\n", words) < 0)
		return -1;
	an_wkeep(wl, s);
	an_wadd(wl, AN_STATE_DIR "/cmdline", s, strlen(s), 0644);
	if ((ap->ap_ints & AN_INT_INITRAMFS_TOOLS) &&
	    (an_wtext(wl, "/etc/initramfs-tools/hooks/kdt",
	    "initramfs-tools/hook", 0755, err) != 0 ||
	    an_wtext(wl, "/etc/initramfs-tools/scripts/init-top/00kdt",
	    "initramfs-tools/init-top", 0755, err) != 0))
		return -1;
	if ((ap->ap_ints & AN_INT_KDUMP_TOOLS) &&
	    (an_wtext(wl, "/usr/lib/kdt/kdt-kdump-save",
	    "kdump/kdt-kdump-save", 0755, err) != 0 ||
	    an_wtext(wl,
	    "/etc/systemd/system/kdump-tools-dump.service.d/kdt.conf",
	    "kdump/kdump-tools-dump.conf", 0644, err) != 0))
		return -1;
	if ((ap->ap_ints & AN_INT_KDUMPCTL) &&
	    an_wtext(wl, "/etc/kdump/post.d/kdt-region",
	    "kdump/kdt-kdump-post", 0755, err) != 0)
		return -1;
	if (ap->ap_ints & AN_INT_GRUB) {
		s = an_boot_dropin(ap->ap_size.as_size, ap->ap_addr);
		an_wkeep(wl, s);
		an_wadd(wl, "/etc/default/grub.d/kdt.cfg", s,
		    s != NULL ? strlen(s) : 0, 0644);
	}
	return 0;
}

static void
an_wlist_free(struct an_wlist *wl)
{
	while (wl->wl_nfree > 0)
		free(wl->wl_free[--wl->wl_nfree]);
}

static int
an_in_list(const struct an_wlist *wl, const char *path)
{
	uint32_t i;

	for (i = 0; i < wl->wl_n; i++)
		if (strcmp(wl->wl_f[i].wf_path, path) == 0)
			return 1;
	return 0;
}

static int
an_in_old(const struct an_plan *ap, const char *path)
{
	uint32_t i;

	for (i = 0; ap->ap_have_old && i < ap->ap_old.mn_nfiles; i++)
		if (strcmp(ap->ap_old.mn_files[i].mf_path, path) == 0)
			return 1;
	return 0;
}

/*
 * A file at one of our paths that no manifest of ours lists belongs to
 * someone else: refuse rather than overwrite it.
 */
static int
an_check_foreign(const struct an_plan *ap, const struct an_wlist *wl,
    FILE *err)
{
	char path[AN_PATHMAX];
	uint32_t i;
	int rv = 0;

	for (i = 0; i < wl->wl_n; i++) {
		an_path(path, sizeof (path), ap->ap_root, wl->wl_f[i].wf_path);
		if (access(path, F_OK) == 0 &&
		    !an_in_old(ap, wl->wl_f[i].wf_path)) {
			fprintf(err, "kdt: %s exists and was not written by kdt -A (not in %s); move it away first\n",
			    path, AN_MANIFEST);
			rv = -1;
		}
	}
	return rv;
}

/*
 * Temporary files an_file_write() leaves when kdt -A is killed between
 * creating and renaming one: ".NAME.kdt-XXXXXX" beside NAME.  Nothing
 * reads them (initramfs-tools and dracut skip dot files, GRUB reads only
 * *.cfg), but they are ours, so installing and removing clear them.
 */
static void
an_clear_temps(const char *path, int dry, FILE *out)
{
	char dir[AN_PATHMAX], pre[AN_PATHMAX], full[AN_PATHMAX + 256];
	const char *slash = strrchr(path, '/');
	struct dirent *de;
	size_t plen;
	DIR *d;

	if (slash == NULL)
		return;
	snprintf(dir, sizeof (dir), "%.*s", (int)(slash - path), path);
	snprintf(pre, sizeof (pre), ".%s.kdt-", slash + 1);
	plen = strlen(pre);
	if ((d = opendir(dir[0] != '\0' ? dir : "/")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, pre, plen) != 0 ||
		    strlen(de->d_name) != plen + 6)
			continue;
		snprintf(full, sizeof (full), "%s/%s", dir, de->d_name);
		if (dry)
			fprintf(out, "would remove: %s (left by an interrupted kdt -A)\n", full);
		else if (unlink(full) == 0)
			fprintf(out, "removed: %s (left by an interrupted kdt -A)\n", full);
	}
	closedir(d);
}

/*
 * Is the file at root+path one kdt wrote?  A manifest may list a path
 * more than once (the intent manifest of an install lists the new bytes
 * and the bytes of the install it replaces, an_install()): any match
 * will do.  1 yes, 0 changed (said once on err), -1 gone.
 */
static int
an_owned_any(const char *root, const struct an_manifest *mn,
    const char *rel, FILE *err)
{
	char path[AN_PATHMAX], *buf;
	uint64_t size = 0;
	size_t len;
	uint32_t i, crc;
	int own = 0;

	an_path(path, sizeof (path), root, rel);
	if (an_file_read(path, &buf, &len) != 0)
		return errno == ENOENT ? -1 : 0;
	crc = kenv_crc32(buf, len);
	free(buf);
	for (i = 0; i < mn->mn_nfiles; i++) {
		const struct an_mfile *mf = &mn->mn_files[i];

		if (strcmp(mf->mf_path, rel) != 0)
			continue;
		size = mf->mf_size;
		if (mf->mf_size == len && mf->mf_crc == crc)
			own = 1;
	}
	if (!own)
		fprintf(err, "kdt: %s was changed since kdt -A wrote it (%zu bytes, was %" PRIu64 "); left in place\n",
		    path, len, size);
	return own;
}

/* The last entry for its path (earlier duplicates are handled there). */
static int
an_last_of_path(const struct an_manifest *mn, uint32_t i)
{
	uint32_t j;

	for (j = i + 1; j < mn->mn_nfiles; j++)
		if (strcmp(mn->mn_files[j].mf_path, mn->mn_files[i].mf_path) == 0)
			return 0;
	return 1;
}

/*
 * Directories only kdt uses (a "kdt" in their path below the root, which
 * is the first rlen bytes of "path") go when they are empty.
 */
static void
an_rmdirs_up(char *path, size_t rlen)
{
	char *p;

	while ((p = strrchr(path, '/')) != NULL && p > path + rlen) {
		*p = '\0';
		if (strstr(path + rlen, "kdt") == NULL || rmdir(path) != 0)
			break;
	}
}

int
an_dracut_installed(const char *root, const struct an_manifest *old)
{
	char path[AN_PATHMAX], *buf;
	size_t len;
	uint32_t i, crc;
	int theirs = 0;

	an_path(path, sizeof (path), root, AN_DRACUT_SETUP);
	if (an_file_read(path, &buf, &len) != 0)
		return 0;
	crc = kenv_crc32(buf, len);
	free(buf);
	for (i = 0; old != NULL && i < old->mn_nfiles; i++)
		if (strcmp(old->mn_files[i].mf_path, AN_DRACUT_SETUP) == 0 &&
		    old->mn_files[i].mf_size == len &&
		    old->mn_files[i].mf_crc == crc)
			theirs = 1;
	return !theirs;
}

/*
 * Remove manifest files (owned, not in "keep"); rmdir emptied dirs.  The
 * 90kdt files of an older kdt -A stay once the installed module has
 * replaced them (an_install.c's top comment).
 */
static int
an_remove_files(const char *root, const struct an_manifest *mn,
    const struct an_wlist *keep, int dry, FILE *out, FILE *err)
{
	char path[AN_PATHMAX];
	size_t rlen;
	uint32_t i;
	int own, rv = 0, dracut = an_dracut_installed(root, mn);

	an_path(path, sizeof (path), root, "");
	rlen = strlen(path);
	for (i = 0; i < mn->mn_nfiles; i++) {
		const struct an_mfile *mf = &mn->mn_files[i];

		if (!an_last_of_path(mn, i))
			continue;
		an_path(path, sizeof (path), root, mf->mf_path);
		an_clear_temps(path, dry, out);
		if (keep != NULL && an_in_list(keep, mf->mf_path))
			continue;
		if (dracut && strncmp(mf->mf_path, AN_DRACUT_DIR "/",
		    sizeof (AN_DRACUT_DIR)) == 0) {
			fprintf(out, "left in place: %s (now kdt's installed dracut module)\n",
			    path);
			continue;
		}
		own = an_owned_any(root, mn, mf->mf_path, err);
		if (own < 0) {
			fprintf(out, "already gone: %s\n", path);
			if (!dry)
				an_rmdirs_up(path, rlen);
			continue;
		}
		if (own == 0) {
			rv = -1;
			continue;
		}
		if (dry) {
			fprintf(out, "would remove: %s\n", path);
			continue;
		}
		if (unlink(path) != 0) {
			fprintf(err, "kdt: cannot remove %s: %s\n", path,
			    strerror(errno));
			rv = -1;
			continue;
		}
		fprintf(out, "removed: %s\n", path);
		an_rmdirs_up(path, rlen);
	}
	return rv;
}

static int
an_write_all(struct an_plan *ap, const struct an_wlist *wl,
    struct an_manifest *mn, FILE *out, FILE *err)
{
	char path[AN_PATHMAX];
	uint32_t i;

	for (i = 0; i < wl->wl_n; i++) {
		const struct an_wfile *wf = &wl->wl_f[i];

		an_path(path, sizeof (path), ap->ap_root, wf->wf_path);
		if (ap->ap_ao->ao_dry_run) {
			fprintf(out, "would write: %s (%zu bytes)\n", path,
			    wf->wf_len);
			continue;
		}
		if (an_file_write(path, wf->wf_data, wf->wf_len, wf->wf_mode,
		    err) != 0)
			return -1;
		fprintf(out, "wrote: %s (%zu bytes)\n", path, wf->wf_len);
		if (an_manifest_add(mn, wf->wf_path, wf->wf_mode, wf->wf_data,
		    wf->wf_len, err) != 0)
			return -1;
	}
	return 0;
}

static int
an_manifest_write(const char *root, const struct an_manifest *mn,
    FILE *out, FILE *err)
{
	char path[AN_PATHMAX], *text = an_manifest_format(mn);
	int rv;

	if (text == NULL)
		return -1;
	an_path(path, sizeof (path), root, AN_MANIFEST);
	rv = an_file_write(path, text, strlen(text), 0644, err);
	if (rv == 0)
		fprintf(out, "wrote: %s (%u files listed)\n", path,
		    mn->mn_nfiles);
	free(text);
	return rv;
}

static int
an_intent_write(const struct an_plan *ap, const struct an_wlist *wl,
    const struct an_manifest *head, FILE *err)
{
	struct an_manifest *in = malloc(sizeof (*in));
	char path[AN_PATHMAX], *text;
	uint32_t i;
	int rv = -1;

	if (in == NULL) {
		fprintf(err, "kdt: out of memory for the manifest\n");
		return -1;
	}
	*in = *head;
	in->mn_nfiles = 0;
	for (i = 0; i < wl->wl_n; i++)
		if (an_manifest_add(in, wl->wl_f[i].wf_path,
		    wl->wl_f[i].wf_mode, wl->wl_f[i].wf_data,
		    wl->wl_f[i].wf_len, err) != 0)
			goto out;
	for (i = 0; ap->ap_have_old && i < ap->ap_old.mn_nfiles; i++) {
		if (in->mn_nfiles == AN_MAXFILES) {
			fprintf(err, "kdt: manifest: more than %d files with the install being replaced\n",
			    AN_MAXFILES);
			goto out;
		}
		in->mn_files[in->mn_nfiles++] = ap->ap_old.mn_files[i];
	}
	if ((text = an_manifest_format(in)) == NULL)
		goto out;
	an_path(path, sizeof (path), ap->ap_root, AN_MANIFEST);
	rv = an_file_write(path, text, strlen(text), 0644, err);
	free(text);
out:
	free(in);
	return rv;
}

int
an_install(struct an_plan *ap, FILE *out, FILE *err)
{
	struct an_manifest mn;
	struct an_wlist wl;
	char kv[AN_MAXKERNELS][64], path[AN_PATHMAX];
	uint32_t i;
	int rv = 0, dry = ap->ap_ao->ao_dry_run;

	if (an_wlist_build(ap, &wl, err) != 0 ||
	    an_check_foreign(ap, &wl, err) != 0) {
		an_wlist_free(&wl);
		return 1;
	}
	memset(&mn, 0, sizeof (mn));
	mn.mn_size = ap->ap_size.as_size;
	mn.mn_addr = ap->ap_addr;
	mn.mn_ints = ap->ap_ints;
	for (i = 0; i < ap->ap_nks; i++) {
		snprintf(mn.mn_kernels[i], 64, "%s", ap->ap_ks[i].ak_kver);
		snprintf(kv[i], 64, "%s", ap->ap_ks[i].ak_kver);
	}
	mn.mn_nkernels = ap->ap_nks;
	/*
	 * Temporaries a kdt -A killed before its first manifest left beside
	 * the files this one writes (an_remove_files() clears those of an
	 * old manifest's files).
	 */
	for (i = 0; i < wl.wl_n; i++) {
		an_path(path, sizeof (path), ap->ap_root, wl.wl_f[i].wf_path);
		an_clear_temps(path, dry, out);
	}
	an_path(path, sizeof (path), ap->ap_root, AN_MANIFEST);
	an_clear_temps(path, dry, out);
	/*
	 * Intent first: before any file is written, the manifest already
	 * lists every file this install will write (with the bytes it will
	 * write) and every file of the install it replaces (with their old
	 * bytes), so that kdt -A killed at any point leaves only files a
	 * manifest names: "kdt -A" removes them and "kdt -A -s" replaces
	 * them.  The final manifest below lists what was written.
	 */
	if (!dry && an_intent_write(ap, &wl, &mn, err) != 0) {
		an_wlist_free(&wl);
		return 1;
	}
	if (an_write_all(ap, &wl, &mn, out, err) != 0)
		rv = 1;
	if (ap->ap_have_old && an_remove_files(ap->ap_root, &ap->ap_old, &wl,
	    dry, out, err) != 0)
		rv = 1;
	/* the manifest lists what was written, even after a failure */
	if (!dry && an_manifest_write(ap->ap_root, &mn, out, err) != 0)
		rv = 1;
	else if (dry)
		fprintf(out, "would write: %s%s\n", strcmp(ap->ap_root, "/") == 0 ? "" : ap->ap_root, AN_MANIFEST);
	an_wlist_free(&wl);
	if (rv == 0 && an_regen(ap->ap_root, ap->ap_ints, kv, ap->ap_nks, dry,
	    out, err) != 0)
		rv = 1;
	return rv;
}

int
an_remove(const struct an_opts *ao, FILE *out, FILE *err)
{
	char path[AN_PATHMAX], *text;
	struct an_manifest mn;
	int rv = 0;

	an_path(path, sizeof (path), ao->ao_root, AN_MANIFEST);
	an_clear_temps(path, ao->ao_dry_run, out);
	if (an_file_read(path, &text, NULL) != 0) {
		if (errno == ENOENT) {
			/* a kdt -A killed before its manifest: its dirs */
			if (!ao->ao_dry_run) {
				char dirs[AN_PATHMAX], base[AN_PATHMAX];

				an_path(base, sizeof (base), ao->ao_root, "");
				snprintf(dirs, sizeof (dirs), "%s", path);
				an_rmdirs_up(dirs, strlen(base));
			}
			fprintf(out, "kdt: no anonymous enabling is installed in %s (no %s); nothing to remove\n",
			    an_rootname(ao->ao_root), path);
			return 0;
		}
		fprintf(err, "kdt: cannot read %s: %s\n", path,
		    strerror(errno));
		return 1;
	}
	rv = an_manifest_parse(text, path, &mn, err);
	free(text);
	if (rv != 0)
		return 1;
	if (an_remove_files(ao->ao_root, &mn, NULL, ao->ao_dry_run, out,
	    err) != 0)
		rv = 1;
	if (ao->ao_dry_run)
		fprintf(out, "would remove: %s\n", path);
	else if (rv == 0 && unlink(path) != 0) {
		fprintf(err, "kdt: cannot remove %s: %s\n", path,
		    strerror(errno));
		rv = 1;
	} else if (rv == 0) {
		fprintf(out, "removed: %s\n", path);
		/* its directories go too, when nothing else is in them */
		an_path(path, sizeof (path), ao->ao_root, AN_STATE_DIR);
		if (rmdir(path) == 0) {
			*strrchr(path, '/') = '\0';
			(void) rmdir(path);
		}
	}
	if (an_regen(ao->ao_root, mn.mn_ints, mn.mn_kernels, mn.mn_nkernels,
	    ao->ao_dry_run, out, err) != 0)
		rv = 1;
	if (mn.mn_ints & AN_INT_GRUB_NODROPIN) {
		fprintf(out, "NOT done: the kernel words were never in a GRUB drop-in here; run: grubby --update-kernel=ALL --remove-args='kdt.anon kdt.region memmap'\n");
		rv = 1;
	}
	if (rv == 0)
		fprintf(out, "kdt: the anonymous enabling is removed; the next boot runs without it\n");
	return rv;
}

