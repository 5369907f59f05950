/*
 * test_cli.c -- the command-line contract of build/bin/kdt and
 * build/bin/kdt-extract: bad flags, missing or wrong inputs and syntax
 * errors each get a message naming the input (and the place, for D) and a
 * non-zero exit status; compile-only runs succeed quietly.
 *
 * The programs are run as child processes from the repository root (where
 * tests/run-tests runs every unit test), with stdout and stderr captured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kt_check.h"

#define T_KDT		"build/bin/kdt"
#define T_EXTRACT	"build/bin/kdt-extract"

struct t_run {
	int	tr_status;		/* exit status, or -1 if it died */
	char	tr_out[8192];		/* stdout and stderr, interleaved */
};

/* Run "argv" (NULL-terminated), capturing both output streams. */
static void
t_run(struct t_run *r, char *const argv[])
{
	int fds[2], st;
	ssize_t n;
	size_t len = 0;
	pid_t pid;

	memset(r, 0, sizeof (*r));
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while (len < sizeof (r->tr_out) - 1 && (n = read(fds[0],
	    r->tr_out + len, sizeof (r->tr_out) - 1 - len)) > 0)
		len += (size_t)n;
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	r->tr_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define T_RUN(r, ...) do {						\
	char *const t_argv[] = { __VA_ARGS__, NULL };			\
	t_run(r, t_argv);						\
} while (0)

static void
t_expect(const struct t_run *r, int status, const char *needle)
{
	ck_assert_msg(r->tr_status == status, "exit %d, want %d; output:\n%s",
	    r->tr_status, status, r->tr_out);
	ck_assert_msg(strstr(r->tr_out, needle) != NULL,
	    "output lacks \"%s\":\n%s", needle, r->tr_out);
}

START_TEST(test_kdt_bad_flag_is_usage_error)
{
	struct t_run r;

	T_RUN(&r, T_KDT, "-K");
	t_expect(&r, 2, "kdt: unknown option -K");
}
END_TEST

START_TEST(test_kdt_missing_script_names_it)
{
	struct t_run r;

	T_RUN(&r, T_KDT, "-e", "-s", "/nonexistent/boot.d");
	ck_assert_int_ne(r.tr_status, 0);
	ck_assert_ptr_nonnull(strstr(r.tr_out, "/nonexistent/boot.d"));
}
END_TEST

START_TEST(test_kdt_syntax_error_has_position)
{
	struct t_run r;

	T_RUN(&r, T_KDT, "-e", "-n", "BEGIN { trace(1 }");
	t_expect(&r, 1, "-n:1:17: [D_SYNTAX]");
}
END_TEST

START_TEST(test_kdt_unknown_option_value_rejected)
{
	struct t_run r;

	T_RUN(&r, T_KDT, "-e", "-x", "bogus=1", "-n", "BEGIN { trace(1); }");
	t_expect(&r, 1, "'bogus'");
}
END_TEST

START_TEST(test_kdt_compile_only_succeeds_silently)
{
	struct t_run r;

	T_RUN(&r, T_KDT, "-e", "-n", "BEGIN { trace(pid + 1); }");
	ck_assert_msg(r.tr_status == 0, "exit %d: %s", r.tr_status, r.tr_out);
	ck_assert_str_eq(r.tr_out, "");
}
END_TEST

/* -P, -m and -f: the clause -S shows has the description in full. */
START_TEST(test_kdt_probe_specifier_options)
{
	struct t_run r;

	T_RUN(&r, T_KDT, "-S", "-P", "dtrace { trace(1); }");
	t_expect(&r, 0, "clause 1: dtrace:::\n");
	T_RUN(&r, T_KDT, "-S", "-m", "fbt:vmlinux");
	t_expect(&r, 0, "clause 1: fbt:vmlinux::\n");
	T_RUN(&r, T_KDT, "-S", "-f", "vfs_read, ext4:ext4_file_open /1/");
	t_expect(&r, 0, "clause 1: ::vfs_read:, :ext4:ext4_file_open:\n");
	T_RUN(&r, T_KDT, "-S", "-n", "BEGIN", "-P", "profile");
	t_expect(&r, 0, "clause 2: profile:::\n");
	T_RUN(&r, T_KDT, "-e", "-f", "fbt:kernel:vfs_read:entry");
	t_expect(&r, 2, "kdt: -f 'fbt:kernel:vfs_read:entry': probe description 'fbt:kernel:vfs_read:entry' has 4 parts; -f takes at most 3\n");
}
END_TEST

/* A bare description runs with dtrace's default action; -P names it. */
START_TEST(test_kdt_default_action_and_notice)
{
	struct t_run r;

	T_RUN(&r, T_KDT, "-x", "engine=user", "-P", "dtrace", "-n",
	    "BEGIN { exit(0); }");
	t_expect(&r, 0, "kdt: description 'dtrace' matched 4 probes\n");
	ck_assert_msg(strstr(r.tr_out, "  0      1                           :BEGIN \n") != NULL,
	    "no default-action BEGIN line:\n%s", r.tr_out);
}
END_TEST

START_TEST(test_kdt_list_usage_and_device)
{
	struct t_run r;

	T_RUN(&r, T_KDT, "-l", "-A", "-o", "/tmp/x");
	t_expect(&r, 2, "kdt: only one of the -A, -a and -l options can be given; see kdt(1), OPTIONS\n");
	T_RUN(&r, T_KDT, "-l", "-s", "x.d", "-n", "BEGIN");
	t_expect(&r, 2, "kdt: give the program either with -s or with -n, -P, -m, -f, not both; see kdt(1), OPTIONS\n");
	if (access("/dev/kdt", F_OK) == 0)
		return;		/* kdt.ko is loaded here: tests/vm has the rest */
	T_RUN(&r, T_KDT, "-l");
	t_expect(&r, 1, "kdt: /dev/kdt: kdt.ko is not loaded; see kdt(1), DEVICE ACCESS\n");
	T_RUN(&r, T_KDT, "-l", "-n", "syscall::read:entry");
	t_expect(&r, 1, "kdt: /dev/kdt: kdt.ko is not loaded; see kdt(1), DEVICE ACCESS\n");
	T_RUN(&r, T_KDT, "-n", "syscall::read:entry { trace(1); }");
	t_expect(&r, 1, "kdt: probe description syscall::read:entry needs kdt.ko, which is not loaded (no /dev/kdt)\n");
	T_RUN(&r, T_KDT, "-x", "engine=kernel", "-n", "BEGIN");
	t_expect(&r, 1, "kdt: -x engine=kernel: /dev/kdt: kdt.ko is not loaded\n");
}
END_TEST

START_TEST(test_extract_bad_flag_is_usage_error)
{
	struct t_run r;

	T_RUN(&r, T_EXTRACT, "--bogus", "x");
	t_expect(&r, 2, "kdt-extract: unknown option --bogus");
	T_RUN(&r, T_EXTRACT);
	t_expect(&r, 2, "usage: kdt-extract DUMP");
}
END_TEST

START_TEST(test_extract_missing_dump_names_it)
{
	struct t_run r;

	T_RUN(&r, T_EXTRACT, "/nonexistent/vmcore");
	t_expect(&r, 1, "kdt-extract: /nonexistent/vmcore: cannot open");
}
END_TEST

START_TEST(test_extract_not_a_dump_is_rejected)
{
	struct t_run r;

	T_RUN(&r, T_EXTRACT, "README.md");
	t_expect(&r, 1, "README.md: not an ELF core dump");
}
END_TEST

static Suite *
cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, test_kdt_bad_flag_is_usage_error);
	tcase_add_test(tc, test_kdt_missing_script_names_it);
	tcase_add_test(tc, test_kdt_syntax_error_has_position);
	tcase_add_test(tc, test_kdt_unknown_option_value_rejected);
	tcase_add_test(tc, test_kdt_compile_only_succeeds_silently);
	tcase_add_test(tc, test_kdt_probe_specifier_options);
	tcase_add_test(tc, test_kdt_default_action_and_notice);
	tcase_add_test(tc, test_kdt_list_usage_and_device);
	tcase_add_test(tc, test_extract_bad_flag_is_usage_error);
	tcase_add_test(tc, test_extract_missing_dump_names_it);
	tcase_add_test(tc, test_extract_not_a_dump_is_rejected);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(cli_suite)
