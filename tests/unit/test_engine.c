/*
 * test_engine.c -- the userspace engine behind "kdt -s x.d"
 * (consumer/kc_engine.c, reached through kc_run()): small D programs are
 * compiled with dc_compile() and run; their stdout, stderr and exit
 * status are compared with what dtrace(1) prints for them.  They ask for
 * the userspace engine by name (-x engine=user), so a host with kdt.ko
 * loaded runs them the same; the engine choice itself (kc_run.c) is
 * tested where /dev/kdt does not exist.
 */
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "consumer/kc_run.h"
#include "consumer/kc_engine.h"

struct tr {
	char	*t_out;
	size_t	t_outlen;
	char	*t_err;
	size_t	t_errlen;
	int	t_rc;
};

static void
tr_run_opts(struct tr *t, const char *src, const struct kc_run_opts *ro)
{
	struct dc_opts opts;
	struct dc_out o;
	FILE *out, *err;

	memset(t, 0, sizeof (*t));
	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "build/kernel/vmlinux";
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts, &o) == 0,
	    "%s", o.dco_diag);
	out = open_memstream(&t->t_out, &t->t_outlen);
	err = open_memstream(&t->t_err, &t->t_errlen);
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(err);
	t->t_rc = kc_run(o.dco_dof, o.dco_dofsz, ro, out, err);
	fclose(out);
	fclose(err);
	dc_out_free(&o);
}

static void
tr_run(struct tr *t, const char *src)
{
	struct kc_run_opts ro;

	memset(&ro, 0, sizeof (ro));
	ro.ro_prog = "kdt";
	ro.ro_input = "t.d";
	ro.ro_is_script = 1;
	ro.ro_engine = KC_ENGINE_USER;
	tr_run_opts(t, src, &ro);
}

static void
tr_free(struct tr *t)
{
	free(t->t_out);
	free(t->t_err);
}

START_TEST(test_begin_records_framing_and_exit_status)
{
	struct tr t;

	tr_run(&t, "BEGIN { trace(\"hello\"); }\n"
	    "BEGIN { printf(\"x=%d\\n\", 42); }\n"
	    "BEGIN { exit(3); }\n"
	    "END { trace(7); }\n");
	ck_assert_str_eq(t.t_out,
	    "CPU     ID                    FUNCTION:NAME\n"
	    "  0      1                           :BEGIN   hello                            \n"
	    "  0      1                           :BEGIN x=42\n"
	    "\n"
	    "  0      1                           :BEGIN \n"
	    "  0      2                             :END         7\n"
	    "\n");
	ck_assert_str_eq(t.t_err, "kdt: script 't.d' matched 4 probes\n");
	ck_assert_int_eq(t.t_rc, 3);
	tr_free(&t);
}
END_TEST

START_TEST(test_ticks_fire_in_time_order_until_exit)
{
	struct tr t;

	tr_run(&t, "#pragma D option quiet\n"
	    "tick-2ms { printf(\"a\"); }\n"
	    "tick-5ms { printf(\"b\\n\"); exit(0); }\n"
	    "END { printf(\"end\\n\"); }\n");
	ck_assert_str_eq(t.t_out, "aab\nend\n\n");
	ck_assert_str_eq(t.t_err, "");
	ck_assert_int_eq(t.t_rc, 0);
	tr_free(&t);
}
END_TEST

START_TEST(test_kernel_probe_needs_kernel_engine)
{
	struct tr t;

	tr_run(&t, "BEGIN { exit(0); }\nfbt::foo:entry { trace(1); }\n");
	ck_assert_str_eq(t.t_out, "");
	ck_assert_str_eq(t.t_err,
	    "kdt: probe description fbt::foo:entry needs the kernel engine (kdt.ko); the userspace engine provides only dtrace:::BEGIN, END, ERROR and profile:::tick-*/profile-*\n");
	ck_assert_int_eq(t.t_rc, 1);
	tr_free(&t);
}
END_TEST

