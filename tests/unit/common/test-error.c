/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc/error.h and cc/warnings.h, the one error and the one warning type of every library: the
 * returned errno and the stored one agree, %m is the call's own errno, wrapping adds context
 * in front (or the errno's text when the callee said nothing), long lines are cut and stay
 * terminated, and a NULL error or warning list is allowed.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "cc/error.h"
#include "cc/warnings.h"
#include "cctest.h"

START_TEST(test_set_returns_the_negative_errno)
{
	struct cc_error err = {0};

	ck_assert_int_eq(cc_error_set(&err, ENOENT, "a"), -ENOENT);
	ck_assert_int_eq(err.code, -ENOENT);
	ck_assert_int_eq(cc_error_set(&err, -EACCES, "b"), -EACCES);
	ck_assert_int_eq(err.code, -EACCES);
	ck_assert_str_eq(err.msg, "b");
	/* 0 is not an error: it becomes -EINVAL rather than a success. */
	ck_assert_int_eq(cc_error_set(&err, 0, "c"), -EINVAL);
	ck_assert_int_eq(cc_error_set(NULL, -EIO, "d"), -EIO);
}
END_TEST

START_TEST(test_percent_m_is_the_calls_errno)
{
	struct cc_error err = {0};

	errno = EPERM;
	(void) cc_error_set(&err, -ENOENT, "open %s: %m", "x");
	ck_assert_str_eq(err.msg, "open x: No such file or directory");
	ck_assert_int_eq(errno, EPERM); /* the caller's errno is left as it was */
	(void) cc_error_set_status(&err, 7, -EBUSY, "kvm: %m");
	ck_assert_str_eq(err.msg, "kvm: Device or resource busy");
	ck_assert_int_eq(err.status, 7);
}
END_TEST

START_TEST(test_context_and_status)
{
	struct cc_error err = {0};

	ck_assert_int_eq(cc_error_set_context(&err, -EINVAL, "apps[0].name", "empty"), -EINVAL);
	ck_assert_str_eq(err.context, "apps[0].name");
	ck_assert_str_eq(err.msg, "empty");
	ck_assert_int_eq(err.status, 0);
	/* set leaves context and status to whoever set them */
	(void) cc_error_set_status(&err, 4, -EAGAIN, "busy");
	(void) cc_error_set(&err, -EIO, "later");
	ck_assert_int_eq(err.status, 4);
	ck_assert_str_eq(err.context, "apps[0].name");
}
END_TEST

START_TEST(test_wrap_adds_context_in_front)
{
	struct cc_error err = {0};

	(void) cc_error_set(&err, -ENOENT, "manifest: %m");
	ck_assert_int_eq(cc_error_wrap(&err, -ENOENT, "app %s", "web"), -ENOENT);
	ck_assert_str_eq(err.msg, "app web: manifest: No such file or directory");
	ck_assert_int_eq(cc_error_wrap(&err, -EBADMSG, "pod"), -EBADMSG);
	ck_assert_str_eq(err.msg, "pod: app web: manifest: No such file or directory");
	ck_assert_int_eq(err.code, -EBADMSG);
	/* A callee's context becomes part of the line, once. */
	(void) cc_error_set_context(&err, -EINVAL, "apps[0].name", "empty");
	(void) cc_error_wrap(&err, -EINVAL, "pod manifest");
	ck_assert_str_eq(err.msg, "pod manifest: apps[0].name: empty");
	ck_assert_str_eq(err.context, "");
	(void) cc_error_wrap(&err, -EINVAL, "run");
	ck_assert_str_eq(err.msg, "run: pod manifest: apps[0].name: empty");
}
END_TEST

START_TEST(test_wrap_of_a_silent_callee_says_the_errno)
{
	struct cc_error err = {0};

	ck_assert_int_eq(cc_error_wrap(&err, -ENOMEM, "cannot list %s", "/x"), -ENOMEM);
	ck_assert_str_eq(err.msg, "cannot list /x: Cannot allocate memory");
	ck_assert_int_eq(cc_error_wrap(NULL, -EIO, "x"), -EIO);
}
END_TEST

START_TEST(test_long_lines_are_cut_and_terminated)
{
	char big[3 * CC_ERROR_MSG_MAX];
	struct cc_error err = {0};

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	(void) cc_error_set(&err, -EIO, "%s", big);
	ck_assert_uint_eq(strlen(err.msg), CC_ERROR_MSG_MAX - 1);
	(void) cc_error_wrap(&err, -EIO, "%s", big);
	ck_assert_uint_eq(strlen(err.msg), CC_ERROR_MSG_MAX - 1);
	(void) cc_error_set(&err, -EIO, "short");
	(void) cc_error_wrap(&err, -EIO, "%.*s", CC_ERROR_MSG_MAX - 4, big);
	ck_assert_uint_eq(strlen(err.msg), CC_ERROR_MSG_MAX - 1);
	ck_assert_str_eq(err.msg + CC_ERROR_MSG_MAX - 4, ": s");
	(void) cc_error_set_context(&err, -EIO, big, "x");
	ck_assert_uint_eq(strlen(err.context), CC_ERROR_CONTEXT_MAX - 1);
}
END_TEST

START_TEST(test_message_never_empty)
{
	struct cc_error err = {0};

	ck_assert_str_eq(cc_error_message(&err), "Cannot allocate memory");
	err.code = -ENOSPC;
	ck_assert_str_eq(cc_error_message(&err), "No space left on device");
	(void) cc_error_set(&err, -ENOSPC, "pod layer: %m");
	ck_assert_str_eq(cc_error_message(&err), "pod layer: No space left on device");
}
END_TEST

START_TEST(test_warnings_keep_order_and_a_bound)
{
	struct cc_warnings w = {0};

	ck_assert_int_eq(cc_warnings_add(&w, "first %d", 1), 0);
	ck_assert_int_eq(cc_warnings_add(&w, "second"), 0);
	ck_assert_int_eq(cc_warnings_add(NULL, "dropped"), 0);
	ck_assert_uint_eq(cc_warnings_count(&w), 2);
	ck_assert_str_eq(cc_warnings_line(&w, 0), "first 1");
	ck_assert_str_eq(cc_warnings_line(&w, 1), "second");
	for (int i = 0; i < CC_WARNINGS_MAX + 5; i++)
		ck_assert_int_eq(cc_warnings_add(&w, "more"), 0);
	/* the kept lines, then one line saying how many were not */
	ck_assert_uint_eq(cc_warnings_count(&w), CC_WARNINGS_MAX + 1);
	ck_assert_ptr_nonnull(strstr(cc_warnings_line(&w, CC_WARNINGS_MAX), "7"));
	cc_warnings_done(&w);
	ck_assert_uint_eq(cc_warnings_count(&w), 0);
}
END_TEST

static Suite *error_suite(void)
{
	Suite *s = suite_create("error");
	TCase *tc = tcase_create("error");

	tcase_add_test(tc, test_set_returns_the_negative_errno);
	tcase_add_test(tc, test_percent_m_is_the_calls_errno);
	tcase_add_test(tc, test_context_and_status);
	tcase_add_test(tc, test_wrap_adds_context_in_front);
	tcase_add_test(tc, test_wrap_of_a_silent_callee_says_the_errno);
	tcase_add_test(tc, test_long_lines_are_cut_and_terminated);
	tcase_add_test(tc, test_message_never_empty);
	tcase_add_test(tc, test_warnings_keep_order_and_a_bound);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(error_suite());
}
