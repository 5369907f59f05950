/*
 * test_fmt.c -- unit tests of the formatter (consumer/kc_fmt.c) and the
 * kernel symbol tables (consumer/kc_sym.c).
 *
 * Every expectation is an exact string.  Where dtrace hands a conversion
 * to the C library (integers, floats, %s padding) the expected text was
 * worked out with C's printf; where dtrace does its own thing (the byte
 * rule, hex dumps, %S escapes, %a symbols, stacks, %Y, drop and error
 * wording, the zero-width/precision and "-0" quirks) it is spelled out
 * from reference sections 2.6, 5.1, 5.2 and 5.5 and kc_fmt.h.  Times are
 * printed with TZ=UTC.  Symbols come from a fake table built here, or
 * from the kallsyms fixtures in tests/unit/fixtures/fmt/.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kt_check.h"
#include "dif.h"
#include "dof.h"
#include "consumer/kc_fmt.h"
#include "consumer/kc_sym.h"

#define T_FIXDIR	"tests/unit/fixtures/fmt/"
#define T_OUTSZ		4096

/* Storage for the values of one test call. */
static uint8_t t_pool[64][32];
static uint32_t t_npool;

/* An integer recorded in "size" bytes (native order). */
static struct kc_val
t_int(int64_t v, uint32_t size)
{
	uint8_t *p = t_pool[t_npool++ % 64];
	struct kc_val kv = { p, size, 0 };
	int8_t i8 = (int8_t)v;
	int16_t i16 = (int16_t)v;
	int32_t i32 = (int32_t)v;

	memset(p, 0, 32);
	if (size == 1)
		memcpy(p, &i8, 1);
	else if (size == 2)
		memcpy(p, &i16, 2);
	else if (size == 4)
		memcpy(p, &i32, 4);
	else
		memcpy(p, &v, 8);
	return kv;
}

/* A string record of "size" bytes (NUL-padded). */
static struct kc_val
t_str(const char *s, uint32_t size)
{
	uint8_t *p = t_pool[t_npool++ % 64];
	struct kc_val kv = { p, size, 1 };

	memset(p, 0, 32);
	memcpy(p, s, strlen(s) < size ? strlen(s) : size);
	return kv;
}

static char t_out[T_OUTSZ], t_why[256];

/* printf into t_out; returns kc_fmt_printf's result. */
static int
t_pf(const char *fmt, const struct kc_val *a, uint32_t n)
{
	FILE *f;
	int rv;

	memset(t_out, 0, sizeof (t_out));
	t_why[0] = '\0';
	f = fmemopen(t_out, sizeof (t_out) - 1, "w");
	rv = kc_fmt_printf(f, fmt, a, n, t_why, sizeof (t_why));
	fclose(f);
	return rv;
}

/* One integer argument; asserts it was consumed; returns t_out. */
static const char *
t_pf1(const char *fmt, int64_t v, uint32_t size)
{
	struct kc_val a = t_int(v, size);

	ck_assert_msg(t_pf(fmt, &a, 1) == 1, "%s: %s", fmt, t_why);
	return t_out;
}

/* One string argument. */
static const char *
t_pfs(const char *fmt, const char *s, uint32_t size)
{
	struct kc_val a = t_str(s, size);

	ck_assert_msg(t_pf(fmt, &a, 1) == 1, "%s: %s", fmt, t_why);
	return t_out;
}

/* A stream over t_out for the non-printf entry points. */
static FILE *
t_open(void)
{
	memset(t_out, 0, sizeof (t_out));
	return fmemopen(t_out, sizeof (t_out) - 1, "w");
}

/* ---- parsing ---- */

START_TEST(test_parse_spec_fields)
{
	struct kc_spec s;
	const char *f = "-+ #0'12.5lld rest";

	ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why, sizeof (t_why)), 0);
	ck_assert_str_eq(f, " rest");
	ck_assert_uint_eq(s.ks_flags, KC_SF_PLUS | KC_SF_SPACE | KC_SF_ALT |
	    KC_SF_ZERO | KC_SF_GROUP);	/* '0' after '-' clears LEFT */
	ck_assert_int_eq(s.ks_width, 12);
	ck_assert_int_eq(s.ks_prec, 5);
	ck_assert(s.ks_has_width && s.ks_has_prec);
	ck_assert_uint_eq(s.ks_len, KC_LEN_LL);
	ck_assert_int_eq(s.ks_conv, 'd');
	ck_assert_str_eq(s.ks_text, "%-+ #0'12.5lld");

	f = "*.*x";
	ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why, sizeof (t_why)), 0);
	ck_assert(s.ks_star_width && s.ks_star_prec && !s.ks_has_width);
	f = "@-8u";
	ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why, sizeof (t_why)), 0);
	ck_assert(s.ks_agg && s.ks_width == 8 && s.ks_flags == KC_SF_LEFT);
	f = "?p";
	ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why, sizeof (t_why)), 0);
	ck_assert(s.ks_has_width && s.ks_width == 16 && s.ks_conv == 'p');
	f = "hhu";
	ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why, sizeof (t_why)), 0);
	ck_assert_uint_eq(s.ks_len, KC_LEN_HH);
	f = "ws";
	ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why, sizeof (t_why)), 0);
	ck_assert_uint_eq(s.ks_len, KC_LEN_W);
	/* Zero width and precision count as not given (dtrace). */
	f = "0.0d";
	ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why, sizeof (t_why)), 0);
	ck_assert(!s.ks_has_width && !s.ks_has_prec);
}
END_TEST

START_TEST(test_parse_spec_errors)
{
	static const struct { const char *in, *why; } bad[] = {
		{ "", "format conversion \"%\": name expected before end of format string" },
		{ "5", "format conversion \"%5\": name expected before end of format string" },
		{ "1$d", "format conversion \"%1$\": positional conversions (%n$) are not supported" },
		{ "1.2.3d", "format conversion \"%1.2.\": more than one '.'" },
		{ "**d", "format conversion \"%**\": more than one '*' for the same field" },
		{ "-%", "format conversion \"%-%\": %% cannot be combined with other format flags" },
		{ "q", "format conversion \"%q\": is undefined" },
		{ "hs", "format conversion \"%hs\": size prefix is not valid with this conversion" },
		{ "lhd", "format conversion \"%lhd\": size prefix is not valid" },
	};
	struct kc_spec s;
	const char *f;
	size_t i;

	for (i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
		f = bad[i].in;
		ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why,
		    sizeof (t_why)), -1);
		ck_assert_str_eq(t_why, bad[i].why);
	}
}
END_TEST

