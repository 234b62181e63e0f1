/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "cctest.h"

START_TEST(test_read_full_file_reads_contents)
{
	_cleanup_free_ char *dir = cctest_mkdtemp(), *path = NULL, *buf = NULL;
	size_t len;

	ck_assert_int_ge(asprintf(&path, "%s/f", dir), 0);
	ASSERT_OK(write_string_file_atomic(path, "hello\n", 0644));
	ASSERT_OK(read_full_file(path, 100, &buf, &len));
	ck_assert_uint_eq(len, 6);
	ck_assert_str_eq(buf, "hello\n");
	cctest_rm_rf(dir);
}
END_TEST

START_TEST(test_pread_exact)
{
	_cleanup_free_ char *dir = cctest_mkdtemp(), *path = NULL;
	_cleanup_close_ int fd = -1;
	char buf[8] = {0};

	ck_assert_int_ge(asprintf(&path, "%s/f", dir), 0);
	ASSERT_OK(write_string_file_atomic(path, "0123456789", 0644));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ASSERT_OK(pread_exact(fd, buf, 4, 3));
	ck_assert(memcmp(buf, "3456", 4) == 0);
	ASSERT_OK(pread_exact(fd, buf, 0, 100));
	ASSERT_ERRNO(pread_exact(fd, buf, 8, 5), ENODATA);
	ASSERT_ERRNO(pread_exact(-1, buf, 1, 0), EBADF);
	cctest_rm_rf(dir);
}
END_TEST

START_TEST(test_write_string_file_needs_existing_file)
{
	_cleanup_free_ char *dir = cctest_mkdtemp(), *path = NULL, *buf = NULL;

	ck_assert_int_ge(asprintf(&path, "%s/f", dir), 0);
	/* Like a sysfs attribute: never created. */
	ASSERT_ERRNO(write_string_file(path, "5"), ENOENT);
	ASSERT_OK(write_string_file_atomic(path, "10\n", 0644));
	ASSERT_OK(write_string_file(path, "5"));
	ASSERT_OK(read_full_file(path, 100, &buf, NULL));
	/* One write at offset 0, no truncation: what a sysfs attribute store sees. */
	ck_assert_str_eq(buf, "50\n");
	cctest_rm_rf(dir);
}
END_TEST

START_TEST(test_read_full_file_rejects_oversized)
{
	_cleanup_free_ char *dir = cctest_mkdtemp(), *path = NULL, *buf = NULL;

	ck_assert_int_ge(asprintf(&path, "%s/f", dir), 0);
	ASSERT_OK(write_string_file_atomic(path, "0123456789", 0600));
	ASSERT_ERRNO(read_full_file(path, 9, &buf, NULL), EFBIG);
	ck_assert_ptr_null(buf);
	ASSERT_ERRNO(read_full_file(dir, 9, &buf, NULL), EISDIR);
	ASSERT_ERRNO(read_full_file("/nonexistent/x", 9, &buf, NULL), ENOENT);
	cctest_rm_rf(dir);
}
END_TEST

START_TEST(test_read_full_fd_caps_streams)
{
	int p[2];
	char data[64];
	_cleanup_free_ char *buf = NULL;

	memset(data, 'x', sizeof(data));
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ASSERT_OK(loop_write(p[1], data, sizeof(data)));
	close(p[1]);
	ASSERT_ERRNO(read_full_fd(p[0], 10, &buf, NULL), EFBIG);
	close(p[0]);
}
END_TEST

START_TEST(test_log_returns_negative_errno)
{
	log_set_max_level(LOG_CRIT);
	ck_assert_int_eq(log_error_errno(ENOENT, "x"), -ENOENT);
	ck_assert_int_eq(log_error_errno(-EINVAL, "x"), -EINVAL);
	log_set_max_level(LOG_DEBUG);
	ck_assert_int_eq(log_error_errno(-EPERM, "shown: %m"), -EPERM);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("common");
	TCase *tc = tcase_create("fileio");

	tcase_add_test(tc, test_read_full_file_reads_contents);
	tcase_add_test(tc, test_pread_exact);
	tcase_add_test(tc, test_write_string_file_needs_existing_file);
	tcase_add_test(tc, test_read_full_file_rejects_oversized);
	tcase_add_test(tc, test_read_full_fd_caps_streams);
	tcase_add_test(tc, test_log_returns_negative_errno);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
