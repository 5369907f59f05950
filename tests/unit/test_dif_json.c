/*
 * test_dif_json.c -- unit tests of the json() subroutine (dif_s_json in
 * common/dif_subr.c) run through the validator and the emulator in their
 * userspace build.
 *
 * Each case calls json(doc, selector) the way the compiler does
 * (flushts, two pushtr, call) with both strings in this file's STRTAB
 * (owned memory) or the document in registered "traced" memory, and
 * compares the result as a C string ("(null)" for NULL).  A NULL result
 * must never come with a fault: json() reports a bad document or
 * selector by its value alone.  The table cases cover members, nesting,
 * arrays, escapes, numbers, literals, missing members and malformed
 * documents; the others the strsize limit, the nesting limit
 * (DIF_JSON_MAXDEPTH, 512) and faults of the string arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "dif.h"
#include "dif_subr.h"
#include "dif_vm.h"
#include "consumer/kc_env.h"

#define N(a)		((uint32_t)(sizeof (a) / sizeof ((a)[0])))

static uint64_t t_int[2];
static char t_str[65536];
static uint32_t t_strlen;
static char t_scratch[16384];
static char t_kmem[64] __attribute__((aligned(8)));
static struct dif_object t_difo;
static struct dif_mstate t_ms;
static struct dif_probe_ctx t_ctx;
static uint32_t t_text[8];

static void
t_setup(void)
{
	memset(&t_ms, 0, sizeof (t_ms));
	memset(t_str, 0, sizeof (t_str));
	t_strlen = 1;	/* offset 0 is "" */
	t_ms.dm_scratch = t_scratch;
	t_ms.dm_scratch_size = sizeof (t_scratch);
	t_ms.dm_strsize = 256;
	memset(&t_ctx, 0, sizeof (t_ctx));
	kc_env_clear_readable();
}

static void
t_teardown(void)
{
	kc_env_clear_readable();
}

/* A string in the STRTAB; returns its address as a DIF value. */
static uint64_t
S(const char *s)
{
	uint64_t a = (uintptr_t)&t_str[t_strlen];

	ck_assert_uint_lt(t_strlen + strlen(s) + 1, sizeof (t_str));
	memcpy(&t_str[t_strlen], s, strlen(s) + 1);
	t_strlen += (uint32_t)strlen(s) + 1;
	return a;
}

/* json(doc, sel) with both as string addresses; faults are in t_ms. */
static uint64_t
t_json(uint64_t doc, uint64_t sel)
{
	uint32_t k = 0;
	struct kdt_err err;

	t_int[0] = doc;
	t_int[1] = sel;
	t_text[k++] = (uint32_t)DIF_OP_FLUSHTS << 24;
	t_text[k++] = DIF_INSTR_SETX(0, 1);
	t_text[k++] = DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING_T, 0, 1);
	t_text[k++] = DIF_INSTR_SETX(1, 1);
	t_text[k++] = DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING_T, 0, 1);
	t_text[k++] = DIF_INSTR_CALL(DIF_SUBR_JSON, 2);
	t_text[k++] = DIF_INSTR_RET(2);
	memset(&t_difo, 0, sizeof (t_difo));
	t_difo.do_text = t_text;
	t_difo.do_textlen = k;
	t_difo.do_inttab = t_int;
	t_difo.do_intlen = N(t_int);
	t_difo.do_strtab = t_str;
	t_difo.do_strlen = sizeof (t_str);
	t_difo.do_rtype.dtdt_kind = DIF_TYPE_CTF;
	t_difo.do_rtype.dtdt_size = 8;
	ck_assert_msg(dif_validate(&t_difo, &err) == 0, "%s", err.ke_msg);
	t_ms.dm_scratch_used = 0;
	return dif_emulate(&t_difo, &t_ms, &t_ctx);
}

/* The result of json(doc, sel) as a C string; it must not fault. */
static const char *
J(const char *doc, const char *sel)
{
	uint64_t v = t_json(S(doc), S(sel));

	ck_assert_msg(!t_ms.dm_faulted, "json('%s', '%s'): fault %u", doc,
	    sel, t_ms.dm_fault);
	return v == 0 ? "(null)" : (const char *)(uintptr_t)v;
}

struct t_case {
	const char	*tc_doc;
	const char	*tc_sel;
	const char	*tc_want;	/* "(null)" for NULL */
};

#define DOC	"{ \"a\": 1, \"b\": { \"c\": \"x\", \"d\": [10, 20, " \
		"{\"e\": true}, [\"f\", null]] }, \"g\": -1.5e+3, " \
		"\"h\": false, \"i\": \"\", \"j\": {}, \"k\": [] }"

