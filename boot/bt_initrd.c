/*
 * bt_initrd.c -- adding, finding and removing the initrd trailer in files
 * (interface and the atomic-replace contract: bt.h; the trailer format and
 * its validation rules: common/itrl.h).
 *
 * Used by kdt-initrd (boot/kdt_initrd_main.c) and by kdt -A -o (anon/),
 * which writes the stand-alone trailer with bt_trailer_write().  The
 * format work is common/'s: itrl_foot_make() builds the footer and
 * itrl_find() reads it back, the same code the kernel runs, so what these
 * tools write is by construction what kdt.ko accepts.  This file only
 * handles files: reading them whole, and replacing them so that no failure
 * can leave a partly written initrd (bt_file_replace).
 *
 * A symbolic link is followed: /boot/initrd.img -> initrd.img-6.1.0 edits
 * the target and keeps the link.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/bt.h"
#include "common/dof_load.h"

static int
bt_err(FILE *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Print "PROG: <message>" to err (if any) and return -errnum. */
static int
bt_err(FILE *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		fprintf(err, "%s: ", program_invocation_short_name);
		va_start(ap, fmt);
		vfprintf(err, fmt, ap);
		va_end(ap);
		fputc('\n', err);
	}
	return -errnum;
}

int
bt_file_read(const char *path, void **bufp, uint64_t *lenp, FILE *err)
{
	struct stat st;
	uint8_t *buf;
	uint64_t got = 0;
	ssize_t n;
	int fd, rv;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bt_err(err, errno, "%s: cannot open: %s", path,
		    strerror(errno));
	if (fstat(fd, &st) != 0) {
		rv = errno;
		close(fd);
		return bt_err(err, rv, "%s: cannot stat: %s", path,
		    strerror(rv));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return bt_err(err, EINVAL, "%s: not a regular file", path);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		close(fd);
		return bt_err(err, ENOMEM, "%s: cannot allocate 0x%llx bytes",
		    path, (unsigned long long)st.st_size);
	}
	while (got < (uint64_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rv = n < 0 ? errno : EIO;
			free(buf);
			close(fd);
			return bt_err(err, rv, "%s: read failed at offset 0x%llx of 0x%llx: %s",
			    path, (unsigned long long)got,
			    (unsigned long long)st.st_size,
			    n < 0 ? strerror(rv) : "file shrank");
		}
		got += (uint64_t)n;
	}
	close(fd);
	*bufp = buf;
	*lenp = got;
	return 0;
}

static int
bt_write_all(int fd, const void *buf, uint64_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len > (1U << 30) ? (1U << 30) : (size_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (uint64_t)n;
	}
	return 0;
}

/*
 * Give the temporary file "fd" the mode and owner of the file it replaces
 * ("old"), or 0644 less the umask for a new file.
 */
static int
bt_copy_attrs(int fd, const struct stat *old, int exists)
{
	struct stat st;
	mode_t um;

	if (!exists) {
		um = umask(0);
		umask(um);
		return fchmod(fd, 0644 & ~um) == 0 ? 0 : -errno;
	}
	if (fstat(fd, &st) != 0)
		return -errno;
	if ((st.st_uid != old->st_uid || st.st_gid != old->st_gid) &&
	    fchown(fd, old->st_uid, old->st_gid) != 0)
		return -errno;
	return fchmod(fd, old->st_mode & 07777) == 0 ? 0 : -errno;
}

/* fsync the directory holding "path" so that the rename is durable. */
static int
bt_sync_dir(const char *dir)
{
	int fd, rv = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) != 0 && errno != EINVAL)
		rv = -errno;
	close(fd);
	return rv;
}

/*
 * The name to write: the target of a symbolic link, else "path" itself.
 * "out" has PATH_MAX bytes.
 */
