/*
 * test_ptype.c -- print() of structs, unions and kernel types: the type
 * layout of common/dof_ptype.h from the compiler (compiler/dc_ptype.c)
 * through dof_load()'s check (dof_pt_check, rules P1-P6) to the printer
 * (consumer/kc_ptype.c), and kdt-extract printing a region's print()
 * record with the same text.
 *
 * Kernel types come from the pinned 6.1's BTF ($KDT_BTF, else
 * build/kernel/vmlinux, made by `make kernel`): print(*curthread) is cut
 * at DOF_PT_MAXREC bytes of struct task_struct, and the printed pid and
 * comm are read from a fake task_struct whose member offsets are taken
 * from the same BTF with libbpf, so a wrong offset shows as a wrong value;
 * struct sk_buff's bitfields are read back from bits set in its record.
 * The region is made by the writer (common/rgn_write.c) around the
 * compiled DOF, written as a raw image and read by cd_extract_main().
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "kt_check.h"
#include "compiler/dc.h"
#include "consumer/kc_ptype.h"
#include "crashdump/cd.h"
#include "dof_load.h"
#include "dof_ptype.h"
#include "rgn.h"

#define TP_RSIZE	(256 * 1024)

static const char *
tp_btf(void)
{
	const char *p = getenv("KDT_BTF");

	return p != NULL && *p != '\0' ? p : "build/kernel/vmlinux";
}

/* Compile and load "src"; the loaded enabling. */
static struct dof_enabling *
tp_load(const char *src, struct dc_out *o)
{
	struct dof_enabling *den = NULL;
	struct kdt_err err;
	struct dc_opts opts;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = tp_btf();
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts, o) == 0,
	    "%s: %s", src, o->dco_diag);
	memset(&err, 0, sizeof (err));
	ck_assert_msg(dof_load(o->dco_dof, o->dco_dofsz, &den, &err) == 0,
	    "%s: dof_load: %s", src, err.ke_msg);
	return den;
}

/* The first action of ECB 0 that carries a layout. */
static const struct dof_laction *
tp_print_act(const struct dof_enabling *den)
{
	const struct dof_lecb *le = &den->den_ecbs[0];
	uint32_t i;

	for (i = 0; i < le->le_nacts; i++)
		if (le->le_acts[i].la_fmt != NULL &&
		    le->le_acts[i].la_fmt[0] == '@')
			return &le->le_acts[i];
	ck_abort_msg("no print() layout");
	return NULL;
}

/* The printer's text for data under layout (malloc'ed). */
static char *
tp_print(const char *layout, const uint8_t *data, uint64_t size)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(kc_ptype_print(f, layout, data, size), 1);
	fclose(f);
	return buf;
}

/* dof_pt_check on a layout against a record of recsize bytes. */
static int
tp_check(const char *s, uint64_t recsize, struct kdt_err *err)
{
	memset(err, 0, sizeof (*err));
	return dof_pt_check(s, strlen(s), recsize, 0x40, err);
}

static const char tp_foo[] =
    "@5,foo_ts8,2,0,0,0,1,a3,inti4,s4,0,0,1,b8,char [2]a2,4,chari1,c";

START_TEST(tst_check_accepts_the_worked_example)
{
	static const uint8_t rec[8] = { 0x2a, 0, 0, 0, 'h', 0 };
	struct kdt_err err;
	char *s;

	ck_assert_msg(tp_check(tp_foo, 8, &err) == 0, "%s", err.ke_msg);
	s = tp_print(tp_foo, rec, sizeof (rec));
	ck_assert_str_eq(s, "foo_t {\n    int a = 0x2a\n"
	    "    char [2] b = [ \"h\" ]\n}");
	free(s);
}
END_TEST

