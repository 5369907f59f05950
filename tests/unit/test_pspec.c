/*
 * test_pspec.c -- dtrace(1)'s probe specifier options as the kdt command
 * reads them (consumer/kc_pspec.c): -P, -m and -f name the provider,
 * module or function with the last part of a short description, -n the
 * name; every description of a comma-separated list is written out with
 * four parts, the predicate and actions are left alone, and a specifier
 * without actions gets dtrace's default action (an empty clause).
 */
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "consumer/kc_pspec.h"

static char t_why[256];

/* kc_pspec_expand(arg, level), which must succeed; freed by the caller. */
static char *
t_ok(const char *arg, uint32_t level)
{
	char *s = kc_pspec_expand(arg, level, t_why, sizeof (t_why));

	ck_assert_msg(s != NULL, "'%s' level %u: %s", arg, level, t_why);
	return s;
}

#define T_EQ(arg, level, want) do {					\
	char *t_s = t_ok(arg, level);					\
	ck_assert_str_eq(t_s, want);					\
	free(t_s);							\
} while (0)

START_TEST(test_provider_is_the_first_part)
{
	T_EQ("syscall", KC_PSPEC_PROVIDER, "syscall::: {}");
	T_EQ("sys*", KC_PSPEC_PROVIDER, "sys*::: {}");
	T_EQ("profile { trace(1); }", KC_PSPEC_PROVIDER,
	    "profile::: { trace(1); }");
}
END_TEST

START_TEST(test_module_may_name_its_provider)
{
	T_EQ("ext4", KC_PSPEC_MOD, ":ext4:: {}");
	T_EQ("fbt:ext4", KC_PSPEC_MOD, "fbt:ext4:: {}");
	T_EQ(":ext4", KC_PSPEC_MOD, ":ext4:: {}");
}
END_TEST

START_TEST(test_function_may_name_module_and_provider)
{
	T_EQ("vfs_read", KC_PSPEC_FUNC, "::vfs_read: {}");
	T_EQ("kernel:vfs_read", KC_PSPEC_FUNC, ":kernel:vfs_read: {}");
	T_EQ("fbt:kernel:vfs_read", KC_PSPEC_FUNC, "fbt:kernel:vfs_read: {}");
	T_EQ("vfs_*/pid == 1/{ @[probefunc] = count(); }", KC_PSPEC_FUNC,
	    "::vfs_*: /pid == 1/{ @[probefunc] = count(); }");
}
END_TEST

START_TEST(test_every_description_of_a_list)
{
	T_EQ("vfs_read, ext4:ext4_file_open { trace(1); }", KC_PSPEC_FUNC,
	    "::vfs_read:,:ext4:ext4_file_open: { trace(1); }");
	T_EQ(" syscall ,\tfbt\n/arg0/", KC_PSPEC_PROVIDER,
	    "syscall:::,fbt::: /arg0/ {}");
}
END_TEST

START_TEST(test_name_is_left_to_the_compiler)
{
	T_EQ("BEGIN { exit(0); }", KC_PSPEC_NAME, "BEGIN { exit(0); }");
	T_EQ("BEGIN", KC_PSPEC_NAME, "BEGIN {}");
	T_EQ("syscall::read:entry /pid == 1/", KC_PSPEC_NAME,
	    "syscall::read:entry /pid == 1/ {}");
	T_EQ("BEGIN { x = 1; } END { exit(x); }", KC_PSPEC_NAME,
	    "BEGIN { x = 1; } END { exit(x); }");
}
END_TEST

START_TEST(test_too_many_parts_or_empty_is_refused)
{
	ck_assert_ptr_null(kc_pspec_expand("fbt:kernel:vfs_read:entry",
	    KC_PSPEC_FUNC, t_why, sizeof (t_why)));
	ck_assert_str_eq(t_why,
	    "probe description 'fbt:kernel:vfs_read:entry' has 4 parts; -f takes at most 3");
	ck_assert_ptr_null(kc_pspec_expand("fbt:x", KC_PSPEC_PROVIDER, t_why,
	    sizeof (t_why)));
	ck_assert_str_eq(t_why,
	    "probe description 'fbt:x' has 2 parts; -P takes at most 1");
	ck_assert_ptr_null(kc_pspec_expand("a,,b", KC_PSPEC_MOD, t_why,
	    sizeof (t_why)));
	ck_assert_str_eq(t_why, "empty probe description");
	ck_assert_ptr_null(kc_pspec_expand("{ trace(1); }", KC_PSPEC_FUNC,
	    t_why, sizeof (t_why)));
	ck_assert_str_eq(t_why, "empty probe description");
}
END_TEST

static Suite *
pspec_suite(void)
{
	Suite *s = suite_create("pspec");
	TCase *tc = tcase_create("expand");

	tcase_add_test(tc, test_provider_is_the_first_part);
	tcase_add_test(tc, test_module_may_name_its_provider);
	tcase_add_test(tc, test_function_may_name_module_and_provider);
	tcase_add_test(tc, test_every_description_of_a_list);
	tcase_add_test(tc, test_name_is_left_to_the_compiler);
	tcase_add_test(tc, test_too_many_parts_or_empty_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(pspec_suite)
