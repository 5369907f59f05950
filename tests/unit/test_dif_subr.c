/*
 * test_dif_subr.c -- unit tests of the DIF subroutines (common/dif_subr.c)
 * run through the validator and the emulator in their userspace build.
 *
 * Each test calls one subroutine the way the compiler does (flushts, one
 * push per argument, call) with arguments taken from the INTTAB: numbers
 * as they are, strings as addresses into this file's STRTAB (owned
 * memory) or into registered "traced" memory (t_kmem).  String results
 * are compared as C strings; faults by code and instruction index.
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
#define MAXARG		3

static uint64_t t_int[8];
static char t_str[1024];
static uint32_t t_strlen;
static char t_scratch[2048];
static char t_kmem[64] __attribute__((aligned(8)));
static struct dif_object t_difo;
static struct dif_mstate t_ms;
static struct dif_probe_ctx t_ctx;
static uint32_t t_text[4 + 2 * MAXARG];
static int t_keep_scratch;	/* runs are actions of one clause */
static char t_tokbuf[257];	/* strtok()'s saved string (strsize 256) */
static struct dif_strtok t_tok;

static void
t_setup(void)
{
	memset(&t_ms, 0, sizeof (t_ms));
	memset(t_str, 0, sizeof (t_str));
	t_strlen = 1;	/* offset 0 is "" */
	t_ms.dm_scratch = t_scratch;
	t_ms.dm_scratch_size = sizeof (t_scratch);
	t_ms.dm_strsize = 256;
	t_tok.ts_buf = t_tokbuf;
	t_tok.ts_size = sizeof (t_tokbuf);
	dif_strtok_reset(&t_tok);
	t_ms.dm_strtok = &t_tok;
	memset(&t_ctx, 0, sizeof (t_ctx));
	t_keep_scratch = 0;
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

/*
 * Call "subr" with n arguments; isstr bit i says argument i is pushed
 * by reference as a string.  Returns the result; faults are in t_ms.
 */
static uint64_t
t_call(uint32_t subr, uint32_t n, uint32_t isstr, uint64_t a0, uint64_t a1,
    uint64_t a2)
{
	uint64_t args[MAXARG] = { a0, a1, a2 };
	uint32_t i, k = 0;
	struct kdt_err err;

	t_text[k++] = (uint32_t)DIF_OP_FLUSHTS << 24;
	for (i = 0; i < n; i++) {
		t_int[i] = args[i];
		t_text[k++] = DIF_INSTR_SETX(i, 1);
		t_text[k++] = DIF_INSTR_PUSHTS((isstr >> i) & 1 ?
		    DIF_OP_PUSHTR : DIF_OP_PUSHTV, (isstr >> i) & 1 ?
		    DIF_TYPE_STRING_T : DIF_TYPE_CTF_T, 0, 1);
	}
	t_text[k++] = DIF_INSTR_CALL(subr, 2);
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
	if (!t_keep_scratch)
		t_ms.dm_scratch_used = 0;
	return dif_emulate(&t_difo, &t_ms, &t_ctx);
}

static void
t_nofault(void)
{
	ck_assert_msg(!t_ms.dm_faulted, "unexpected fault %u at pc %u",
	    t_ms.dm_fault, t_ms.dm_fault_pc);
}

static void
t_fault(uint32_t code)
{
	ck_assert_uint_eq(t_ms.dm_faulted, 1);
	ck_assert_uint_eq(t_ms.dm_fault, code);
}

/* A string result, as a C string ("(null)" for 0). */
static const char *
t_s(uint64_t v)
{
	t_nofault();
	return v == 0 ? "(null)" : (const char *)(uintptr_t)v;
}

#define STR1(subr, a)		t_s(t_call(subr, 1, 1, S(a), 0, 0))
#define STR2(subr, a, b)	t_s(t_call(subr, 2, 3, S(a), S(b), 0))

START_TEST(test_strjoin_and_truncation)
{
	ck_assert_str_eq(STR2(DIF_SUBR_STRJOIN, "foo", "bar"), "foobar");
	ck_assert_str_eq(STR2(DIF_SUBR_STRJOIN, "", ""), "");
	t_ms.dm_strsize = 7;
	ck_assert_str_eq(STR2(DIF_SUBR_STRJOIN, "foo", "bar"), "foobar");
	/* a joined string longer than strsize - 1 is out of scratch */
	t_ms.dm_strsize = 6;
	ck_assert_uint_eq(t_call(DIF_SUBR_STRJOIN, 2, 3, S("foo"), S("bar"),
	    0), 0);
	t_fault(DTRACEFLT_NOSCRATCH);
}
END_TEST

START_TEST(test_strjoin_traced_string_and_bad_address)
{
	strcpy(t_kmem, "kernel");
	kc_env_add_readable(t_kmem, 7);
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRJOIN, 2, 3, S("in "),
	    (uintptr_t)t_kmem, 0)), "in kernel");
	kc_env_clear_readable();
	ck_assert_uint_eq(t_call(DIF_SUBR_STRJOIN, 2, 3, S("x"),
	    (uintptr_t)t_kmem, 0), 0);
	t_fault(DTRACEFLT_BADADDR);
	ck_assert_uint_eq(t_ms.dm_fault_addr, (uintptr_t)t_kmem);
	ck_assert_uint_eq(t_ms.dm_fault_pc, 4);	/* the pushtr measures it */
}
END_TEST