static const struct t_case t_cases[] = {
	/* members and nesting */
	{ DOC, "a", "1" },
	{ DOC, "b.c", "x" },
	{ DOC, "b.d[0]", "10" },
	{ DOC, "b.d[1]", "20" },
	{ DOC, "b.d[2].e", "true" },
	{ DOC, "b.d[3][0]", "f" },
	{ DOC, "b.d[3][1]", "null" },
	{ DOC, "b.d.[3].[1]", "null" },
	{ DOC, "b.d.3.1", "null" },
	{ DOC, "g", "-1.5e+3" },
	{ DOC, "h", "false" },
	{ DOC, "i", "" },
	/* an object or array: its text, verbatim */
	{ DOC, "b.d[2]", "{\"e\": true}" },
	{ DOC, "b.d[3]", "[\"f\", null]" },
	{ DOC, "j", "{}" },
	{ DOC, "k", "[]" },
	{ "{\"o\" : { \"p\" : [ 1 , 2 ] } }", "o", "{ \"p\" : [ 1 , 2 ] }" },
	/* missing: NULL */
	{ DOC, "z", "(null)" },
	{ DOC, "b.z", "(null)" },
	{ DOC, "b.d[4]", "(null)" },
	{ DOC, "b.d[99999999999999999999]", "(null)" },
	{ DOC, "j.x", "(null)" },
	{ DOC, "k[0]", "(null)" },
	{ DOC, "a.b", "(null)" },		/* a scalar, not a container */
	{ DOC, "b.c.x", "(null)" },
	{ DOC, "a[0]", "(null)" },
	{ DOC, "b.d.e", "(null)" },		/* an array needs an index */
	{ DOC, "b.d[-1]", "(null)" },
	{ DOC, "b.d[+1]", "(null)" },
	{ DOC, "b.d[]", "(null)" },
	{ DOC, "B", "(null)" },			/* names are exact */
	{ DOC, "", "(null)" },
	{ "{\"\": 5}", "", "5" },		/* the empty name */
	/* top-level arrays */
	{ "[1, [2, 3], {\"x\": \"y\"}]", "[0]", "1" },
	{ "[1, [2, 3], {\"x\": \"y\"}]", "[1][1]", "3" },
	{ "[1, [2, 3], {\"x\": \"y\"}]", "[2].x", "y" },
	{ "[1, [2, 3], {\"x\": \"y\"}]", "2.x", "y" },
	{ " \t\r\n[7] \n", "[0]", "7" },
	/* the first of equal names; members of skipped values ignored */
	{ "{\"a\": 1, \"a\": 2}", "a", "1" },
	{ "{\"x\": {\"a\": 1}, \"a\": 2}", "a", "2" },
	{ "{\"x\": [\"a\", {\"a\": 3}], \"a\": [4]}", "a[0]", "4" },
	/* strings: the contents as written, escapes kept */
	{ "{\"s\": \"a\\\"b\"}", "s", "a\\\"b" },
	{ "{\"s\": \"tab\\there\\n\"}", "s", "tab\\there\\n" },
	{ "{\"s\": \"\\u00e9\\\\\\/\"}", "s", "\\u00e9\\\\\\/" },
	{ "{\"s\": \"}]{[,:\"}", "s", "}]{[,:" },
	{ "{\"k\\\"\": 1}", "k\\\"", "1" },	/* names as written */
	{ "{\"s\": \"\\uABCD\"}", "s", "\\uABCD" },
	/* numbers */
	{ "[0, -0, 12, -3.25, 1e5, 2E-7, 0.5e+1]", "[0]", "0" },
	{ "[0, -0, 12, -3.25, 1e5, 2E-7, 0.5e+1]", "[1]", "-0" },
	{ "[0, -0, 12, -3.25, 1e5, 2E-7, 0.5e+1]", "[3]", "-3.25" },
	{ "[0, -0, 12, -3.25, 1e5, 2E-7, 0.5e+1]", "[5]", "2E-7" },
	{ "[0, -0, 12, -3.25, 1e5, 2E-7, 0.5e+1]", "[6]", "0.5e+1" },
	/* malformed documents: NULL, whatever the selector */
	{ "", "a", "(null)" },
	{ "   ", "a", "(null)" },
	{ "5", "a", "(null)" },
	{ "\"a\"", "a", "(null)" },
	{ "{\"a\": 1", "a", "(null)" },		/* never closed */
	{ "{\"a\": 1}}", "a", "(null)" },	/* trailing bytes */
	{ "{\"a\": 1} x", "a", "(null)" },
	{ "{\"a\": 1,}", "a", "(null)" },	/* trailing comma */
	{ "[1, 2,]", "[0]", "(null)" },
	{ "[1 2]", "[0]", "(null)" },
	{ "{\"a\" 1}", "a", "(null)" },		/* no colon */
	{ "{a: 1}", "a", "(null)" },		/* unquoted name */
	{ "{'a': 1}", "a", "(null)" },
	{ "{\"a\": tru}", "a", "(null)" },
	{ "{\"a\": truex}", "a", "(null)" },
	{ "{\"a\": True}", "a", "(null)" },
	{ "{\"a\": nul}", "a", "(null)" },
	{ "{\"a\": 01}", "a", "(null)" },	/* leading zero */
	{ "{\"a\": 1.}", "a", "(null)" },
	{ "{\"a\": .5}", "a", "(null)" },
	{ "{\"a\": -}", "a", "(null)" },
	{ "{\"a\": 1e}", "a", "(null)" },
	{ "{\"a\": +1}", "a", "(null)" },
	{ "{\"a\": 0x10}", "a", "(null)" },
	{ "{\"a\": 1.2.3}", "a", "(null)" },
	{ "{\"a\": \"x}", "a", "(null)" },	/* unterminated string */
	{ "{\"a\": \"\\x\"}", "a", "(null)" },	/* bad escape */
	{ "{\"a\": \"\\u12g4\"}", "a", "(null)" },
	{ "{\"a\": \"\\u12\"}", "a", "(null)" },
	{ "{\"a\": \"line\nbreak\"}", "a", "(null)" },	/* raw control */
	{ "{\"a\": [1}", "a", "(null)" },	/* mismatched brackets */
	{ "{\"a\": {]}", "a", "(null)" },
	{ "[{]}", "[0]", "(null)" },
	{ "{\"a\": 1, \"b\": [}", "a", "(null)" },	/* bad after the value */
	{ "{\"a\": 1 \"b\": 2}", "a", "(null)" },
	{ "{,}", "a", "(null)" },
	{ "[,1]", "[0]", "(null)" },
	{ "{\"a\":}", "a", "(null)" },
	/* malformed selectors: NULL */
	{ DOC, "b.d[0", "(null)" },
	{ DOC, "b.d[0]x", "(null)" },
	{ DOC, "b.d[0]]", "(null)" },
	/* a trailing '.' is an empty last step */
	{ "{\"a\": {\"\": 9}}", "a.", "9" },
};