/* ---- integers ---- */

START_TEST(test_int_sizes_and_signedness)
{
	ck_assert_str_eq(t_pf1("%d", -1, 4), "-1");
	ck_assert_str_eq(t_pf1("%u", -1, 4), "4294967295");
	ck_assert_str_eq(t_pf1("%d", -2, 1), "-2");
	ck_assert_str_eq(t_pf1("%u", -2, 1), "254");
	ck_assert_str_eq(t_pf1("%i", -1, 2), "-1");
	ck_assert_str_eq(t_pf1("%x", -1, 2), "ffff");
	ck_assert_str_eq(t_pf1("%d", INT64_MIN, 8), "-9223372036854775808");
	ck_assert_str_eq(t_pf1("%u", -1, 8), "18446744073709551615");
	ck_assert_str_eq(t_pf1("%o", -1, 8), "1777777777777777777777");
	ck_assert_str_eq(t_pf1("%X", 0xabcdef, 8), "ABCDEF");
	/* Size prefixes as written do not widen; h and hh narrow. */
	ck_assert_str_eq(t_pf1("%lld", -5, 4), "-5");
	ck_assert_str_eq(t_pf1("%ld", 7, 8), "7");
	ck_assert_str_eq(t_pf1("%hhd", 0x1ff, 8), "-1");
	ck_assert_str_eq(t_pf1("%hu", -1, 8), "65535");
	ck_assert_str_eq(t_pf1("%hhx", 0x1234, 8), "34");
	ck_assert_str_eq(t_pf1("%hd", 0x18000, 8), "-32768");
}
END_TEST

START_TEST(test_int_flags_width_precision)
{
	ck_assert_str_eq(t_pf1("[%#o]", 8, 8), "[010]");
	ck_assert_str_eq(t_pf1("[%#x]", 255, 8), "[0xff]");
	ck_assert_str_eq(t_pf1("[%#X]", 255, 8), "[0XFF]");
	ck_assert_str_eq(t_pf1("[% d]", 42, 8), "[ 42]");
	ck_assert_str_eq(t_pf1("[%+d]", 42, 4), "[+42]");
	ck_assert_str_eq(t_pf1("[%8.3d]", 7, 8), "[     007]");
	ck_assert_str_eq(t_pf1("[%-8.3d]", 7, 8), "[007     ]");
	ck_assert_str_eq(t_pf1("[%+.3lld]", -7, 8), "[-007]");
	ck_assert_str_eq(t_pf1("[%08d]", -42, 8), "[-0000042]");
	ck_assert_str_eq(t_pf1("[%-8d]", -42, 8), "[-42     ]");
	ck_assert_str_eq(t_pf1("[%0-8d]", 42, 8), "[42      ]");
	ck_assert_str_eq(t_pf1("[%+ d]", 5, 8), "[+5]");
	ck_assert_str_eq(t_pf1("[%#08x]", 255, 8), "[0x0000ff]");
	ck_assert_str_eq(t_pf1("[%1d]", 12345, 8), "[12345]");
}
END_TEST

/* Flag, width and precision combinations against the C library. */
START_TEST(test_int_matrix_matches_c)
{
	static const char *const flags[] = { "", "-", "+", " ", "#", "0",
	    "0-", "+ ", "-#", "#0" };
	static const char *const widths[] = { "", "1", "7", "21" };
	static const char *const precs[] = { "", ".1", ".4", ".25" };
	static const char convs[] = "diouxX";
	static const int64_t vals[] = { 0, 1, -1, 42, -4096,
	    INT64_MAX, INT64_MIN };
	char fmt[32], cfmt[32], want[128];
	size_t f, w, p, c, v, n = 0;

	for (f = 0; f < 10; f++)
	for (w = 0; w < 4; w++)
	for (p = 0; p < 4; p++)
	for (c = 0; c < 6; c++)
	for (v = 0; v < 7; v++) {
		snprintf(fmt, sizeof (fmt), "%%%s%s%s%c", flags[f],
		    widths[w], precs[p], convs[c]);
		snprintf(cfmt, sizeof (cfmt), "%%%s%s%sll%c", flags[f],
		    widths[w], precs[p], convs[c]);
		snprintf(want, sizeof (want), cfmt, (long long)vals[v]);
		ck_assert_msg(strcmp(t_pf1(fmt, vals[v], 8), want) == 0,
		    "%s of %lld: got \"%s\" want \"%s\"", fmt,
		    (long long)vals[v], t_out, want);
		n++;
	}
	ck_assert_uint_eq(n, 6720);
}
END_TEST

START_TEST(test_dtrace_quirks)
{
	/* A zero precision is not given: 0 prints "0", strings in full. */
	ck_assert_str_eq(t_pf1("[%.0d]", 0, 8), "[0]");
	ck_assert_str_eq(t_pfs("[%.0s]", "abc", 8), "[abc]");
	/* '0' after '-' turns left-justification off again. */
	ck_assert_str_eq(t_pf1("[%-05d]", 42, 8), "[00042]");
	/* %p is %llx, no 0x unless '#'; '?' is the 16-column width. */
	ck_assert_str_eq(t_pf1("%p", (int64_t)0xffffffff81000000ULL, 8),
	    "ffffffff81000000");
	ck_assert_str_eq(t_pf1("%#p", (int64_t)0xffffffff81000000ULL, 8),
	    "0xffffffff81000000");
	ck_assert_str_eq(t_pf1("[%?p]", 0x1234, 8), "[            1234]");
	ck_assert_str_eq(t_pf1("[%-?p]", 0x1234, 4), "[1234            ]");
}
END_TEST

