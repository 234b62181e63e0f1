/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "overlay.h"

START_TEST(test_overlay_options_base_only)
{
	_cleanup_free_ char *o = NULL;
	const char *lowers[] = {"/run/base"};

	ASSERT_OK(overlay_options_build(lowers, 1, "/run/upper", "/run/work", &o));
	ck_assert_str_eq(o, "lowerdir=/run/base,upperdir=/run/upper,workdir=/run/work");
}
END_TEST

START_TEST(test_overlay_options_pod_above_base)
{
	_cleanup_free_ char *o = NULL;
	const char *lowers[] = {"/run/pod", "/run/base"};

	ASSERT_OK(overlay_options_build(lowers, 2, "/run/upper", "/run/work", &o));
	ck_assert_str_eq(o, "lowerdir=/run/pod:/run/base,upperdir=/run/upper,workdir=/run/work");
}
END_TEST

START_TEST(test_overlay_options_escapes_separators)
{
	_cleanup_free_ char *o = NULL;
	const char *lowers[] = {"/a:b", "/c,d\\e"};

	ASSERT_OK(overlay_options_build(lowers, 2, "/u,x", "/w:y", &o));
	ck_assert_str_eq(o, "lowerdir=/a\\:b:/c\\,d\\\\e,upperdir=/u\\,x,workdir=/w\\:y");
}
END_TEST

START_TEST(test_overlay_options_rejects_bad_paths)
{
	char *o = NULL;
	const char *rel[] = {"base"};
	const char *empty[] = {""};
	const char *null[] = {NULL};
	const char *ok[] = {"/base"};

	ASSERT_ERRNO(overlay_options_build(rel, 1, "/u", "/w", &o), EINVAL);
	ASSERT_ERRNO(overlay_options_build(empty, 1, "/u", "/w", &o), EINVAL);
	ASSERT_ERRNO(overlay_options_build(null, 1, "/u", "/w", &o), EINVAL);
	ASSERT_ERRNO(overlay_options_build(ok, 0, "/u", "/w", &o), EINVAL);
	ASSERT_ERRNO(overlay_options_build(ok, 1, "u", "/w", &o), EINVAL);
	ASSERT_ERRNO(overlay_options_build(ok, 1, "/u", NULL, &o), EINVAL);
	ASSERT_ERRNO(overlay_options_build(NULL, 1, "/u", "/w", &o), EINVAL);
	ck_assert_ptr_null(o);
}
END_TEST

START_TEST(test_overlay_options_caps_length)
{
	_cleanup_free_ char *big = malloc(OVERLAY_OPTIONS_MAX), *o = NULL;
	const char *lowers[1];
	size_t fixed = strlen("lowerdir=,upperdir=/u,workdir=/w");

	ck_assert_ptr_nonnull(big);
	/* Exactly at the limit (one byte left for the NUL): accepted. */
	big[0] = '/';
	memset(big + 1, 'a', OVERLAY_OPTIONS_MAX - fixed - 2);
	big[OVERLAY_OPTIONS_MAX - fixed - 1] = '\0';
	lowers[0] = big;
	ASSERT_OK(overlay_options_build(lowers, 1, "/u", "/w", &o));
	ck_assert_uint_eq(strlen(o), OVERLAY_OPTIONS_MAX - 1);
	free(TAKE_PTR(o));

	/* One more byte, or an escape that grows it: refused. */
	big[OVERLAY_OPTIONS_MAX - fixed - 2] = ',';
	ASSERT_ERRNO(overlay_options_build(lowers, 1, "/u", "/w", &o), E2BIG);
	ck_assert_ptr_null(o);
}
END_TEST

static Suite *overlay_suite(void)
{
	Suite *s = suite_create("guest-overlay");
	TCase *tc = tcase_create("overlay");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_overlay_options_base_only);
	tcase_add_test(tc, test_overlay_options_pod_above_base);
	tcase_add_test(tc, test_overlay_options_escapes_separators);
	tcase_add_test(tc, test_overlay_options_rejects_bad_paths);
	tcase_add_test(tc, test_overlay_options_caps_length);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(overlay_suite());
}
