/*
 * test_ksh.c -- unit tests of the kernel symbol hints (common/ksh.c; the
 * format and the six validation rules are in common/ksh.h).
 *
 * A valid file of five entries (two functions of one name) is built by
 * hand and found name by name with ksh_find(); then every rule is broken
 * once -- short file, magic, version, build id length, size, unterminated
 * name table, an offset outside the kernel text (a hostile file pointing
 * past _etext), a name offset past the table, an empty and an over-long
 * name, entries out of order and a (name, offset) given twice -- and each
 * must fail with its tag and the offset of the field.  Whether a file's
 * build id and text size are the running kernel's is kdt.ko's check
 * (kmod/kd_fbt.c, kd_fbt_hints); the round trip through "kdt -A" is in
 * bench/run-boot-overhead, whose fbtN rows boot with the hints.
 */
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "kt_ksh.h"

struct t_ent {
	const char	*name;
	uint32_t	off;
};

/* Entries in the order given (the caller sorts, or not on purpose). */
static uint8_t *
t_file(const struct t_ent *e, uint32_t n, uint64_t textsz, size_t *lenp)
{
	struct ksh_hdr kh;
	struct ksh_ent ke;
	size_t strsz = 0, s = 0, len;
	uint32_t i;
	uint8_t *b;

	for (i = 0; i < n; i++)
		strsz += strlen(e[i].name) + 1;
	len = KSH_HDRSZ + n * sizeof (ke) + strsz;
	b = calloc(1, len);
	ck_assert_ptr_nonnull(b);
	memset(&kh, 0, sizeof (kh));
	memcpy(kh.kh_magic, KSH_MAGIC, KSH_MAGICLEN);
	kh.kh_version = KSH_VERSION;
	kh.kh_bidlen = 20;
	for (i = 0; i < 20; i++)
		kh.kh_bid[i] = (uint8_t)(0xa0 + i);
	kh.kh_nsyms = n;
	kh.kh_strsz = (uint32_t)strsz;
	kh.kh_textsz = textsz;
	memcpy(b, &kh, sizeof (kh));
	for (i = 0; i < n; i++) {
		ke.ke_off = e[i].off;
		ke.ke_name = (uint32_t)s;
		memcpy(b + KSH_HDRSZ + i * sizeof (ke), &ke, sizeof (ke));
		strcpy((char *)b + KSH_HDRSZ + n * sizeof (ke) + s, e[i].name);
		s += strlen(e[i].name) + 1;
	}
	*lenp = len;
	return b;
}

static const struct t_ent t_good[] = {
	{ "do_sys_open", 0x1000 },
	{ "kmem_cache_alloc", 0x2000 },
	{ "show_stat", 0x3000 },
	{ "show_stat", 0x7000 },	/* a second static function */
	{ "vfs_read", 0x9ff0 },
};

/* Check that "b" fails with "tag" at "off"; frees it. */
static void
t_bad(uint8_t *b, size_t len, const char *tag, uint64_t off)
{
	struct kdt_err ke;

	memset(&ke, 0, sizeof (ke));
	ck_assert_int_eq(ksh_check(b, len, &ke), -1);
	ck_assert_str_eq(ke.ke_tag, tag);
	ck_assert_uint_eq(ke.ke_off, off);
	ck_assert(ke.ke_msg[0] != '\0');
	free(b);
}

static uint8_t *
t_good_file(size_t *len)
{
	return t_file(t_good, 5, 0xa000, len);
}

START_TEST(test_valid_and_find)
{
	static const struct kt_ksh_want want[] = {
		{ "show_stat", 2, 2, { 0x3000, 0x7000 } },
		{ "do_sys_open", 1, 0, { 0x1000 } },
		{ "vfs_read", 1, 4, { 0x9ff0 } },
		/* absent: before the first, between, after the last, a
		   prefix */
		{ "a" }, { "show" }, { "show_stat2" }, { "zzz" },
	};
	struct ksh_hdr kh;
	size_t len;
	uint8_t *b = t_good_file(&len);

	kt_ksh_valid(b, len, 5, &kh);
	ck_assert_uint_eq(kh.kh_bid[19], 0xb3);
	kt_ksh_find(b, want, sizeof (want) / sizeof (want[0]));
	free(b);
}
END_TEST

START_TEST(test_empty)
{
	struct ksh_hdr kh;
	size_t len;
	uint8_t *b = t_file(NULL, 0, 0x1000, &len);

	ck_assert_uint_eq(len, KSH_HDRSZ);
	kt_ksh_valid(b, len, 0, &kh);
	kt_ksh_find(b, &(struct kt_ksh_want){ "vfs_read" }, 1);
	free(b);
}
END_TEST

/* rule 1: short, or not the magic */
START_TEST(test_rule1_magic)
{
	size_t len;
	uint8_t *b = t_good_file(&len);

	t_bad(b, KSH_HDRSZ - 1, "KSH_MAGIC", 0);
	b = t_good_file(&len);
	b[7] = '2';
	t_bad(b, len, "KSH_MAGIC", 0);
}
END_TEST