START_TEST(test_star_width_and_precision)
{
	struct kc_val a[3];

	a[0] = t_int(-6, 4);
	a[1] = t_int(42, 8);
	ck_assert_int_eq(t_pf("[%*d]", a, 2), 2);
	ck_assert_str_eq(t_out, "[42    ]");
	a[0] = t_int(6, 8);
	a[1] = t_int(3, 8);
	a[2] = t_int(7, 8);
	ck_assert_int_eq(t_pf("[%*.*d]", a, 3), 3);
	ck_assert_str_eq(t_out, "[   007]");
	a[1] = t_int(-3, 8);	/* a negative precision is none */
	ck_assert_int_eq(t_pf("[%*.*d]", a, 3), 3);
	ck_assert_str_eq(t_out, "[     7]");
	ck_assert_int_eq(t_pf("[%*d]", a, 1), -1);
	ck_assert_str_eq(t_why, "conversion %*d needs a value as argument 2 but the record holds 1");
	ck_assert_int_eq(t_pf("%.*s", a, 0), -1);
	ck_assert_str_eq(t_why, "conversion %.*s needs a '.*' precision as argument 1 but the record holds 0");
}
END_TEST

/* ---- characters, strings, floats ---- */

START_TEST(test_chars_and_escapes)
{
	ck_assert_str_eq(t_pf1("[%c]", 'A', 8), "[A]");
	ck_assert_str_eq(t_pf1("[%5c]", 'A', 1), "[    A]");
	ck_assert_str_eq(t_pf1("[%-3c]", 'B', 4), "[B  ]");
	ck_assert_str_eq(t_pf1("[%C]", 'A', 1), "[A]");
	ck_assert_str_eq(t_pf1("[%C]", '\n', 1), "[\\n]");
	ck_assert_str_eq(t_pf1("[%C]", '"', 4), "[\\\"]");
	ck_assert_str_eq(t_pf1("[%C]", '\\', 4), "[\\\\]");
	ck_assert_str_eq(t_pf1("[%C]", 0, 1), "[\\0]");
	ck_assert_str_eq(t_pf1("[%C]", 0x80, 1), "[\\200]");
	ck_assert_str_eq(t_pf1("[%C]", 0x1b, 8), "[\\033]");
	ck_assert_str_eq(t_pf1("[%4C]", '\t', 2), "[  \\t]");
	ck_assert_str_eq(t_pf1("[%lc]", 0xe9, 4), "[\xc3\xa9]");
}
END_TEST

START_TEST(test_strings)
{
	ck_assert_str_eq(t_pfs("[%s]", "kworker", 16), "[kworker]");
	ck_assert_str_eq(t_pfs("[%-10s]", "kworker", 16), "[kworker   ]");
	ck_assert_str_eq(t_pfs("[%10s]", "kworker", 16), "[   kworker]");
	ck_assert_str_eq(t_pfs("[%.3s]", "kworker", 16), "[kwo]");
	ck_assert_str_eq(t_pfs("[%-6.2s]", "kworker", 16), "[kw    ]");
	/* A record without a NUL stops at its end. */
	ck_assert_str_eq(t_pfs("[%s]", "abcdefgh", 4), "[abcd]");
	/* %S escapes the whole record, as dtrace: each NUL after the
	   string is a \0 */
	ck_assert_str_eq(t_pfs("[%S]", "a\tb\"c\\", 16),
	    "[a\\tb\\\"c\\\\"
	    "\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0]");
	ck_assert_str_eq(t_pfs("[%S]", "\x01\xff \a\b\f\r\v", 16),
	    "[\\001\\377 \\a\\b\\f\\r\\v\\0\\0\\0\\0\\0\\0\\0\\0]");
	ck_assert_str_eq(t_pfs("[%S]", "abcd", 4), "[abcd]");
	ck_assert_str_eq(t_pfs("[%-8S]", "x\n", 4), "[x\\n\\0\\0 ]");
}
END_TEST

START_TEST(test_wide_strings)
{
	uint32_t w[6] = { 'h', 0xe9, 'l', 0x20ac, 0x1f600, 0 };
	struct kc_val a = { (const uint8_t *)w, sizeof (w), 0 };

	ck_assert_int_eq(t_pf("[%ws]", &a, 1), 1);
	ck_assert_str_eq(t_out, "[h\xc3\xa9l\xe2\x82\xac\xf0\x9f\x98\x80]");
	ck_assert_int_eq(t_pf("[%ls]", &a, 1), 1);
	ck_assert_str_eq(t_out, "[h\xc3\xa9l\xe2\x82\xac\xf0\x9f\x98\x80]");
}
END_TEST

START_TEST(test_floats_promote_integers)
{
	ck_assert_str_eq(t_pf1("[%f]", 3, 8), "[3.000000]");
	ck_assert_str_eq(t_pf1("[%8.3f]", 3, 4), "[   3.000]");
	ck_assert_str_eq(t_pf1("[%-+8.1f]", 5, 8), "[+5.0    ]");
	ck_assert_str_eq(t_pf1("[%.2e]", 12345, 8), "[1.23e+04]");
	ck_assert_str_eq(t_pf1("[%E]", -2, 1), "[-2.000000E+00]");
	ck_assert_str_eq(t_pf1("[%g]", -7, 2), "[-7]");
	ck_assert_str_eq(t_pf1("[%G]", 100000000000000000LL, 8), "[1E+17]");
	ck_assert_str_eq(t_pf1("[%Lf]", 1, 8), "[1.000000]");
}
END_TEST

/* ---- network, time ---- */

START_TEST(test_inet_and_port)
{
	uint8_t v4[4] = { 192, 168, 1, 2 }, v6[16] = { 0xfe, 0x80 };
	struct kc_val a4 = { v4, 4, 0 }, a6 = { v6, 16, 0 };
	uint16_t port = 0x5000;		/* 80 in network order on x86 */
	uint32_t ip;

	ck_assert_int_eq(t_pf("%I", &a4, 1), 1);
	ck_assert_str_eq(t_out, "192.168.1.2");
	ck_assert_int_eq(t_pf("[%-15I]", &a4, 1), 1);
	ck_assert_str_eq(t_out, "[192.168.1.2    ]");
	v6[15] = 1;
	ck_assert_int_eq(t_pf("%I", &a6, 1), 1);
	ck_assert_str_eq(t_out, "fe80::1");
	memcpy(&ip, v4, 4);
	ck_assert_str_eq(t_pf1("%I", ip, 8), "192.168.1.2");
	ck_assert_str_eq(t_pf1("%P", port, 2), "80");
	ck_assert_str_eq(t_pf1("[%5P]", port, 8), "[   80]");
	ck_assert_int_eq(t_pf("%I", &(struct kc_val){ v4, 3, 0 }, 1), -1);
	ck_assert_str_eq(t_why, "conversion %I needs a 4-byte IPv4 or 16-byte IPv6 address but the value has 3 bytes");
}
END_TEST

