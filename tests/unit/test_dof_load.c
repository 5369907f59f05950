/*
 * test_dof_load.c -- unit tests of the DOF loader (common/dof_load.c) and
 * of probe-description globbing (common/dof_glob.c), userspace build.
 *
 * A tiny builder in this file (tb_*) writes DOF images by hand: the
 * 64-byte header, the section table and 8-aligned section data, laid out
 * as reference section 1 describes.  tb_good() builds one realistic
 * enabling (two ECBs, options, printf/trace/exit actions, a predicate);
 * the rejection tests build it and then break exactly one thing, and
 * check the error tag.  tb_agg() builds an ECB with two aggregations and
 * the newer action kinds (stack, ustack, printa, libact) for the
 * aggregation roles, key layouts and their rejections.  Every rejection
 * must come back as an error record, never as a crash: the images live in
 * exactly-sized heap buffers so AddressSanitizer sees any read past the
 * input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "dif.h"
#include "dif_vm.h"
#include "dof_load.h"
#include "compiler/dc.h"

#define N(a)	((uint32_t)(sizeof (a) / sizeof ((a)[0])))
#define TB_MAXSEC	32
#define TB_MAXDATA	4096

struct tb {
	struct dof_sec	tb_sec[TB_MAXSEC];
	uint32_t	tb_nsec;
	uint8_t		tb_data[TB_MAXDATA];
	uint32_t	tb_datalen;
	uint8_t		*tb_img;	/* built image (malloc) */
	uint64_t	tb_len;
};

/* Add a loaded section; returns its index.  Data is 8-aligned. */
static uint32_t
tb_sec(struct tb *b, uint32_t type, uint32_t align, uint32_t entsize,
    const void *p, uint32_t size)
{
	struct dof_sec *s = &b->tb_sec[b->tb_nsec];

	ck_assert_uint_lt(b->tb_nsec, TB_MAXSEC);
	b->tb_datalen = (b->tb_datalen + 7) & ~7u;
	ck_assert_uint_le(b->tb_datalen + size, TB_MAXDATA);
	memcpy(b->tb_data + b->tb_datalen, p, size);
	s->ds_type = type;
	s->ds_align = align;
	s->ds_flags = DOF_SECF_LOAD;
	s->ds_entsize = entsize;
	s->ds_offset = b->tb_datalen;		/* relative until tb_build */
	s->ds_size = size;
	b->tb_datalen += size;
	return b->tb_nsec++;
}

static void
tb_build(struct tb *b)
{
	struct dof_hdr h;
	uint64_t base = sizeof (h) + (uint64_t)b->tb_nsec * sizeof (struct dof_sec);
	uint32_t i;

	memset(&h, 0, sizeof (h));
	h.dh_ident[DOF_ID_MAG0] = DOF_MAG_MAG0;
	h.dh_ident[DOF_ID_MAG1] = DOF_MAG_MAG1;
	h.dh_ident[DOF_ID_MAG2] = DOF_MAG_MAG2;
	h.dh_ident[DOF_ID_MAG3] = DOF_MAG_MAG3;
	h.dh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
	h.dh_ident[DOF_ID_ENCODING] = DOF_ENCODE_NATIVE;
	h.dh_ident[DOF_ID_VERSION] = DOF_VERSION_1;
	h.dh_ident[DOF_ID_DIFVERS] = DIF_VERSION_2;
	h.dh_ident[DOF_ID_DIFIREG] = DIF_DIR_NREGS;
	h.dh_ident[DOF_ID_DIFTREG] = DIF_DTR_NREGS;
	h.dh_hdrsize = sizeof (h);
	h.dh_secsize = sizeof (struct dof_sec);
	h.dh_secnum = b->tb_nsec;
	h.dh_secoff = sizeof (h);
	h.dh_loadsz = base + ((b->tb_datalen + 7) & ~7u);
	h.dh_filesz = h.dh_loadsz;
	b->tb_len = h.dh_loadsz;
	b->tb_img = calloc(1, b->tb_len);
	ck_assert_ptr_nonnull(b->tb_img);
	memcpy(b->tb_img, &h, sizeof (h));
	for (i = 0; i < b->tb_nsec; i++) {
		b->tb_sec[i].ds_offset += base;
		memcpy(b->tb_img + sizeof (h) + i * sizeof (struct dof_sec),
		    &b->tb_sec[i], sizeof (struct dof_sec));
	}
	memcpy(b->tb_img + base, b->tb_data, b->tb_datalen);
}

/* Section header i and data of section i inside the built image. */
static struct dof_sec *
tb_hdr(struct tb *b, uint32_t i)
{
	return (struct dof_sec *)(b->tb_img + sizeof (struct dof_hdr) +
	    i * sizeof (struct dof_sec));
}

static uint8_t *
tb_datap(struct tb *b, uint32_t i)
{
	return b->tb_img + tb_hdr(b, i)->ds_offset;
}

static const char tb_gstr[] =
    "\0dtrace\0BEGIN\0fbt\0do_init_module\0entry\0hello %d\n\0"
    "a_provider_name_that_is_far_too_long_for_the_64_byte_provider_limit";
#define GS_DTRACE	1
#define GS_BEGIN	8
#define GS_FBT		14
#define GS_FUNC		18
#define GS_ENTRY	33
#define GS_FMT		39
#define GS_LONG		49	/* 67 characters */

/* A DIF object: DIF (+ INTTAB, STRTAB); returns the DIFOHDR index. */
static uint32_t
tb_difo(struct tb *b, const uint32_t *text, uint32_t n, const uint64_t *ints,
    uint32_t nint, const char *str, uint32_t strsz, struct dif_type rtype)
{
	uint8_t hdr[sizeof (struct dif_type) + 3 * 4];
	uint32_t links[3], nl = 0;

	links[nl++] = tb_sec(b, DOF_SECT_DIF, 4, 4, text, n * 4);
	if (nint != 0)
		links[nl++] = tb_sec(b, DOF_SECT_INTTAB, 8, 8, ints, nint * 8);
	if (strsz != 0)
		links[nl++] = tb_sec(b, DOF_SECT_STRTAB, 1, 0, str, strsz);
	memcpy(hdr, &rtype, sizeof (rtype));
	memcpy(hdr + sizeof (rtype), links, nl * 4);
	return tb_sec(b, DOF_SECT_DIFOHDR, 4, 0, hdr,
	    sizeof (rtype) + nl * 4);
}

static const struct dif_type T_INT8 = { DIF_TYPE_CTF, DIF_CTF_INTEGER, 0, 0,
    8 };
static const struct dif_type T_INT4 = { DIF_TYPE_CTF, DIF_CTF_INTEGER, 0, 0,
    4 };
static const struct dif_type T_CHAR = { DIF_TYPE_CTF, DIF_CTF_INTEGER, 0, 0,
    1 };
static const struct dif_type T_STR = { DIF_TYPE_STRING, 0, DIF_TF_BYREF, 0,
    0 };