static int
bt_target(const char *path, char *out, struct stat *st, int *exists)
{
	if (realpath(path, out) != NULL) {
		if (stat(out, st) != 0)
			return -errno;
		if (!S_ISREG(st->st_mode))
			return -EINVAL;
		*exists = 1;
		return 0;
	}
	if (errno != ENOENT || strlen(path) >= PATH_MAX)
		return -errno;
	strcpy(out, path);
	*exists = 0;
	return 0;
}

/* Create the missing directories above "path", 0755. */
static int
bt_mkdirs_for(const char *path, FILE *err)
{
	char dir[PATH_MAX], *p, c;

	if (strlen(path) >= sizeof (dir))
		return bt_err(err, ENAMETOOLONG, "%s: name too long", path);
	strcpy(dir, path);
	if ((p = strrchr(dir, '/')) == NULL || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return bt_err(err, errno, "cannot create directory %s: %s",
			    dir, strerror(errno));
		*p = c;
		if (c == '\0')
			break;
	}
	return 0;
}

/*
 * The common body: "mode" < 0 keeps an existing file's mode and owner
 * (0644 less the umask for a new one), else sets exactly "mode".
 */
static int
bt_write(const char *path, const struct bt_chunk *chunks, unsigned n,
    int mode, uint32_t wflags, FILE *err)
{
	char target[PATH_MAX], dirbuf[PATH_MAX], basebuf[PATH_MAX];
	char tmp[PATH_MAX + 32];
	const char *what;
	struct stat st;
	int fd, rv, exists = 0;
	unsigned i;

	if ((wflags & BT_W_MKDIRS) && (rv = bt_mkdirs_for(path, err)) < 0)
		return rv;
	if (wflags & BT_W_NOFOLLOW) {
		if (strlen(path) >= PATH_MAX)
			return bt_err(err, ENAMETOOLONG, "%s: name too long",
			    path);
		strcpy(target, path);
		rv = 0;
	} else {
		rv = bt_target(path, target, &st, &exists);
	}
	if (rv < 0)
		return bt_err(err, -rv, "%s: cannot replace: %s", path,
		    rv == -EINVAL ? "not a regular file" : strerror(-rv));
	strcpy(dirbuf, target);
	strcpy(basebuf, target);
	if (snprintf(tmp, sizeof (tmp), "%s/.%s.kdt-XXXXXX", dirname(dirbuf),
	    basename(basebuf)) >= (int)sizeof (tmp))
		return bt_err(err, ENAMETOOLONG, "%s: name too long", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return bt_err(err, errno, "%s: cannot create a temporary file in its directory: %s",
		    path, strerror(errno));
	what = "write";
	for (i = 0, rv = 0; i < n && rv == 0; i++)
		rv = bt_write_all(fd, chunks[i].bc_buf, chunks[i].bc_len);
	if (rv == 0 && mode >= 0) {
		what = "set the mode of";
		rv = fchmod(fd, (mode_t)mode) == 0 ? 0 : -errno;
	} else if (rv == 0) {
		what = "keep the mode and owner of";
		rv = bt_copy_attrs(fd, &st, exists);
	}
	if (rv == 0) {
		what = "fsync";
		rv = fsync(fd) == 0 ? 0 : -errno;
	}
	if (close(fd) != 0 && rv == 0) {
		what = "close";
		rv = -errno;
	}
	if (rv == 0) {
		what = "rename over";
		rv = rename(tmp, target) == 0 ? 0 : -errno;
	}
	if (rv < 0) {
		unlink(tmp);
		return bt_err(err, -rv, "%s: cannot %s %s (the file is unchanged): %s",
		    path, what, tmp, strerror(-rv));
	}
	strcpy(dirbuf, target);
	rv = bt_sync_dir(dirname(dirbuf));
	if (rv < 0)
		return bt_err(err, -rv, "%s: replaced, but fsync of its directory failed: %s",
		    path, strerror(-rv));
	return 0;
}

int
bt_file_replace(const char *path, const struct bt_chunk *chunks, unsigned n,
    FILE *err)
{
	return bt_write(path, chunks, n, -1, 0, err);
}

int
bt_file_write(const char *path, const struct bt_chunk *chunks, unsigned n,
    uint32_t mode, uint32_t wflags, FILE *err)
{
	return bt_write(path, chunks, n, (int)(mode & 07777), wflags, err);
}

int
bt_dof_check(const char *name, const void *dof, uint64_t dofsz, FILE *err)
{
	struct dof_enabling *den = NULL;
	struct kdt_err ke;
	int rv;

	memset(&ke, 0, sizeof (ke));
	rv = dof_load(dof, dofsz, &den, &ke);
	if (rv < 0)
		return bt_err(err, -rv, "%s: not a loadable DOF: %s [%s]",
		    name, ke.ke_msg, ke.ke_tag != NULL ? ke.ke_tag : "DOF");
	rv = (int)den->den_necbs;
	dof_free(den);
	return rv;
}

/* Make the footer for "dof"; "name" names the DOF in a message. */
static int
bt_foot(const char *name, struct itrl_foot *f, const void *dof,
    uint64_t dofsz, FILE *err)
{
	struct kdt_err ke;
	int rv;

	rv = itrl_foot_make(f, dof, dofsz, &ke);
	if (rv < 0)
		return bt_err(err, -rv, "%s: %s", name, ke.ke_msg);
	return 0;
}

int
bt_trailer_write(const char *path, const void *dof, uint64_t dofsz,
    FILE *err)
{
	struct itrl_foot f;
	struct bt_chunk c[2];
	char name[PATH_MAX + 16];
	int rv;

	snprintf(name, sizeof (name), "DOF for %s", path);
	rv = bt_dof_check(name, dof, dofsz, err);
	if (rv < 0)
		return rv;
	rv = bt_foot(path, &f, dof, dofsz, err);
	if (rv < 0)
		return rv;
	c[0].bc_buf = dof;
	c[0].bc_len = dofsz;
	c[1].bc_buf = &f;
	c[1].bc_len = sizeof (f);
	return bt_file_replace(path, c, 2, err);
}

/*
 * Find the trailer of the file image buf[0, len) named "name": 1 (ii
 * filled), 0 (none) or -errno with the message in ke and printed.
 */
static int
bt_find(const char *name, const void *buf, uint64_t len,
    struct itrl_info *ii, struct kdt_err *ke, FILE *err)
{
	int rv;

	memset(ke, 0, sizeof (*ke));
	rv = itrl_find(buf, len, ii, ke);
	if (rv < 0)
		bt_err(err, -rv, "%s: %s [%s]", name, ke->ke_msg, ke->ke_tag);
	return rv;
}

int
bt_initrd_inspect(const char *initrd, struct itrl_info *ii, void **dofp,
    struct kdt_err *ke, FILE *err)
{
	struct kdt_err local;
	void *buf, *dof;
	uint64_t len;
	int rv;

	if (ke == NULL)
		ke = &local;
	memset(ke, 0, sizeof (*ke));
	rv = bt_file_read(initrd, &buf, &len, err);
	if (rv < 0)
		return kdt_err_set(ke, -rv, "BT_READ", KDT_ERR_NOOFF,
		    "%s: cannot read it: %s", initrd, strerror(-rv));
	rv = bt_find(initrd, buf, len, ii, ke, err);
	if (rv == 1 && dofp != NULL) {
		dof = malloc(ii->ii_dofsz);
		if (dof == NULL) {
			rv = bt_err(err, ENOMEM, "%s: cannot allocate 0x%llx bytes for the DOF",
			    initrd, (unsigned long long)ii->ii_dofsz);
		} else {
			memcpy(dof, (uint8_t *)buf + ii->ii_dof_off,
			    ii->ii_dofsz);
			*dofp = dof;
		}
	}
	free(buf);
	return rv;
}

/*
 * With BT_F_FORCE, where a damaged trailer ends the initrd: when only the
 * DOF's CRC is wrong (rule 5 of itrl.h), the footer itself checked out and
 * its size is trusted -- itrl_find() reports the DOF's offset, which is
 * the original initrd's length; any other damage (the footer's own CRC,
 * its version or size) leaves no length to trust, so nothing is cut.
 */
static uint64_t
bt_force_cut(const struct kdt_err *ke, uint64_t len)
{
	if (ke->ke_tag != NULL && strcmp(ke->ke_tag, "ITRL_DOFCRC") == 0 &&
	    ke->ke_off <= len)
		return ke->ke_off;
	return len;
}

int
bt_initrd_add_flags(const char *initrd, const void *dof, uint64_t dofsz,
    uint32_t flags, FILE *err)
{
	struct itrl_info ii;
	struct itrl_foot f;
	struct kdt_err ke;
	struct bt_chunk c[3];
	char name[PATH_MAX + 16];
	uint64_t len, keep;
	void *buf;
	int rv;

	snprintf(name, sizeof (name), "DOF for %s", initrd);
	rv = bt_dof_check(name, dof, dofsz, err);
	if (rv < 0)
		return rv;
	rv = bt_foot(initrd, &f, dof, dofsz, err);
	if (rv < 0)
		return rv;
	rv = bt_file_read(initrd, &buf, &len, err);
	if (rv < 0)
		return rv;
	keep = len;
	rv = bt_find(initrd, buf, len, &ii, &ke, err);
	if (rv == 1) {
		keep = ii.ii_initrd_len;	/* replace, never stack */
	} else if (rv < 0 && (flags & BT_F_FORCE)) {
		keep = bt_force_cut(&ke, len);
		bt_err(err, 0, keep < len ?
		    "%s: --force: replacing the damaged trailer; the initrd is its first 0x%llx bytes" :
		    "%s: --force: the footer cannot be trusted; keeping all 0x%llx bytes as the initrd",
		    initrd, (unsigned long long)keep);
	} else if (rv < 0) {
		free(buf);
		return bt_err(err, -rv, "%s: refusing to add to an initrd whose trailer is damaged (see --force)",
		    initrd);
	}
	c[0].bc_buf = buf;
	c[0].bc_len = keep;
	c[1].bc_buf = dof;
	c[1].bc_len = dofsz;
	c[2].bc_buf = &f;
	c[2].bc_len = sizeof (f);
	rv = bt_file_replace(initrd, c, 3, err);
	free(buf);
	return rv;
}

int
bt_initrd_add(const char *initrd, const void *dof, uint64_t dofsz, FILE *err)
{
	return bt_initrd_add_flags(initrd, dof, dofsz, 0, err);
}

int
bt_initrd_remove(const char *initrd, uint32_t flags, FILE *err)
{
	struct itrl_info ii;
	struct kdt_err ke;
	struct bt_chunk c;
	uint64_t len, keep = 0;
	void *buf;
	int rv;

	rv = bt_file_read(initrd, &buf, &len, err);
	if (rv < 0)
		return rv;
	rv = bt_find(initrd, buf, len, &ii, &ke, err);
	if (rv == 1)
		keep = ii.ii_initrd_len;
	else if (rv < 0 && (flags & BT_F_FORCE) &&
	    (keep = bt_force_cut(&ke, len)) < len) {
		rv = 1;			/* only the DOF is damaged */
		bt_err(err, 0, "%s: --force: cutting the damaged trailer; the initrd is its first 0x%llx bytes",
		    initrd, (unsigned long long)keep);
	}
	else if (rv < 0)
		bt_err(err, -rv, (flags & BT_F_FORCE) ?
		    "%s: the trailer's footer is damaged: no length to cut by, the file is unchanged" :
		    "%s: refusing to cut a damaged trailer (see --force)",
		    initrd);
	if (rv == 1) {
		c.bc_buf = buf;
		c.bc_len = keep;
		rv = bt_file_replace(initrd, &c, 1, err);
		if (rv == 0)
			rv = 1;
	}
	free(buf);
	return rv;
}