START_TEST(test_string_result_out_of_scratch)
{
	t_ms.dm_scratch_size = 100;	/* strsize 256 does not fit */
	ck_assert_uint_eq(t_call(DIF_SUBR_STRJOIN, 2, 3, S("a"), S("b"), 0),
	    0);
	t_fault(DTRACEFLT_NOSCRATCH);
}
END_TEST

START_TEST(test_lltostr_bases)
{
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_LLTOSTR, 1, 0, (uint64_t)-123,
	    0, 0)), "-123");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_LLTOSTR, 1, 0, 0, 0, 0)), "0");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_LLTOSTR, 1, 0, INT64_MIN, 0, 0)),
	    "-9223372036854775808");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_LLTOSTR, 2, 0, 255, 16, 0)),
	    "0xff");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_LLTOSTR, 2, 0, 8, 8, 0)), "010");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_LLTOSTR, 2, 0, 5, 2, 0)), "101");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_LLTOSTR, 2, 0, (uint64_t)-1, 16,
	    0)), "0xffffffffffffffff");
	ck_assert_uint_eq(t_call(DIF_SUBR_LLTOSTR, 2, 0, 5, 1, 0), 0);
	t_fault(DTRACEFLT_ILLOP);
	t_call(DIF_SUBR_LLTOSTR, 2, 0, 5, 37, 0);
	t_fault(DTRACEFLT_ILLOP);
}
END_TEST

struct t_s2 {
	const char	*ts_in, *ts_want;
};

static const struct t_s2 t_basenames[] = {
	{ "/usr/lib/libc.so", "libc.so" }, { "/usr/lib/", "lib" },
	{ "/", "/" }, { "foo", "foo" }, { "", "." }, { "//a//b//", "b" },
	{ "///", "/" },
};

static const struct t_s2 t_dirnames[] = {
	{ "/usr/lib/libc.so", "/usr/lib" }, { "/usr/lib/", "/usr" },
	{ "/", "/" }, { "foo", "." }, { "/foo", "/" }, { "", "." },
	{ "//a//b//", "//a" }, { "a/b", "a" },
};

static const struct t_s2 t_cleanpaths[] = {
	{ "/a/./b//c/../d", "/a/b/d" }, { "/../x", "/x" }, { "/a/..", "/" },
	{ "/a/b/", "/a/b/" }, { "//", "/" },
	{ "/a/.hidden/..x", "/a/.hidden/..x" }, { "/a/b/.", "/a/b/." },
	{ "/a/b/..", "/a/" }, { "/a/b/../", "/a/" }, { "a/..", "a" },
	{ "/..", "/" }, { "a/../b", "/b" },
};

