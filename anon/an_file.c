/*
 * an_file.c -- file and process helpers of kdt -A: atomic writes into the
 * target root, reading files, finding and running the distribution's
 * tools (chrooted when the target is --root=DIR).
 *
 * Every file kdt -A writes is replaced atomically by boot/'s writer
 * (bt_file_write()): the bytes go to a temporary ".NAME.kdt-XXXXXX" in
 * the same directory, which gets the final mode, is fsync'ed and renamed
 * over NAME (a symbolic link is replaced, never followed: under --root it
 * could lead out of the target); the directory is fsync'ed last.  A
 * failure removes the temporary file, so a full disk or a killed kdt
 * never leaves half a hook or half a drop-in for update-initramfs or
 * grub-mkconfig to run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "anon/an_impl.h"
#include "boot/bt.h"

void
an_path(char *buf, size_t bufsz, const char *root, const char *path)
{
	size_t n;

	if (root == NULL || strcmp(root, "/") == 0)
		root = "";
	n = strlen(root);
	while (n > 0 && root[n - 1] == '/')
		n--;
	snprintf(buf, bufsz, "%.*s%s", (int)n, root, path);
}

/* The writer of boot/ (bt_file_write(): temp + fsync + rename). */
int
an_file_write(const char *path, const void *data, size_t len,
    uint32_t mode, FILE *err)
{
	struct bt_chunk c = { data, len };

	return bt_file_write(path, &c, 1, mode, BT_W_NOFOLLOW | BT_W_MKDIRS,
	    err) == 0 ? 0 : -1;
}

int
an_file_read(const char *path, char **bufp, size_t *lenp)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, n;

	if (fp == NULL)
		return -1;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap == 0 ? 8192 : cap * 2;
			if ((nb = realloc(buf, cap + 1)) == NULL) {
				free(buf);
				fclose(fp);
				errno = ENOMEM;
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		free(buf);
		fclose(fp);
		errno = EIO;
		return -1;
	}
	fclose(fp);
	buf[len] = '\0';
	*bufp = buf;
	if (lenp != NULL)
		*lenp = len;
	return 0;
}

int
an_tool_find(const char *root, const char *name, char *found,
    size_t foundsz)
{
	static const char *const dirs[] = { "/usr/sbin/", "/usr/bin/",
	    "/sbin/", "/bin/", "/usr/local/sbin/" };
	char rel[AN_PATHMAX], path[AN_PATHMAX];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof (dirs) / sizeof (dirs[0]); i++) {
		snprintf(rel, sizeof (rel), "%s%s", dirs[i], name);
		an_path(path, sizeof (path), root, rel);
		/* stat: a /sbin -> /usr/sbin symlink in root is followed
		   on the host only when it is relative; try both */
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111) != 0) {
			snprintf(found, foundsz, "%s", rel);
			return 1;
		}
	}
	return 0;
}

int
an_run(const char *root, char *const argv[], FILE *err)
{
	int chr = root != NULL && strcmp(root, "/") != 0;
	int status, fd;
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		fd = fileno(err);
		if (fd >= 0 && fd != 1)
			dup2(fd, 1);
		if (fd >= 0 && fd != 2)
			dup2(fd, 2);
		if (chr && (chroot(root) != 0 || chdir("/") != 0)) {
			fprintf(stderr, "kdt: chroot %s: %s\n", root,
			    strerror(errno));
			_exit(127);
		}
		setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
		execvp(argv[0], argv);
		fprintf(stderr, "kdt: cannot run %s: %s\n", argv[0],
		    strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