START_TEST(test_time_conversions)
{
	setenv("TZ", "UTC", 1);
	tzset();
	ck_assert_str_eq(t_pf1("%Y", 1709596800LL * 1000000000LL, 8),
	    "2024 Mar  5 00:00:00");
	ck_assert_str_eq(t_pf1("%Y", 1700000000LL * 1000000000LL + 999, 8),
	    "2023 Nov 14 22:13:20");
	ck_assert_str_eq(t_pf1("%T", 1709596800LL * 1000000000LL, 8),
	    "Tue, 05 Mar 2024 00:00:00 UTC");
	ck_assert_str_eq(t_pf1("[%-22Y]", 0, 8), "[1970 Jan  1 00:00:00  ]");
	ck_assert_str_eq(t_pf1("%Y", 0x7fffffffLL * 1000000000LL, 8),
	    "2038 Jan 19 03:14:07");
	ck_assert_str_eq(t_pf1("[%30T]", 0, 8),
	    "[ Thu, 01 Jan 1970 00:00:00 UTC]");
}
END_TEST

/* ---- symbols ---- */

#define T_DSO	0xffffffff81200000ULL	/* vmlinux`do_sys_open */
#define T_EXT4	0xffffffffc0001000ULL	/* ext4`ext4_fill_super */

static struct kc_symtab *
t_symtab(void)
{
	struct kc_symtab *t = kc_sym_new();

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(kc_sym_add(t, T_DSO, 0x100, "do_sys_open", NULL), 0);
	ck_assert_int_eq(kc_sym_add(t, T_DSO + 0x100, 0x80, "vfs_read",
	    "vmlinux"), 0);
	ck_assert_int_eq(kc_sym_add(t, T_EXT4, 0x400, "ext4_fill_super",
	    "ext4"), 0);
	ck_assert_int_eq(kc_sym_add(t, T_EXT4 + 0x1000, 0x10, "ext4_exit",
	    "ext4"), 0);
	kc_sym_finish(t);
	return t;
}

START_TEST(test_addr_conversions)
{
	struct kc_symtab *t = t_symtab();
	uint64_t ua[2] = { 1234, 0x7f0000001000ULL };
	struct kc_val u = { (const uint8_t *)ua, 16, 0 };

	kc_sym_set_default(t);
	ck_assert_str_eq(t_pf1("%a", (int64_t)T_DSO, 8), "vmlinux`do_sys_open");
	ck_assert_str_eq(t_pf1("%a", (int64_t)T_DSO + 0x1f, 8),
	    "vmlinux`do_sys_open+0x1f");
	ck_assert_str_eq(t_pf1("%a", (int64_t)T_DSO + 0x17f, 8),
	    "vmlinux`vfs_read+0x7f");
	/* Between two symbols of one module, in no symbol. */
	ck_assert_str_eq(t_pf1("%a", (int64_t)T_EXT4 + 0x800, 8),
	    "ext4`0xffffffffc0001800");
	ck_assert_str_eq(t_pf1("%a", 0x1234, 8), "0x1234");
	ck_assert_str_eq(t_pf1("%a", (int64_t)T_DSO + 0x180, 8),
	    "0xffffffff81200180");
	ck_assert_str_eq(t_pf1("[%-24a]", (int64_t)T_DSO, 8),
	    "[vmlinux`do_sys_open     ]");
	ck_assert_str_eq(t_pf1("%a", 0x1234, 4), "0x1234");
	/* %A: no process symbols, the address as dtrace prints it then. */
	ck_assert_str_eq(t_pf1("%A", 0x7f0000001000LL, 8), "0x7f0000001000");
	ck_assert_int_eq(t_pf("[%18A]", &u, 1), 1);
	ck_assert_str_eq(t_out, "[    0x7f0000001000]");
	kc_sym_set_default(NULL);
	ck_assert_str_eq(t_pf1("%a", (int64_t)T_DSO, 8), "0xffffffff81200000");
	kc_sym_free(t);
}
END_TEST

START_TEST(test_printf_stack)
{
	struct kc_symtab *t = t_symtab();
	uint64_t pcs[4] = { T_DSO + 0x10, T_EXT4, 0x42, 0 };
	struct kc_val k = { (const uint8_t *)pcs, sizeof (pcs), 0 };
	struct kc_val a[2] = { t_int(-4, 4), k };

	kc_sym_set_default(t);
	ck_assert_int_eq(t_pf("<%k>", &k, 1), 1);
	ck_assert_str_eq(t_out, "<\nvmlinux`do_sys_open+0x10\n"
	    "ext4`ext4_fill_super\n0x42\n>");
	ck_assert_int_eq(t_pf("%-4k", &k, 1), 1);
	ck_assert_str_eq(t_out, "\n    vmlinux`do_sys_open+0x10\n"
	    "    ext4`ext4_fill_super\n    0x42\n");
	ck_assert_int_eq(t_pf("%6k", &k, 1), 1);
	ck_assert_str_eq(t_out, "\nvmlinux`do_sys_open+0x10\n"
	    "ext4`ext4_fill_super\n  0x42\n");
	ck_assert_int_eq(t_pf("%*k", a, 2), 2);
	ck_assert_str_eq(t_out, "\n    vmlinux`do_sys_open+0x10\n"
	    "    ext4`ext4_fill_super\n    0x42\n");
	kc_sym_set_default(NULL);
	kc_sym_free(t);
}
END_TEST

