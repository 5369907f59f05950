/*
 * test_consumer.c -- unit tests of the consumer's decoder and formatter
 * (consumer/kc_print.c, consumer/kc_fmt.c).
 *
 * The formatter is tested directly on recorded bytes (printf conversions,
 * trace() sizes, the byte rule).  The decoder is tested end to end: a
 * small DOF is built here by hand (a few sections: global STRTAB,
 * PROBEDESC, one "ret %r0" DIF object per action with the return type
 * that fixes the record size, ACTDESC, ECBDESC, OPTDESC), stored in a
 * region made by the writer (common/rgn_write.c), records are written with
 * rgn_reserve/rgn_commit at the offsets dof_load() computes, and
 * kc_print_region()'s output is compared with the expected text in
 * tests/unit/fixtures/consumer/<name>.out (dtrace(1)'s exact layout).
 * The DOF is built by hand so the test does not depend on the compiler.
 */
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "rgn.h"
#include "dof.h"
#include "dif.h"
#include "dof_load.h"
#include "consumer/kc.h"
#include "consumer/kc_engine.h"

#define T_SIZE		(64 * 1024)
#define T_PHYS		0x10000000ULL
#define T_FIXDIR	"tests/unit/fixtures/consumer/"

/* ---- formatter ---- */

/* Run printf into a string; returns the kc_fmt_printf result (arguments
 * consumed, or -1). */
static int
t_pf(char *buf, size_t size, const char *fmt, const struct kc_val *a,
    uint32_t n, char *why)
{
	FILE *f;
	int rv;

	memset(buf, 0, size);
	f = fmemopen(buf, size, "w");
	why[0] = '\0';
	rv = kc_fmt_printf(f, fmt, a, n, why, 256);
	fclose(f);
	return rv;
}

/* Run printf into memory of any size; *len gets the output's length. */
static int
t_pf_len(const char *fmt, const struct kc_val *a, uint32_t n, size_t *len)
{
	char *buf = NULL, why[256];
	FILE *f = open_memstream(&buf, len);
	int rv;

	rv = kc_fmt_printf(f, fmt, a, n, why, sizeof (why));
	fclose(f);
	free(buf);
	return rv;
}

START_TEST(test_printf_integers_by_size)
{
	int32_t m1 = -1;
	int64_t big = 0x123456789aLL;
	uint8_t b = 0xfe;
	uint16_t h = 0xffff;
	struct kc_val a[] = {
		{ (const uint8_t *)&m1, 4, 0 }, { (const uint8_t *)&m1, 4, 0 },
		{ (const uint8_t *)&big, 8, 0 }, { &b, 1, 0 },
		{ (const uint8_t *)&h, 2, 0 }, { (const uint8_t *)&big, 8, 0 },
	};
	char out[256], why[256];

	ck_assert_int_eq(t_pf(out, sizeof (out), "%d %u %lld %d %hd %x|",
	    a, 6, why), 6);
	ck_assert_str_eq(out, "-1 4294967295 78187493530 -2 -1 123456789a|");
	ck_assert_int_eq(t_pf(out, sizeof (out), "[%-6d][%06X][%#o][%+i]",
	    a, 4, why), 4);
	ck_assert_str_eq(out, "[-1    ][FFFFFFFF][01106425474232][-2]");
}
END_TEST

START_TEST(test_printf_strings_chars_pointers)
{
	char s[16] = "kworker";
	int64_t ch = 'A', p = 0xffffffff81000000LL, w = 5;
	struct kc_val a[] = {
		{ (const uint8_t *)s, 16, 1 }, { (const uint8_t *)s, 16, 1 },
		{ (const uint8_t *)&ch, 8, 0 }, { (const uint8_t *)&p, 8, 0 },
		{ (const uint8_t *)&w, 8, 0 }, { (const uint8_t *)&ch, 8, 0 },
	};
	char out[256], why[256];
	size_t len;

	ck_assert_int_eq(t_pf(out, sizeof (out),
	    "<%-10s><%.3s><%c><%p><%*d>100%%", a, 6, why), 6);
	ck_assert_str_eq(out,
	    "<kworker   ><kwo><A><ffffffff81000000><   65>100%");
	/* A damaged format's absurd width is clamped, not obeyed. */
	ck_assert_int_eq(t_pf(out, sizeof (out), "%99999999999d", a + 4, 1,
	    why), 1);
	ck_assert_uint_eq(strlen(out), 255);
	ck_assert_int_eq(t_pf_len("%99999999999d", a + 4, 1, &len), 1);
	ck_assert_uint_eq(len, KC_FMT_MAXWIDTH);
	/* dtrace's ten-million-column widths are honoured. */
	ck_assert_int_eq(t_pf_len("%10000000d", a + 4, 1, &len), 1);
	ck_assert_uint_eq(len, 10000000);
	ck_assert_int_eq(t_pf_len("%.10000000d", a + 4, 1, &len), 1);
	ck_assert_uint_eq(len, 10000000);
}
END_TEST