START_TEST(test_basename_dirname_cleanpath)
{
	uint32_t i;

	for (i = 0; i < N(t_basenames); i++)
		ck_assert_str_eq(STR1(DIF_SUBR_BASENAME, t_basenames[i].ts_in),
		    t_basenames[i].ts_want);
	for (i = 0; i < N(t_dirnames); i++)
		ck_assert_str_eq(STR1(DIF_SUBR_DIRNAME, t_dirnames[i].ts_in),
		    t_dirnames[i].ts_want);
	for (i = 0; i < N(t_cleanpaths); i++)
		ck_assert_str_eq(STR1(DIF_SUBR_CLEANPATH,
		    t_cleanpaths[i].ts_in), t_cleanpaths[i].ts_want);
}
END_TEST

START_TEST(test_strchr_strrchr_strstr)
{
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRCHR, 2, 1, S("hello"), 'l',
	    0)), "llo");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRRCHR, 2, 1, S("hello"), 'l',
	    0)), "lo");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRCHR, 2, 1, S("hello"), 'z',
	    0)), "(null)");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRCHR, 2, 1, S("hello"), 0,
	    0)), "");
	ck_assert_str_eq(STR2(DIF_SUBR_STRSTR, "hello world", "o w"),
	    "o world");
	ck_assert_str_eq(STR2(DIF_SUBR_STRSTR, "hello", "lo!"), "(null)");
	ck_assert_str_eq(STR2(DIF_SUBR_STRSTR, "hello", ""), "hello");
}
END_TEST

/*
 * The continuation is a copy in the caller's struct dif_strtok, so it
 * survives scratch being reset (a later clause of the same firing) even
 * when the first string came from a STRTAB or from traced memory that is
 * no longer readable; a new firing resets it.
 */
START_TEST(test_strtok_continues_within_firing)
{
	uint64_t d = S(",;");

	t_keep_scratch = 0;
	t_ms.dm_scratch_used = 0;

	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 3, S(",a,b;;c"), d,
	    0)), "a");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 2, 0, d, 0)), "b");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 2, 0, d, 0)), "c");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 2, 0, d, 0)),
	    "(null)");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 2, 0, d, 0)),
	    "(null)");
	strcpy(t_kmem, "x y");
	kc_env_add_readable(t_kmem, 4);
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 3, (uintptr_t)t_kmem,
	    S(" "), 0)), "x");
	kc_env_clear_readable();
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 2, 0, S(" "), 0)),
	    "y");
	/* a new firing resets the continuation: nothing to continue */
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 3, S("p q"), S(" "),
	    0)), "p");
	dif_strtok_reset(&t_tok);
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 2, 0, d, 0)),
	    "(null)");
	/* without a caller's buffer strtok(s) works, strtok(NULL) is NULL */
	t_ms.dm_strtok = NULL;
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 3, S("p q"), S(" "),
	    0)), "p");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_STRTOK, 2, 2, 0, S(" "), 0)),
	    "(null)");
}
END_TEST

struct t_sub {
	int64_t		tu_idx, tu_len;	/* tu_len INT64_MAX: 2 args */
	const char	*tu_want;
};

static const struct t_sub t_subs[] = {
	{ 1, INT64_MAX, "ello" }, { 1, 3, "ell" }, { -3, INT64_MAX, "llo" },
	{ -10, 7, "he" }, { 10, INT64_MAX, "" }, { 1, -1, "ell" },
	{ 0, 0, "" }, { 2, 100, "llo" }, { -10, 2, "" }, { 5, 1, "" },
	{ -10, INT64_MAX, "hello" }, { -10, -1, "" }, { -2, -1, "l" },
};