/* rule 2 */
START_TEST(test_rule2_version)
{
	size_t len;
	uint8_t *b = t_good_file(&len);

	b[8] = 2;
	t_bad(b, len, "KSH_VERSION", 8);
}
END_TEST

/* rule 3: build id length 0, and over KSH_BIDMAX */
START_TEST(test_rule3_bid)
{
	size_t len;
	uint8_t *b = t_good_file(&len);

	memset(b + 12, 0, 4);
	t_bad(b, len, "KSH_BID", 12);
	b = t_good_file(&len);
	b[12] = KSH_BIDMAX + 1;
	t_bad(b, len, "KSH_BID", 12);
}
END_TEST

/* rule 4: the counts against the file length, and their limits */
START_TEST(test_rule4_size)
{
	size_t len;
	uint8_t *b = t_good_file(&len);
	uint32_t v;

	t_bad(b, len - 1, "KSH_SIZE", 48);	/* truncated */
	b = t_good_file(&len);
	v = 6;					/* one entry more */
	memcpy(b + 48, &v, 4);
	t_bad(b, len, "KSH_SIZE", 48);
	b = t_good_file(&len);
	v = KSH_MAXSYMS + 1;
	memcpy(b + 48, &v, 4);
	t_bad(b, len, "KSH_SIZE", 48);
	b = t_good_file(&len);
	v = 0xffffffffu;			/* wraps in 32 bits */
	memcpy(b + 52, &v, 4);
	t_bad(b, len, "KSH_SIZE", 48);
}
END_TEST

/* rule 5: the last name has no NUL */
START_TEST(test_rule5_str)
{
	size_t len;
	uint8_t *b = t_good_file(&len);

	b[len - 1] = 'x';
	t_bad(b, len, "KSH_STR", len - 1);
}
END_TEST

/* rule 6: offsets, names, order */
START_TEST(test_rule6_off)
{
	size_t len;
	uint8_t *b = t_file(t_good, 5, 0x9ff0, &len);	/* vfs_read at end */

	t_bad(b, len, "KSH_OFF", KSH_HDRSZ + 4 * 8);
	b = t_good_file(&len);
	memset(b + KSH_HDRSZ + 8, 0xff, 4);	/* kmem_cache_alloc: -1 */
	t_bad(b, len, "KSH_OFF", KSH_HDRSZ + 8);
}
END_TEST

START_TEST(test_rule6_name)
{
	static const struct t_ent empty[] = { { "", 0x10 } };
	char longname[KSH_NAMEMAX + 1];
	struct t_ent lng[1];
	size_t len;
	uint8_t *b = t_good_file(&len);
	uint32_t v = 0x10000;

	memcpy(b + KSH_HDRSZ + 2 * 8 + 4, &v, 4);	/* past the table */
	t_bad(b, len, "KSH_NAME", KSH_HDRSZ + 2 * 8 + 4);
	b = t_file(empty, 1, 0x1000, &len);
	t_bad(b, len, "KSH_NAME", KSH_HDRSZ + 4);
	memset(longname, 'f', KSH_NAMEMAX);
	longname[KSH_NAMEMAX] = '\0';
	lng[0].name = longname;
	lng[0].off = 0x10;
	b = t_file(lng, 1, 0x1000, &len);
	t_bad(b, len, "KSH_NAME", KSH_HDRSZ + 4);
	longname[KSH_NAMEMAX - 1] = '\0';	/* the longest allowed */
	b = t_file(lng, 1, 0x1000, &len);
	{
		struct kdt_err ke;

		ck_assert_int_eq(ksh_check(b, len, &ke), 0);
	}
	free(b);
}
END_TEST

START_TEST(test_rule6_order)
{
	static const struct t_ent names[] = {
		{ "vfs_read", 0x10 }, { "do_sys_open", 0x20 } };
	static const struct t_ent offs[] = {
		{ "show_stat", 0x70 }, { "show_stat", 0x30 } };
	static const struct t_ent twice[] = {
		{ "show_stat", 0x30 }, { "show_stat", 0x30 } };
	size_t len;
	uint8_t *b = t_file(names, 2, 0x1000, &len);

	t_bad(b, len, "KSH_ORDER", KSH_HDRSZ + 8);
	b = t_file(offs, 2, 0x1000, &len);
	t_bad(b, len, "KSH_ORDER", KSH_HDRSZ + 8);
	b = t_file(twice, 2, 0x1000, &len);
	t_bad(b, len, "KSH_ORDER", KSH_HDRSZ + 8);
}
END_TEST

static Suite *
ksh_suite(void)
{
	Suite *s = suite_create("ksh");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_valid_and_find);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_rule1_magic);
	tcase_add_test(tc, test_rule2_version);
	tcase_add_test(tc, test_rule3_bid);
	tcase_add_test(tc, test_rule4_size);
	tcase_add_test(tc, test_rule5_str);
	tcase_add_test(tc, test_rule6_off);
	tcase_add_test(tc, test_rule6_name);
	tcase_add_test(tc, test_rule6_order);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(ksh_suite)
