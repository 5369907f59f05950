/*
 * test_initrd_tool.c -- unit tests of boot/bt_initrd.c (bt.h) and of the
 * kdt-initrd command line (boot/kdt_initrd_main.c).
 *
 * Real files in a fresh directory under /tmp: a DOF compiled by the
 * compiler (dc_compile) is added to a pseudo-initrd, replaced by a second
 * one, extracted and removed, and the file must come back byte for byte
 * with its mode.  Damaged trailers must be refused (and handled as
 * documented with BT_F_FORCE), undecodable DOF must never be written, and
 * a write that fails half way -- forced with RLIMIT_FSIZE in a child
 * process, which works even as root, unlike a read-only directory -- must
 * leave the original initrd intact and no temporary file behind.  The
 * command-line tests run build/bin/kdt-initrd (a prerequisite of this
 * program in the Makefile, found beside build/test/) and check its
 * documented exit statuses.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kt_check.h"
#include "boot/bt.h"
#include "compiler/dc.h"

static char t_tool_path[4200];	/* build/bin/kdt-initrd beside us */

static char t_dir[64];
static char t_err[4096];

struct t_dof {
	uint8_t		*td_buf;
	uint64_t	td_len;
	struct dc_out	td_out;
};

static void
t_compile(struct t_dof *d, const char *src)
{
	struct dc_opts opts;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "build/kernel/vmlinux";
	memset(d, 0, sizeof (*d));
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts,
	    &d->td_out) == 0, "%s", d->td_out.dco_diag);
	d->td_buf = d->td_out.dco_dof;
	d->td_len = d->td_out.dco_dofsz;
}