/* Index of the sections the rejection tests break. */
struct tb_idx {
	uint32_t	ti_gstr;	/* global STRTAB */
	uint32_t	ti_ecb1;	/* ECBDESC of dtrace:::BEGIN */
	uint32_t	ti_act1;	/* its ACTDESC */
	uint32_t	ti_pdesc2;	/* PROBEDESC of fbt::do_init_module:entry */
	uint32_t	ti_dif2;	/* DIF of ECB 2's predicate */
};

/*
 * ECB 1, dtrace:::BEGIN { printf("hello %d\n", 42); trace((char)7);
 *     trace("hi"); exit(0); }
 * ECB 2, fbt::do_init_module:entry /pred/ { trace(probefunc); }
 * options: strsize=32, quiet=1.  "pred" defaults to "arg0 != 0".
 */
static void
tb_good(struct tb *b, const uint32_t *pred, uint32_t npred, struct tb_idx *ix)
{
	static const uint32_t t_42[] = { DIF_INSTR_SETX(0, 1),
	    DIF_INSTR_RET(1) };
	static const uint32_t t_hi[] = { DIF_INSTR_SETS(0, 1),
	    DIF_INSTR_RET(1) };
	static const uint32_t t_pf[] = {
	    DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_PROBEFUNC, 1), DIF_INSTR_RET(1) };
	static const uint32_t t_pred[] = {
	    DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 1), DIF_INSTR_RET(1) };
	static const uint64_t i42[] = { 42 }, i7[] = { 7 }, i0[] = { 0 };
	struct dof_actdesc a1[4], a2[1];
	struct dof_probedesc pd;
	struct dof_ecbdesc e;
	struct dof_optdesc o[2];
	uint32_t d_printf, d_char, d_hi, d_exit, d_pf, d_pred, p1, ac1, ac2;
	struct tb_idx dummy;

	if (ix == NULL)
		ix = &dummy;
	if (pred == NULL) {
		pred = t_pred;
		npred = N(t_pred);
	}
	memset(b, 0, sizeof (*b));
	ix->ti_gstr = tb_sec(b, DOF_SECT_STRTAB, 1, 0, tb_gstr,
	    sizeof (tb_gstr));

	memset(&pd, 0, sizeof (pd));
	pd.dofp_strtab = ix->ti_gstr;
	pd.dofp_provider = GS_DTRACE;
	pd.dofp_name = GS_BEGIN;
	p1 = tb_sec(b, DOF_SECT_PROBEDESC, 4, sizeof (pd), &pd, sizeof (pd));
	d_printf = tb_difo(b, t_42, 2, i42, 1, NULL, 0, T_INT8);
	d_char = tb_difo(b, t_42, 2, i7, 1, NULL, 0, T_CHAR);
	d_hi = tb_difo(b, t_hi, 2, NULL, 0, "hi", 3, T_STR);
	d_exit = tb_difo(b, t_42, 2, i0, 1, NULL, 0, T_INT4);
	memset(a1, 0, sizeof (a1));
	a1[0] = (struct dof_actdesc){ d_printf, ix->ti_gstr, DTRACEACT_PRINTF,
	    0, GS_FMT, 11 };
	a1[1] = (struct dof_actdesc){ d_char, DOF_SECIDX_NONE,
	    DTRACEACT_DIFEXPR, 0, 0, 12 };
	a1[2] = (struct dof_actdesc){ d_hi, DOF_SECIDX_NONE,
	    DTRACEACT_DIFEXPR, 0, 0, 13 };
	a1[3] = (struct dof_actdesc){ d_exit, DOF_SECIDX_NONE,
	    DTRACEACT_EXIT, 0, 0, 14 };
	ac1 = ix->ti_act1 = tb_sec(b, DOF_SECT_ACTDESC, 8, 32, a1,
	    sizeof (a1));
	e = (struct dof_ecbdesc){ p1, DOF_SECIDX_NONE, ac1, 0, 0x51 };
	ix->ti_ecb1 = tb_sec(b, DOF_SECT_ECBDESC, 8, 0, &e, sizeof (e));

	pd.dofp_provider = GS_FBT;
	pd.dofp_func = GS_FUNC;
	pd.dofp_name = GS_ENTRY;
	ix->ti_pdesc2 = tb_sec(b, DOF_SECT_PROBEDESC, 4, sizeof (pd), &pd,
	    sizeof (pd));
	d_pred = tb_difo(b, pred, npred, NULL, 0, NULL, 0, T_INT8);
	ix->ti_dif2 = d_pred - 1;
	d_pf = tb_difo(b, t_pf, 2, NULL, 0, NULL, 0, T_STR);
	a2[0] = (struct dof_actdesc){ d_pf, DOF_SECIDX_NONE,
	    DTRACEACT_DIFEXPR, 0, 0, 21 };
	ac2 = tb_sec(b, DOF_SECT_ACTDESC, 8, 32, a2, sizeof (a2));
	e = (struct dof_ecbdesc){ ix->ti_pdesc2, d_pred, ac2, 0, 0x52 };
	tb_sec(b, DOF_SECT_ECBDESC, 8, 0, &e, sizeof (e));

	o[0] = (struct dof_optdesc){ DTRACEOPT_STRSIZE, DOF_STRIDX_NONE, 32 };
	o[1] = (struct dof_optdesc){ DTRACEOPT_QUIET, DOF_STRIDX_NONE, 1 };
	tb_sec(b, DOF_SECT_OPTDESC, 8, sizeof (o[0]), o, sizeof (o));
	tb_build(b);
}

/* Load the image; on failure check the tag.  Returns the rc. */
static int
tb_load(struct tb *b, struct dof_enabling **den, const char *tag)
{
	struct kdt_err err;
	int rc;

	memset(&err, 0, sizeof (err));
	rc = dof_load(b->tb_img, b->tb_len, den, &err);
	if (tag == NULL) {
		ck_assert_msg(rc == 0, "load: [%s] %s", err.ke_tag, err.ke_msg);
	} else {
		ck_assert_msg(rc < 0, "load succeeded, wanted %s", tag);
		ck_assert_ptr_null(*den);
		ck_assert_msg(strcmp(err.ke_tag, tag) == 0,
		    "tag %s (%s), want %s", err.ke_tag, err.ke_msg, tag);
		ck_assert(err.ke_msg[0] != '\0');
	}
	return rc;
}

static void
tb_fail(struct tb *b, const char *tag)
{
	struct dof_enabling *den = NULL;

	tb_load(b, &den, tag);
	free(b->tb_img);
}

static void
tb_load_ok_free(struct tb *b)
{
	struct dof_enabling *den = NULL;

	tb_load(b, &den, NULL);
	dof_free(den);
	free(b->tb_img);
}

