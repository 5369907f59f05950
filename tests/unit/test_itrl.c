/*
 * test_itrl.c -- unit tests of the initrd trailer (common/itrl.c; the
 * format and its five validation rules are in common/itrl.h).
 *
 * The worked example of itrl.h is checked byte for byte against
 * itrl_foot_make(), then images "initrd + DOF + footer" are built with it
 * and read back with itrl_find(): every rule is broken once (the footer
 * CRC is recomputed after a damage so that the rule under test, not rule
 * 2, trips), and each error must carry its tag, the offset and the value.
 * Round trips cover an empty initrd, odd lengths (no alignment anywhere)
 * and the largest and smallest DOF sizes the rules allow.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kt_check.h"
#include "itrl.h"

static const uint8_t t_ex_dof[8] = { 0x7f, 0x44, 0x4f, 0x46, 0, 0, 0, 0 };

/* The 32 footer bytes of itrl.h's worked example. */
static const uint8_t t_ex_foot[32] = {
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x6f, 0x18, 0xab, 0x89, 0x01, 0x00, 0x00, 0x00,
	0x20, 0x00, 0x00, 0x00, 0xe4, 0xc5, 0xa9, 0x3c,
	0x23, 0x4b, 0x44, 0x54, 0x44, 0x4f, 0x46, 0x0a,
};

/* initrd of "ilen" bytes (a pattern) + dof + footer, in a new buffer. */
static uint8_t *
t_image(uint64_t ilen, const void *dof, uint64_t dofsz, uint64_t *lenp)
{
	struct itrl_foot f;
	struct kdt_err ke;
	uint8_t *b;
	uint64_t i;

	ck_assert_int_eq(itrl_foot_make(&f, dof, dofsz, &ke), 0);
	b = malloc(ilen + dofsz + sizeof (f));
	ck_assert_ptr_nonnull(b);
	for (i = 0; i < ilen; i++)
		b[i] = (uint8_t)(i * 7 + 3);
	memcpy(b + ilen, dof, dofsz);
	memcpy(b + ilen + dofsz, &f, sizeof (f));
	*lenp = ilen + dofsz + sizeof (f);
	return b;
}

/* Recompute the footer CRC of the image's footer after a damage. */
static void
t_refoot(uint8_t *b, uint64_t len)
{
	struct itrl_foot f;

	memcpy(&f, b + len - sizeof (f), sizeof (f));
	f.it_footcrc = 0;
	f.it_footcrc = (uint32_t)crc32(0, (const void *)&f, sizeof (f));
	memcpy(b + len - sizeof (f), &f, sizeof (f));
}

/* The footer in place; callers keep the initrd length a multiple of 8. */
static struct itrl_foot *
t_foot(uint8_t *b, uint64_t len)
{
	return (struct itrl_foot *)(void *)(b + len - ITRL_FOOTSZ);
}

START_TEST(test_worked_example)
{
	struct itrl_foot f;
	struct kdt_err ke;

	ck_assert_uint_eq(crc32(0, t_ex_dof, sizeof (t_ex_dof)), 0x89ab186f);
	ck_assert_int_eq(itrl_foot_make(&f, t_ex_dof, sizeof (t_ex_dof), &ke),
	    0);
	ck_assert_mem_eq(&f, t_ex_foot, sizeof (t_ex_foot));
	ck_assert_uint_eq(f.it_footcrc, 0x3ca9c5e4);
	ck_assert_mem_eq(f.it_magic, ITRL_MAGIC, ITRL_MAGICLEN);
}
END_TEST

/* The example appended to a 5-byte "initrd", found again. */
START_TEST(test_worked_example_find)
{
	uint8_t b[5 + 8 + 32];
	struct itrl_info ii;
	struct kdt_err ke;

	memcpy(b, "cpio!", 5);
	memcpy(b + 5, t_ex_dof, 8);
	memcpy(b + 13, t_ex_foot, 32);
	ck_assert_int_eq(itrl_find(b, sizeof (b), &ii, &ke), 1);
	ck_assert_uint_eq(ii.ii_initrd_len, 5);
	ck_assert_uint_eq(ii.ii_dof_off, 5);
	ck_assert_uint_eq(ii.ii_dofsz, 8);
	ck_assert_uint_eq(ii.ii_dofcrc, 0x89ab186f);
	ck_assert_uint_eq(ii.ii_pad, 0);
}
END_TEST