START_TEST(test_substr_table)
{
	const struct t_sub *t = &t_subs[_i];
	uint64_t v;

	if (t->tu_len == INT64_MAX)
		v = t_call(DIF_SUBR_SUBSTR, 2, 1, S("hello"),
		    (uint64_t)t->tu_idx, 0);
	else
		v = t_call(DIF_SUBR_SUBSTR, 3, 1, S("hello"),
		    (uint64_t)t->tu_idx, (uint64_t)t->tu_len);
	ck_assert_msg(strcmp(t_s(v), t->tu_want) == 0,
	    "substr(\"hello\", %lld, %lld) = \"%s\", want \"%s\"",
	    (long long)t->tu_idx, (long long)t->tu_len, t_s(v), t->tu_want);
}
END_TEST

START_TEST(test_index_rindex)
{
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_INDEX, 2, 3, S("hello"),
	    S("l"), 0), 2);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_RINDEX, 2, 3, S("hello"),
	    S("l"), 0), 3);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_INDEX, 3, 3, S("hello"),
	    S("l"), 3), 3);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_RINDEX, 3, 3, S("hello"),
	    S("l"), 2), 2);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_INDEX, 2, 3, S("hello"),
	    S("z"), 0), -1);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_INDEX, 3, 3, S("hello"),
	    S("h"), 9), -1);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_RINDEX, 3, 3, S("hello"),
	    S("h"), (uint64_t)-1), -1);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_INDEX, 3, 3, S("hello"),
	    S(""), 2), 2);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_INDEX, 2, 3, S("hello"),
	    S("hello!"), 0), -1);
	/* Perl's rules for empty substrings and far positions */
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_INDEX, 3, 3, S("hello"),
	    S(""), 9), 5);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_RINDEX, 3, 3, S("hello"),
	    S(""), (uint64_t)-1), 0);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_RINDEX, 2, 3, S("hello"),
	    S(""), 0), 5);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_INDEX, 3, 3, S(""), S(""),
	    7), 0);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_RINDEX, 3, 3, S("hello"),
	    S("lo"), 99), 3);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_INDEX, 3, 3, S("hello"),
	    S("he"), (uint64_t)-4), 0);
	t_nofault();
}
END_TEST

START_TEST(test_toupper_tolower_strtoll)
{
	ck_assert_str_eq(STR1(DIF_SUBR_TOUPPER, "Hello, World 1"),
	    "HELLO, WORLD 1");
	ck_assert_str_eq(STR1(DIF_SUBR_TOLOWER, "Hello, World 1"),
	    "hello, world 1");
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_STRTOLL, 1, 1, S("123"), 0,
	    0), 123);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_STRTOLL, 1, 1, S(" -42x"),
	    0, 0), -42);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_STRTOLL, 2, 1, S("ff"), 16,
	    0), 255);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_STRTOLL, 2, 1, S("0x1F"),
	    16, 0), 31);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_STRTOLL, 2, 1, S("\t77"), 8,
	    0), 63);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_STRTOLL, 2, 1, S("z"), 36,
	    0), 35);
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_STRTOLL, 2, 1, S("0xg"), 16,
	    0), 0);		/* "0x" without a hex digit: just the 0 */
	ck_assert_int_eq((int64_t)t_call(DIF_SUBR_STRTOLL, 1, 1, S("\n5"), 0,
	    0), 0);		/* only blanks and tabs are skipped */
	t_nofault();
	t_call(DIF_SUBR_STRTOLL, 2, 1, S("1"), 1, 0);
	t_fault(DTRACEFLT_ILLOP);
}
END_TEST