START_TEST(test_good_decodes_ecbs_probes_options)
{
	struct dof_enabling *den = NULL;
	struct dof_lecb *le;
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	tb_load(&b, &den, NULL);
	ck_assert_uint_eq(den->den_necbs, 2);
	ck_assert_uint_eq(den->den_strsize, 32);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_STRSIZE], 32);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_QUIET], 1);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_BUFSIZE], DTRACEOPT_UNSET);
	le = &den->den_ecbs[0];
	ck_assert_str_eq(le->le_pdesc.lp_prov, "dtrace");
	ck_assert_str_eq(le->le_pdesc.lp_mod, "");
	ck_assert_str_eq(le->le_pdesc.lp_func, "");
	ck_assert_str_eq(le->le_pdesc.lp_name, "BEGIN");
	ck_assert_ptr_null(le->le_pred);
	ck_assert_uint_eq(le->le_uarg, 0x51);
	le = &den->den_ecbs[1];
	ck_assert_str_eq(le->le_pdesc.lp_prov, "fbt");
	ck_assert_str_eq(le->le_pdesc.lp_func, "do_init_module");
	ck_assert_str_eq(le->le_pdesc.lp_name, "entry");
	ck_assert_ptr_nonnull(le->le_pred);
	ck_assert_uint_eq(le->le_pred->do_textlen, 2);
	ck_assert_uint_eq(le->le_uarg, 0x52);
	/* the loaded tables point into the private copy, not the input */
	ck_assert((const uint8_t *)le->le_pred->do_text >=
	    (const uint8_t *)den->den_dof &&
	    (const uint8_t *)le->le_pred->do_text <
	    (const uint8_t *)den->den_dof + den->den_dofsz);
	free(b.tb_img);
	dof_free(den);
}
END_TEST

START_TEST(test_good_actions_formats_layout)
{
	struct dof_enabling *den = NULL;
	struct dof_laction *la;
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	tb_load(&b, &den, NULL);
	ck_assert_uint_eq(den->den_ecbs[0].le_nacts, 4);
	la = den->den_ecbs[0].le_acts;
	ck_assert_uint_eq(la[0].la_kind, DTRACEACT_PRINTF);
	ck_assert_str_eq(la[0].la_fmt, "hello %d\n");
	ck_assert_uint_eq(la[0].la_uarg, 11);
	ck_assert_ptr_null(la[1].la_fmt);
	/* printf int64: 8 bytes at 0 */
	ck_assert_uint_eq(la[0].la_rec_off, 0);
	ck_assert_uint_eq(la[0].la_rec_size, 8);
	ck_assert_uint_eq(la[0].la_rec_align, 8);
	ck_assert_uint_eq(la[0].la_rec_isstr, 0);
	/* trace((char)7): 1 byte at 8 */
	ck_assert_uint_eq(la[1].la_rec_off, 8);
	ck_assert_uint_eq(la[1].la_rec_size, 1);
	ck_assert_uint_eq(la[1].la_rec_align, 1);
	/* trace("hi"): strsize (32) bytes, 8-aligned, at 16 */
	ck_assert_uint_eq(la[2].la_rec_off, 16);
	ck_assert_uint_eq(la[2].la_rec_size, 32);
	ck_assert_uint_eq(la[2].la_rec_align, 8);
	ck_assert_uint_eq(la[2].la_rec_isstr, 1);
	/* exit: 4 bytes at 48; 52 rounds up to 56 */
	ck_assert_uint_eq(la[3].la_kind, DTRACEACT_EXIT);
	ck_assert_uint_eq(la[3].la_rec_off, 48);
	ck_assert_uint_eq(la[3].la_rec_size, 4);
	ck_assert_uint_eq(la[3].la_rec_align, 4);
	ck_assert_uint_eq(den->den_ecbs[0].le_size, 56);
	/* ECB 2: trace(probefunc) is one 32-byte string */
	ck_assert_uint_eq(den->den_ecbs[1].le_size, 32);
	ck_assert_uint_eq(den->den_ecbs[1].le_acts[0].la_rec_isstr, 1);
	free(b.tb_img);
	dof_free(den);
}
END_TEST

START_TEST(test_good_runs_loaded_difo)
{
	struct dof_enabling *den = NULL;
	struct dif_probe_ctx ctx;
	struct dif_mstate ms;
	char scratch[64], rec[32];
	struct dof_laction *la;
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	tb_load(&b, &den, NULL);
	free(b.tb_img);		/* the enabling must not need the input */
	memset(&ctx, 0, sizeof (ctx));
	memset(&ms, 0, sizeof (ms));
	ms.dm_scratch = scratch;
	ms.dm_scratch_size = sizeof (scratch);
	ms.dm_strsize = den->den_strsize;
	la = den->den_ecbs[0].le_acts;
	ck_assert_uint_eq(dif_emulate(la[0].la_difo, &ms, &ctx), 42);
	ck_assert_int_eq(dif_copy_result(la[2].la_difo, &ms,
	    dif_emulate(la[2].la_difo, &ms, &ctx), rec, sizeof (rec), 1), 0);
	ck_assert_str_eq(rec, "hi");
	ck_assert_uint_eq(ms.dm_faulted, 0);
	dof_free(den);
}
END_TEST

START_TEST(test_printf_continuation_has_no_format)
{
	struct dof_enabling *den = NULL;
	struct dof_actdesc *a;
	struct tb_idx ix;
	struct tb b;

	/* printf("hello %d\n", 42, (char)7): the second argument is a
	 * PRINTF without a format of its own */
	tb_good(&b, NULL, 0, &ix);
	a = (struct dof_actdesc *)tb_datap(&b, ix.ti_act1);
	a[1].dofa_kind = DTRACEACT_PRINTF;
	tb_load(&b, &den, NULL);
	ck_assert_uint_eq(den->den_ecbs[0].le_acts[1].la_kind,
	    DTRACEACT_PRINTF);
	ck_assert_ptr_null(den->den_ecbs[0].le_acts[1].la_fmt);
	ck_assert_uint_eq(den->den_ecbs[0].le_acts[1].la_rec_size, 1);
	free(b.tb_img);
	dof_free(den);
}
END_TEST

START_TEST(test_default_strsize_without_options)
{
	struct dof_enabling *den = NULL;
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	/* turn the OPTDESC into a non-loaded COMMENTS section */
	tb_hdr(&b, b.tb_nsec - 1)->ds_type = DOF_SECT_COMMENTS;
	tb_hdr(&b, b.tb_nsec - 1)->ds_flags = 0;
	tb_load(&b, &den, NULL);
	ck_assert_uint_eq(den->den_strsize, DTRACE_STRSIZE_DEFAULT);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_QUIET], DTRACEOPT_UNSET);
	ck_assert_uint_eq(den->den_ecbs[0].le_acts[2].la_rec_size, 256);
	ck_assert_uint_eq(den->den_ecbs[0].le_acts[3].la_rec_off, 272);
	ck_assert_uint_eq(den->den_ecbs[0].le_size, 280);
	free(b.tb_img);
	dof_free(den);
}
END_TEST