START_TEST(test_stack_records)
{
	struct kc_symtab *t = t_symtab();
	uint64_t pcs[4] = { T_DSO + 0x10, T_EXT4 + 0x1008, 0x42, 0 };
	uint32_t pc32[3] = { 0x1000, 0x2000, 0 };
	FILE *f = t_open();

	ck_assert_int_eq(kc_fmt_stack(f, t, (const uint8_t *)pcs,
	    sizeof (pcs), 4, KC_STACKINDENT), 0);
	ck_assert_int_eq(kc_fmt_stack(f, NULL, (const uint8_t *)pc32,
	    sizeof (pc32), 3, 2), 0);
	ck_assert_int_eq(kc_fmt_stack(f, t, (const uint8_t *)pcs, 24, 4, 1),
	    -1);
	fclose(f);
	ck_assert_str_eq(t_out,
	    "\n"
	    "              vmlinux`do_sys_open+0x10\n"
	    "              ext4`ext4_exit+0x8\n"
	    "              0x42\n"
	    "\n"
	    "  0x1000\n"
	    "  0x2000\n");
	kc_sym_free(t);
}
END_TEST

START_TEST(test_ustack_records)
{
	uint8_t rec[5 * 8 + 16];
	uint64_t w[5] = { 4242, 0x401000, 0x402000, 0x403000, 0 };
	FILE *f;

	memset(rec, 0, sizeof (rec));
	memcpy(rec, w, sizeof (w));
	memcpy(rec + 40, "@jit\0x\0", 7);	/* frame 1 annotated */
	f = t_open();
	ck_assert_int_eq(kc_fmt_ustack(f, rec, sizeof (rec), 4, 16, 3), 0);
	ck_assert_int_eq(kc_fmt_ustack(f, rec, 40, 4, 16, 3), -1);
	fclose(f);
	ck_assert_str_eq(t_out,
	    "\n"
	    "   0x401000\n"
	    "     [ jit ]\n"
	    "   0x402000\n"
	    "   0x403000\n");
}
END_TEST

START_TEST(test_sym_mod_usym_records)
{
	struct kc_symtab *t = t_symtab();
	uint64_t a = T_DSO + 0x10, ext = T_EXT4 + 0x800, no = 0x99;
	uint64_t u[2] = { 7, 0x401000 };
	struct kc_val va = { (const uint8_t *)&a, 8, 0 };
	struct kc_val ve = { (const uint8_t *)&ext, 8, 0 };
	struct kc_val vn = { (const uint8_t *)&no, 8, 0 };
	struct kc_val vu = { (const uint8_t *)u, 16, 0 };
	FILE *f = t_open();

	ck_assert_int_eq(kc_fmt_sym(f, t, &va), 0);
	fputs("|\n", f);
	ck_assert_int_eq(kc_fmt_sym(f, t, &ve), 0);
	fputs("|\n", f);
	ck_assert_int_eq(kc_fmt_mod(f, t, &va), 0);
	fputs("|\n", f);
	ck_assert_int_eq(kc_fmt_mod(f, t, &vn), 0);
	fputs("|\n", f);
	ck_assert_int_eq(kc_fmt_usym(f, &vu, DTRACEACT_UADDR), 0);
	fputs("|\n", f);
	ck_assert_int_eq(kc_fmt_usym(f, &va, DTRACEACT_UADDR), -1);
	fclose(f);
	ck_assert_str_eq(t_out,
	    "  vmlinux`do_sys_open                               |\n"
	    "  ext4`0xffffffffc0001800                           |\n"
	    "  vmlinux                                           |\n"
	    "  0x99                                              |\n"
	    "  0x401000                                          |\n");
	kc_sym_free(t);
}
END_TEST

START_TEST(test_kallsyms_fixture)
{
	struct kc_symtab *t;
	char buf[128];

	t = kc_sym_load_kallsyms(T_FIXDIR "good-kallsyms.txt", t_why,
	    sizeof (t_why));
	ck_assert_msg(t != NULL, "%s", t_why);
	ck_assert_uint_eq(t->kb_nsyms, 6);
	kc_fmt_addr2str(t, 0xffffffff810001a3ULL, buf, sizeof (buf));
	ck_assert_str_eq(buf, "vmlinux`do_one_initcall+0x23");
	kc_fmt_addr2str(t, 0xffffffffc0002010ULL, buf, sizeof (buf));
	ck_assert_str_eq(buf, "crc7`crc7_be+0x10");
	kc_fmt_addr2str(t, 0xffffffff81000000ULL, buf, sizeof (buf));
	ck_assert_str_eq(buf, "vmlinux`_stext");
	kc_fmt_mod2str(t, 0xffffffffc0004000ULL, buf, sizeof (buf));
	ck_assert_str_eq(buf, "xor");
	kc_fmt_mod2str(t, 0xffffffffc0002fffULL, buf, sizeof (buf));
	ck_assert_str_eq(buf, "crc7");
	kc_fmt_addr2str(t, 0xffffffff81000500ULL, buf, sizeof (buf));
	ck_assert_str_eq(buf, "vmlinux`do_basic_setup+0x100");
	kc_fmt_addr2str(t, 0xffffffff81010400ULL, buf, sizeof (buf));
	ck_assert_str_eq(buf, "0xffffffff81010400");
	/* The last symbol of a module reaches 64 KiB, no further. */
	kc_fmt_addr2str(t, 0xffffffffc0013fffULL, buf, sizeof (buf));
	ck_assert_str_eq(buf, "xor`xor_init+0xffff");
	kc_fmt_addr2str(t, 0xffffffffc0014000ULL, buf, sizeof (buf));
	ck_assert_str_eq(buf, "0xffffffffc0014000");
	kc_sym_free(t);

	ck_assert_ptr_null(kc_sym_load_kallsyms(T_FIXDIR
	    "bad-kallsyms-malformed.txt", t_why, sizeof (t_why)));
	ck_assert_str_eq(t_why, T_FIXDIR "bad-kallsyms-malformed.txt: line 2: not a kallsyms line \"<hex address> <type> <name>\"");
	ck_assert_ptr_null(kc_sym_load_kallsyms(T_FIXDIR
	    "bad-kallsyms-restricted.txt", t_why, sizeof (t_why)));
	ck_assert_str_eq(t_why, T_FIXDIR "bad-kallsyms-restricted.txt: no symbol with a non-zero address in 3 lines (kptr_restrict hides them from this user)");
	ck_assert_ptr_null(kc_sym_load_kallsyms(T_FIXDIR "absent", t_why,
	    sizeof (t_why)));
	ck_assert_str_eq(t_why, T_FIXDIR "absent: cannot open: No such file or directory");
}
END_TEST