START_TEST(test_byte_order_and_devices)
{
	ck_assert_uint_eq(t_call(DIF_SUBR_HTONS, 1, 0, 0x1234, 0, 0), 0x3412);
	ck_assert_uint_eq(t_call(DIF_SUBR_NTOHS, 1, 0, 0xab1234, 0, 0),
	    0x3412);
	ck_assert_uint_eq(t_call(DIF_SUBR_HTONL, 1, 0, 0x12345678, 0, 0),
	    0x78563412);
	ck_assert_uint_eq(t_call(DIF_SUBR_NTOHL, 1, 0, 0x12345678, 0, 0),
	    0x78563412);
	ck_assert_uint_eq(t_call(DIF_SUBR_HTONLL, 1, 0, 0x0102030405060708ull,
	    0, 0), 0x0807060504030201ull);
	ck_assert_uint_eq(t_call(DIF_SUBR_NTOHLL, 1, 0, 0x0102030405060708ull,
	    0, 0), 0x0807060504030201ull);
	ck_assert_uint_eq(t_call(DIF_SUBR_GETMAJOR, 1, 0, (8u << 20) | 17, 0,
	    0), 8);
	ck_assert_uint_eq(t_call(DIF_SUBR_GETMINOR, 1, 0, (8u << 20) | 17, 0,
	    0), 17);
	t_nofault();
}
END_TEST

/* inet_ntoa6 of 16 bytes given as 8 big-endian groups. */
static const char *
t_ntoa6(const uint16_t *g)
{
	uint8_t *a = (uint8_t *)t_kmem;
	int i;

	for (i = 0; i < 8; i++) {
		a[2 * i] = (uint8_t)(g[i] >> 8);
		a[2 * i + 1] = (uint8_t)g[i];
	}
	return t_s(t_call(DIF_SUBR_INET_NTOA6, 1, 0, (uintptr_t)a, 0, 0));
}

START_TEST(test_inet_addresses)
{
	static const uint16_t lo[8] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	static const uint16_t ll[8] = { 0xfe80, 0, 0, 0, 0, 0, 0, 1 };
	static const uint16_t v4m[8] = { 0, 0, 0, 0, 0, 0xffff, 0x0102,
	    0x0304 };
	static const uint16_t v4c[8] = { 0, 0, 0, 0, 0, 0, 0x0a00, 0x0001 };
	static const uint16_t two[8] = { 0x2001, 0xdb8, 0, 0, 1, 0, 0, 1 };
	static const uint16_t zero[8] = { 0 };
	static const uint16_t full[8] = { 1, 2, 3, 4, 5, 6, 7, 0xabcd };
	static const uint16_t one0[8] = { 1, 0, 3, 4, 5, 6, 7, 8 };
	static const uint8_t v4[4] = { 192, 168, 1, 20 };

	kc_env_add_readable(t_kmem, sizeof (t_kmem));
	ck_assert_str_eq(t_ntoa6(lo), "::1");
	ck_assert_str_eq(t_ntoa6(ll), "fe80::1");
	/* inet_ntoa6 gives only the quad of an embedded IPv4 address */
	ck_assert_str_eq(t_ntoa6(v4m), "1.2.3.4");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_INET_NTOP, 2, 0, 10,
	    (uintptr_t)t_kmem, 0)), "::ffff:1.2.3.4");
	ck_assert_str_eq(t_ntoa6(v4c), "10.0.0.1");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_INET_NTOP, 2, 0, 26,
	    (uintptr_t)t_kmem, 0)), "::10.0.0.1");
	ck_assert_str_eq(t_ntoa6(two), "2001:db8::1:0:0:1");
	ck_assert_str_eq(t_ntoa6(zero), "::");
	ck_assert_str_eq(t_ntoa6(full), "1:2:3:4:5:6:7:abcd");
	ck_assert_str_eq(t_ntoa6(one0), "1::3:4:5:6:7:8");	/* one group */
	memcpy(t_kmem, v4, 4);
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_INET_NTOA, 1, 0,
	    (uintptr_t)t_kmem, 0, 0)), "192.168.1.20");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_INET_NTOP, 2, 0, 2,
	    (uintptr_t)t_kmem, 0)), "192.168.1.20");
	t_ntoa6(ll);	/* leaves fe80::1 in t_kmem */
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_INET_NTOP, 2, 0, 10,
	    (uintptr_t)t_kmem, 0)), "fe80::1");
	t_call(DIF_SUBR_INET_NTOP, 2, 0, 99, (uintptr_t)t_kmem, 0);
	t_fault(DTRACEFLT_ILLOP);
	t_call(DIF_SUBR_INET_NTOA, 1, 0, 16, 0, 0);
	t_fault(DTRACEFLT_BADADDR);
	ck_assert_uint_eq(t_ms.dm_fault_addr, 16);
}
END_TEST