START_TEST(test_json_table)
{
	const struct t_case *tc = &t_cases[_i];

	ck_assert_msg(strcmp(J(tc->tc_doc, tc->tc_sel), tc->tc_want) == 0,
	    "json('%s', '%s') = '%s', want '%s'", tc->tc_doc, tc->tc_sel,
	    J(tc->tc_doc, tc->tc_sel), tc->tc_want);
}
END_TEST

/*
 * A document of exactly strsize bytes is whole (dtrace keeps a string of
 * strsize characters); one more is cut.
 */
START_TEST(test_json_strsize_limit)
{
	char doc[300];
	uint32_t n;

	t_ms.dm_strsize = 64;
	strcpy(doc, "{\"k\": \"");
	n = (uint32_t)strlen(doc);
	memset(doc + n, 'v', 63 - n - 2);
	strcpy(doc + 63 - 2, "\"}");
	ck_assert_uint_eq(strlen(doc), 63);
	ck_assert_uint_eq(strlen(J(doc, "k")), 63 - 9);
	ck_assert_str_eq(J(doc, "k") + 50, "vvvv");
	/* 64 bytes: still whole */
	memmove(doc + 8, doc + 7, 57);
	doc[7] = 'v';
	ck_assert_uint_eq(strlen(doc), 64);
	ck_assert_uint_eq(strlen(J(doc, "k")), 64 - 9);
	/* 65 bytes: the closing brace is past strsize, so malformed */
	memmove(doc + 8, doc + 7, 58);
	doc[7] = 'v';
	ck_assert_uint_eq(strlen(doc), 65);
	ck_assert_str_eq(J(doc, "k"), "(null)");
	/* the value is the whole document but the braces: it fits */
	t_ms.dm_strsize = 256;
	ck_assert_uint_eq(strlen(J(doc, "k")), 65 - 9);
	/* the same at the smallest sizes */
	t_ms.dm_strsize = 16;
	ck_assert_str_eq(J("{\"abcdefg\":1}", "abcdefg"), "1");
	ck_assert_str_eq(J("{\"abcdefg\":1}", "abcdefgh"), "(null)");
	t_ms.dm_strsize = 8;
	ck_assert_str_eq(J("{\"abcdefg\":1}", "abcdefg"), "(null)");
	ck_assert_str_eq(J("{\"a\":1}", "abcdefgh"), "(null)");
	ck_assert_str_eq(J("{\"a\":12}", "a"), "12");	/* 8 bytes: whole */
	ck_assert_str_eq(J("{\"a\":123}", "a"), "(null)");	/* cut */
}
END_TEST