static void
t_setup(void)
{
	char self[4000];
	ssize_t n;

	/* this program is build/test/test_initrd_tool */
	n = readlink("/proc/self/exe", self, sizeof (self) - 1);
	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(t_tool_path, sizeof (t_tool_path), "%s/../bin/kdt-initrd",
	    self);
	strcpy(t_dir, "/tmp/kdt-test-initrd-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(t_dir));
}

static void
t_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof (cmd), "rm -rf '%s'", t_dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *
t_path(const char *name)
{
	static char p[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof (p[i]), "%s/%s", t_dir, name);
	return p[i];
}

static void
t_write(const char *path, const void *buf, uint64_t len, mode_t mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* A pseudo-initrd: "len" bytes of a pattern (not a multiple of 8). */
static uint8_t *
t_initrd(const char *path, uint64_t len, mode_t mode)
{
	uint8_t *b = malloc(len);
	uint64_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 13 + (i >> 9));
	t_write(path, b, len, mode);
	return b;
}

static void
t_same(const char *path, const void *buf, uint64_t len)
{
	void *got;
	uint64_t glen;

	ck_assert_int_eq(bt_file_read(path, &got, &glen, NULL), 0);
	ck_assert_uint_eq(glen, len);
	ck_assert_mem_eq(got, buf, len);
	free(got);
}

/* Files in the test directory other than "a" and "b" (temporaries). */
static int
t_stray(const char *a, const char *b)
{
	struct dirent *de;
	DIR *d = opendir(t_dir);
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    (a != NULL && strcmp(de->d_name, a) == 0) ||
		    (b != NULL && strcmp(de->d_name, b) == 0))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

/* Messages go to a memory stream whose text ends up in t_err. */
static FILE *
t_errf(void)
{
	FILE *f = fmemopen(t_err, sizeof (t_err) - 1, "w");

	memset(t_err, 0, sizeof (t_err));
	ck_assert_ptr_nonnull(f);
	setbuf(f, NULL);
	return f;
}

START_TEST(test_trailer_write_then_cat)
{
	struct t_dof d;
	struct itrl_info ii;
	struct kdt_err ke;
	void *tr, *cat;
	uint64_t trlen;
	uint8_t *ird;

	t_compile(&d, "dtrace:::BEGIN { trace(\"hi\"); }");
	ck_assert_int_eq(bt_trailer_write(t_path("anon.trailer"), d.td_buf,
	    d.td_len, stderr), 0);
	ck_assert_int_eq(bt_file_read(t_path("anon.trailer"), &tr, &trlen,
	    NULL), 0);
	ck_assert_uint_eq(trlen, d.td_len + ITRL_FOOTSZ);
	ck_assert_mem_eq(tr, d.td_buf, d.td_len);
	ck_assert_int_eq(itrl_find(tr, trlen, &ii, &ke), 1);
	ck_assert_uint_eq(ii.ii_initrd_len, 0);
	/* "cat initrd anon.trailer": position-independent */
	ird = t_initrd(t_path("initrd"), 12345, 0644);
	cat = malloc(12345 + trlen);
	memcpy(cat, ird, 12345);
	memcpy((uint8_t *)cat + 12345, tr, trlen);
	ck_assert_int_eq(itrl_find(cat, 12345 + trlen, &ii, &ke), 1);
	ck_assert_uint_eq(ii.ii_initrd_len, 12345);
	ck_assert_uint_eq(ii.ii_dofsz, d.td_len);
	/* a new file: 0644 less the umask */
	{
		struct stat st;
		mode_t um = umask(022);

		umask(um);
		ck_assert_int_eq(stat(t_path("anon.trailer"), &st), 0);
		ck_assert_uint_eq(st.st_mode & 07777, 0644 & ~um);
	}
	free(cat);
	free(tr);
	free(ird);
	dc_out_free(&d.td_out);
}
END_TEST

START_TEST(test_add_replace_extract_remove)
{
	struct t_dof d1, d2;
	struct itrl_info ii;
	struct stat st;
	void *dof;
	uint8_t *ird;
	const char *p = t_path("initrd.img");

	t_compile(&d1, "dtrace:::BEGIN { trace(1); }");
	t_compile(&d2, "dtrace:::BEGIN { trace(2); } dtrace:::END { trace(3); }");
	ird = t_initrd(p, 50001, 0640);
	ck_assert_int_eq(bt_initrd_inspect(p, &ii, NULL, NULL, NULL), 0);
	ck_assert_int_eq(bt_initrd_add(p, d1.td_buf, d1.td_len, stderr), 0);
	ck_assert_int_eq(bt_initrd_inspect(p, &ii, &dof, NULL, stderr), 1);
	ck_assert_uint_eq(ii.ii_initrd_len, 50001);
	ck_assert_uint_eq(ii.ii_dofsz, d1.td_len);
	ck_assert_mem_eq(dof, d1.td_buf, d1.td_len);
	free(dof);
	/* a second add replaces: the file grows by one trailer, not two */
	ck_assert_int_eq(bt_initrd_add(p, d2.td_buf, d2.td_len, stderr), 0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_size, 50001 + d2.td_len + ITRL_FOOTSZ);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(bt_initrd_inspect(p, &ii, &dof, NULL, stderr), 1);
	ck_assert_uint_eq(ii.ii_initrd_len, 50001);
	ck_assert_mem_eq(dof, d2.td_buf, d2.td_len);
	ck_assert_int_eq(bt_dof_check("x", dof, ii.ii_dofsz, stderr), 2);
	free(dof);
	/* remove: the original, byte for byte, with its mode */
	ck_assert_int_eq(bt_initrd_remove(p, 0, stderr), 1);
	t_same(p, ird, 50001);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(bt_initrd_remove(p, 0, stderr), 0);
	t_same(p, ird, 50001);
	ck_assert_int_eq(t_stray("initrd.img", NULL), 0);
	free(ird);
	dc_out_free(&d1.td_out);
	dc_out_free(&d2.td_out);
}
END_TEST

START_TEST(test_add_refuses_bad_dof)
{
	static const uint8_t junk[] = "\177DOF but not really a DOF at all";
	const char *p = t_path("initrd");
	uint8_t *ird;
	FILE *ef;

	ird = t_initrd(p, 777, 0600);
	ef = t_errf();
	ck_assert_int_lt(bt_initrd_add(p, junk, sizeof (junk), ef), 0);
	fclose(ef);
	ck_assert_msg(strstr(t_err, "not a loadable DOF") != NULL, "%s", t_err);
	ck_assert_msg(strstr(t_err, "[DOF_") != NULL, "%s", t_err);
	t_same(p, ird, 777);
	ef = t_errf();
	ck_assert_int_lt(bt_trailer_write(t_path("t"), junk, sizeof (junk),
	    ef), 0);
	fclose(ef);
	ck_assert_int_eq(access(t_path("t"), F_OK), -1);
	ck_assert_int_eq(t_stray("initrd", NULL), 0);
	free(ird);
}
END_TEST

/*
 * An initrd of 4000 bytes (its bytes in *origp) with a trailer, then one
 * byte flipped: of the DOF ("footer" 0: rule 5, ITRL_DOFCRC) or of the
 * footer's size field (rule 2, ITRL_FOOTCRC).  Returns the damaged file.
 */
static uint8_t *
t_damaged(const char *p, struct t_dof *d, uint64_t *lenp, int footer,
    uint8_t **origp)
{
	uint8_t *orig;
	void *buf;

	orig = t_initrd(p, 4000, 0644);
	ck_assert_int_eq(bt_initrd_add(p, d->td_buf, d->td_len, stderr), 0);
	ck_assert_int_eq(bt_file_read(p, &buf, lenp, NULL), 0);
	((uint8_t *)buf)[footer ? *lenp - ITRL_FOOTSZ : 4000 + 3] ^= 0x20;
	t_write(p, buf, *lenp, 0644);
	if (origp != NULL)
		*origp = orig;
	else
		free(orig);
	return buf;
}

START_TEST(test_bad_dof_refused_and_force)
{
	struct t_dof d;
	struct itrl_info ii;
	const char *p = t_path("initrd");
	uint64_t len;
	uint8_t *bad, *orig;
	FILE *ef;

	t_compile(&d, "dtrace:::BEGIN { trace(1); }");
	bad = t_damaged(p, &d, &len, 0, &orig);
	ef = t_errf();
	ck_assert_int_eq(bt_initrd_inspect(p, &ii, NULL, NULL, ef), -EINVAL);
	fclose(ef);
	ck_assert_msg(strstr(t_err, "/initrd: trailer DOF at offset 0xfa0") != NULL,
	    "%s", t_err);
	ck_assert_msg(strstr(t_err, "[ITRL_DOFCRC]") != NULL, "%s", t_err);
	/* add and remove refuse it and leave the file alone */
	ef = t_errf();
	ck_assert_int_eq(bt_initrd_add(p, d.td_buf, d.td_len, ef), -EINVAL);
	fclose(ef);
	ck_assert_msg(strstr(t_err, "--force") != NULL, "%s", t_err);
	t_same(p, bad, len);
	ck_assert_int_eq(bt_initrd_remove(p, 0, NULL), -EINVAL);
	t_same(p, bad, len);
	/* the footer is intact: add --force replaces the damaged trailer */
	ck_assert_int_eq(bt_initrd_add_flags(p, d.td_buf, d.td_len,
	    BT_F_FORCE, NULL), 0);
	ck_assert_int_eq(bt_initrd_inspect(p, &ii, NULL, NULL, stderr), 1);
	ck_assert_uint_eq(ii.ii_initrd_len, 4000);
	/* ... and remove --force cuts it: the original initrd again */
	t_write(p, bad, len, 0644);
	ck_assert_int_eq(bt_initrd_remove(p, BT_F_FORCE, NULL), 1);
	t_same(p, orig, 4000);
	free(bad);
	free(orig);
	dc_out_free(&d.td_out);
}
END_TEST

START_TEST(test_bad_footer_refused_and_force)
{
	struct t_dof d;
	struct itrl_info ii;
	const char *p = t_path("initrd");
	uint64_t len;
	uint8_t *bad;
	FILE *ef;

	t_compile(&d, "dtrace:::BEGIN { trace(1); }");
	bad = t_damaged(p, &d, &len, 1, NULL);
	ef = t_errf();
	ck_assert_int_eq(bt_initrd_remove(p, 0, ef), -EINVAL);
	fclose(ef);
	ck_assert_msg(strstr(t_err, "[ITRL_FOOTCRC]") != NULL, "%s", t_err);
	/* no length to trust: remove --force fails, file unchanged */
	ef = t_errf();
	ck_assert_int_eq(bt_initrd_remove(p, BT_F_FORCE, ef), -EINVAL);
	fclose(ef);
	ck_assert_msg(strstr(t_err, "no length to cut by") != NULL, "%s",
	    t_err);
	t_same(p, bad, len);
	/* add --force: every byte stays initrd, a new trailer follows */
	ck_assert_int_eq(bt_initrd_add_flags(p, d.td_buf, d.td_len,
	    BT_F_FORCE, NULL), 0);
	ck_assert_int_eq(bt_initrd_inspect(p, &ii, NULL, NULL, stderr), 1);
	ck_assert_uint_eq(ii.ii_initrd_len, len);
	ck_assert_int_eq(bt_initrd_remove(p, 0, stderr), 1);
	t_same(p, bad, len);
	free(bad);
	dc_out_free(&d.td_out);
}
END_TEST

/*
 * A write that fails half way (the file size limit is below the new
 * initrd's size): the original stays, no temporary file is left.
 */
START_TEST(test_fault_partial_write_keeps_original)
{
	struct t_dof d;
	struct rlimit rl;
	const char *p = t_path("initrd");
	uint8_t *ird;
	pid_t pid;
	int status;

	t_compile(&d, "dtrace:::BEGIN { trace(1); }");
	ird = t_initrd(p, 300000, 0644);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		FILE *ef = fopen("/dev/null", "w");

		signal(SIGXFSZ, SIG_IGN);
		rl.rlim_cur = rl.rlim_max = 200000;
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(10);
		_exit(bt_initrd_add(p, d.td_buf, d.td_len, ef) == -EFBIG ?
		    0 : 11);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status 0x%x", status);
	t_same(p, ird, 300000);
	ck_assert_int_eq(t_stray("initrd", NULL), 0);
	free(ird);
	dc_out_free(&d.td_out);
}
END_TEST

/* A failure to create the temporary file (no such directory). */
START_TEST(test_fault_no_directory)
{
	struct t_dof d;
	FILE *ef;

	t_compile(&d, "dtrace:::BEGIN { trace(1); }");
	ef = t_errf();
	ck_assert_int_eq(bt_trailer_write(t_path("nodir/anon.trailer"),
	    d.td_buf, d.td_len, ef), -ENOENT);
	fclose(ef);
	ck_assert_msg(strstr(t_err, "nodir/anon.trailer: cannot") != NULL,
	    "%s", t_err);
	ck_assert_int_eq(bt_initrd_add(t_path("missing"), d.td_buf, d.td_len,
	    NULL), -ENOENT);
	dc_out_free(&d.td_out);
}
END_TEST

/* A symbolic link to the initrd is followed and stays a link. */
START_TEST(test_symlink_followed)
{
	struct t_dof d;
	struct itrl_info ii;
	struct stat st;
	uint8_t *ird;

	t_compile(&d, "dtrace:::BEGIN { trace(1); }");
	ird = t_initrd(t_path("initrd.img-6.1"), 999, 0644);
	ck_assert_int_eq(symlink("initrd.img-6.1", t_path("initrd.img")), 0);
	ck_assert_int_eq(bt_initrd_add(t_path("initrd.img"), d.td_buf,
	    d.td_len, stderr), 0);
	ck_assert_int_eq(lstat(t_path("initrd.img"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(bt_initrd_inspect(t_path("initrd.img-6.1"), &ii,
	    NULL, NULL, stderr), 1);
	ck_assert_int_eq(bt_initrd_remove(t_path("initrd.img"), 0, stderr),
	    1);
	t_same(t_path("initrd.img-6.1"), ird, 999);
	ck_assert_int_eq(t_stray("initrd.img", "initrd.img-6.1"), 0);
	free(ird);
	dc_out_free(&d.td_out);
}
END_TEST

/*
 * bt_file_write() (kdt -A's writer): exactly the mode asked for, missing
 * directories created, and a symbolic link replaced by the file, never
 * followed -- under kdt -A --root an absolute link would lead out of the
 * target root.
 */
START_TEST(test_file_write_nofollow_mkdirs)
{
	struct bt_chunk c[2] = { { "#!/bin/sh\n", 10 }, { "exit 0\n", 7 } };
	char buf[64];
	struct stat st;
	FILE *f;
	size_t n;

	ck_assert_int_eq(bt_file_write(t_path("a/b/hook"), c, 2, 0755,
	    BT_W_MKDIRS | BT_W_NOFOLLOW, stderr), 0);
	ck_assert_int_eq(stat(t_path("a/b/hook"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	ck_assert_int_eq(st.st_size, 17);
	/* a link to a file outside: the link is replaced, the file kept */
	f = fopen(t_path("outside"), "w");
	ck_assert_ptr_nonnull(f);
	fputs("keep me\n", f);
	fclose(f);
	ck_assert_int_eq(symlink(t_path("outside"), t_path("a/b/cfg")), 0);
	ck_assert_int_eq(bt_file_write(t_path("a/b/cfg"), c, 1, 0600,
	    BT_W_NOFOLLOW, stderr), 0);
	ck_assert_int_eq(lstat(t_path("a/b/cfg"), &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	f = fopen(t_path("outside"), "r");
	n = fread(buf, 1, sizeof (buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "keep me\n");
	/* without BT_W_MKDIRS a missing directory is an error, named */
	ck_assert_int_eq(bt_file_write(t_path("c/d"), c, 1, 0644, 0, NULL),
	    -ENOENT);
	ck_assert_int_eq(t_stray("a", "outside"), 0);
}
END_TEST

/* Run kdt-initrd with up to 4 arguments; its exit status and stdout. */
static int
t_tool(char *out, size_t outsz, const char *a1, const char *a2,
    const char *a3, const char *a4)
{
	char cmd[8192];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof (cmd), "%s %s %s %s %s 2>/dev/null", t_tool_path, a1,
	    a2 ? a2 : "", a3 ? a3 : "", a4 ? a4 : "");
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(out, 1, outsz - 1, f);
	out[n] = '\0';
	st = pclose(f);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

START_TEST(test_cli_exit_statuses)
{
	struct t_dof d;
	char out[2048], want[64];
	uint8_t *ird;
	uint64_t len;

	ck_assert_msg(access(t_tool_path, X_OK) == 0, "%s: missing",
	    t_tool_path);
	t_compile(&d, "dtrace:::BEGIN { trace(1); }");
	t_write(t_path("a.dof"), d.td_buf, d.td_len, 0644);
	ird = t_initrd(t_path("initrd"), 4000, 0644);
	ck_assert_int_eq(t_tool(out, sizeof (out), "--help", 0, 0, 0), 0);
	ck_assert_ptr_nonnull(strstr(out, "Exit status"));
	ck_assert_int_eq(t_tool(out, sizeof (out), "", 0, 0, 0), 2);
	ck_assert_int_eq(t_tool(out, sizeof (out), "frobnicate", "x", 0, 0),
	    2);
	ck_assert_int_eq(t_tool(out, sizeof (out), "add", t_path("initrd"),
	    0, 0), 2);
	ck_assert_int_eq(t_tool(out, sizeof (out), "show", "--force",
	    t_path("initrd"), 0), 2);
	ck_assert_int_eq(t_tool(out, sizeof (out), "show", t_path("initrd"),
	    0, 0), 1);
	ck_assert_ptr_nonnull(strstr(out, "no kdt trailer"));
	ck_assert_int_eq(t_tool(out, sizeof (out), "extract",
	    t_path("initrd"), t_path("x.dof"), 0), 1);
	ck_assert_int_eq(t_tool(out, sizeof (out), "add", t_path("initrd"),
	    t_path("initrd"), 0), 1);	/* not a DOF */
	ck_assert_int_eq(t_tool(out, sizeof (out), "add", t_path("initrd"),
	    t_path("a.dof"), 0), 0);
	ck_assert_int_eq(t_tool(out, sizeof (out), "show", t_path("initrd"),
	    0, 0), 0);
	ck_assert_ptr_nonnull(strstr(out, "original initrd 4000 bytes"));
	ck_assert_ptr_nonnull(strstr(out, "DOF loads: 1 ECB"));
	ck_assert_int_eq(t_tool(out, sizeof (out), "extract",
	    t_path("initrd"), t_path("x.dof"), 0), 0);
	t_same(t_path("x.dof"), d.td_buf, d.td_len);
	ck_assert_int_eq(t_tool(out, sizeof (out), "remove", t_path("initrd"),
	    0, 0), 0);
	t_same(t_path("initrd"), ird, 4000);
	/* damaged DOF: show says so (2), add/remove refuse (1); --force cuts */
	free(t_damaged(t_path("initrd"), &d, &len, 0, NULL));
	ck_assert_int_eq(t_tool(out, sizeof (out), "show", t_path("initrd"),
	    0, 0), 2);
	ck_assert_int_eq(t_tool(out, sizeof (out), "remove", t_path("initrd"),
	    0, 0), 1);
	ck_assert_int_eq(t_tool(out, sizeof (out), "add", t_path("initrd"),
	    t_path("a.dof"), 0), 1);
	ck_assert_int_eq(t_tool(out, sizeof (out), "remove", "--force",
	    t_path("initrd"), 0), 0);
	t_same(t_path("initrd"), ird, 4000);
	/* damaged footer: remove --force fails (1), add --force works */
	free(t_damaged(t_path("initrd"), &d, &len, 1, NULL));
	ck_assert_int_eq(t_tool(out, sizeof (out), "remove", "--force",
	    t_path("initrd"), 0), 1);
	ck_assert_int_eq(t_tool(out, sizeof (out), "add", "--force",
	    t_path("initrd"), t_path("a.dof")), 0);
	ck_assert_int_eq(t_tool(out, sizeof (out), "show", t_path("initrd"),
	    0, 0), 0);
	snprintf(want, sizeof (want), "original initrd %llu bytes",
	    (unsigned long long)len);
	ck_assert_msg(strstr(out, want) != NULL, "%s", out);
	free(ird);
	dc_out_free(&d.td_out);
}
END_TEST

static Suite *
initrd_tool_suite(void)
{
	Suite *s = suite_create("initrd_tool");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, t_setup, t_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_trailer_write_then_cat);
	tcase_add_test(tc, test_add_replace_extract_remove);
	tcase_add_test(tc, test_add_refuses_bad_dof);
	tcase_add_test(tc, test_bad_dof_refused_and_force);
	tcase_add_test(tc, test_bad_footer_refused_and_force);
	tcase_add_test(tc, test_fault_partial_write_keeps_original);
	tcase_add_test(tc, test_fault_no_directory);
	tcase_add_test(tc, test_symlink_followed);
	tcase_add_test(tc, test_file_write_nofollow_mkdirs);
	tcase_add_test(tc, test_cli_exit_statuses);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(initrd_tool_suite)