START_TEST(test_alloca_bcopy)
{
	uint32_t text[] = { (uint32_t)DIF_OP_FLUSHTS << 24,
	    DIF_INSTR_SETX(0, 1), DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, 0, 0, 1),
	    DIF_INSTR_CALL(DIF_SUBR_ALLOCA, 3),		/* r3 = alloca(16) */
	    (uint32_t)DIF_OP_FLUSHTS << 24,
	    DIF_INSTR_SETX(1, 1), DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, 0, 0, 1),
	    DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, 0, 0, 3),
	    DIF_INSTR_SETX(2, 1), DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, 0, 0, 1),
	    DIF_INSTR_CALL(DIF_SUBR_BCOPY, 2),		/* bcopy(s, r3, 6) */
	    DIF_INSTR_RET(3) };
	uint64_t v;

	t_call(DIF_SUBR_ALLOCA, 1, 0, 24, 0, 0);
	t_nofault();
	ck_assert_uint_eq(t_ms.dm_scratch_used, 24);
	t_call(DIF_SUBR_ALLOCA, 1, 0, sizeof (t_scratch) + 1, 0, 0);
	t_fault(DTRACEFLT_NOSCRATCH);
	/* the object built by t_call is replaced by this two-call one */
	t_int[0] = 16;
	t_int[1] = S("bcopy");
	t_int[2] = 6;
	t_difo.do_text = text;
	t_difo.do_textlen = N(text);
	ck_assert_int_eq(dif_validate(&t_difo, NULL), 0);
	t_ms.dm_scratch_used = 0;
	v = dif_emulate(&t_difo, &t_ms, &t_ctx);
	t_nofault();
	ck_assert_str_eq((const char *)(uintptr_t)v, "bcopy");
	/* destination outside scratch */
	t_call(DIF_SUBR_BCOPY, 3, 0, S("x"), (uintptr_t)t_kmem, 1);
	t_fault(DTRACEFLT_BADADDR);
	ck_assert_uint_eq(t_ms.dm_fault_addr, (uintptr_t)t_kmem);
}
END_TEST

START_TEST(test_copyin_copyinstr)
{
	uint64_t v;

	strcpy(t_kmem, "user string");
	kc_env_add_readable(t_kmem, 12);
	v = t_call(DIF_SUBR_COPYIN, 2, 0, (uintptr_t)t_kmem, 4, 0);
	t_nofault();
	ck_assert_int_eq(memcmp((void *)(uintptr_t)v, "user", 4), 0);
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_COPYINSTR, 1, 0,
	    (uintptr_t)t_kmem, 0, 0)), "user string");
	ck_assert_str_eq(t_s(t_call(DIF_SUBR_COPYINSTR, 2, 0,
	    (uintptr_t)t_kmem, 3, 0)), "use");
	t_call(DIF_SUBR_COPYIN, 2, 0, (uintptr_t)t_kmem + 8, 8, 0);
	t_fault(DTRACEFLT_BADADDR);
	t_call(DIF_SUBR_COPYINSTR, 1, 0, 4096, 0, 0);
	t_fault(DTRACEFLT_BADADDR);
	ck_assert_uint_eq(t_ms.dm_fault_addr, 4096);
	t_call(DIF_SUBR_COPYIN, 2, 0, (uintptr_t)t_kmem, 4096, 0);
	t_fault(DTRACEFLT_NOSCRATCH);
}
END_TEST

