/*
 * test_rgn_specvar.c -- speculations and variables in the region
 * (common/rgn.h "speculations and variables"): a D program is compiled
 * with dc_compile(), given a region written by rgn_write.c with a
 * speculation area and a variable area, and the runner's speculations and
 * variable state are moved there exactly as kdt.ko does for a
 * region-backed state (kmod/kd_cs.c, kd_specvar_place: spec_create_in,
 * dif_vstate_init, rgn_set_dvar).  BEGIN is fired by hand; the image is
 * then read back through rgn_read.c and printed by the consumer
 * (kc_print_region_opts with KC_F_VARS: what kdt-extract --vars prints,
 * and the crash(8) extension's "kdt -v" over a debugger's reader),
 * intact and with each part damaged in turn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "compiler/dc.h"
#include "consumer/kc.h"
#include "consumer/kc_env.h"
#include "dof_load.h"
#include "dif.h"
#include "dif_vm.h"
#include "rgn.h"
#include "spec.h"
#include "ecb.h"
#include "mdb-module/mdb.h"
#include "kt_specvar.h"

/* What kdt-extract --vars prints: status, stdout, stderr. */
static int
ts_print(const struct ts *t, uint32_t flags, char **out, char **err)
{
	struct kc_opts ko;
	size_t ol, el;
	FILE *o, *e;
	int rv;

	memset(&ko, 0, sizeof (ko));
	ko.ko_prog = "kdt-extract";
	ko.ko_flags = flags | KC_F_PARTIAL;
	o = open_memstream(out, &ol);
	e = open_memstream(err, &el);
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(e);
	rv = kc_print_region_opts(t->t_rgn, t->t_size, RGN_PHYS_ANY, "img",
	    o, e, &ko);
	fclose(o);
	fclose(e);
	return rv;
}

/* The thread id the userspace engine keys self-> with. */
static unsigned long long
ts_tid(void)
{
	return (unsigned long long)kenv_tid();
}