START_TEST(test_printf_errors_are_reported)
{
	int64_t v = 1;
	char s[8] = "x";
	struct kc_val a[] = { { (const uint8_t *)&v, 8, 0 },
	    { (const uint8_t *)s, 8, 1 } };
	char out[256], why[256];

	ck_assert_int_eq(t_pf(out, sizeof (out), "a %d b %d", a, 1, why), -1);
	ck_assert_str_eq(out, "a 1 b ");
	ck_assert_str_eq(why, "conversion %d needs a value as argument 2 but the record holds 1");
	ck_assert_int_eq(t_pf(out, sizeof (out), "%d", a + 1, 1, why), -1);
	ck_assert_ptr_nonnull(strstr(why, "needs an integer"));
	ck_assert_int_eq(t_pf(out, sizeof (out), "%f", a + 1, 1, why), -1);
	ck_assert_ptr_nonnull(strstr(why, "needs an integer"));
	ck_assert_int_eq(t_pf(out, sizeof (out), "%Q", a, 1, why), -1);
	ck_assert_str_eq(why, "format conversion \"%Q\": is undefined");
	ck_assert_int_eq(t_pf(out, sizeof (out), "50%", a, 1, why), -1);
	ck_assert_ptr_nonnull(strstr(why, "end of format string"));
}
END_TEST

static void
t_trace(char *buf, size_t size, const void *p, uint32_t n, uint32_t isstr,
    int quiet)
{
	struct kc_val v = { p, n, isstr };
	FILE *f;

	memset(buf, 0, size);
	f = fmemopen(buf, size, "w");

	kc_fmt_trace(f, &v, quiet);
	fclose(f);
}

START_TEST(test_trace_sizes_and_byte_rule)
{
	int64_t q = -5;
	int32_t l = -1;
	uint16_t h = 0xffff;
	uint8_t c = 0xfe, bin[20];
	char s[16] = "ab", full[5] = { 'v', 'w', 'x', 'y', 'z' };
	char out[1024];

	t_trace(out, sizeof (out), &q, 8, 0, 0);
	ck_assert_str_eq(out, "               -5");
	t_trace(out, sizeof (out), &l, 4, 0, 0);
	ck_assert_str_eq(out, "       -1");
	t_trace(out, sizeof (out), &h, 2, 0, 0);
	ck_assert_str_eq(out, " 65535");
	t_trace(out, sizeof (out), &c, 1, 0, 1);
	ck_assert_str_eq(out, "254");
	t_trace(out, sizeof (out), s, 16, 1, 0);
	ck_assert_str_eq(out, "  ab                               ");
	t_trace(out, sizeof (out), s, 16, 1, 1);
	ck_assert_str_eq(out, "ab");
	t_trace(out, sizeof (out), full, 5, 1, 0);
	ck_assert_str_eq(out, "  vwxyz                            ");
	memset(bin, 0, sizeof (bin));
	bin[0] = 'k';
	bin[1] = 0x01;
	bin[17] = 0xff;
	t_trace(out, sizeof (out), bin, sizeof (bin), 1, 0);
	ck_assert_str_eq(out, "\n"
	    "             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n"
	    "         0: 6b 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00  k...............\n"
	    "        10: 00 ff 00 00                                      ....\n");
}
END_TEST

/* ---- a hand-built DOF ---- */

struct t_act {
	uint32_t	ta_kind;
	const char	*ta_fmt;	/* PRINTF: format or NULL */
	uint32_t	ta_isstr;
	uint32_t	ta_size;	/* result size (string: its size) */
};

struct t_dof {
	struct dof_sec	td_sec[64];
	uint32_t	td_nsec;
	uint8_t		td_data[8192];
	uint32_t	td_dlen;
	char		td_str[1024];
	uint32_t	td_slen;
	uint8_t		td_out[16384];
	uint32_t	td_olen;
};