START_TEST(test_round_trip_lengths)
{
	static const uint64_t ilens[] = { 0, 1, 3, 7, 8, 31, 32, 33, 4095,
	    4096, 100003 };
	static const uint64_t dofszs[] = { 1, 2, 8, 31, 33, 4097 };
	struct itrl_info ii;
	struct kdt_err ke;
	uint8_t dof[4097];
	uint64_t len;
	unsigned i, j;
	uint8_t *b;

	for (i = 0; i < sizeof (dof); i++)
		dof[i] = (uint8_t)(i ^ 0x5a);
	for (i = 0; i < sizeof (ilens) / sizeof (ilens[0]); i++) {
		for (j = 0; j < sizeof (dofszs) / sizeof (dofszs[0]); j++) {
			b = t_image(ilens[i], dof, dofszs[j], &len);
			ck_assert_int_eq(itrl_find(b, len, &ii, &ke), 1);
			ck_assert_uint_eq(ii.ii_initrd_len, ilens[i]);
			ck_assert_uint_eq(ii.ii_dofsz, dofszs[j]);
			ck_assert_mem_eq(b + ii.ii_dof_off, dof, dofszs[j]);
			ck_assert_uint_eq(ii.ii_dofcrc,
			    crc32(0, dof, (uInt)dofszs[j]));
			free(b);
		}
	}
}
END_TEST

/* Rule 1: short files and files without the magic have no trailer. */
START_TEST(test_rule1_no_trailer)
{
	struct itrl_info ii;
	struct kdt_err ke;
	uint8_t b[64];
	uint64_t len;
	uint8_t *img;

	memset(b, 0, sizeof (b));
	ck_assert_int_eq(itrl_find(b, 0, &ii, &ke), 0);
	ck_assert_int_eq(itrl_find(b, 31, &ii, &ke), 0);
	ck_assert_int_eq(itrl_find(b, sizeof (b), &ii, &ke), 0);
	/* the magic, but the file is one byte shorter than a footer */
	memcpy(b + 31 - 8, ITRL_MAGIC, 8);
	ck_assert_int_eq(itrl_find(b, 31, &ii, &ke), 0);
	/* a trailer whose magic is damaged is no trailer at all */
	img = t_image(10, t_ex_dof, 8, &len);
	img[len - 1] ^= 0x01;
	ck_assert_int_eq(itrl_find(img, len, &ii, &ke), 0);
	/* the magic not at the very end (one byte appended) */
	img[len - 1] ^= 0x01;
	img = realloc(img, len + 1);
	img[len] = '\n';
	ck_assert_int_eq(itrl_find(img, len + 1, &ii, &ke), 0);
	free(img);
}
END_TEST

/* Rule 2: any footer byte changed without fixing the CRC. */
START_TEST(test_rule2_footcrc)
{
	struct itrl_info ii;
	struct kdt_err ke;
	uint64_t len, i;
	uint8_t *b;

	b = t_image(100, t_ex_dof, 8, &len);
	for (i = 0; i < ITRL_FOOTSZ - ITRL_MAGICLEN; i++) {
		b[len - ITRL_FOOTSZ + i] ^= 0x40;
		memset(&ke, 0, sizeof (ke));
		ck_assert_int_eq(itrl_find(b, len, &ii, &ke), -EINVAL);
		ck_assert_str_eq(ke.ke_tag, "ITRL_FOOTCRC");
		ck_assert_uint_eq(ke.ke_off, len - ITRL_FOOTSZ);
		ck_assert_int_eq(ke.ke_errno, EINVAL);
		ck_assert_ptr_nonnull(strstr(ke.ke_msg, "offset 0x6c"));
		b[len - ITRL_FOOTSZ + i] ^= 0x40;
	}
	ck_assert_int_eq(itrl_find(b, len, &ii, &ke), 1);
	free(b);
}
END_TEST