START_TEST(test_unsorted_table_lookup)
{
	struct kc_symtab *t = kc_sym_new();
	char buf[64];

	ck_assert_int_eq(kc_sym_add(t, 0x3000, 0, "c", "m"), 0);
	ck_assert_int_eq(kc_sym_add(t, 0x1000, 0, "a", "m"), 0);
	ck_assert_int_eq(kc_sym_add(t, 0x2000, 0, "b", "m"), 0);
	kc_fmt_addr2str(t, 0x2004, buf, sizeof (buf));
	ck_assert_str_eq(buf, "m`b+0x4");
	kc_sym_finish(t);
	kc_fmt_addr2str(t, 0x1fff, buf, sizeof (buf));
	ck_assert_str_eq(buf, "m`a+0xfff");
	kc_fmt_sym2str(t, 0x0fff, buf, sizeof (buf));
	ck_assert_str_eq(buf, "0xfff");
	kc_sym_free(t);
}
END_TEST

/* ---- trace() ---- */

static const char *
t_trace(const struct kc_val *v, uint32_t flags)
{
	FILE *f = t_open();

	kc_fmt_trace_opts(f, v, flags);
	fclose(f);
	return t_out;
}

START_TEST(test_trace_integers_every_size)
{
	struct kc_val v;

	v = t_int(-5, 8);
	ck_assert_str_eq(t_trace(&v, 0), "               -5");
	ck_assert_str_eq(t_trace(&v, KC_FMT_QUIET), "-5");
	v = t_int(INT64_MIN, 8);
	ck_assert_str_eq(t_trace(&v, 0), " -9223372036854775808");
	v = t_int(-1, 4);
	ck_assert_str_eq(t_trace(&v, 0), "       -1");
	ck_assert_str_eq(t_trace(&v, KC_FMT_QUIET), "-1");
	v = t_int(123456789, 4);
	ck_assert_str_eq(t_trace(&v, 0), " 123456789");
	v = t_int(-1, 2);
	ck_assert_str_eq(t_trace(&v, 0), " 65535");
	ck_assert_str_eq(t_trace(&v, KC_FMT_QUIET), "65535");
	v = t_int(-2, 1);
	ck_assert_str_eq(t_trace(&v, 0), " 254");
	ck_assert_str_eq(t_trace(&v, KC_FMT_QUIET), "254");
	v = t_int(7, 1);
	ck_assert_str_eq(t_trace(&v, 0), "   7");
	/* rawbytes does not touch integers. */
	ck_assert_str_eq(t_trace(&v, KC_FMT_RAWBYTES), "   7");
}
END_TEST

#define T_HDR	"\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n"

START_TEST(test_trace_strings_byte_rule)
{
	struct kc_val v;

	v = t_str("hello", 16);
	ck_assert_str_eq(t_trace(&v, 0), "  hello                            ");
	ck_assert_str_eq(t_trace(&v, KC_FMT_QUIET), "hello");
	v = t_str("tab\there", 16);
	ck_assert_str_eq(t_trace(&v, KC_FMT_QUIET), "tab\there");
	/* No NUL at all: printed as characters, quiet or not. */
	v = t_str("abcdef", 6);
	ck_assert_str_eq(t_trace(&v, 0), "  abcdef                           ");
	ck_assert_str_eq(t_trace(&v, KC_FMT_QUIET),
	    "  abcdef                           ");
	/* An empty string is a hex dump, as in dtrace. */
	v = t_str("", 3);
	ck_assert_str_eq(t_trace(&v, 0), T_HDR
	    "         0: 00 00 00                                         ...\n");
	/* rawbytes forces the dump. */
	v = t_str("hi", 3);
	ck_assert_str_eq(t_trace(&v, KC_FMT_RAWBYTES | KC_FMT_QUIET), T_HDR
	    "         0: 68 69 00                                         hi.\n");
}
END_TEST

START_TEST(test_trace_hexdump_rows)
{
	uint8_t b[33];
	struct kc_val v = { b, sizeof (b), 0 };
	uint32_t i;

	for (i = 0; i < sizeof (b); i++)
		b[i] = (uint8_t)(0x70 + i);	/* 'p'..'~', 0x7f, 0x80.. */
	ck_assert_str_eq(t_trace(&v, 0), T_HDR
	    "         0: 70 71 72 73 74 75 76 77 78 79 7a 7b 7c 7d 7e 7f  pqrstuvwxyz{|}~.\n"
	    "        10: 80 81 82 83 84 85 86 87 88 89 8a 8b 8c 8d 8e 8f  ................\n"
	    "        20: 90                                               .\n");
	/* A string followed by garbage is not a string. */
	memset(b, 0, sizeof (b));
	memcpy(b, "ab", 2);
	b[16] = 'z';
	v.kv_size = 17;
	ck_assert_str_eq(t_trace(&v, KC_FMT_QUIET), T_HDR
	    "         0: 61 62 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ab..............\n"
	    "        10: 7a                                               z\n");
	/* Exactly 16 bytes: one full row. */
	memset(b, 0x41, 16);
	b[15] = 0x01;
	v.kv_size = 16;
	ck_assert_str_eq(t_trace(&v, 0), T_HDR
	    "         0: 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 01  AAAAAAAAAAAAAAA.\n");
	/* Nothing recorded: nothing printed. */
	v.kv_size = 0;
	ck_assert_str_eq(t_trace(&v, 0), "");
}
END_TEST

START_TEST(test_tracemem_is_always_a_dump)
{
	struct kc_val v = t_str("abc", 8);
	FILE *f = t_open();

	kc_fmt_tracemem(f, &v, 4);
	fclose(f);
	ck_assert_str_eq(t_out, T_HDR
	    "         0: 61 62 63 00                                      abc.\n");
}
END_TEST

START_TEST(test_trace_legacy_entry)
{
	struct kc_val v = t_int(-1, 2);
	FILE *f = t_open();

	kc_fmt_trace(f, &v, 1);
	kc_fmt_trace(f, &v, 0);
	fclose(f);
	ck_assert_str_eq(t_out, "65535 65535");
}
END_TEST

/* ---- printa's single-conversion API ---- */