START_TEST(test_fault_reports_error_and_runs_error_clause)
{
	struct tr t;

	tr_run(&t, "#pragma D option quiet\n"
	    "BEGIN { trace(*(int *)0); }\n"
	    "ERROR { printf(\"fault %d in action %d\\n\", arg4, arg2); }\n"
	    "BEGIN { exit(0); }\n");
	ck_assert_str_eq(t.t_out, "fault 1 in action 1\n\n");
	ck_assert_ptr_nonnull(strstr(t.t_err,
	    "kdt: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x0) in action #1 at DIF offset "));
	ck_assert_int_eq(t.t_rc, 0);
	tr_free(&t);
}
END_TEST

START_TEST(test_aggregations_print_at_exit)
{
	struct tr t;

	tr_run(&t, "#pragma D option quiet\n"
	    "tick-1ms /n++ < 2/ { @c = count(); }\n"
	    "tick-1ms /n == 3/ { exit(0); }\n");
	ck_assert_ptr_nonnull(strstr(t.t_out, "               2\n"));
	ck_assert_int_eq(t.t_rc, 0);
	tr_free(&t);
}
END_TEST

/*
 * stack() and sym() as aggregation keys load and run (the userspace
 * engine has no kernel stack: the stack key has no frames, so both
 * firings share one entry; sym(0) prints as the address).
 */
START_TEST(test_kernel_data_keys)
{
	struct tr t;

	tr_run(&t, "#pragma D option quiet\n"
	    "BEGIN, tick-1ms /n++ < 2/ { @s[stack()] = count();"
	    " @y[sym(0)] = count(); }\n"
	    "tick-1ms /n == 3/ { exit(0); }\n");
	ck_assert_int_eq(t.t_rc, 0);
	ck_assert_msg(t.t_errlen == 0, "%s", t.t_err);
	ck_assert_ptr_nonnull(strstr(t.t_out, "\n\n                2\n"));
	ck_assert_ptr_nonnull(strstr(t.t_out, "  0x0     "));
	tr_free(&t);
}
END_TEST

START_TEST(test_speculation_failure_is_reported)
{
	struct tr t;

	tr_run(&t, "#pragma D option quiet\n"
	    "BEGIN { a = speculation(); b = speculation(); }\n"
	    "BEGIN { speculate(a); printf(\"kept\\n\"); }\n"
	    "BEGIN { commit(a); }\n"
	    "BEGIN { printf(\"%d %d\\n\", a, b); exit(0); }\n");
	ck_assert_str_eq(t.t_out, "kept\n1 0\n\n");
	ck_assert_str_eq(t.t_err,
	    "kdt: 1 failed speculation (no speculative buffer available)\n");
	tr_free(&t);
}
END_TEST

START_TEST(test_ring_buffer_keeps_the_newest_records)
{
	struct tr t;

	tr_run(&t, "#pragma D option quiet\n"
	    "#pragma D option bufpolicy=ring\n"
	    "#pragma D option bufsize=4k\n"
	    "int i;\n"
	    "tick-1ms /i < 300/ { printf(\"%d\\n\", i++); }\n"
	    "tick-1ms /i == 300/ { exit(0); }\n");
	ck_assert_ptr_null(strstr(t.t_out, "\n0\n"));
	ck_assert_ptr_nonnull(strstr(t.t_out, "\n299\n"));
	ck_assert_int_eq(t.t_rc, 0);
	tr_free(&t);
}
END_TEST

START_TEST(test_switch_buffer_drops_a_firing_too_large)
{
	struct tr t;

	tr_run(&t, "#pragma D option quiet\n"
	    "#pragma D option bufsize=4k\n"
	    "#pragma D option strsize=8k\n"
	    "BEGIN { trace(\"too large\"); }\n"
	    "BEGIN { printf(\"%d\\n\", 1); exit(0); }\n");
	ck_assert_str_eq(t.t_out, "1\n\n");
	ck_assert_ptr_nonnull(strstr(t.t_err, "kdt: 1 drop on CPU 0\n"));
	tr_free(&t);
}
END_TEST

static void *
tr_interrupt(void *arg)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	pthread_kill(*(pthread_t *)arg, SIGINT);
	return NULL;
}