/* Each rule of dof_pt_check, broken once; the message names the place. */
START_TEST(err_check_rules)
{
	static const struct {
		const char	*s;
		uint64_t	rec;
		const char	*why;
	} bad[] = {
		{ "5,foo_ts8,0,", 8, "does not start with @" },
		{ "@5,foo_ts8,2,0,0,0,1,a3,inti4,s", 8, "not offset" },
		{ "@3,inti3,s", 8, "not a type" },
		{ "@3,inti4,sX", 8, "bytes follow the type" },
		{ "@1,ss4,1,2,0,0,1,a3,inti4,s", 8, "exceeds its struct's size" },
		{ "@1,ss4,1,0,30,4,1,a3,inti4,s", 8, "bit offset plus width" },
		{ "@1,ss8,1,0,0,65,1,a3,inti8,s", 8, "bit offset plus width" },
		{ "@1,aa4294967295,3,inti4,s", 8, "count times element size" },
		{ "@1,aa2,1,cc4,0,1,", 8, "cut struct is an array element" },
		{ "@3,inti4,s", 2, "exceed the record" },
		{ "@1,cc4096,1,0,0,0,0,1,x3,inti4,s", 2, "exceed the record" },
		{ "@99999999999,inti4,s", 8, "not a type" },
		{ "@1,ee4,2,0,1,A", 8, "not a type" },
	};
	struct kdt_err err;
	size_t i;

	for (i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
		ck_assert_msg(tp_check(bad[i].s, bad[i].rec, &err) == -EINVAL,
		    "%s accepted", bad[i].s);
		ck_assert_str_eq(err.ke_tag, "DOF_PTYPE");
		ck_assert_msg(strstr(err.ke_msg, bad[i].why) != NULL &&
		    strstr(err.ke_msg, "ACTDESC entry at offset 0x40") != NULL,
		    "%s: %s", bad[i].s, err.ke_msg);
	}
}
END_TEST

/* Nesting deeper than DOF_PT_DEPTH is refused, at the limit accepted. */
START_TEST(err_check_depth)
{
	char s[1024], *p;
	struct kdt_err err;
	int i, n;

	for (n = DOF_PT_DEPTH; n <= DOF_PT_DEPTH + 1; n++) {
		p = s + sprintf(s, "@");
		for (i = 0; i < n; i++)
			p += sprintf(p, "1,aa1,");
		sprintf(p, "3,inti4,s");
		ck_assert_int_eq(tp_check(s, 4, &err), n <= DOF_PT_DEPTH ? 0 :
		    -EINVAL);
	}
	ck_assert_msg(strstr(err.ke_msg, "nest too deeply") != NULL, "%s",
	    err.ke_msg);
}
END_TEST

/* A DOF whose print() layout is damaged is refused by dof_load. */
START_TEST(err_dof_load_refuses_bad_layout)
{
	struct dof_enabling *den;
	struct kdt_err err;
	struct dc_out o;
	char *p;

	den = tp_load("struct s { int a; int b; }; BEGIN { "
	    "this->p = (struct s *)alloca(8); print(*this->p); }", &o);
	dof_free(den);
	/* member b's offset 4 -> 9: past the struct's 8 bytes */
	p = memmem(o.dco_dof, o.dco_dofsz, "4,0,0,1,b", 9);
	ck_assert_ptr_nonnull(p);
	p[0] = '9';
	memset(&err, 0, sizeof (err));
	ck_assert_int_eq(dof_load(o.dco_dof, o.dco_dofsz, &den, &err),
	    -EINVAL);
	ck_assert_str_eq(err.ke_tag, "DOF_PTYPE");
	ck_assert_msg(strstr(err.ke_msg, "member's offset plus size exceeds its struct's size (13, limit 8)") != NULL,
	    "%s", err.ke_msg);
	dc_out_free(&o);
}
END_TEST

/* Byte offset of member "m" of struct "s" in the test's BTF. */
static uint32_t
tp_off(const char *s, const char *m)
{
	struct btf *btf = btf__parse(tp_btf(), NULL);
	const struct btf_type *t;
	const struct btf_member *mb;
	uint32_t i, off = 0;
	int id;

	ck_assert_ptr_nonnull(btf);
	id = btf__find_by_name_kind(btf, s, BTF_KIND_STRUCT);
	ck_assert_int_gt(id, 0);
	t = btf__type_by_id(btf, (uint32_t)id);
	mb = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (strcmp(btf__name_by_offset(btf, mb[i].name_off), m) == 0)
			off = btf_member_bit_offset(t, i) / 8;
	btf__free(btf);
	ck_assert_uint_gt(off, 0);
	return off;
}