/* Every prefix of a good DOF fails cleanly (ASan watches the reads). */
/*
 * ECB dtrace:::BEGIN (variant 0) with aggregations and the newer kinds:
 *   0 DIFEXPR setx 1 (variable id)   1 DIFEXPR key (int)
 *   2 DIFEXPR key (string)           3 COUNT ntuple 3, no DIF object
 *   4 DIFEXPR setx 2 (variable id)   5 DIFEXPR void (the increment)
 *   6 QUANTIZE ntuple 2              7 PRINTA of variable 1, no format
 *   8 DIFEXPR trace (int64)          9 STACK(5), no DIF object
 *  10 USTACK(3, 20), no DIF object  11 LIBACT CLEAR of variable 1
 * Other variants break one thing (see test_agg_rejections); variant 8
 * makes action 6 an lquantize, variant 9 makes action 11 a setopt()
 * LIBACT returning a string.
 */
#define TA_NACTS	12
static const struct dif_type T_VOID = { DIF_TYPE_CTF, 0, 0, 0, 0 };

static void
tb_agg(struct tb *b, int variant)
{
	static const uint32_t t_setx[] = { DIF_INSTR_SETX(0, 1),
	    DIF_INSTR_RET(1) };
	static const uint32_t t_hi[] = { DIF_INSTR_SETS(0, 1),
	    DIF_INSTR_RET(1) };
	static const uint32_t t_arg0[] = {
	    DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 1), DIF_INSTR_RET(1) };
	static const uint64_t i1[] = { 1 }, i2[] = { 2 }, i0[] = { 0 };
	struct dof_actdesc a[TA_NACTS];
	struct dof_probedesc pd;
	struct dof_ecbdesc e;
	uint32_t gs, p1, dv1, dv2, dk1, dk2, dinc, dval, ac;

	memset(b, 0, sizeof (*b));
	gs = tb_sec(b, DOF_SECT_STRTAB, 1, 0, tb_gstr, sizeof (tb_gstr));
	memset(&pd, 0, sizeof (pd));
	pd.dofp_strtab = gs;
	pd.dofp_provider = GS_DTRACE;
	pd.dofp_name = GS_BEGIN;
	p1 = tb_sec(b, DOF_SECT_PROBEDESC, 4, sizeof (pd), &pd, sizeof (pd));
	dv1 = variant == 1 ? tb_difo(b, t_arg0, 2, NULL, 0, NULL, 0, T_INT8) :
	    tb_difo(b, t_setx, 2, variant == 3 ? i0 : i1, 1, NULL, 0, T_INT8);
	dv2 = tb_difo(b, t_setx, 2, variant == 6 ? i1 : i2, 1, NULL, 0,
	    T_INT8);
	dk1 = tb_difo(b, t_setx, 2, i2, 1, NULL, 0, T_INT4);
	dk2 = tb_difo(b, t_hi, 2, NULL, 0, "hi", 3,
	    variant == 5 ? T_VOID : T_STR);
	dinc = tb_difo(b, t_setx, 2, i2, 1, NULL, 0, T_VOID);
	dval = tb_difo(b, t_arg0, 2, NULL, 0, NULL, 0, T_INT8);
	memset(a, 0, sizeof (a));
	a[0] = (struct dof_actdesc){ dv1, DOF_SECIDX_NONE, DTRACEACT_DIFEXPR };
	a[1] = (struct dof_actdesc){ dk1, DOF_SECIDX_NONE, DTRACEACT_DIFEXPR };
	a[2] = (struct dof_actdesc){ dk2, DOF_SECIDX_NONE, DTRACEACT_DIFEXPR };
	a[3] = (struct dof_actdesc){ DOF_SECIDX_NONE, DOF_SECIDX_NONE,
	    DTRACEAGG_COUNT, variant == 2 ? 4 : 3 };
	a[4] = (struct dof_actdesc){ dv2, DOF_SECIDX_NONE, DTRACEACT_DIFEXPR };
	a[5] = (struct dof_actdesc){ dinc, DOF_SECIDX_NONE,
	    DTRACEACT_DIFEXPR };
	a[6] = (struct dof_actdesc){ dval, DOF_SECIDX_NONE,
	    DTRACEAGG_QUANTIZE, 2 };
	if (variant == 4 || variant == 8) {
		a[6].dofa_kind = DTRACEAGG_LQUANTIZE;
		/* step 1, 10 levels, base 0; variant 4: step 0 */
		a[6].dofa_arg = (uint64_t)(variant == 8) << 48 |
		    (uint64_t)10 << 32;
	}
	a[7] = (struct dof_actdesc){ dv1, DOF_SECIDX_NONE, DTRACEACT_PRINTA };
	a[8] = (struct dof_actdesc){ dval, DOF_SECIDX_NONE,
	    DTRACEACT_DIFEXPR };
	a[9] = (struct dof_actdesc){ DOF_SECIDX_NONE,
	    variant == 7 ? gs : DOF_SECIDX_NONE, DTRACEACT_STACK, 0, 5 };
	a[10] = (struct dof_actdesc){ DOF_SECIDX_NONE, DOF_SECIDX_NONE,
	    DTRACEACT_USTACK, 0, 3 | (uint64_t)20 << 32 };
	a[11] = (struct dof_actdesc){ variant == 9 ? dk2 : dv1,
	    DOF_SECIDX_NONE, DTRACEACT_LIBACT, 0, variant == 9 ? 5 : 1 };
	ac = tb_sec(b, DOF_SECT_ACTDESC, 8, 32, a, sizeof (a));
	e = (struct dof_ecbdesc){ p1, DOF_SECIDX_NONE, ac, 0, 0 };
	tb_sec(b, DOF_SECT_ECBDESC, 8, 0, &e, sizeof (e));
	tb_build(b);
}