/* Nesting up to DIF_JSON_MAXDEPTH (512) works; one more is NULL. */
START_TEST(test_json_nesting_limit)
{
	static char doc[1100], sel[1600];
	uint32_t d, k;

	t_ms.dm_strsize = 2048;
	for (d = 511; d <= 513; d++) {
		/* {"a": [[[...[7]...]]]} with d - 1 arrays: depth d */
		k = (uint32_t)sprintf(doc, "{\"a\": ");
		memset(doc + k, '[', d - 1);
		k += d - 1;
		doc[k++] = '7';
		memset(doc + k, ']', d - 1);
		k += d - 1;
		strcpy(doc + k, "}");
		k = (uint32_t)sprintf(sel, "a");
		for (; k < 1 + 3 * (d - 1); k += 3)
			memcpy(sel + k, "[0]", 4);
		ck_assert_str_eq(J(doc, sel), d <= 512 ? "7" : "(null)");
		/* skipped rather than followed: the same limit */
		ck_assert_str_eq(J(doc, "b"), "(null)");
		sprintf(doc + strlen(doc) - 1, ", \"b\": 1}");
		ck_assert_str_eq(J(doc, "b"), d <= 512 ? "1" : "(null)");
		/* an inner array: d - 3 arrays around the 7 */
		if (d <= 512)
			ck_assert_uint_eq(strlen(J(doc, "a[0][0]")),
			    2 * (d - 3) + 1);
		else
			ck_assert_str_eq(J(doc, "a[0][0]"), "(null)");
	}
}
END_TEST

/* The largest nesting strsize allows is no problem either. */
START_TEST(test_json_deep_within_big_strsize)
{
	static char doc[4100];
	uint32_t k = 0;

	t_ms.dm_strsize = 4096;
	memset(doc, '[', 2000);
	memset(doc + 2000, ']', 2000);
	doc[4000] = '\0';
	ck_assert_str_eq(J(doc, "[0]"), "(null)");	/* over the limit */
	k = (uint32_t)sprintf(doc, "[");
	memset(doc + k, '[', 510);
	memset(doc + k + 510, ']', 510);
	strcpy(doc + k + 1020, ", 5]");
	ck_assert_str_eq(J(doc, "[1]"), "5");
	ck_assert_uint_eq(strlen(J(doc, "[0]")), 1020);
}
END_TEST

/* The document in traced memory; a bad address faults (as strlen()). */
START_TEST(test_json_traced_and_bad_address)
{
	uint64_t v;

	strcpy(t_kmem, "{\"pid\": 42, \"comm\": \"sh\"}");
	kc_env_add_readable(t_kmem, sizeof (t_kmem));
	v = t_json((uintptr_t)t_kmem, S("comm"));
	ck_assert_uint_eq(t_ms.dm_faulted, 0);
	ck_assert_str_eq((const char *)(uintptr_t)v, "sh");
	kc_env_clear_readable();
	ck_assert_uint_eq(t_json((uintptr_t)t_kmem, S("pid")), 0);
	ck_assert_uint_eq(t_ms.dm_faulted, 1);
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_BADADDR);
	/* NULL arguments are "": a malformed document, no fault */
	t_setup();
	ck_assert_uint_eq(t_json(0, S("a")), 0);
	ck_assert_uint_eq(t_ms.dm_faulted, 0);
	v = t_json(S("{\"\": 3}"), 0);	/* the empty name */
	ck_assert_uint_eq(t_ms.dm_faulted, 0);
	ck_assert_str_eq((const char *)(uintptr_t)v, "3");
}
END_TEST

/* The result needs strsize bytes of scratch; without them, a fault. */
START_TEST(test_json_out_of_scratch)
{
	t_ms.dm_scratch_size = 300;	/* owned arguments are not copied */
	ck_assert_str_eq(J("{\"a\": 1}", "a"), "1");
	t_ms.dm_scratch_size = 100;
	ck_assert_uint_eq(t_json(S("{\"a\": 1}"), S("a")), 0);
	ck_assert_uint_eq(t_ms.dm_faulted, 1);
	ck_assert_uint_eq(t_ms.dm_fault, DTRACEFLT_NOSCRATCH);
}
END_TEST

static Suite *
dif_json_suite(void)
{
	Suite *s = suite_create("dif_json");
	TCase *tc = tcase_create("json");

	tcase_add_checked_fixture(tc, t_setup, t_teardown);
	tcase_add_loop_test(tc, test_json_table, 0, N(t_cases));
	tcase_add_test(tc, test_json_strsize_limit);
	tcase_add_test(tc, test_json_nesting_limit);
	tcase_add_test(tc, test_json_deep_within_big_strsize);
	tcase_add_test(tc, test_json_traced_and_bad_address);
	tcase_add_test(tc, test_json_out_of_scratch);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(dif_json_suite)