/* print(*curthread): cut at DOF_PT_MAXREC, pid and comm by BTF offsets. */
START_TEST(tst_btf_task_struct_cut)
{
	struct dof_enabling *den;
	const struct dof_laction *la;
	struct dc_out o;
	uint8_t *rec = calloc(1, DOF_PT_MAXREC);
	uint32_t pid = tp_off("task_struct", "pid");
	char *s;

	den = tp_load("BEGIN { print(*curthread); }", &o);
	la = tp_print_act(den);
	ck_assert_uint_eq(la->la_rec_size, DOF_PT_MAXREC);
	ck_assert_msg(strncmp(la->la_fmt, "@18,struct task_structc", 23) ==
	    0, "%.40s", la->la_fmt);
	ck_assert_uint_lt(pid + 4, DOF_PT_MAXREC);
	rec[pid] = 42;
	s = tp_print(la->la_fmt, rec, la->la_rec_size);
	ck_assert_msg(strncmp(s, "struct task_struct {\n"
	    "    struct thread_info thread_info = {\n"
	    "        long unsigned int flags = 0\n", 84) == 0, "%.200s", s);
	ck_assert_msg(strstr(s, "\n    pid_t pid = 0x2a\n") != NULL, "%s", s);
	ck_assert_msg(strstr(s, " more members not recorded (struct task_struct is ") != NULL,
	    "%s", s + strlen(s) - 200);
	free(s);
	free(rec);
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

/* A kernel struct that fits is printed whole; function pointers spelled. */
START_TEST(tst_btf_small_struct)
{
	struct dof_enabling *den;
	const struct dof_laction *la;
	uint8_t rec[16] = { 0x10, 0x20 };
	struct dc_out o;
	char *s;

	den = tp_load("BEGIN { this->c = (struct callback_head *)alloca(16); "
	    "print(*this->c); }", &o);
	la = tp_print_act(den);
	ck_assert_uint_eq(la->la_rec_size, 16);
	s = tp_print(la->la_fmt, rec, sizeof (rec));
	ck_assert_str_eq(s, "struct callback_head {\n"
	    "    struct callback_head *next = 0x2010\n"
	    "    void (*)(struct callback_head *) func = 0\n}");
	free(s);
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

/* Kernel bitfields: each read from its unit at its bit offset. */
START_TEST(tst_btf_bitfields)
{
	struct dof_enabling *den;
	const struct dof_laction *la;
	uint32_t at = tp_off("sk_buff", "__cloned_offset");
	struct dc_out o;
	uint8_t *rec;
	char *s;

	den = tp_load("BEGIN { this->s = (struct sk_buff *)alloca("
	    "sizeof (struct sk_buff)); print(*this->s); }", &o);
	la = tp_print_act(den);
	rec = calloc(1, la->la_rec_size);
	rec[at] = 0x0d;		/* cloned 1, nohdr 0, fclone 3 */
	s = tp_print(la->la_fmt, rec, la->la_rec_size);
	ck_assert_msg(strstr(s, "\n    __u8 [0] __cloned_offset = [ ]\n"
	    "    __u8 cloned :1 = 0x1\n    __u8 nohdr :1 = 0\n"
	    "    __u8 fclone :2 = 0x3\n    __u8 peeked :1 = 0\n") != NULL,
	    "%s", s);
	free(s);
	free(rec);
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

/* ---- kdt-extract on a region holding print() records ---- */

/* kdt-extract -q FILE's output (malloc'ed) and exit status. */
static char *
tp_extract(const char *path, int *rv)
{
	char *argv[4] = { "kdt-extract", "-q", (char *)path, NULL };
	char *out = NULL, *err = NULL;
	size_t ol = 0, el = 0;
	FILE *fo = open_memstream(&out, &ol), *fe = open_memstream(&err, &el);

	ck_assert_ptr_nonnull(fo);
	ck_assert_ptr_nonnull(fe);
	*rv = cd_extract_main(3, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	ck_assert_msg(*rv == 0, "kdt-extract: %s", err);
	free(err);
	return out;
}

/*
 * A region around "src"'s DOF with one record (ECB 0 as EPID 1) on CPU 0
 * holding "obj" (size bytes) where the print() action records; returns
 * kdt-extract's text, and the live printer's text in *live.
 */
static char *
tp_region_print(const char *src, const uint8_t *obj, uint32_t size,
    char **live)
{
	char path[] = "/tmp/kdt-test-ptype-XXXXXX";
	struct dof_enabling *den;
	const struct dof_laction *la;
	struct rgn_params p;
	struct rgn_rec *rr;
	struct kdt_err ke;
	struct dc_out o;
	uint8_t *b = calloc(1, TP_RSIZE);
	char *out;
	FILE *f;
	int fd, rv;

	den = tp_load(src, &o);
	la = tp_print_act(den);
	ck_assert_uint_le(size, la->la_rec_size);
	memset(&p, 0, sizeof (p));
	p.rp_phys = 0x10000000ULL;
	p.rp_ncpu = 1;
	p.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	p.rp_probe_cap = 4;
	p.rp_epid_cap = 4;
	p.rp_dof = o.dco_dof;
	p.rp_dofsz = o.dco_dofsz;
	p.rp_release = "6.1.0-kt-test";
	ck_assert_int_eq(rgn_init(b, TP_RSIZE, &p, &ke), 0);
	ck_assert_int_eq(rgn_add_probe(b, 1, "dtrace", "", "", "BEGIN", &ke),
	    0);
	ck_assert_int_eq(rgn_add_epid(b, 1, 1, 0, den->den_ecbs[0].le_size,
	    &ke), 0);
	rr = rgn_reserve(rgn_cpu(b, 0), DTRACEOPT_BUFPOLICY_RING,
	    den->den_ecbs[0].le_size);
	ck_assert_ptr_nonnull(rr);
	memset(rr + 1, 0, den->den_ecbs[0].le_size);
	memcpy((uint8_t *)(rr + 1) + la->la_rec_off, obj, size);
	rgn_commit(rgn_cpu(b, 0), rr, 1, 1000);
	*live = tp_print(la->la_fmt, (uint8_t *)(rr + 1) + la->la_rec_off,
	    la->la_rec_size);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_uint_eq(fwrite(b, 1, TP_RSIZE, f), TP_RSIZE);
	fclose(f);
	out = tp_extract(path, &rv);
	unlink(path);
	free(b);
	dof_free(den);
	dc_out_free(&o);
	return out;
}

START_TEST(tst_extract_prints_d_struct_as_live)
{
	static const int32_t obj[2] = { 1, 0x0f41 };	/* b: bits 8-11 */
	char *live, *out;

	out = tp_region_print("typedef struct pt { int a; char c; int b:4; } "
	    "pt_t; BEGIN { this->p = (pt_t *)alloca(sizeof (pt_t)); "
	    "print(*this->p); }", (const uint8_t *)obj, 8, &live);
	ck_assert_str_eq(live, "pt_t {\n    int a = 0x1\n    char c = 'A'\n"
	    "    int b :4 = 0xf\n}");
	ck_assert_msg(strstr(out, live) != NULL, "extract:\n%s\nlive:\n%s",
	    out, live);
	free(live);
	free(out);
}
END_TEST

START_TEST(tst_extract_prints_btf_cut_as_live)
{
	uint8_t *obj = calloc(1, DOF_PT_MAXREC);
	uint32_t pid = tp_off("task_struct", "pid");
	char *live, *out;

	obj[pid] = 7;
	out = tp_region_print("BEGIN { print(*curthread); }", obj,
	    DOF_PT_MAXREC, &live);
	ck_assert_msg(strstr(live, "    pid_t pid = 0x7\n") != NULL, "%s",
	    live);
	ck_assert_msg(strstr(out, live) != NULL, "extract:\n%.300s\nlive:\n%.300s",
	    out, live);
	free(live);
	free(out);
	free(obj);
}
END_TEST

static Suite *
ptype_suite(void)
{
	Suite *s = suite_create("ptype");
	TCase *c = tcase_create("ptype");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, tst_check_accepts_the_worked_example);
	tcase_add_test(c, err_check_rules);
	tcase_add_test(c, err_check_depth);
	tcase_add_test(c, err_dof_load_refuses_bad_layout);
	tcase_add_test(c, tst_btf_task_struct_cut);
	tcase_add_test(c, tst_btf_small_struct);
	tcase_add_test(c, tst_btf_bitfields);
	tcase_add_test(c, tst_extract_prints_d_struct_as_live);
	tcase_add_test(c, tst_extract_prints_btf_cut_as_live);
	suite_add_tcase(s, c);
	return s;
}

KT_MAIN(ptype_suite)