START_TEST(test_agg_roles_keys_and_layout)
{
	static const uint16_t roles[TA_NACTS] = { DOF_ROLE_AGGVAR,
	    DOF_ROLE_AGGKEY, DOF_ROLE_AGGKEY, DOF_ROLE_AGG, DOF_ROLE_AGGVAR,
	    DOF_ROLE_AGGARG, DOF_ROLE_AGG, DOF_ROLE_REC, DOF_ROLE_REC,
	    DOF_ROLE_REC, DOF_ROLE_REC, DOF_ROLE_REC };
	static const uint32_t aggids[TA_NACTS] = { 1, 1, 1, 1, 2, 2, 2 };
	/* REC actions: printa 8 @0, trace 8 @8, stack(5) 40 @16,
	 * ustack(3, 20) 4 x 8 + 24 = 56 @56, libact 8 @112 */
	static const uint32_t off[TA_NACTS] = { [7] = 0, 8, 16, 56, 112 };
	static const uint32_t size[TA_NACTS] = { [7] = 8, 8, 40, 56, 8 };
	struct dof_enabling *den = NULL;
	struct dof_laction *la;
	struct dof_agg *ag;
	struct tb b;
	uint32_t i;

	tb_agg(&b, 0);
	tb_load(&b, &den, NULL);
	la = den->den_ecbs[0].le_acts;
	for (i = 0; i < TA_NACTS; i++) {
		ck_assert_msg(la[i].la_role == roles[i], "action %u role %u",
		    i, la[i].la_role);
		ck_assert_uint_eq(la[i].la_aggid, aggids[i]);
		if (i >= 7) {
			ck_assert_uint_eq(la[i].la_rec_off, off[i]);
			ck_assert_uint_eq(la[i].la_rec_size, size[i]);
		}
	}
	ck_assert_uint_eq(den->den_ecbs[0].le_size, 120);
	ck_assert_uint_eq(den->den_naggs, 2);
	ck_assert_uint_eq(den->den_nvarids, 2);
	ag = &den->den_aggs[0];
	ck_assert_uint_eq(ag->ag_id, 1);
	ck_assert_uint_eq(ag->ag_varid, 1);
	ck_assert_uint_eq(ag->ag_kind, DTRACEAGG_COUNT);
	ck_assert_uint_eq(ag->ag_act, 3);
	ck_assert_uint_eq(ag->ag_firstkey, 1);
	ck_assert_uint_eq(ag->ag_nkeys, 2);
	ck_assert_uint_eq(ag->ag_incr_act, (uint32_t)-1);
	/* int key 4 bytes at 0, string key 256 bytes at 8: 264 */
	ck_assert_uint_eq(la[1].la_rec_off, 0);
	ck_assert_uint_eq(la[1].la_rec_size, 4);
	ck_assert_uint_eq(la[2].la_rec_off, 8);
	ck_assert_uint_eq(la[2].la_rec_size, 256);
	ck_assert_uint_eq(la[2].la_rec_isstr, 1);
	ck_assert_uint_eq(ag->ag_keysize, 264);
	ck_assert_uint_eq(ag->ag_datasize, 8);
	ag = &den->den_aggs[1];
	ck_assert_uint_eq(ag->ag_varid, 2);
	ck_assert_uint_eq(ag->ag_kind, DTRACEAGG_QUANTIZE);
	ck_assert_uint_eq(ag->ag_nkeys, 0);
	ck_assert_uint_eq(ag->ag_incr_act, 5);
	ck_assert_uint_eq(ag->ag_keysize, 0);
	ck_assert_uint_eq(ag->ag_datasize, 127 * 8);
	free(b.tb_img);
	dof_free(den);
}
END_TEST

START_TEST(test_agg_lquantize_sizes_from_parameters)
{
	struct dof_enabling *den = NULL;
	struct tb b;

	tb_agg(&b, 8);
	tb_load(&b, &den, NULL);
	ck_assert_uint_eq(den->den_aggs[1].ag_kind, DTRACEAGG_LQUANTIZE);
	ck_assert_uint_eq(den->den_aggs[1].ag_datasize, (10 + 3) * 8);
	ck_assert_uint_eq(den->den_aggs[1].ag_incr_act, 5);
	free(b.tb_img);
	dof_free(den);
}
END_TEST

/* setopt("name"): a LIBACT whose object returns a string records it. */
START_TEST(test_libact_string_records_strsize)
{
	struct dof_enabling *den = NULL;
	struct dof_laction *la;
	struct tb b;

	tb_agg(&b, 9);
	tb_load(&b, &den, NULL);
	la = &den->den_ecbs[0].le_acts[11];
	ck_assert_uint_eq(la->la_kind, DTRACEACT_LIBACT);
	ck_assert_uint_eq(la->la_arg, 5);
	ck_assert_uint_eq(la->la_rec_size, DTRACE_STRSIZE_DEFAULT);
	ck_assert_uint_eq(la->la_rec_isstr, 1);
	ck_assert_uint_eq(la->la_rec_off, 112);
	free(b.tb_img);
	dof_free(den);
}
END_TEST

START_TEST(test_agg_rejections)
{
	static const char *const tags[] = { NULL, "DOF_AGGVAR",
	    "DOF_AGGVAR", "DOF_AGGVAR", "DOF_AGGPARAM", "DOF_AGGKEY",
	    "DOF_AGGMATCH", "DOF_FMT" };
	struct tb b;

	tb_agg(&b, _i);
	tb_fail(&b, tags[_i]);
}
END_TEST

/*
 * Rule G5 and stack keys: one variable keyed, in two statements, by the
 * keys named by two letters: i an int (4 bytes), l a long (8), s stack(5)
 * (40), t stack(7) (56), u ustack(3, 20) (4 x 8 + 24 = 56), j jstack(4,
 * 32) (5 x 8 + 32 = 72), y sym() (8).  Actions: varid 1, key A, COUNT;
 * varid 1, key B, COUNT.
 */
static void
tb_aggpair(struct tb *b, char ka, char kb)
{
	static const uint32_t t_setx[] = { DIF_INSTR_SETX(0, 1),
	    DIF_INSTR_RET(1) };
	static const uint32_t t_arg0[] = {
	    DIF_INSTR_LDV(DIF_OP_LDGS, DIF_VAR_ARG0, 1), DIF_INSTR_RET(1) };
	static const uint64_t i1[] = { 1 };
	struct dof_actdesc a[6];
	struct dof_probedesc pd;
	struct dof_ecbdesc e;
	uint32_t gs, p1, dv, d4, d8, ac, i;
	char k;

	memset(b, 0, sizeof (*b));
	gs = tb_sec(b, DOF_SECT_STRTAB, 1, 0, tb_gstr, sizeof (tb_gstr));
	memset(&pd, 0, sizeof (pd));
	pd.dofp_strtab = gs;
	pd.dofp_provider = GS_DTRACE;
	pd.dofp_name = GS_BEGIN;
	p1 = tb_sec(b, DOF_SECT_PROBEDESC, 4, sizeof (pd), &pd, sizeof (pd));
	dv = tb_difo(b, t_setx, 2, i1, 1, NULL, 0, T_INT8);
	d4 = tb_difo(b, t_arg0, 2, NULL, 0, NULL, 0, T_INT4);
	d8 = tb_difo(b, t_arg0, 2, NULL, 0, NULL, 0, T_INT8);
	memset(a, 0, sizeof (a));
	for (i = 0; i < 2; i++) {
		k = i == 0 ? ka : kb;
		a[3 * i] = (struct dof_actdesc){ dv, DOF_SECIDX_NONE,
		    DTRACEACT_DIFEXPR };
		switch (k) {
		case 'i':
		case 'l':
			a[3 * i + 1] = (struct dof_actdesc){ k == 'i' ? d4 : d8,
			    DOF_SECIDX_NONE, DTRACEACT_DIFEXPR };
			break;
		case 'y':
			a[3 * i + 1] = (struct dof_actdesc){ d8,
			    DOF_SECIDX_NONE, DTRACEACT_SYM };
			break;
		case 's':
		case 't':
			a[3 * i + 1] = (struct dof_actdesc){ DOF_SECIDX_NONE,
			    DOF_SECIDX_NONE, DTRACEACT_STACK, 0,
			    k == 's' ? 5 : 7 };
			break;
		case 'u':
			a[3 * i + 1] = (struct dof_actdesc){ DOF_SECIDX_NONE,
			    DOF_SECIDX_NONE, DTRACEACT_USTACK, 0,
			    3 | (uint64_t)20 << 32 };
			break;
		default:
			a[3 * i + 1] = (struct dof_actdesc){ DOF_SECIDX_NONE,
			    DOF_SECIDX_NONE, DTRACEACT_JSTACK, 0,
			    4 | (uint64_t)32 << 32 };
			break;
		}
		a[3 * i + 2] = (struct dof_actdesc){ DOF_SECIDX_NONE,
		    DOF_SECIDX_NONE, DTRACEAGG_COUNT, 2 };
	}
	ac = tb_sec(b, DOF_SECT_ACTDESC, 8, 32, a, sizeof (a));
	e = (struct dof_ecbdesc){ p1, DOF_SECIDX_NONE, ac, 0, 0 };
	tb_sec(b, DOF_SECT_ECBDESC, 8, 0, &e, sizeof (e));
	tb_build(b);
}