START_TEST(test_single_conversion_api)
{
	struct kc_spec s;
	const char *f = "@-10d|";
	struct kc_val v = t_int(1234, 8);
	FILE *o;

	ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why, sizeof (t_why)), 0);
	ck_assert(s.ks_agg);
	o = t_open();
	ck_assert_int_eq(kc_fmt_conv(o, &s, &v, t_why, sizeof (t_why)), 0);
	f = "*d";
	ck_assert_int_eq(kc_fmt_parse_spec(&f, &s, t_why, sizeof (t_why)), 0);
	kc_fmt_star(&s, 0, 6);
	ck_assert_int_eq(kc_fmt_conv(o, &s, &v, t_why, sizeof (t_why)), 0);
	kc_fmt_star(&s, 0, 99999999999LL);
	ck_assert_int_eq(s.ks_width, KC_FMT_MAXWIDTH);
	fclose(o);
	ck_assert_str_eq(t_out, "1234        1234");
	/* %@ belongs to printa(): printf() refuses it. */
	ck_assert_int_eq(t_pf("%@d", &v, 1), -1);
	ck_assert_str_eq(t_why, "conversion %@d: %@ prints an aggregation value and is valid only in printa()");
}
END_TEST

START_TEST(test_mismatches_never_crash)
{
	struct kc_val s = t_str("abc", 3), i = t_int(0x41, 8);

	ck_assert_int_eq(t_pf("%d", &s, 1), -1);
	ck_assert_str_eq(t_why, "conversion %d needs an integer but the value is a 3-byte string");
	ck_assert_int_eq(t_pf("%a", &s, 1), -1);
	ck_assert_str_eq(t_why, "conversion %a needs a 4- or 8-byte address but the value is a 3-byte string");
	ck_assert_int_eq(t_pf("%k", &s, 1), -1);
	ck_assert_str_eq(t_why, "conversion %k needs a stack of 4- or 8-byte frames but the value has 3 bytes");
	ck_assert_int_eq(t_pf("%T", &s, 1), -1);
	/* %s of an integer shows its bytes up to a NUL, as dtrace. */
	ck_assert_int_eq(t_pf("[%s]", &i, 1), 1);
	ck_assert_str_eq(t_out, "[A]");
	/* Text before a failing conversion is printed. */
	ck_assert_int_eq(t_pf("ab%Cx", &s, 1), -1);
	ck_assert_str_eq(t_out, "ab");
}
END_TEST

/*
 * Formats and values from a damaged dump: random conversions over random
 * sizes and bytes must report or print, never crash (ASan and UBSan run
 * this), and never claim more arguments than the record holds.
 */
START_TEST(test_random_formats_never_crash)
{
	static const char alpha[] = "%%%%-+ #0'12*.?@hlLwdiouxXcCsSeEfgGaAk"
	    "pPITY%qz$";
	static const uint32_t sizes[] = { 0, 1, 2, 3, 4, 8, 16, 24 };
	uint8_t bytes[4][24];
	struct kc_val a[4];
	char fmt[12], why[256];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	FILE *null = fopen("/dev/null", "w");
	uint32_t i, j, nargs;
	int rv, nfail = 0;

	ck_assert_ptr_nonnull(null);
	for (i = 0; i < 20000; i++) {
		for (j = 0; j + 1 < sizeof (fmt); j++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			fmt[j] = alpha[(x >> 33) % (sizeof (alpha) - 1)];
		}
		fmt[sizeof (fmt) - 1] = '\0';
		nargs = (uint32_t)(x >> 60) % 5;
		for (j = 0; j < 4; j++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			memset(bytes[j], (int)(x >> 40), sizeof (bytes[j]));
			memcpy(bytes[j], &x, 8);
			a[j].kv_data = bytes[j];
			a[j].kv_size = sizes[(x >> 20) % 8];
			a[j].kv_isstr = (uint32_t)(x >> 50) & 1;
		}
		rv = kc_fmt_printf(null, fmt, a, nargs, why, sizeof (why));
		ck_assert_msg(rv >= -1 && rv <= (int)nargs, "%s: %d", fmt, rv);
		nfail += rv < 0;
	}
	fclose(null);
	/* The mix exercises both outcomes. */
	ck_assert_int_gt(nfail, 0);
	ck_assert_int_lt(nfail, 20000);
}
END_TEST

/* ---- messages ---- */

static const char *
t_drops(uint32_t kind, uint64_t n, uint32_t cpu)
{
	FILE *f = t_open();

	kc_fmt_drops(f, "kdt", kind, n, cpu);
	fclose(f);
	return t_out;
}