static uint32_t
t_str(struct t_dof *td, const char *s)
{
	uint32_t off = td->td_slen;

	if (s[0] == '\0')
		return 0;
	memcpy(td->td_str + off, s, strlen(s) + 1);
	td->td_slen += (uint32_t)strlen(s) + 1;
	return off;
}

/* Append a loadable section; its offset is relative to the data area. */
static uint32_t
t_sec(struct t_dof *td, uint32_t type, uint32_t align, uint32_t entsize,
    const void *data, uint32_t size)
{
	struct dof_sec *s = &td->td_sec[td->td_nsec];

	td->td_dlen = (td->td_dlen + 7) & ~7u;
	s->ds_type = type;
	s->ds_align = align;
	s->ds_flags = DOF_SECF_LOAD;
	s->ds_entsize = entsize;
	s->ds_offset = td->td_dlen;
	s->ds_size = size;
	memcpy(td->td_data + td->td_dlen, data, size);
	td->td_dlen += size;
	return td->td_nsec++;
}

/* A DIF object "ret %r0" whose return type gives the record size. */
static uint32_t
t_difo(struct t_dof *td, const struct t_act *ta)
{
	uint32_t text = DIF_INSTR_RET(0);
	struct { struct dif_type t; uint32_t link; } hdr;

	memset(&hdr, 0, sizeof (hdr));
	hdr.t.dtdt_kind = ta->ta_isstr ? DIF_TYPE_STRING : DIF_TYPE_CTF;
	hdr.t.dtdt_ckind = DIF_CTF_INTEGER;
	hdr.t.dtdt_flags = ta->ta_isstr ? DIF_TF_BYREF : 0;
	hdr.t.dtdt_size = ta->ta_size;
	hdr.link = t_sec(td, DOF_SECT_DIF, 4, 4, &text, 4);
	return t_sec(td, DOF_SECT_DIFOHDR, 4, 0, &hdr, sizeof (hdr));
}

static void
t_ecb(struct t_dof *td, const char *prov, const char *func,
    const char *name, const struct t_act *ta, uint32_t n)
{
	struct dof_probedesc pd = { 0, t_str(td, prov), 0, t_str(td, func),
	    t_str(td, name), 0 };
	struct dof_actdesc ad[16];
	struct dof_ecbdesc ed;
	uint32_t i;

	memset(ad, 0, sizeof (ad));
	for (i = 0; i < n; i++) {
		ad[i].dofa_difo = t_difo(td, &ta[i]);
		ad[i].dofa_kind = ta[i].ta_kind;
		ad[i].dofa_strtab = DOF_SECIDX_NONE;
		if (ta[i].ta_fmt != NULL) {
			ad[i].dofa_strtab = 0;
			ad[i].dofa_arg = t_str(td, ta[i].ta_fmt);
		}
	}
	memset(&ed, 0, sizeof (ed));
	ed.dofe_probes = t_sec(td, DOF_SECT_PROBEDESC, 4, 24, &pd, 24);
	ed.dofe_pred = DOF_SECIDX_NONE;
	ed.dofe_actions = t_sec(td, DOF_SECT_ACTDESC, 8, 32, ad, 32 * n);
	t_sec(td, DOF_SECT_ECBDESC, 8, 0, &ed, sizeof (ed));
}

static void
t_dof_init(struct t_dof *td)
{
	memset(td, 0, sizeof (*td));
	td->td_nsec = 1;	/* section 0: the global STRTAB, placed last */
	td->td_slen = 1;
}

static void
t_opt(struct t_dof *td, uint32_t opt, uint64_t val)
{
	struct dof_optdesc o = { opt, DOF_SECIDX_NONE, val };

	t_sec(td, DOF_SECT_OPTDESC, 8, 16, &o, sizeof (o));
}