START_TEST(test_sigint_stops_then_runs_end)
{
	pthread_t self = pthread_self(), th;
	struct tr t;

	ck_assert_int_eq(pthread_create(&th, NULL, tr_interrupt, &self), 0);
	tr_run(&t, "#pragma D option quiet\n"
	    "tick-10ms { n++; }\n"
	    "END { printf(\"end %d\\n\", n > 0); }\n");
	pthread_join(th, NULL);
	ck_assert_str_eq(t.t_out, "end 1\n\n");
	ck_assert_int_eq(t.t_rc, 0);
	tr_free(&t);
}
END_TEST

/* Engine choice without kdt.ko: nothing to test where /dev/kdt exists. */
static int
tr_have_dev(void)
{
	return access("/dev/kdt", F_OK) == 0;
}

START_TEST(test_kernel_engine_needs_dev_kdt)
{
	struct tr t;
	struct kc_run_opts ro;

	if (tr_have_dev())
		return;
	memset(&ro, 0, sizeof (ro));
	ro.ro_prog = "kdt";
	ro.ro_engine = KC_ENGINE_KERNEL;
	tr_run_opts(&t, "BEGIN { exit(0); }", &ro);
	ck_assert_int_eq(t.t_rc, 1);
	ck_assert_str_eq(t.t_out, "");
	ck_assert_str_eq(t.t_err,
	    "kdt: -x engine=kernel: /dev/kdt: kdt.ko is not loaded\n");
	tr_free(&t);
}
END_TEST

START_TEST(test_auto_without_kdt_ko_runs_user_engine)
{
	struct tr t;
	struct kc_run_opts ro;

	if (tr_have_dev())
		return;
	memset(&ro, 0, sizeof (ro));
	ro.ro_prog = "kdt";
	ro.ro_input = "BEGIN ";
	ro.ro_engine = KC_ENGINE_AUTO;
	tr_run_opts(&t, "BEGIN { trace(5); exit(2); }", &ro);
	ck_assert_str_eq(t.t_err, "kdt: description 'BEGIN ' matched 1 probe\n");
	ck_assert_ptr_nonnull(strstr(t.t_out, ":BEGIN         5\n"));
	ck_assert_int_eq(t.t_rc, 2);
	tr_free(&t);
}
END_TEST

START_TEST(test_auto_without_kdt_ko_refuses_kernel_probes)
{
	struct tr t;
	struct kc_run_opts ro;

	if (tr_have_dev())
		return;
	memset(&ro, 0, sizeof (ro));
	ro.ro_prog = "kdt";
	ro.ro_engine = KC_ENGINE_AUTO;
	tr_run_opts(&t, "BEGIN { exit(0); }\nsyscall::read:entry { }\n",
	    &ro);
	ck_assert_int_eq(t.t_rc, 1);
	ck_assert_str_eq(t.t_out, "");
	ck_assert_str_eq(t.t_err,
	    "kdt: probe description syscall::read:entry needs kdt.ko, which is not loaded (no /dev/kdt)\n");
	tr_free(&t);
}
END_TEST

static Suite *
engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("run");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_begin_records_framing_and_exit_status);
	tcase_add_test(tc, test_ticks_fire_in_time_order_until_exit);
	tcase_add_test(tc, test_kernel_probe_needs_kernel_engine);
	tcase_add_test(tc, test_fault_reports_error_and_runs_error_clause);
	tcase_add_test(tc, test_aggregations_print_at_exit);
	tcase_add_test(tc, test_kernel_data_keys);
	tcase_add_test(tc, test_speculation_failure_is_reported);
	tcase_add_test(tc, test_ring_buffer_keeps_the_newest_records);
	tcase_add_test(tc, test_switch_buffer_drops_a_firing_too_large);
	tcase_add_test(tc, test_sigint_stops_then_runs_end);
	tcase_add_test(tc, test_kernel_engine_needs_dev_kdt);
	tcase_add_test(tc, test_auto_without_kdt_ko_runs_user_engine);
	tcase_add_test(tc, test_auto_without_kdt_ko_refuses_kernel_probes);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(engine_suite)