START_TEST(test_copyinto_needs_scratch)
{
	uint32_t text[] = { (uint32_t)DIF_OP_FLUSHTS << 24,
	    DIF_INSTR_SETX(1, 1), DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, 0, 0, 1),
	    DIF_INSTR_CALL(DIF_SUBR_ALLOCA, 3),		/* r3 = alloca(4) */
	    (uint32_t)DIF_OP_FLUSHTS << 24,
	    DIF_INSTR_SETX(0, 1), DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, 0, 0, 1),
	    DIF_INSTR_SETX(1, 1), DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, 0, 0, 1),
	    DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, 0, 0, 3),
	    DIF_INSTR_CALL(DIF_SUBR_COPYINTO, 2),	/* copyinto(k, 4, r3) */
	    DIF_INSTR_RET(3) };
	uint64_t v;

	strcpy(t_kmem, "abc");
	kc_env_add_readable(t_kmem, 4);
	t_call(DIF_SUBR_RAND, 0, 0, 0, 0, 0);	/* sets up t_difo */
	t_int[0] = (uintptr_t)t_kmem;
	t_int[1] = 4;
	t_difo.do_text = text;
	t_difo.do_textlen = N(text);
	ck_assert_int_eq(dif_validate(&t_difo, NULL), 0);
	t_ms.dm_scratch_used = 0;
	v = dif_emulate(&t_difo, &t_ms, &t_ctx);
	t_nofault();
	ck_assert_str_eq((const char *)(uintptr_t)v, "abc");
	t_call(DIF_SUBR_COPYINTO, 3, 0, (uintptr_t)t_kmem, 4,
	    (uintptr_t)t_str);
	t_fault(DTRACEFLT_BADADDR);
	ck_assert_uint_eq(t_ms.dm_fault_addr, (uintptr_t)t_str);
}
END_TEST

START_TEST(test_copyout_destructive_only)
{
	char dst[8];

	memset(dst, 'Z', sizeof (dst));
	t_call(DIF_SUBR_COPYOUTSTR, 3, 1, S("out"), (uintptr_t)dst, 8);
	t_fault(DTRACEFLT_ILLOP);
	ck_assert_int_eq(dst[0], 'Z');
	t_ms.dm_destructive = 1;
	t_call(DIF_SUBR_COPYOUTSTR, 3, 1, S("out"), (uintptr_t)dst, 8);
	t_fault(DTRACEFLT_BADADDR);	/* not registered writable */
	kc_env_add_writable(dst, sizeof (dst));
	t_call(DIF_SUBR_COPYOUTSTR, 3, 1, S("out"), (uintptr_t)dst, 8);
	t_nofault();
	ck_assert_str_eq(dst, "out");
	ck_assert_int_eq(dst[4], 'Z');
	t_call(DIF_SUBR_COPYOUT, 3, 0, S("XY"), (uintptr_t)dst + 4, 2);
	t_nofault();
	ck_assert_int_eq(memcmp(dst, "out\0XYZ", 7), 0);
	t_call(DIF_SUBR_COPYOUT, 3, 0, S("XY"), (uintptr_t)dst + 7, 2);
	t_fault(DTRACEFLT_BADADDR);
	ck_assert_uint_eq(dif_destructive(&t_difo), 1);
}
END_TEST

static uint32_t t_spec_calls;

static uint32_t
t_spec_hook(void *arg)
{
	t_spec_calls++;
	return *(uint32_t *)arg;
}