/* Lay out header, section table, data, global STRTAB. */
static void
t_dof_finish(struct t_dof *td)
{
	struct dof_hdr h;
	uint64_t base = sizeof (h) + td->td_nsec * sizeof (struct dof_sec);
	uint32_t i, soff = (td->td_dlen + 7) & ~7u;

	memset(&h, 0, sizeof (h));
	memcpy(h.dh_ident, "\177DOF", 4);
	h.dh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
	h.dh_ident[DOF_ID_ENCODING] = DOF_ENCODE_NATIVE;
	h.dh_ident[DOF_ID_VERSION] = DOF_VERSION_1;
	h.dh_ident[DOF_ID_DIFVERS] = DIF_VERSION_2;
	h.dh_ident[DOF_ID_DIFIREG] = 8;
	h.dh_ident[DOF_ID_DIFTREG] = 8;
	h.dh_hdrsize = sizeof (h);
	h.dh_secsize = sizeof (struct dof_sec);
	h.dh_secnum = td->td_nsec;
	h.dh_secoff = sizeof (h);
	h.dh_loadsz = h.dh_filesz = (base + soff + td->td_slen + 7) & ~7ull;
	td->td_sec[0] = (struct dof_sec){ DOF_SECT_STRTAB, 1, DOF_SECF_LOAD,
	    0, soff, td->td_slen };
	for (i = 0; i < td->td_nsec; i++)
		td->td_sec[i].ds_offset += base;
	memcpy(td->td_out, &h, sizeof (h));
	memcpy(td->td_out + sizeof (h), td->td_sec,
	    td->td_nsec * sizeof (struct dof_sec));
	memcpy(td->td_out + base, td->td_data, td->td_dlen);
	memcpy(td->td_out + base + soff, td->td_str, td->td_slen);
	td->td_olen = (uint32_t)h.dh_loadsz;
}

/* ---- a region holding that DOF, and records ---- */

struct t_rgn {
	uint8_t		*tr_base;
	struct dof_enabling *tr_den;
};

static void
t_rgn_init(struct t_rgn *tr, struct t_dof *td, uint32_t ncpu)
{
	struct rgn_params p;
	struct kdt_err ke;

	t_dof_finish(td);
	ck_assert_msg(dof_load(td->td_out, td->td_olen, &tr->tr_den, &ke) ==
	    0, "hand-built DOF rejected: %s", ke.ke_msg);
	tr->tr_base = calloc(1, T_SIZE);
	memset(&p, 0, sizeof (p));
	p.rp_phys = T_PHYS;
	p.rp_ncpu = ncpu;
	p.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	p.rp_probe_cap = 8;
	p.rp_epid_cap = 8;
	p.rp_dof = td->td_out;
	p.rp_dofsz = td->td_olen;
	ck_assert_int_eq(rgn_init(tr->tr_base, T_SIZE, &p, &ke), 0);
}

/* Register probe "id" and EPID "epid" for ECB "ecb". */
static void
t_rgn_probe(struct t_rgn *tr, uint32_t epid, uint32_t id, uint32_t ecb,
    const char *prov, const char *mod, const char *func, const char *name)
{
	struct kdt_err ke;

	ck_assert_int_eq(rgn_add_probe(tr->tr_base, id, prov, mod, func, name,
	    &ke), 0);
	ck_assert_int_eq(rgn_add_epid(tr->tr_base, epid, id, ecb,
	    tr->tr_den->den_ecbs[ecb].le_size, &ke), 0);
}

/* Write a record of ECB "ecb": vals[i] fills action i's record. */
static void
t_rgn_rec(struct t_rgn *tr, uint32_t cpu, uint32_t epid, uint32_t ecb,
    const void *const *vals, int commit)
{
	const struct dof_lecb *le = &tr->tr_den->den_ecbs[ecb];
	struct rgn_cpu *rc = rgn_cpu(tr->tr_base, cpu);
	struct rgn_rec *rr = rgn_reserve(rc, DTRACEOPT_BUFPOLICY_RING,
	    le->le_size);
	uint8_t *pl = (uint8_t *)(rr + 1);
	uint32_t i;

	ck_assert_ptr_nonnull(rr);
	memset(pl, 0, le->le_size);
	for (i = 0; i < le->le_nacts; i++)
		if (vals[i] != NULL)
			memcpy(pl + le->le_acts[i].la_rec_off, vals[i],
			    le->le_acts[i].la_rec_isstr ?
			    strlen(vals[i]) : le->le_acts[i].la_rec_size);
	if (commit)
		rgn_commit(rc, rr, epid, 123456789);
}

static void
t_rgn_free(struct t_rgn *tr)
{
	dof_free(tr->tr_den);
	free(tr->tr_base);
}