/* Stack keys of any kind and depth share a variable, each id its size. */
START_TEST(test_agg_stack_keys_of_different_sizes)
{
	static const struct {
		char	ka, kb;
		uint32_t sa, sb;	/* key sizes */
		uint32_t ra, rb;	/* key record sizes */
	} ok[] = {
		{ 's', 'u', 40, 56, 40, 56 }, { 'u', 's', 56, 40, 56, 40 },
		{ 's', 't', 40, 56, 40, 56 }, { 's', 'j', 40, 72, 40, 72 },
		{ 'j', 'u', 72, 56, 72, 56 }, { 'i', 'i', 8, 8, 4, 4 },
		{ 'y', 'l', 8, 8, 8, 8 },
	};
	struct dof_enabling *den;
	struct tb b;

	den = NULL;
	tb_aggpair(&b, ok[_i].ka, ok[_i].kb);
	tb_load(&b, &den, NULL);
	ck_assert_uint_eq(den->den_naggs, 2);
	ck_assert_uint_eq(den->den_nvarids, 1);
	ck_assert_uint_eq(den->den_aggs[0].ag_varid, 1);
	ck_assert_uint_eq(den->den_aggs[1].ag_varid, 1);
	ck_assert_uint_eq(den->den_aggs[0].ag_keysize, ok[_i].sa);
	ck_assert_uint_eq(den->den_aggs[1].ag_keysize, ok[_i].sb);
	ck_assert_uint_eq(den->den_ecbs[0].le_acts[1].la_rec_size, ok[_i].ra);
	ck_assert_uint_eq(den->den_ecbs[0].le_acts[4].la_rec_size, ok[_i].rb);
	free(b.tb_img);
	dof_free(den);
}
END_TEST

/* Hostile DOF: keys of one variable that differ and are not both stacks. */
START_TEST(test_agg_nonstack_keys_must_match)
{
	static const char bad[][2] = { { 'i', 'l' }, { 'l', 'i' },
	    { 's', 'l' }, { 'l', 's' }, { 'y', 'u' }, { 'u', 'y' },
	    { 'i', 's' } };
	struct tb b;

	tb_aggpair(&b, bad[_i][0], bad[_i][1]);
	tb_fail(&b, "DOF_AGGMATCH");
}
END_TEST

/*
 * The compiler and the loader agree: a compiled program's aggregations
 * load with the roles, parameters and sizes the D statements imply.
 */
START_TEST(test_compiled_aggregations_load)
{
	static const char src[] =
	    "BEGIN { @c[\"k\", 3] = count(); @q = quantize(7, 2);\n"
	    "@l = lquantize(3, 0, 10, 2); @ll = llquantize(5, 10, 0, 3, 10);\n"
	    "printa(\"%s %d %@d\\n\", @c); clear(@c); trunc(@q, 2);\n"
	    "stack(); exit(0); }\n";
	static const uint32_t kinds[] = { DTRACEAGG_COUNT, DTRACEAGG_QUANTIZE,
	    DTRACEAGG_LQUANTIZE, DTRACEAGG_LLQUANTIZE };
	static const uint32_t dsize[] = { 8, 127 * 8, (5 + 3) * 8,
	    (2 + 4 * 9 + 1) * 8 };
	const char *btf = getenv("KDT_BTF");
	struct dof_enabling *den = NULL;
	const struct dof_laction *la;
	struct kdt_err err;
	struct dc_opts opts;
	struct dc_out o;
	uint32_t i;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = btf != NULL && *btf != '\0' ? btf :
	    "build/kernel/vmlinux";
	ck_assert_msg(dc_compile(src, strlen(src), "agg.d", &opts, &o) == 0,
	    "%s", o.dco_diag);
	ck_assert_msg(dof_load(o.dco_dof, o.dco_dofsz, &den, &err) == 0,
	    "[%s] %s", err.ke_tag, err.ke_msg);
	ck_assert_uint_eq(den->den_naggs, 4);
	ck_assert_uint_eq(den->den_nvarids, 4);
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(den->den_aggs[i].ag_varid, i + 1);
		ck_assert_uint_eq(den->den_aggs[i].ag_kind, kinds[i]);
		ck_assert_uint_eq(den->den_aggs[i].ag_datasize, dsize[i]);
	}
	ck_assert_uint_eq(den->den_aggs[0].ag_nkeys, 2);
	ck_assert_uint_eq(den->den_aggs[1].ag_nkeys, 0);
	ck_assert_uint_ne(den->den_aggs[1].ag_incr_act, (uint32_t)-1);
	la = den->den_ecbs[0].le_acts;
	ck_assert_uint_eq(la[den->den_aggs[1].ag_incr_act].la_role,
	    DOF_ROLE_AGGARG);
	/* the key: a strsize string then an int, 8-aligned */
	ck_assert_uint_eq(la[1].la_role, DOF_ROLE_AGGKEY);
	ck_assert_uint_eq(la[1].la_rec_isstr, 1);
	ck_assert_uint_eq(den->den_aggs[0].ag_keysize,
	    den->den_strsize + 8);
	/* printa, 3 libact records, stack(20), exit: the only records */
	for (i = 0; i < den->den_ecbs[0].le_nacts; i++)
		if (la[i].la_kind == DTRACEACT_PRINTA ||
		    la[i].la_kind == DTRACEACT_LIBACT)
			ck_assert_uint_eq(la[i].la_rec_size, 8);
		else if (la[i].la_kind == DTRACEACT_STACK)
			ck_assert_uint_eq(la[i].la_rec_size, 20 * 8);
		else if (la[i].la_kind != DTRACEACT_EXIT)
			ck_assert_uint_ne(la[i].la_role, DOF_ROLE_REC);
	ck_assert_uint_eq(den->den_ecbs[0].le_size, 8 + 3 * 8 + 160 + 8);
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