/* Rule 3: version and footer size. */
START_TEST(test_rule3_version)
{
	struct itrl_info ii;
	struct kdt_err ke;
	uint64_t len;
	uint8_t *b;

	b = t_image(16, t_ex_dof, 8, &len);
	t_foot(b, len)->it_version = 2;
	t_refoot(b, len);
	ck_assert_int_eq(itrl_find(b, len, &ii, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "ITRL_VERSION");
	ck_assert_uint_eq(ke.ke_off, len - ITRL_FOOTSZ + 12);
	ck_assert_ptr_nonnull(strstr(ke.ke_msg, "version 2 with a 32-byte"));
	t_foot(b, len)->it_version = 1;
	t_foot(b, len)->it_footsz = 40;
	t_refoot(b, len);
	ck_assert_int_eq(itrl_find(b, len, &ii, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "ITRL_VERSION");
	ck_assert_ptr_nonnull(strstr(ke.ke_msg, "version 1 with a 40-byte"));
	free(b);
}
END_TEST

/* Rule 4: 0, more than the file holds, more than ITRL_DOF_MAX. */
START_TEST(test_rule4_size)
{
	static const uint64_t bad[] = { 0, 8 + 16 + 1, ITRL_DOF_MAX + 1,
	    (uint64_t)-1, (uint64_t)-32 };
	struct itrl_info ii;
	struct kdt_err ke;
	uint64_t len;
	unsigned i;
	uint8_t *b;

	b = t_image(16, t_ex_dof, 8, &len);
	for (i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
		t_foot(b, len)->it_dofsz = bad[i];
		t_refoot(b, len);
		ck_assert_int_eq(itrl_find(b, len, &ii, &ke), -EINVAL);
		ck_assert_str_eq(ke.ke_tag, "ITRL_SIZE");
		ck_assert_uint_eq(ke.ke_off, 24);
		ck_assert_ptr_nonnull(strstr(ke.ke_msg, "(the file has 0x18"));
	}
	/* exactly the bytes before the footer: legal (an empty initrd) */
	t_foot(b, len)->it_dofsz = 24;
	t_foot(b, len)->it_dofcrc = (uint32_t)crc32(0, b, 24);
	t_refoot(b, len);
	ck_assert_int_eq(itrl_find(b, len, &ii, &ke), 1);
	ck_assert_uint_eq(ii.ii_initrd_len, 0);
	free(b);
}
END_TEST

/* Rule 5: a DOF byte flipped; a size that moves the DOF window. */
START_TEST(test_rule5_dofcrc)
{
	struct itrl_info ii;
	struct kdt_err ke;
	uint64_t len, i;
	uint8_t *b;

	b = t_image(24, t_ex_dof, 8, &len);
	for (i = 24; i < 32; i++) {
		b[i] ^= 0x80;
		ck_assert_int_eq(itrl_find(b, len, &ii, &ke), -EINVAL);
		ck_assert_str_eq(ke.ke_tag, "ITRL_DOFCRC");
		ck_assert_uint_eq(ke.ke_off, 24);
		ck_assert_ptr_nonnull(strstr(ke.ke_msg,
		    "stored 0x89ab186f"));
		b[i] ^= 0x80;
	}
	/* a byte of the initrd is not covered by any CRC */
	b[3] ^= 0xff;
	ck_assert_int_eq(itrl_find(b, len, &ii, &ke), 1);
	/* one byte more of "DOF": the window now starts in the initrd */
	t_foot(b, len)->it_dofsz = 9;
	t_refoot(b, len);
	ck_assert_int_eq(itrl_find(b, len, &ii, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "ITRL_DOFCRC");
	ck_assert_uint_eq(ke.ke_off, 23);
	free(b);
}
END_TEST

/* The rules are checked in order: a bad CRC wins over a bad version. */
START_TEST(test_rule_order)
{
	struct itrl_info ii;
	struct kdt_err ke;
	uint64_t len;
	uint8_t *b;

	b = t_image(16, t_ex_dof, 8, &len);
	t_foot(b, len)->it_version = 9;
	t_foot(b, len)->it_dofsz = 0;
	ck_assert_int_eq(itrl_find(b, len, &ii, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "ITRL_FOOTCRC");
	t_refoot(b, len);
	ck_assert_int_eq(itrl_find(b, len, &ii, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "ITRL_VERSION");
	/* a NULL error record is allowed */
	ck_assert_int_eq(itrl_find(b, len, &ii, NULL), -EINVAL);
	free(b);
}
END_TEST

START_TEST(test_foot_make_limits)
{
	struct itrl_foot f;
	struct kdt_err ke;

	ck_assert_int_eq(itrl_foot_make(&f, t_ex_dof, 0, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "ITRL_SIZE");
	ck_assert_uint_eq(ke.ke_off, KDT_ERR_NOOFF);
	ck_assert_int_eq(itrl_foot_make(&f, t_ex_dof, ITRL_DOF_MAX + 1, &ke),
	    -EINVAL);
	ck_assert_ptr_nonnull(strstr(ke.ke_msg, "0x4000001 is outside [1, 0x4000000]"));
}
END_TEST

/* A trailer appended twice: the outer one is found, it covers the inner. */
START_TEST(test_stacked_outer_wins)
{
	struct itrl_info ii;
	struct kdt_err ke;
	uint64_t len1, len2;
	uint8_t *inner, *outer;

	inner = t_image(10, t_ex_dof, 8, &len1);
	outer = t_image(0, inner, len1, &len2);
	ck_assert_int_eq(itrl_find(outer, len2, &ii, &ke), 1);
	ck_assert_uint_eq(ii.ii_initrd_len, 0);
	ck_assert_uint_eq(ii.ii_dofsz, len1);
	free(inner);
	free(outer);
}
END_TEST

static Suite *
itrl_suite(void)
{
	Suite *s = suite_create("itrl");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_worked_example);
	tcase_add_test(tc, test_worked_example_find);
	tcase_add_test(tc, test_round_trip_lengths);
	tcase_add_test(tc, test_rule1_no_trailer);
	tcase_add_test(tc, test_rule2_footcrc);
	tcase_add_test(tc, test_rule3_version);
	tcase_add_test(tc, test_rule4_size);
	tcase_add_test(tc, test_rule5_dofcrc);
	tcase_add_test(tc, test_rule_order);
	tcase_add_test(tc, test_foot_make_limits);
	tcase_add_test(tc, test_stacked_outer_wins);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(itrl_suite)
