/*
 * test_est.c -- the probe-effect estimator (consumer/kc_est.c): what it
 * counts in the compiled DIF of a clause, the arithmetic of the model,
 * the calibration file's round trip and its refusals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "common/dof_load.h"
#include "consumer/kc_est.h"

static struct dof_enabling *
t_load(const char *src, struct dc_out *o)
{
	struct dof_enabling *den = NULL;
	struct kdt_err ke;

	memset(o, 0, sizeof (*o));
	ck_assert_msg(dc_compile(src, strlen(src), "t", NULL, o) == 0, "%s",
	    o->dco_diag);
	ck_assert_msg(dof_load(o->dco_dof, o->dco_dofsz, &den, &ke) == 0,
	    "%s", ke.ke_msg);
	return den;
}

static void
t_cal(struct kc_cal *c)
{
	unsigned i;

	memset(c, 0, sizeof (*c));
	for (i = 0; i < KC_CAL_NITEMS; i++) {
		c->kc_ns[i] = 10 * (i + 1);
		c->kc_have[i] = 1;
	}
}

/* Counting: predicate, instructions, records, aggregations, keys. */
START_TEST(test_count)
{
	struct dc_out o;
	struct dof_enabling *den = t_load(
	    "fbt::vfs_read:entry /pid == 1/ { @[execname, arg0] = quantize(arg2); }\n"
	    "syscall::read:entry { self->t = timestamp; trace(arg0); }\n"
	    "sdt:sched::sched_switch { @c = count(); }\n", &o);
	struct kc_est e;

	kc_est_ecb(den, 0, NULL, &e);
	ck_assert_str_eq(e.es_mech, "fbt entry");
	/* /pid == 1/ is decided without the interpreter (dif_vm.h) */
	ck_assert_uint_eq(e.es_pred_insns, 0);
	ck_assert_uint_gt(e.es_insns, e.es_pred_insns);
	ck_assert_int_eq(e.es_records, 0);	/* only an aggregation */
	ck_assert_uint_eq(e.es_naggs, 1);
	ck_assert_uint_eq(e.es_nstrkeys, 1);
	ck_assert_uint_eq(e.es_nkeys, 1);
	ck_assert_uint_eq(e.es_nhist, 1);
	kc_est_ecb(den, 1, NULL, &e);
	ck_assert_str_eq(e.es_mech, "syscall");
	ck_assert_int_eq(e.es_records, 1);
	ck_assert_uint_eq(e.es_rec_bytes, 8);
	ck_assert_uint_eq(e.es_ndynvar, 1);	/* self->t = */
	ck_assert_uint_eq(e.es_naggs, 0);
	kc_est_ecb(den, 2, NULL, &e);
	ck_assert_str_eq(e.es_mech, "tracepoint");
	ck_assert_uint_eq(e.es_nhist, 0);
	ck_assert_uint_eq(e.es_insns, 0);	/* count(): no interpreter */
	dof_free(den);
	dc_out_free(&o);
	/* a predicate of another shape is interpreted */
	den = t_load("fbt::vfs_read:entry /pid == 1 && cpu == 0/ { @c = count(); }\n", &o);
	kc_est_ecb(den, 0, NULL, &e);
	ck_assert_uint_gt(e.es_pred_insns, 8);
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

/* The model's sum, item by item. */
START_TEST(test_model)
{
	struct dc_out o;
	struct dof_enabling *den = t_load(
	    "fbt::vfs_read:return /arg1 == 0/ { @[pid] = count(); }\n"
	    "fbt::vfs_read:entry { trace(arg0); trace(arg1); }\n"
	    "fbt::vfs_read:entry /pid == 42/ { @n = count(); }\n"
	    "fbt::vfs_read:entry /pid * 2 == 42/ { @m = count(); }\n"
	    "syscall::read:entry /pid == 42/ { @s = quantize(arg2); }\n"
	    "sdt:sched::sched_switch /pid == 7/ { @e[execname] = count(); }\n"
	    "kinst::vfs_read:5 { @k = count(); }\n"
	    "profile:::profile-97 /pid == 3/ { @p = count(); }\n"
	    "fbt::vfs_read:entry { trace(arg0 + 1); }\n"
	    "sdt:sched::sched_switch /pid == 7/ { @f[execname, probefunc] = count(); }\n", &o);
	struct kc_cal c;
	struct kc_est e;
	double want;

	t_cal(&c);
	c.kc_ns[KC_CAL_FBTARGS] = 50;	/* a part of fbt.context */
	/* a simple aggregation (ecb.h) on a gated mechanism: the whole
	   simple firing on syscall (agg.simple), the mechanism's
	   difference to syscall's and the key; no context, no "agg" */
	kc_est_ecb(den, 0, &c, &e);
	ck_assert_str_eq(e.es_mech, "fbt return");
	ck_assert_int_eq(e.es_simple, 1);
	ck_assert_double_eq_tol(e.es_false_ns, c.kc_ns[KC_CAL_FBTRET], 1e-9);
	want = c.kc_ns[KC_CAL_FBTRET] - c.kc_ns[KC_CAL_SYSCALL] +
	    c.kc_ns[KC_CAL_AGGSIMPLE] + c.kc_ns[KC_CAL_AGGKEY];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	/* a simple record (ecb.h): as a simple aggregation, with
	   rec.simple (one value) and rec.simple.item per other value */
	kc_est_ecb(den, 1, &c, &e);
	ck_assert_int_eq(e.es_simple, 0);
	ck_assert_int_eq(e.es_simple_rec, 1);
	ck_assert_uint_eq(e.es_rec_items, 2);
	ck_assert_double_eq_tol(e.es_false_ns, 0, 1e-9);	/* no predicate */
	want = c.kc_ns[KC_CAL_FBT] - c.kc_ns[KC_CAL_SYSCALL] +
	    c.kc_ns[KC_CAL_FBTARGS] + c.kc_ns[KC_CAL_RECSIMPLE] +
	    c.kc_ns[KC_CAL_RECSITEM];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	/* a calibration without rec.simple: the ECB machinery's record */
	c.kc_have[KC_CAL_RECSIMPLE] = 0;
	kc_est_ecb(den, 1, &c, &e);
	want = c.kc_ns[KC_CAL_FBT] + c.kc_ns[KC_CAL_CTX] +
	    e.es_insns * c.kc_ns[KC_CAL_INSN] +
	    c.kc_ns[KC_CAL_REC] + 2 * c.kc_ns[KC_CAL_RECITEM];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	c.kc_have[KC_CAL_RECSIMPLE] = 1;
	/* a record of another shape goes through the ECB machinery */
	kc_est_ecb(den, 8, &c, &e);
	ck_assert_int_eq(e.es_simple_rec, 0);
	want = c.kc_ns[KC_CAL_FBT] + c.kc_ns[KC_CAL_CTX] +
	    e.es_insns * c.kc_ns[KC_CAL_INSN] +
	    c.kc_ns[KC_CAL_REC] + c.kc_ns[KC_CAL_RECITEM];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	/* fbt entry: a false predicate of the gate's shape costs the
	   mechanism alone; another shape goes past the gate and makes the
	   clause not simple */
	kc_est_ecb(den, 2, &c, &e);
	ck_assert_int_eq(e.es_simple, 1);
	ck_assert_double_eq_tol(e.es_false_ns, c.kc_ns[KC_CAL_FBT], 1e-9);
	want = c.kc_ns[KC_CAL_FBT] - c.kc_ns[KC_CAL_SYSCALL] +
	    c.kc_ns[KC_CAL_FBTARGS] + c.kc_ns[KC_CAL_AGGSIMPLE];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	kc_est_ecb(den, 3, &c, &e);
	ck_assert_int_eq(e.es_simple, 0);
	ck_assert_uint_gt(e.es_pred_insns, 0);
	want = c.kc_ns[KC_CAL_FBT] + c.kc_ns[KC_CAL_CTX] +
	    e.es_pred_insns * c.kc_ns[KC_CAL_INSN];
	ck_assert_double_eq_tol(e.es_false_ns, want, 1e-9);
	want = c.kc_ns[KC_CAL_FBT] + c.kc_ns[KC_CAL_CTX] +
	    e.es_insns * c.kc_ns[KC_CAL_INSN] + c.kc_ns[KC_CAL_AGG];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	/* syscall: gated in kd_fire(); a simple quantize */
	kc_est_ecb(den, 4, &c, &e);
	ck_assert_int_eq(e.es_simple, 1);
	ck_assert_double_eq_tol(e.es_false_ns, c.kc_ns[KC_CAL_SYSCALL], 1e-9);
	want = c.kc_ns[KC_CAL_AGGSIMPLE] + c.kc_ns[KC_CAL_HIST];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	/* an execname key is simple: agg.simple.strkey for it (agg.strkey
	   in a calibration without it) */
	kc_est_ecb(den, 5, &c, &e);
	ck_assert_int_eq(e.es_simple, 1);
	ck_assert_uint_eq(e.es_nstrkeys, 1);
	ck_assert_double_eq_tol(e.es_false_ns, c.kc_ns[KC_CAL_SDT], 1e-9);
	want = c.kc_ns[KC_CAL_SDT] - c.kc_ns[KC_CAL_SYSCALL] +
	    c.kc_ns[KC_CAL_AGGSIMPLE] + c.kc_ns[KC_CAL_AGGSSTR];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	c.kc_have[KC_CAL_AGGSSTR] = 0;
	kc_est_ecb(den, 5, &c, &e);
	want = c.kc_ns[KC_CAL_SDT] - c.kc_ns[KC_CAL_SYSCALL] +
	    c.kc_ns[KC_CAL_AGGSIMPLE] + c.kc_ns[KC_CAL_AGGSTR];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	c.kc_have[KC_CAL_AGGSSTR] = 1;
	/* another string key is not simple: the context (without the
	   argument reads, made before the gate), "agg" and agg.strkey for
	   each string key */
	kc_est_ecb(den, 9, &c, &e);
	ck_assert_int_eq(e.es_simple, 0);
	ck_assert_uint_eq(e.es_nstrkeys, 2);
	ck_assert_double_eq_tol(e.es_false_ns, c.kc_ns[KC_CAL_SDT], 1e-9);
	want = c.kc_ns[KC_CAL_SDT] + c.kc_ns[KC_CAL_CTX] -
	    c.kc_ns[KC_CAL_FBTARGS] +
	    e.es_insns * c.kc_ns[KC_CAL_INSN] + c.kc_ns[KC_CAL_AGG] +
	    2 * c.kc_ns[KC_CAL_AGGSTR];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	/* kinst's mechanism includes the context a simple firing skips */
	c.kc_ns[KC_CAL_KINST] = 1000;
	kc_est_ecb(den, 6, &c, &e);
	ck_assert_int_eq(e.es_simple, 1);
	want = c.kc_ns[KC_CAL_KINST] - c.kc_ns[KC_CAL_CTX] -
	    c.kc_ns[KC_CAL_SYSCALL] + c.kc_ns[KC_CAL_FBTARGS] +
	    c.kc_ns[KC_CAL_AGGSIMPLE];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	/* a simple firing cheaper than the gated mechanism (no argument
	   read, no gate: the measured case) is not clamped to it */
	c.kc_ns[KC_CAL_AGGSIMPLE] = 40;
	kc_est_ecb(den, 4, &c, &e);
	ck_assert_double_eq_tol(e.es_ns, 40 + c.kc_ns[KC_CAL_HIST], 1e-9);
	kc_est_ecb(den, 2, &c, &e);
	ck_assert_double_eq_tol(e.es_ns, c.kc_ns[KC_CAL_FBT] -
	    c.kc_ns[KC_CAL_SYSCALL] + c.kc_ns[KC_CAL_FBTARGS] + 40, 1e-9);
	c.kc_ns[KC_CAL_AGGSIMPLE] = 160;
	/* a timer has no gate: a false predicate builds the context */
	kc_est_ecb(den, 7, &c, &e);
	ck_assert_int_eq(e.es_mark, '~');
	ck_assert_double_eq_tol(e.es_false_ns, c.kc_ns[KC_CAL_SDT] +
	    c.kc_ns[KC_CAL_CTX] - c.kc_ns[KC_CAL_FBTARGS], 1e-9);
	/* a calibration made before agg.simple: the earlier model, where
	   only fbt entry had a gate and the others include the context */
	c.kc_have[KC_CAL_AGGSIMPLE] = 0;
	kc_est_ecb(den, 0, &c, &e);
	want = c.kc_ns[KC_CAL_FBTRET] + e.es_insns * c.kc_ns[KC_CAL_INSN] +
	    c.kc_ns[KC_CAL_AGG] + c.kc_ns[KC_CAL_AGGKEY];
	ck_assert_double_eq_tol(e.es_ns, want, 1e-9);
	kc_est_ecb(den, 4, &c, &e);
	ck_assert_double_eq_tol(e.es_false_ns, c.kc_ns[KC_CAL_SYSCALL], 1e-9);
	c.kc_have[KC_CAL_AGGSIMPLE] = 1;
	/* an item not measured makes the estimate "?" */
	c.kc_have[KC_CAL_FBT] = 0;
	kc_est_ecb(den, 1, &c, &e);
	ck_assert_int_eq(e.es_mark, '?');
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

/* The calibration file: saved, read back, bad ones named. */
START_TEST(test_file)
{
	char dir[] = "/tmp/kdt-test-est-XXXXXX", path[256], why[512];
	char line[256];
	struct kc_cal c, d;
	unsigned i, nl;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof (path), "%s/sub/calibration", dir);
	t_cal(&c);
	strcpy(c.kc_release, "6.1.0-test");
	c.kc_when = 1763700000;
	c.kc_calls = 20000;
	c.kc_pairs = 5;
	c.kc_have[KC_CAL_KINST] = 0;
	ck_assert_msg(kc_cal_save(path, &c, why, sizeof (why)) == 0, "%s", why);
	ck_assert_msg(kc_cal_load(path, &d, why, sizeof (why)) == 0, "%s", why);
	ck_assert_str_eq(d.kc_release, "6.1.0-test");
	ck_assert_int_eq(d.kc_when, 1763700000);
	for (i = 0; i < KC_CAL_NITEMS; i++) {
		ck_assert_int_eq(d.kc_have[i], c.kc_have[i]);
		if (c.kc_have[i])
			ck_assert_double_eq_tol(d.kc_ns[i], c.kc_ns[i], 0.01);
	}
	/* a bad value: the line is named (the one after the saved ones) */
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	for (nl = 0; fgets(line, sizeof (line), f) != NULL; nl++)
		;
	fclose(f);
	f = fopen(path, "a");
	fputs("insn -3\n", f);
	fclose(f);
	ck_assert_int_eq(kc_cal_load(path, &d, why, sizeof (why)), -1);
	snprintf(line, sizeof (line), "line %u:", nl + 1);
	ck_assert_msg(strstr(why, line) != NULL, "%s: no \"%s\"", why, line);
	/* not a calibration */
	f = fopen(path, "w");
	fputs("hello 1\n", f);
	fclose(f);
	ck_assert_int_eq(kc_cal_load(path, &d, why, sizeof (why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "not a kdt calibration"));
	unlink(path);
	ck_assert_int_eq(kc_cal_load(path, &d, why, sizeof (why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "run kdt --calibrate"));
	snprintf(path, sizeof (path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}
END_TEST

/* The table: a row per clause, the CPU share at a rate. */
START_TEST(test_print)
{
	struct dc_out o;
	struct dof_enabling *den = t_load(
	    "BEGIN { x = 1; }\nfbt::vfs_read:entry { @ = count(); }\n", &o);
	struct kc_cal c;
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof (buf), "w");

	t_cal(&c);
	strcpy(c.kc_release, "6.1.0-test");
	ck_assert_int_eq(kc_est_print(den, &c, "CAL", 1000, NULL, 0, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "from the calibration CAL (kernel 6.1.0-test"));
	ck_assert_ptr_nonnull(strstr(buf, ":::BEGIN"));
	ck_assert_ptr_nonnull(strstr(buf, "once"));
	ck_assert_ptr_nonnull(strstr(buf, "fbt::vfs_read:entry"));
	ck_assert_ptr_nonnull(strstr(buf, "1000/s"));
	ck_assert_ptr_nonnull(strstr(buf, "% of one CPU"));
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

static Suite *
est_suite(void)
{
	Suite *s = suite_create("est");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_count);
	tcase_add_test(tc, test_model);
	tcase_add_test(tc, test_file);
	tcase_add_test(tc, test_print);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(est_suite)