static char *
t_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	ck_assert_msg(f != NULL, "cannot open fixture %s", path);
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Print the region; compare stdout with a fixture, return stderr text. */
static void
t_expect(struct t_rgn *tr, const char *fixture, char *err, size_t errsz,
    const struct kc_opts *ko)
{
	char out[8192], path[256];
	char *want;
	FILE *fo, *fe;

	memset(out, 0, sizeof (out));
	memset(err, 0, errsz);
	fo = fmemopen(out, sizeof (out), "w");
	fe = fmemopen(err, errsz, "w");

	ck_assert_int_eq(kc_print_region_opts(tr->tr_base, T_SIZE, T_PHYS,
	    "test.img", fo, fe, ko), 0);
	fclose(fo);
	fclose(fe);
	snprintf(path, sizeof (path), T_FIXDIR "%s", fixture);
	want = t_slurp(path);
	ck_assert_str_eq(out, want);
	free(want);
}

START_TEST(test_region_begin_printf)
{
	static const struct t_act acts[] = {
		{ DTRACEACT_PRINTF, "hello %s, %d\n", 1, 32 },
		{ DTRACEACT_PRINTF, NULL, 0, 4 },
		{ DTRACEACT_EXIT, NULL, 0, 4 },
	};
	int32_t answer = 42, status = 0;
	const void *vals[] = { "world", &answer, &status };
	struct t_dof td;
	struct t_rgn tr;
	char err[1024];

	t_dof_init(&td);
	t_ecb(&td, "dtrace", "", "BEGIN", acts, 3);
	t_rgn_init(&tr, &td, 2);
	t_rgn_probe(&tr, 1, 1, 0, "dtrace", "", "", "BEGIN");
	t_rgn_rec(&tr, 0, 1, 0, vals, 1);
	t_expect(&tr, "begin_printf.out", err, sizeof (err), NULL);
	ck_assert_str_eq(err, "");
	t_rgn_free(&tr);
}
END_TEST

/*
 * Several printf() statements in one clause, encoded as libdtrace and our
 * compiler write them (the format repeated on every argument's action; a
 * printf without arguments records one 8-byte word): each statement must
 * consume exactly the actions its conversions need.
 */
START_TEST(test_region_printf_statements_grouped)
{
	static const struct t_act acts[] = {
		{ DTRACEACT_PRINTF, "%s=%d ", 1, 16 },
		{ DTRACEACT_PRINTF, "%s=%d ", 0, 4 },
		{ DTRACEACT_PRINTF, "%d;", 0, 4 },
		{ DTRACEACT_PRINTF, "[no args]", 0, 8 },
		{ DTRACEACT_PRINTF, "%d", 0, 8 },
	};
	int32_t one = 1, two = 2;
	int64_t zero = 0, three = 3;
	const void *vals[] = { "a", &one, &two, &zero, &three };
	struct t_dof td;
	struct t_rgn tr;
	char err[1024];

	t_dof_init(&td);
	t_ecb(&td, "dtrace", "", "BEGIN", acts, 5);
	t_rgn_init(&tr, &td, 1);
	t_rgn_probe(&tr, 1, 1, 0, "dtrace", "", "", "BEGIN");
	t_rgn_rec(&tr, 0, 1, 0, vals, 1);
	t_expect(&tr, "printf_grouped.out", err, sizeof (err), NULL);
	ck_assert_str_eq(err, "");
	t_rgn_free(&tr);
}
END_TEST