START_TEST(test_drop_messages)
{
	ck_assert_str_eq(t_drops(KC_DROP_PRINCIPAL, 1, 0),
	    "kdt: 1 drop on CPU 0\n");
	ck_assert_str_eq(t_drops(KC_DROP_PRINCIPAL, 12, 3),
	    "kdt: 12 drops on CPU 3\n");
	ck_assert_str_eq(t_drops(KC_DROP_AGGREGATION, 2, 1),
	    "kdt: 2 aggregation drops on CPU 1\n");
	ck_assert_str_eq(t_drops(KC_DROP_DYNAMIC, 1, 9),
	    "kdt: 1 dynamic variable drop\n");
	ck_assert_str_eq(t_drops(KC_DROP_DYNRINSE, 3, 0),
	    "kdt: 3 dynamic variable drops with non-empty rinsing list\n");
	ck_assert_str_eq(t_drops(KC_DROP_DYNDIRTY, 1, 0),
	    "kdt: 1 dynamic variable drop with non-empty dirty list\n");
	ck_assert_str_eq(t_drops(KC_DROP_SPEC, 5, 0),
	    "kdt: 5 speculative drops\n");
	ck_assert_str_eq(t_drops(KC_DROP_SPECBUSY, 1, 0),
	    "kdt: 1 failed speculation (available buffer(s) still busy)\n");
	ck_assert_str_eq(t_drops(KC_DROP_SPECUNAVAIL, 4, 0),
	    "kdt: 4 failed speculations (no speculative buffer available)\n");
	ck_assert_str_eq(t_drops(KC_DROP_STKSTROVERFLOW, 1, 0),
	    "kdt: 1 jstack()/ustack() string table overflow\n");
	ck_assert_str_eq(t_drops(KC_DROP_DBLERROR, 2, 0),
	    "kdt: 2 errors in ERROR probe enabling\n");
	ck_assert_str_eq(t_drops(KC_DROP_PRINCIPAL | KC_DROP_TAGGED, 7, 1),
	    "kdt: [DTRACEDROP_PRINCIPAL] 7 drops on CPU 1\n");
	ck_assert_str_eq(t_drops(KC_DROP_SPECUNAVAIL | KC_DROP_TAGGED, 1, 0),
	    "kdt: [DTRACEDROP_SPECUNAVAIL] 1 failed speculation (no speculative buffer available)\n");
	ck_assert_str_eq(t_drops(KC_DROP_DBLERROR | KC_DROP_TAGGED, 1, 0),
	    "kdt: [DTRACEDROP_DBLERROR] 1 error in ERROR probe enabling\n");
	/* kdt's own kind: raise()/stop() kdt.ko had no room to queue */
	ck_assert_str_eq(t_drops(KC_DROP_SIGNAL, 3, 0),
	    "kdt: 3 raise()/stop() signal drops (kdt.ko's per-CPU queue full)\n");
	ck_assert_str_eq(t_drops(KC_DROP_SIGNAL | KC_DROP_TAGGED, 1, 0),
	    "kdt: [DTRACEDROP_SIGNAL] 1 raise()/stop() signal drop (kdt.ko's per-CPU queue full)\n");
	ck_assert_str_eq(t_drops(KC_DROP_SPEC, 0, 0), "");
	ck_assert_str_eq(t_drops(42, 2, 0),
	    "kdt: 2 drops of unknown kind 42\n");
	/* firings kdt.ko lost before any buffer (kio_status kst_missed) */
	ck_assert_str_eq(t_drops(KC_DROP_PRINCIPAL, 3, KC_DROP_NOCPU),
	    "kdt: 3 drops of firings kdt.ko missed\n");
	ck_assert_str_eq(t_drops(KC_DROP_AGGREGATION, 1, 2),
	    "kdt: 1 aggregation drop on CPU 2\n");
}
END_TEST

static const char *
t_error(const struct kc_fault *fl)
{
	FILE *f = t_open();

	kc_fmt_error(f, "kdt", fl);
	fclose(f);
	return t_out;
}

START_TEST(test_error_messages)
{
	struct kc_fault fl = { 3, 1, "dtrace", "", "", "BEGIN", 1, 2,
	    DTRACEFLT_BADADDR, 0x10, NULL };

	ck_assert_str_eq(t_error(&fl), "kdt: error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): invalid address (0x10) in action #1 at DIF offset 2\n");
	fl.kf_fault = DTRACEFLT_DIVZERO;
	fl.kf_action = 0;
	fl.kf_offset = -1;
	ck_assert_str_eq(t_error(&fl), "kdt: error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): divide-by-zero in predicate\n");
	fl.kf_fault = DTRACEFLT_BADALIGN;
	fl.kf_addr = 0xffff800000000003ULL;
	fl.kf_action = 4;
	ck_assert_str_eq(t_error(&fl), "kdt: error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): invalid alignment (0xffff800000000003) in action #4\n");
	fl.kf_fault = DTRACEFLT_BADSTACK;
	ck_assert_str_eq(t_error(&fl), "kdt: error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): bad stack (0xffff800000000003) in action #4\n");
	fl.kf_fault = DTRACEFLT_ILLOP;
	ck_assert_str_eq(t_error(&fl), "kdt: error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): illegal operation in action #4\n");
	fl.kf_fault = 77;
	ck_assert_str_eq(t_error(&fl), "kdt: error on enabled probe ID 3 (ID 1: dtrace:::BEGIN): unknown fault in action #4\n");
	fl.kf_fault = DTRACEFLT_LIBRARY;
	fl.kf_libmsg = "couldn't freopen() \"/x\": Permission denied";
	fl.kf_epid = 5;
	fl.kf_probe = 4;
	fl.kf_prov = "profile";
	fl.kf_name = "tick-1sec";
	ck_assert_str_eq(t_error(&fl), "kdt: error on enabled probe ID 5 (ID 4: profile:::tick-1sec): couldn't freopen() \"/x\": Permission denied\n");
}
END_TEST

static Suite *
fmt_suite(void)
{
	Suite *s = suite_create("fmt");
	TCase *tc = tcase_create("printf");

	tcase_add_test(tc, test_parse_spec_fields);
	tcase_add_test(tc, test_parse_spec_errors);
	tcase_add_test(tc, test_int_sizes_and_signedness);
	tcase_add_test(tc, test_int_flags_width_precision);
	tcase_add_test(tc, test_int_matrix_matches_c);
	tcase_add_test(tc, test_dtrace_quirks);
	tcase_add_test(tc, test_star_width_and_precision);
	tcase_add_test(tc, test_chars_and_escapes);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_wide_strings);
	tcase_add_test(tc, test_floats_promote_integers);
	tcase_add_test(tc, test_inet_and_port);
	tcase_add_test(tc, test_time_conversions);
	tcase_add_test(tc, test_single_conversion_api);
	tcase_add_test(tc, test_mismatches_never_crash);
	tcase_add_test(tc, test_random_formats_never_crash);
	suite_add_tcase(s, tc);
	tc = tcase_create("symbols");
	tcase_add_test(tc, test_addr_conversions);
	tcase_add_test(tc, test_printf_stack);
	tcase_add_test(tc, test_stack_records);
	tcase_add_test(tc, test_ustack_records);
	tcase_add_test(tc, test_sym_mod_usym_records);
	tcase_add_test(tc, test_kallsyms_fixture);
	tcase_add_test(tc, test_unsorted_table_lookup);
	suite_add_tcase(s, tc);
	tc = tcase_create("trace");
	tcase_add_test(tc, test_trace_integers_every_size);
	tcase_add_test(tc, test_trace_strings_byte_rule);
	tcase_add_test(tc, test_trace_hexdump_rows);
	tcase_add_test(tc, test_tracemem_is_always_a_dump);
	tcase_add_test(tc, test_trace_legacy_entry);
	suite_add_tcase(s, tc);
	tc = tcase_create("messages");
	tcase_add_test(tc, test_drop_messages);
	tcase_add_test(tc, test_error_messages);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(fmt_suite)