START_TEST(test_layout_and_bounds)
{
	struct rgn_view v;
	struct kdt_err ke;
	const struct rgn_meta *m;
	uint64_t sl, vl, dvo, dvl;
	struct ts t;

	ts_setup(&t, ts_src);
	ck_assert_msg(rgn_open(&v, t.t_rgn, t.t_size, RGN_PHYS_ANY,
	    &ke) == 0, "%s", ke.ke_msg);
	m = v.rv_meta;
	ck_assert(RGN_META_HAS_VARS(m));
	ck_assert_uint_eq(m->rm_probe_off, sizeof (struct rgn_meta));
	ck_assert_ptr_nonnull(rgn_view_spec(&v, &sl));
	ck_assert_ptr_nonnull(rgn_view_vars(&v, &vl, &dvo, &dvl));
	ck_assert_uint_eq(m->rm_spec_off % RGN_PAGE, 0);
	ck_assert_uint_eq(m->rm_gvar_off, m->rm_spec_off + m->rm_spec_size);
	ck_assert_uint_le(m->rm_gvar_off + m->rm_gvar_size,
	    v.rv_hdr->rh_cpu_off);
	ck_assert_uint_eq(dvo + dvl, vl);
	/* rule 15: a misplaced part is refused with its field's offset */
	((struct rgn_meta *)(t.t_rgn + RGN_PAGE))->rm_spec_off += 8;
	ck_assert_int_eq(rgn_open(&v, t.t_rgn, t.t_size, RGN_PHYS_ANY,
	    &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "RGN_SPECVAR");
	ck_assert_ptr_nonnull(strstr(ke.ke_msg, "speculation area"));
	((struct rgn_meta *)(t.t_rgn + RGN_PAGE))->rm_spec_off -= 8;
	((struct rgn_meta *)(t.t_rgn + RGN_PAGE))->rm_dvar_off =
	    m->rm_gvar_off + m->rm_gvar_size + 8;
	ck_assert_int_eq(rgn_open(&v, t.t_rgn, t.t_size, RGN_PHYS_ANY,
	    &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "RGN_DVAR");
	ts_free(&t);
}
END_TEST

/* Only the uncommitted speculation is shown apart; the committed one is
 * a principal record, the discarded one is gone. */
START_TEST(test_uncommitted_speculation_printed_apart)
{
	char *out, *err;
	struct ts t;

	ts_setup(&t, ts_src);
	ck_assert_int_eq(ts_print(&t, 0, &out, &err), 0);
	ck_assert_str_eq(out,
	    "committed 7\n"
	    "principal\n"
	    "\n"
	    "speculation 1 (uncommitted, CPU 0):\n"
	    "kept 5\n"
	    "\n");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	ts_free(&t);
}
END_TEST

START_TEST(test_vars_printed_with_names_and_types)
{
	char *out, *err, want[1024];
	struct ts t;

	ts_setup(&t, ts_src);
	ck_assert_int_eq(ts_print(&t, KC_F_VARS, &out, &err), 0);
	snprintf(want, sizeof (want),
	    "committed 7\n"
	    "principal\n"
	    "\n"
	    "speculation 1 (uncommitted, CPU 0):\n"
	    "kept 5\n"
	    "\n"
	    "\n"
	    "global c (int32) = 2\n"	/* 2 was free again after discard */
	    "global d (int32) = 2\n"
	    "global g (int32) = 42\n"
	    "global k (int32) = 1\n"
	    "global s (string) = \"hello\"\n"
	    "array a[\"bar\", -1] (int32) = 11\n"
	    "array a[\"foo\", 3] (int32) = 9\n"
	    "array b[5] (string) = \"five\"\n"
	    "self->t (int32) tid %llu = 7\n", ts_tid());
	ck_assert_str_eq(out, want);
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	ts_free(&t);
}
END_TEST

START_TEST(test_vars_json_objects)
{
	struct kc_opts ko;
	char *out, *err;
	size_t ol, el;
	FILE *o, *e;
	struct ts t;

	ts_setup(&t, ts_src);
	memset(&ko, 0, sizeof (ko));
	ko.ko_prog = "kdt-extract";
	ko.ko_flags = KC_F_VARS;
	ko.ko_format = KC_FORMAT_JSON;
	o = open_memstream(&out, &ol);
	e = open_memstream(&err, &el);
	ck_assert_int_eq(kc_print_region_opts(t.t_rgn, t.t_size,
	    RGN_PHYS_ANY, "img", o, e, &ko), 0);
	fclose(o);
	fclose(e);
	ck_assert_ptr_nonnull(strstr(out,
	    "{\"type\":\"speculation\",\"id\":1,\"cpu\":0,\"state\":\"uncommitted\",\"timestamp\":1000,"));
	ck_assert_ptr_nonnull(strstr(out, "\"text\":\"kept 5\\n\"}\n"));
	ck_assert_ptr_nonnull(strstr(out,
	    "{\"type\":\"variable\",\"scope\":\"global\",\"name\":\"g\",\"id\":"));
	ck_assert_ptr_nonnull(strstr(out,
	    "\"vtype\":\"int32\",\"value\":42}\n"));
	ck_assert_ptr_nonnull(strstr(out,
	    "\"vtype\":\"int32\",\"keys\":[\"foo\",3],\"value\":9}\n"));
	ck_assert_ptr_nonnull(strstr(out, "{\"type\":\"variable\",\"scope\":\"thread\",\"name\":\"t\""));
	ck_assert_ptr_null(strstr(out, "gone"));
	/* the end object stays last */
	ck_assert_ptr_nonnull(strstr(out, "{\"type\":\"end\""));
	ck_assert_ptr_null(strstr(strstr(out, "{\"type\":\"end\""),
	    "variable"));
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	ts_free(&t);
}
END_TEST

/* The speculation area's header damaged: reported, nothing decoded. */
START_TEST(test_corrupt_spec_header)
{
	struct spec_area *sa;
	char *out, *err;
	uint64_t len;
	struct ts t;

	ts_setup(&t, ts_src);
	sa = rgn_spec_area(t.t_rgn, &len);
	sa->sa_ncpu = 7;
	ck_assert_int_eq(ts_print(&t, 0, &out, &err), KC_PARTIAL);
	ck_assert_ptr_null(strstr(out, "speculation"));
	ck_assert_ptr_null(strstr(out, "kept"));
	ck_assert_ptr_nonnull(strstr(err,
	    "kdt-extract: img: speculation area left out: speculation area header is inconsistent: 4 speculations x 7 cpus (region: 1)"));
	free(out);
	free(err);
	sa->sa_ncpu = 1;
	sa->sa_magic ^= 1;
	ck_assert_int_eq(ts_print(&t, 0, &out, &err), KC_PARTIAL);
	ck_assert_ptr_nonnull(strstr(err, "speculation area magic"));
	free(out);
	free(err);
	ts_free(&t);
}
END_TEST

/* A torn speculative record (size or EPID): the buffer is cut there. */
START_TEST(test_corrupt_spec_record)
{
	struct spec_area *sa;
	struct rgn_rec *rr;
	char *out, *err;
	uint64_t len;
	struct ts t;

	ts_setup(&t, ts_src);
	sa = rgn_spec_area(t.t_rgn, &len);
	rr = (struct rgn_rec *)((uint8_t *)sa + sa->sa_dataoff);
	rr->rr_epid = 999;
	ck_assert_int_eq(ts_print(&t, 0, &out, &err), KC_PARTIAL);
	ck_assert_ptr_null(strstr(out, "kept"));
	ck_assert_ptr_nonnull(strstr(err,
	    "kdt-extract: img: speculation 1, cpu 0: buffer offset 0x0: record EPID 999 is not in the"));
	free(out);
	free(err);
	rr->rr_epid = 3;
	rr->rr_size = 12;
	ck_assert_int_eq(ts_print(&t, 0, &out, &err), KC_PARTIAL);
	ck_assert_ptr_nonnull(strstr(err, "record size 12 is not a multiple of 8"));
	free(out);
	free(err);
	/* a state word no writer produces */
	rr->rr_size = 32;
	((uint32_t *)(sa + 1))[0] = 77;
	ck_assert_int_eq(ts_print(&t, 0, &out, &err), KC_PARTIAL);
	ck_assert_ptr_nonnull(strstr(err, "speculation 1 has state 77"));
	free(out);
	free(err);
	ts_free(&t);
}
END_TEST

/* A damaged dynamic-variable chunk is left out, the rest printed. */
START_TEST(test_corrupt_dvar_chunk)
{
	const struct rgn_meta *m;
	struct dif_dhdr *dh;
	uint32_t *buckets, b, idx = 0;
	uint8_t *chunk;
	char *out, *err;
	struct ts t;

	ts_setup(&t, ts_src);
	m = (const struct rgn_meta *)(t.t_rgn + RGN_PAGE);
	dh = (struct dif_dhdr *)(t.t_rgn + m->rm_dvar_off);
	buckets = (uint32_t *)(dh + 1);
	for (b = 0; b < dh->dh_nbuckets && idx == 0; b++)
		idx = buckets[b];
	ck_assert_uint_ne(idx, 0);
	chunk = (uint8_t *)buckets + ((dh->dh_nbuckets * 4 + 7) & ~7u) +
	    (uint64_t)(idx - 1) * dh->dh_chunksize;
	chunk[16 + 8] ^= 0x40;	/* first key entry's data */
	ck_assert_int_eq(ts_print(&t, KC_F_VARS, &out, &err), KC_PARTIAL);
	ck_assert_ptr_nonnull(strstr(err, "dynamic variables: chunk "));
	ck_assert_ptr_nonnull(strstr(err, "left out: stored hash"));
	ck_assert_ptr_nonnull(strstr(out, "global g (int32) = 42\n"));
	free(out);
	free(err);
	chunk[16 + 8] ^= 0x40;
	/* a chain that loops back onto itself */
	((uint32_t *)chunk)[0] = idx;
	ck_assert_int_eq(ts_print(&t, KC_F_VARS, &out, &err), KC_PARTIAL);
	ck_assert_ptr_nonnull(strstr(err, "is reached twice"));
	free(out);
	free(err);
	/* the store's header */
	dh->dh_nchunks++;
	ck_assert_int_eq(ts_print(&t, KC_F_VARS, &out, &err), KC_PARTIAL);
	ck_assert_ptr_nonnull(strstr(err,
	    "kdt-extract: img: variables left out: dynamic variable store header says"));
	ck_assert_ptr_null(strstr(out, "global g"));
	free(out);
	free(err);
	ts_free(&t);
}
END_TEST

/* Variable tables that do not match the DOF: nothing decoded. */
START_TEST(test_corrupt_var_tables)
{
	uint8_t *area;
	char *out, *err;
	uint64_t len;
	struct ts t;

	ts_setup(&t, ts_src);
	area = rgn_var_area(t.t_rgn, &len);
	area[4] ^= 0x10;	/* vi_size of the first global */
	ck_assert_int_eq(ts_print(&t, KC_F_VARS, &out, &err), KC_PARTIAL);
	ck_assert_ptr_nonnull(strstr(err,
	    "kdt-extract: img: variables left out: variable tables in the image differ from the ones the DOF gives at byte 4"));
	ck_assert_ptr_null(strstr(out, "global"));
	free(out);
	free(err);
	ts_free(&t);
}
END_TEST

/* A region without the parts (older image, kernel-memory state). */
START_TEST(test_no_parts)
{
	struct rgn_params rp;
	struct kdt_err ke;
	struct rgn_view v;
	uint64_t l, a, b;
	uint8_t *img;

	img = aligned_alloc(4096, 64 * 4096);
	memset(img, 0, 64 * 4096);
	memset(&rp, 0, sizeof (rp));
	rp.rp_ncpu = 2;
	rp.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	rp.rp_probe_cap = 4;
	rp.rp_epid_cap = 4;
	ck_assert_int_eq(rgn_init(img, 64 * 4096, &rp, &ke), 0);
	ck_assert_int_eq(rgn_open(&v, img, 64 * 4096, RGN_PHYS_ANY, &ke), 0);
	ck_assert_ptr_null(rgn_view_spec(&v, &l));
	ck_assert_ptr_null(rgn_view_vars(&v, &l, &a, &b));
	ck_assert_int_eq(rgn_walk_spec(&v, &(struct rgn_spec_cb){ 0 }, &ke),
	    0);
	/* an image from before the fields: rm_probe_off 80 (module table
	   era) -- the fields read as absent even when bytes are there */
	((struct rgn_meta *)(img + RGN_PAGE))->rm_spec_off = RGN_PAGE * 3;
	((struct rgn_meta *)(img + RGN_PAGE))->rm_probe_off = 80;
	ck_assert(!RGN_META_HAS_VARS(v.rv_meta));
	ck_assert_ptr_null(rgn_view_spec(&v, &l));
	free(img);
}
END_TEST

/* The crash(8) extension's reader: the region at TS_PHYS, nothing else. */
static int
ts_mdb_read(void *arg, uint64_t pa, void *buf, uint64_t n)
{
	const struct ts *t = arg;

	if (pa < TS_PHYS || pa + n > TS_PHYS + t->t_size)
		return -1;
	memcpy(buf, t->t_rgn + (pa - TS_PHYS), n);
	return 0;
}

/*
 * "kdt -v" in crash(8) (mdb-module/mdb_src.c, over a debugger's reader)
 * prints what kdt-extract --vars prints: the speculation and the
 * variables, through the same decoder; without -v, no variables.
 */
START_TEST(test_crash_extension_vars)
{
	struct mdb_span sp = { TS_PHYS, 0 };
	struct mdb_dbg md;
	char *argv[] = { "kdt", "-v", NULL };
	char *out, *err, *want, *werr;
	size_t ol, el;
	FILE *o, *e;
	struct ts t;

	ts_setup(&t, ts_src);
	sp.ms_size = t.t_size;
	md.md_name = "dump";
	md.md_read = ts_mdb_read;
	md.md_arg = &t;
	md.md_spans = &sp;
	md.md_nspans = 1;
	o = open_memstream(&out, &ol);
	e = open_memstream(&err, &el);
	ck_assert_int_eq(mdb_main(2, argv, "kdt", &md, o, e), 0);
	fclose(o);
	fclose(e);
	ck_assert_int_eq(ts_print(&t, KC_F_VARS, &want, &werr), 0);
	ck_assert_str_eq(out, want);
	ck_assert_ptr_nonnull(strstr(out, "speculation 1 (uncommitted, CPU 0):\nkept 5\n"));
	ck_assert_ptr_nonnull(strstr(out, "global g (int32) = 42\n"));
	free(out);
	free(err);
	free(want);
	free(werr);
	o = open_memstream(&out, &ol);
	e = open_memstream(&err, &el);
	ck_assert_int_eq(mdb_main(1, argv, "kdt", &md, o, e), 0);
	fclose(o);
	fclose(e);
	ck_assert_ptr_nonnull(strstr(out, "kept 5\n"));
	ck_assert_ptr_null(strstr(out, "global g"));
	free(out);
	free(err);
	ts_free(&t);
}
END_TEST

/*
 * Seeds for tests/fuzz/fuzz_region (its region selector byte, then the
 * image): with KT_SPECVAR_SEEDS=DIR set, the intact image and one with
 * each part damaged are written to DIR (tests/fuzz/mkcorpus does this).
 * Without it the test only checks that the images decode as above.
 */
static void
ts_seed(const char *dir, const char *name, const struct ts *t)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof (path), "%s/rgn-specvar-%s", dir, name);
	f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputc('R', f);
	ck_assert_uint_eq(fwrite(t->t_rgn, 1, t->t_size, f), t->t_size);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_fuzz_seeds)
{
	const char *dir = getenv("KT_SPECVAR_SEEDS");
	const struct rgn_meta *m;
	struct spec_area *sa;
	uint64_t len;
	struct ts t;

	if (dir == NULL)
		return;
	ts_setup(&t, ts_src);
	m = (const struct rgn_meta *)(t.t_rgn + RGN_PAGE);
	ts_seed(dir, "ok", &t);
	sa = rgn_spec_area(t.t_rgn, &len);
	((struct rgn_rec *)((uint8_t *)sa + sa->sa_dataoff))->rr_size = 40;
	ts_seed(dir, "specrec", &t);
	((struct rgn_rec *)((uint8_t *)sa + sa->sa_dataoff))->rr_size = 32;
	t.t_rgn[m->rm_dvar_off + 24] ^= 0xff;	/* a bucket */
	ts_seed(dir, "bucket", &t);
	ts_free(&t);
}
END_TEST

static Suite *
specvar_suite(void)
{
	Suite *s = suite_create("rgn_specvar");
	TCase *tc = tcase_create("specvar");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_layout_and_bounds);
	tcase_add_test(tc, test_uncommitted_speculation_printed_apart);
	tcase_add_test(tc, test_vars_printed_with_names_and_types);
	tcase_add_test(tc, test_vars_json_objects);
	tcase_add_test(tc, test_corrupt_spec_header);
	tcase_add_test(tc, test_corrupt_spec_record);
	tcase_add_test(tc, test_corrupt_dvar_chunk);
	tcase_add_test(tc, test_corrupt_var_tables);
	tcase_add_test(tc, test_no_parts);
	tcase_add_test(tc, test_crash_extension_vars);
	tcase_add_test(tc, test_fuzz_seeds);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(specvar_suite)