START_TEST(test_reject_every_truncation)
{
	struct dof_enabling *den;
	struct kdt_err err;
	struct tb b;
	uint64_t l;
	uint8_t *p;

	tb_good(&b, NULL, 0, NULL);
	for (l = 0; l < b.tb_len; l++) {
		p = malloc(l ? l : 1);
		memcpy(p, b.tb_img, l);
		den = (void *)1;
		memset(&err, 0, sizeof (err));
		ck_assert_int_lt(dof_load(p, l, &den, &err), 0);
		ck_assert_ptr_null(den);
		ck_assert_str_eq(err.ke_tag, "DOF_SHORT");
		free(p);
	}
	free(b.tb_img);
}
END_TEST

START_TEST(test_reject_bad_magic)
{
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	b.tb_img[DOF_ID_MAG1] = 'X';
	tb_fail(&b, "DOF_MAGIC");
}
END_TEST

START_TEST(test_reject_bad_ident)
{
	static const uint32_t idx[] = { DOF_ID_MODEL, DOF_ID_ENCODING,
	    DOF_ID_VERSION, DOF_ID_DIFVERS, DOF_ID_DIFIREG, DOF_ID_PAD + 3 };
	static const uint8_t val[] = { 3, DOF_ENCODE_MSB, 3, 1, 9, 1 };
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	b.tb_img[idx[_i]] = val[_i];
	tb_fail(&b, "DOF_IDENT");
}
END_TEST

START_TEST(test_reject_header_fields)
{
	struct tb b;
	struct dof_hdr *h;

	tb_good(&b, NULL, 0, NULL);
	h = (struct dof_hdr *)b.tb_img;
	switch (_i) {
	case 0: h->dh_flags = 1; break;
	case 1: h->dh_secsize = 36; break;
	case 2: h->dh_secoff = 60; break;
	case 3: h->dh_secnum = 1000; break;
	case 4: h->dh_filesz = h->dh_loadsz - 8; break;
	}
	tb_fail(&b, "DOF_HDR");
}
END_TEST

START_TEST(test_reject_too_big)
{
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	((struct dof_hdr *)b.tb_img)->dh_loadsz = DOF_MAX_SIZE + 8ull;
	tb_fail(&b, "DOF_TOOBIG");
}
END_TEST

START_TEST(test_reject_section_past_loadsz)
{
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	tb_hdr(&b, 3)->ds_offset = b.tb_len;
	tb_fail(&b, "DOF_SECRANGE");
	tb_good(&b, NULL, 0, NULL);
	tb_hdr(&b, 3)->ds_size = UINT64_MAX - 4;	/* offset + size wraps */
	tb_fail(&b, "DOF_SECRANGE");
}
END_TEST

START_TEST(test_reject_misaligned_section)
{
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	tb_hdr(&b, 3)->ds_offset += 2;		/* an INTTAB section, align 8 */
	tb_fail(&b, "DOF_SECALIGN");
	tb_good(&b, NULL, 0, NULL);
	tb_hdr(&b, 3)->ds_align = 3;
	tb_fail(&b, "DOF_SECALIGN");
}
END_TEST

START_TEST(test_reject_section_layout)
{
	struct tb_idx ix;
	struct tb b;

	tb_good(&b, NULL, 0, &ix);
	tb_hdr(&b, ix.ti_act1)->ds_entsize = 24;
	tb_fail(&b, "DOF_SEC");
	tb_good(&b, NULL, 0, &ix);
	tb_hdr(&b, ix.ti_act1)->ds_flags = 0;	/* loadable type, no LOAD */
	tb_fail(&b, "DOF_SEC");
}
END_TEST

START_TEST(test_reject_strtab_without_final_nul)
{
	struct tb_idx ix;
	struct tb b;

	tb_good(&b, NULL, 0, &ix);
	tb_datap(&b, ix.ti_gstr)[sizeof (tb_gstr) - 1] = 'x';
	tb_fail(&b, "DOF_STRTAB");
}
END_TEST

START_TEST(test_reject_bad_section_index)
{
	struct tb_idx ix;
	struct tb b;

	tb_good(&b, NULL, 0, &ix);
	((struct dof_ecbdesc *)tb_datap(&b, ix.ti_ecb1))->dofe_probes = 99;
	tb_fail(&b, "DOF_SECIDX");
	/* in range but of the wrong type: an ACTDESC as probe description */
	tb_good(&b, NULL, 0, &ix);
	((struct dof_ecbdesc *)tb_datap(&b, ix.ti_ecb1))->dofe_probes =
	    ix.ti_act1;
	tb_fail(&b, "DOF_SECIDX");
}
END_TEST

START_TEST(test_reject_unterminated_format)
{
	struct tb_idx ix;
	struct tb b;

	tb_good(&b, NULL, 0, &ix);
	((struct dof_actdesc *)tb_datap(&b, ix.ti_act1))->dofa_arg =
	    sizeof (tb_gstr);
	tb_fail(&b, "DOF_FMT");
}
END_TEST

START_TEST(test_reject_empty_format)
{
	struct tb_idx ix;
	struct tb b;

	tb_good(&b, NULL, 0, &ix);
	((struct dof_actdesc *)tb_datap(&b, ix.ti_act1))->dofa_arg = 0;
	tb_fail(&b, "DOF_FMT");
}
END_TEST

START_TEST(test_reject_unsupported_action_kind)
{
	struct tb_idx ix;
	struct tb b;

	tb_good(&b, NULL, 0, &ix);
	((struct dof_actdesc *)tb_datap(&b, ix.ti_act1))[1].dofa_kind =
	    0x301;		/* PROC_CONTROL class: no members */
	tb_fail(&b, "DOF_ACT");
}
END_TEST

START_TEST(test_reject_probe_name_too_long)
{
	struct tb_idx ix;
	struct tb b;

	ck_assert_uint_eq(strlen(tb_gstr + GS_LONG), 67);
	tb_good(&b, NULL, 0, &ix);
	((struct dof_probedesc *)tb_datap(&b, ix.ti_pdesc2))->dofp_provider =
	    GS_LONG;
	tb_fail(&b, "DOF_PROBE");
	/* the same string fits the 128-byte function name */
	tb_good(&b, NULL, 0, &ix);
	((struct dof_probedesc *)tb_datap(&b, ix.ti_pdesc2))->dofp_func =
	    GS_LONG;
	tb_load_ok_free(&b);
	/* an offset outside the table */
	tb_good(&b, NULL, 0, &ix);
	((struct dof_probedesc *)tb_datap(&b, ix.ti_pdesc2))->dofp_name =
	    sizeof (tb_gstr);
	tb_fail(&b, "DOF_PROBE");
}
END_TEST