START_TEST(test_region_trace_two_cpus_drops_torn)
{
	static const struct t_act acts[] = {
		{ DTRACEACT_DIFEXPR, NULL, 0, 8 },
		{ DTRACEACT_DIFEXPR, NULL, 0, 4 },
		{ DTRACEACT_DIFEXPR, NULL, 0, 2 },
		{ DTRACEACT_DIFEXPR, NULL, 0, 1 },
		{ DTRACEACT_DIFEXPR, NULL, 1, 16 },
	};
	int64_t q = -5, q2 = 1LL << 40;
	int32_t l = 100000;
	uint16_t h = 65535;
	uint8_t c = 254;
	const void *v1[] = { &q, &l, &h, &c, "ext4" };
	const void *v2[] = { &q2, &l, &h, &c, "vfat" };
	struct t_dof td;
	struct t_rgn tr;
	char err[2048];

	t_dof_init(&td);
	t_ecb(&td, "fbt", "do_init_module", "entry", acts, 5);
	t_rgn_init(&tr, &td, 2);
	t_rgn_probe(&tr, 1, 4711, 0, "fbt", "kernel", "do_init_module",
	    "entry");
	t_rgn_rec(&tr, 1, 1, 0, v2, 1);
	t_rgn_rec(&tr, 0, 1, 0, v1, 1);
	t_rgn_rec(&tr, 0, 1, 0, v2, 1);
	t_rgn_rec(&tr, 0, 1, 0, v1, 0);		/* torn by the panic */
	rgn_cpu(tr.tr_base, 1)->rc_drops = 3;
	rgn_cpu(tr.tr_base, 1)->rc_errors = 1;
	t_expect(&tr, "trace_two_cpus.out", err, sizeof (err), NULL);
	ck_assert_str_eq(err,
	    "kdt: test.img: cpu 0: logical offset 0x60: record torn by the panic: 48 bytes reserved at logical offset 0x60, not committed\n"
	    "kdt: 3 drops on CPU 1\n"
	    "kdt: 1 error on CPU 1\n");
	/* kdt-extract's status: partial, said once at the end */
	{
		struct kc_opts ko = { "kdt-extract", KC_F_PARTIAL };
		char out[8192];
		FILE *fo = fmemopen(out, sizeof (out), "w");
		FILE *fe = fmemopen(err, sizeof (err), "w");

		ck_assert_int_eq(kc_print_region_opts(tr.tr_base, T_SIZE,
		    T_PHYS, "test.img", fo, fe, &ko), KC_PARTIAL);
		fclose(fo);
		fclose(fe);
		ck_assert_msg(strstr(err, "kdt-extract: test.img: partial: 1 torn or corrupt record spot (above)") != NULL,
		    "%s", err);
	}
	t_rgn_free(&tr);
}
END_TEST

START_TEST(test_region_quiet_option_and_flag)
{
	static const struct t_act acts[] = {
		{ DTRACEACT_PRINTF, "%-8s|%5d|%x|\n", 1, 16 },
		{ DTRACEACT_PRINTF, NULL, 0, 8 },
		{ DTRACEACT_PRINTF, NULL, 0, 2 },
	};
	int64_t n = -12;
	uint16_t x = 0xbeef;
	const void *vals[] = { "sda", &n, &x };
	struct kc_opts ko = { "kdt-extract", KC_F_QUIET };
	struct t_dof td;
	struct t_rgn tr;
	char err[1024];

	t_dof_init(&td);
	t_ecb(&td, "fbt", "sd_probe", "entry", acts, 3);
	t_opt(&td, DTRACEOPT_QUIET, 1);
	t_rgn_init(&tr, &td, 1);
	t_rgn_probe(&tr, 1, 77, 0, "fbt", "sd_mod", "sd_probe", "entry");
	t_rgn_rec(&tr, 0, 1, 0, vals, 1);
	t_rgn_rec(&tr, 0, 1, 0, vals, 1);
	t_expect(&tr, "quiet_printf.out", err, sizeof (err), NULL);
	t_expect(&tr, "quiet_printf.out", err, sizeof (err), &ko);
	ck_assert_str_eq(err, "");
	t_rgn_free(&tr);
}
END_TEST

START_TEST(test_region_unusable_input_fails)
{
	static const struct t_act acts[] = { { DTRACEACT_EXIT, NULL, 0, 4 } };
	struct t_dof td;
	struct t_rgn tr;
	char out[256], err[1024];
	FILE *fo, *fe;

	t_dof_init(&td);
	t_ecb(&td, "dtrace", "", "BEGIN", acts, 1);
	t_rgn_init(&tr, &td, 1);
	tr.tr_base[0] ^= 0xff;
	memset(out, 0, sizeof (out));
	memset(err, 0, sizeof (err));
	fo = fmemopen(out, sizeof (out), "w");
	fe = fmemopen(err, sizeof (err), "w");
	ck_assert_int_eq(kc_print_region(tr.tr_base, T_SIZE, T_PHYS,
	    "test.img", fo, fe), 1);
	fclose(fo);
	fclose(fe);
	ck_assert_str_eq(out, "");
	ck_assert_ptr_nonnull(strstr(err, "kdt: test.img: region header magic"));
	t_rgn_free(&tr);
}
END_TEST

