/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "cmdline.h"

START_TEST(test_cmdline_get_finds_value)
{
	_cleanup_free_ char *v = NULL;

	ck_assert_int_eq(cmdline_get("console=ttyS0 cc.pod=pod0 quiet\n", "cc.pod", &v), 1);
	ck_assert_str_eq(v, "pod0");
}
END_TEST

START_TEST(test_cmdline_get_absent_leaves_output)
{
	char *v = (char *) "untouched";

	ck_assert_int_eq(cmdline_get("console=ttyS0 cc.podx=a xcc.pod=b", "cc.pod", &v), 0);
	ck_assert_str_eq(v, "untouched");
	ck_assert_int_eq(cmdline_get("", "cc.pod", &v), 0);
	ck_assert_int_eq(cmdline_get("   \n", "cc.pod", &v), 0);
}
END_TEST

START_TEST(test_cmdline_get_last_occurrence_wins)
{
	_cleanup_free_ char *v = NULL;

	ck_assert_int_eq(cmdline_get("cc.pod=a cc.pod=b\tcc.pod=c", "cc.pod", &v), 1);
	ck_assert_str_eq(v, "c");
}
END_TEST

START_TEST(test_cmdline_get_bare_key_is_empty_value)
{
	_cleanup_free_ char *a = NULL, *b = NULL;

	ck_assert_int_eq(cmdline_get("quiet ro", "quiet", &a), 1);
	ck_assert_str_eq(a, "");
	ck_assert_int_eq(cmdline_get("cc.pod= ro", "cc.pod", &b), 1);
	ck_assert_str_eq(b, "");
}
END_TEST

START_TEST(test_cmdline_get_handles_quotes)
{
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;

	ck_assert_int_eq(cmdline_get("x a=\"b c\" y", "a", &a), 1);
	ck_assert_str_eq(a, "b c");
	ck_assert_int_eq(cmdline_get("\"a=b c\" y", "a", &b), 1);
	ck_assert_str_eq(b, "b c");
	/* A quoted blank does not split a word: "z" is not a separate key here. */
	ck_assert_int_eq(cmdline_get("a=\"x z\"", "z", &c), 0);
}
END_TEST

START_TEST(test_cmdline_get_rejects_bad_input)
{
	char *v = NULL;
	_cleanup_free_ char *huge = malloc(CMDLINE_MAX + 2);

	ASSERT_ERRNO(cmdline_get("a=\"unterminated cc.pod=x", "cc.pod", &v), EINVAL);
	ASSERT_ERRNO(cmdline_get("a=b", "", &v), EINVAL);
	ASSERT_ERRNO(cmdline_get("a=b", "a=b", &v), EINVAL);
	ASSERT_ERRNO(cmdline_get(NULL, "a", &v), EINVAL);
	ck_assert_ptr_nonnull(huge);
	memset(huge, 'x', CMDLINE_MAX + 1);
	huge[CMDLINE_MAX + 1] = '\0';
	ASSERT_ERRNO(cmdline_get(huge, "a", &v), E2BIG);
	huge[CMDLINE_MAX] = '\0';
	ck_assert_int_eq(cmdline_get(huge, "a", &v), 0);
	ck_assert_ptr_null(v);
}
END_TEST

START_TEST(test_cmdline_options_parse_defaults)
{
	struct cmdline_options o;

	ASSERT_OK(cmdline_options_parse("console=ttyS0 root=/dev/vda", &o));
	ck_assert_ptr_null(o.pod_tag);
	ck_assert(!o.markers_console);
	cmdline_options_done(&o);
}
END_TEST

START_TEST(test_cmdline_options_parse_all)
{
	struct cmdline_options o;

	ASSERT_OK(cmdline_options_parse("cc.pod=pod-layer_1.x cc.markers=console", &o));
	ck_assert_str_eq(o.pod_tag, "pod-layer_1.x");
	ck_assert(o.markers_console);
	cmdline_options_done(&o);
	ck_assert_ptr_null(o.pod_tag);

	ASSERT_OK(cmdline_options_parse("cc.markers=port", &o));
	ck_assert(!o.markers_console);
	cmdline_options_done(&o);
}
END_TEST

START_TEST(test_cmdline_options_parse_rejects_bad_values)
{
	struct cmdline_options o = {};
	char tag[CMDLINE_POD_TAG_MAX + 16];

	ASSERT_ERRNO(cmdline_options_parse("cc.pod=", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("cc.pod", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("cc.pod=a,ro", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("cc.pod=../x", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("\"cc.pod=a b\"", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("cc.markers=serial", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("cc.markers", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("cc.pod=\"x", &o), EINVAL);

	strcpy(tag, "cc.pod=");
	memset(tag + 7, 'a', CMDLINE_POD_TAG_MAX);
	tag[7 + CMDLINE_POD_TAG_MAX] = '\0';
	ASSERT_OK(cmdline_options_parse(tag, &o));
	cmdline_options_done(&o);
	tag[7 + CMDLINE_POD_TAG_MAX] = 'a';
	tag[8 + CMDLINE_POD_TAG_MAX] = '\0';
	ASSERT_ERRNO(cmdline_options_parse(tag, &o), EINVAL);
	ck_assert_ptr_null(o.pod_tag);
}
END_TEST

static Suite *cmdline_suite(void)
{
	Suite *s = suite_create("guest-cmdline");
	TCase *tc = tcase_create("cmdline");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_cmdline_get_finds_value);
	tcase_add_test(tc, test_cmdline_get_absent_leaves_output);
	tcase_add_test(tc, test_cmdline_get_last_occurrence_wins);
	tcase_add_test(tc, test_cmdline_get_bare_key_is_empty_value);
	tcase_add_test(tc, test_cmdline_get_handles_quotes);
	tcase_add_test(tc, test_cmdline_get_rejects_bad_input);
	tcase_add_test(tc, test_cmdline_options_parse_defaults);
	tcase_add_test(tc, test_cmdline_options_parse_all);
	tcase_add_test(tc, test_cmdline_options_parse_rejects_bad_values);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(cmdline_suite());
}