START_TEST(test_speculation_hook_progenyof_rand)
{
	uint32_t id = 3;
	uint64_t a, b;

	ck_assert_uint_eq(t_call(DIF_SUBR_SPECULATION, 0, 0, 0, 0, 0), 0);
	t_ms.dm_speculation = t_spec_hook;
	t_ms.dm_spec_arg = &id;
	ck_assert_uint_eq(t_call(DIF_SUBR_SPECULATION, 0, 0, 0, 0, 0), 3);
	ck_assert_uint_eq(t_spec_calls, 1);
	ck_assert_uint_eq(t_call(DIF_SUBR_PROGENYOF, 1, 0, getpid(), 0, 0),
	    1);
	ck_assert_uint_eq(t_call(DIF_SUBR_PROGENYOF, 1, 0, 0x7ffffffe, 0, 0),
	    0);
	a = t_call(DIF_SUBR_RAND, 0, 0, 0, 0, 0);
	b = t_call(DIF_SUBR_RAND, 0, 0, 0, 0, 0);
	t_nofault();
	ck_assert_uint_ne(a, b);
	ck_assert_uint_le(a, 0x7fffffff);
	ck_assert_uint_eq(dif_destructive(&t_difo), 0);
}
END_TEST

START_TEST(test_argument_count_checked)
{
	t_call(DIF_SUBR_STRJOIN, 1, 1, S("a"), 0, 0);
	t_fault(DTRACEFLT_ILLOP);
	ck_assert_uint_eq(t_ms.dm_fault_addr, DIF_SUBR_STRJOIN);
	t_call(DIF_SUBR_RAND, 1, 0, 1, 0, 0);
	t_fault(DTRACEFLT_ILLOP);
}
END_TEST

START_TEST(test_validator_names_missing_subroutines)
{
	uint32_t text[] = { DIF_INSTR_CALL(DIF_SUBR_MUTEX_OWNED, 1),
	    DIF_INSTR_RET(1) };
	struct kdt_err err;

	memset(&t_difo, 0, sizeof (t_difo));
	t_difo.do_text = text;
	t_difo.do_textlen = N(text);
	t_difo.do_rtype.dtdt_size = 8;
	ck_assert_int_eq(dif_validate(&t_difo, &err), -EINVAL);
	ck_assert_str_eq(err.ke_tag, "DIF_SUBR");
	ck_assert_ptr_nonnull(strstr(err.ke_msg, "mutex_owned"));
	text[0] = DIF_INSTR_CALL(DIF_SUBR_GETF, 1);
	ck_assert_int_eq(dif_validate(&t_difo, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.ke_msg, "getf"));
	text[0] = DIF_INSTR_CALL(DIF_SUBR_JSON, 1);	/* implemented */
	ck_assert_int_eq(dif_validate(&t_difo, &err), 0);
	ck_assert_str_eq(dif_subr_name(DIF_SUBR_INET_NTOA6), "inet_ntoa6");
	ck_assert_str_eq(dif_subr_name(DIF_SUBR_JSON), "json");
}
END_TEST

static Suite *
dif_subr_suite(void)
{
	Suite *s = suite_create("dif_subr");
	TCase *tc = tcase_create("subr");

	tcase_add_checked_fixture(tc, t_setup, t_teardown);
	tcase_add_test(tc, test_strjoin_and_truncation);
	tcase_add_test(tc, test_strjoin_traced_string_and_bad_address);
	tcase_add_test(tc, test_string_result_out_of_scratch);
	tcase_add_test(tc, test_lltostr_bases);
	tcase_add_test(tc, test_basename_dirname_cleanpath);
	tcase_add_test(tc, test_strchr_strrchr_strstr);
	tcase_add_test(tc, test_strtok_continues_within_firing);
	tcase_add_loop_test(tc, test_substr_table, 0, N(t_subs));
	tcase_add_test(tc, test_index_rindex);
	tcase_add_test(tc, test_toupper_tolower_strtoll);
	tcase_add_test(tc, test_byte_order_and_devices);
	tcase_add_test(tc, test_inet_addresses);
	tcase_add_test(tc, test_alloca_bcopy);
	tcase_add_test(tc, test_copyin_copyinstr);
	tcase_add_test(tc, test_copyinto_needs_scratch);
	tcase_add_test(tc, test_copyout_destructive_only);
	tcase_add_test(tc, test_speculation_hook_progenyof_rand);
	tcase_add_test(tc, test_argument_count_checked);
	tcase_add_test(tc, test_validator_names_missing_subroutines);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(dif_subr_suite)