/* Error records (rgn.h) print dtrace's message on the error stream. */
START_TEST(test_region_error_record_prints_fault)
{
	static const struct t_act acts[] = {
		{ DTRACEACT_DIFEXPR, NULL, 0, 8 },
	};
	struct rgn_errrec ee = { 1, 2, 2, DTRACEFLT_BADADDR, 0x10 };
	struct t_dof td;
	struct t_rgn tr;
	struct rgn_rec *rr;
	char out[256], err[512];
	FILE *fo, *fe;

	t_dof_init(&td);
	t_ecb(&td, "dtrace", "", "BEGIN", acts, 1);
	t_rgn_init(&tr, &td, 1);
	t_rgn_probe(&tr, 1, 1, 0, "dtrace", "", "", "BEGIN");
	rr = rgn_reserve(rgn_cpu(tr.tr_base, 0), DTRACEOPT_BUFPOLICY_RING,
	    sizeof (ee));
	ck_assert_ptr_nonnull(rr);
	memcpy(rr + 1, &ee, sizeof (ee));
	rgn_commit(rgn_cpu(tr.tr_base, 0), rr, RGN_EPID_ERROR, 5);
	memset(out, 0, sizeof (out));
	memset(err, 0, sizeof (err));
	fo = fmemopen(out, sizeof (out), "w");
	fe = fmemopen(err, sizeof (err), "w");
	ck_assert_int_eq(kc_print_region(tr.tr_base, T_SIZE, T_PHYS,
	    "test.img", fo, fe), 0);
	fclose(fo);
	fclose(fe);
	ck_assert_str_eq(out, "\n");
	ck_assert_str_eq(err,
	    "kdt: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x10) in action #2 at DIF offset 8\n");
	t_rgn_free(&tr);
}
END_TEST

/* kc_dec_consume() prints only what was committed since the last call. */
START_TEST(test_decoder_consumes_incrementally)
{
	static const struct t_act acts[] = {
		{ DTRACEACT_DIFEXPR, NULL, 0, 4 },
	};
	int32_t one = 1, two = 2;
	const void *v1[] = { &one }, *v2[] = { &two };
	struct kc_dec_opts o;
	struct rgn_view v;
	struct kdt_err ke;
	struct kc_dec *d;
	struct t_dof td;
	struct t_rgn tr;
	char *out = NULL;
	size_t outlen = 0;
	FILE *fo;

	t_dof_init(&td);
	t_ecb(&td, "dtrace", "", "BEGIN", acts, 1);
	t_rgn_init(&tr, &td, 1);
	t_rgn_probe(&tr, 1, 1, 0, "dtrace", "", "", "BEGIN");
	ck_assert_int_eq(rgn_open(&v, tr.tr_base, T_SIZE, T_PHYS, &ke), 0);
	fo = open_memstream(&out, &outlen);
	memset(&o, 0, sizeof (o));
	o.do_prog = "kdt";
	o.do_input = "live";
	o.do_out = fo;
	o.do_err = stderr;
	o.do_quiet = 1;
	d = kc_dec_new(&v, tr.tr_den, &o);
	ck_assert_ptr_nonnull(d);
	t_rgn_rec(&tr, 0, 1, 0, v1, 1);
	ck_assert_int_eq(kc_dec_consume(d, 0), 1);
	ck_assert_int_eq(kc_dec_consume(d, 0), 0);
	t_rgn_rec(&tr, 0, 1, 0, v2, 1);
	ck_assert_int_eq(kc_dec_consume(d, 0), 1);
	ck_assert_uint_eq(kc_dec_consumed(d, 0),
	    rgn_cpu(tr.tr_base, 0)->rc_head);
	fclose(fo);
	ck_assert_str_eq(out, "12");
	free(out);
	kc_dec_free(d);
	t_rgn_free(&tr);
}
END_TEST

static Suite *
consumer_suite(void)
{
	Suite *s = suite_create("consumer");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, test_printf_integers_by_size);
	tcase_add_test(tc, test_printf_strings_chars_pointers);
	tcase_add_test(tc, test_printf_errors_are_reported);
	tcase_add_test(tc, test_trace_sizes_and_byte_rule);
	suite_add_tcase(s, tc);
	tc = tcase_create("region");
	tcase_add_test(tc, test_region_begin_printf);
	tcase_add_test(tc, test_region_printf_statements_grouped);
	tcase_add_test(tc, test_region_trace_two_cpus_drops_torn);
	tcase_add_test(tc, test_region_quiet_option_and_flag);
	tcase_add_test(tc, test_region_unusable_input_fails);
	tcase_add_test(tc, test_region_error_record_prints_fault);
	tcase_add_test(tc, test_decoder_consumes_incrementally);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(consumer_suite)