START_TEST(test_reject_bad_strsize_option)
{
	struct tb b;

	tb_good(&b, NULL, 0, NULL);
	((struct dof_optdesc *)tb_datap(&b, b.tb_nsec - 1))->dofo_value = 0;
	tb_fail(&b, "DOF_OPT");
	tb_good(&b, NULL, 0, NULL);
	((struct dof_optdesc *)tb_datap(&b, b.tb_nsec - 1))->dofo_option =
	    DTRACEOPT_MAX;
	tb_fail(&b, "DOF_OPT");
}
END_TEST

START_TEST(test_reject_dif_backward_branch)
{
	static const uint32_t t[] = { DIF_INSTR_NOP,
	    DIF_INSTR_BRANCH(DIF_OP_BA, 0), DIF_INSTR_RET(0) };
	struct dof_enabling *den = NULL;
	struct kdt_err err;
	struct tb_idx ix;
	struct tb b;

	tb_good(&b, t, N(t), &ix);
	ck_assert_int_eq(dof_load(b.tb_img, b.tb_len, &den, &err), -EINVAL);
	ck_assert_str_eq(err.ke_tag, "DIF_BRANCH");
	/* the offset is the file offset of instruction 1 */
	ck_assert_uint_eq(err.ke_off, tb_hdr(&b, ix.ti_dif2)->ds_offset + 4);
	ck_assert_ptr_nonnull(strstr(err.ke_msg, "DIFOHDR section"));
	free(b.tb_img);
}
END_TEST

START_TEST(test_reject_dif_writes_r0)
{
	static const uint32_t t[] = { DIF_INSTR_FMT(DIF_OP_ADD, 1, 2, 0),
	    DIF_INSTR_RET(0) };
	struct tb b;

	tb_good(&b, t, N(t), NULL);
	tb_fail(&b, "DIF_R0");
}
END_TEST

START_TEST(test_reject_dif_without_final_ret)
{
	static const uint32_t t[] = { DIF_INSTR_RET(0), DIF_INSTR_NOP };
	struct tb b;

	tb_good(&b, t, N(t), NULL);
	tb_fail(&b, "DIF_RET");
}
END_TEST

START_TEST(test_reject_difohdr_without_dif)
{
	struct tb_idx ix;
	struct tb b;
	uint32_t *links;

	tb_good(&b, NULL, 0, &ix);
	/* predicate DIFOHDR of ECB 2: make its only member the global STRTAB */
	links = (uint32_t *)(tb_datap(&b, ix.ti_dif2 + 1) +
	    sizeof (struct dif_type));
	links[0] = ix.ti_gstr;
	tb_fail(&b, "DOF_DIFO");
}
END_TEST

/* Glob matching used for probe descriptions. */
struct t_glob {
	const char	*tg_pat, *tg_str;
	int		tg_match;
};

static const struct t_glob t_globs[] = {
	{ "", "anything", 1 }, { "", "", 1 },
	{ "entry", "entry", 1 }, { "entry", "entr", 0 }, { "entr", "entry", 0 },
	{ "*", "", 1 }, { "*", "do_init_module", 1 },
	{ "do_*", "do_init_module", 1 }, { "do_*", "load_module", 0 },
	{ "*_module", "do_init_module", 1 }, { "*init*", "do_init_module", 1 },
	{ "*a*b*c", "xaxxbyyc", 1 }, { "*a*b*c", "xaxxbyycd", 0 },
	{ "?", "a", 1 }, { "?", "", 0 }, { "e?try", "entry", 1 },
	{ "[a-c]x", "bx", 1 }, { "[a-c]x", "dx", 0 },
	{ "[!a-c]x", "dx", 1 }, { "[^a-c]x", "ax", 0 },
	{ "[]]", "]", 1 }, { "[abc", "[abc", 1 },
	{ "\\*", "*", 1 }, { "\\*", "a", 0 }, { "a\\?", "a?", 1 },
	{ "ext4_*[0-9]", "ext4_fill_super2", 1 },
	{ "**x", "abx", 1 }, { "*x*", "abc", 0 },
};

START_TEST(test_glob_table)
{
	const struct t_glob *t = &t_globs[_i];

	ck_assert_msg(dof_glob_match(t->tg_pat, t->tg_str) == t->tg_match,
	    "pattern \"%s\" string \"%s\": want %d", t->tg_pat, t->tg_str,
	    t->tg_match);
}
END_TEST

static Suite *
dof_load_suite(void)
{
	Suite *s = suite_create("dof_load");
	TCase *tg = tcase_create("good");
	TCase *tr = tcase_create("reject");
	TCase *tb = tcase_create("glob");

	tcase_add_test(tg, test_good_decodes_ecbs_probes_options);
	tcase_add_test(tg, test_good_actions_formats_layout);
	tcase_add_test(tg, test_good_runs_loaded_difo);
	tcase_add_test(tg, test_printf_continuation_has_no_format);
	tcase_add_test(tg, test_default_strsize_without_options);
	tcase_add_test(tg, test_agg_roles_keys_and_layout);
	tcase_add_test(tg, test_agg_lquantize_sizes_from_parameters);
	tcase_add_test(tg, test_compiled_aggregations_load);
	tcase_add_test(tg, test_libact_string_records_strsize);
	tcase_add_loop_test(tg, test_agg_stack_keys_of_different_sizes, 0, 7);
	suite_add_tcase(s, tg);
	tcase_add_test(tr, test_reject_every_truncation);
	tcase_add_test(tr, test_reject_bad_magic);
	tcase_add_loop_test(tr, test_reject_bad_ident, 0, 6);
	tcase_add_loop_test(tr, test_reject_header_fields, 0, 5);
	tcase_add_test(tr, test_reject_too_big);
	tcase_add_test(tr, test_reject_section_past_loadsz);
	tcase_add_test(tr, test_reject_misaligned_section);
	tcase_add_test(tr, test_reject_section_layout);
	tcase_add_test(tr, test_reject_strtab_without_final_nul);
	tcase_add_test(tr, test_reject_bad_section_index);
	tcase_add_test(tr, test_reject_unterminated_format);
	tcase_add_test(tr, test_reject_empty_format);
	tcase_add_test(tr, test_reject_unsupported_action_kind);
	tcase_add_test(tr, test_reject_probe_name_too_long);
	tcase_add_test(tr, test_reject_bad_strsize_option);
	tcase_add_test(tr, test_reject_dif_backward_branch);
	tcase_add_test(tr, test_reject_dif_writes_r0);
	tcase_add_test(tr, test_reject_dif_without_final_ret);
	tcase_add_test(tr, test_reject_difohdr_without_dif);
	tcase_add_loop_test(tr, test_agg_rejections, 1, 8);
	tcase_add_loop_test(tr, test_agg_nonstack_keys_must_match, 0, 7);
	suite_add_tcase(s, tr);
	tcase_add_loop_test(tb, test_glob_table, 0, N(t_globs));
	suite_add_tcase(s, tb);
	return s;
}

KT_MAIN(dof_load_suite)
