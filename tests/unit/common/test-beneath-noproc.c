/* SPDX-License-Identifier: Apache-2.0 */
/*
 * beneath.h without /proc (a private mount namespace with an empty tmpfs over it): the reopen
 * resolves the path again and checks it is the same file. The same attacks must fail the same
 * way, without blocking (10 s per test), and nothing is opened for writing. Needs root and a mount
 * namespace; skipped (77) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "cctest.h"

#ifdef CC_SANITIZED
/* LeakSanitizer reads /proc/self/maps at exit, and this test hides /proc: no leak check here
 * (test-common-beneath runs the same helper with it). */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}
#endif

static char *tmp;
static int root_fd = -1;

static void setup(void)
{
	char p[PATH_MAX];

	/* Each test runs in its own forked child: the namespace goes with it. */
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_int_eq(mount("tmpfs", "/proc", "tmpfs", 0, "size=64k"), 0);
	ck_assert_int_lt(access("/proc/self/fd", F_OK), 0);
	tmp = cctest_mkdtemp();
	cctest_mkdir_at(tmp, "root");
	cctest_mkdir_at(tmp, "root/d");
	cctest_write_at(tmp, "root/d/f", "42\n");
	cctest_write_at(tmp, "secret", "host secret\n");
	(void) snprintf(p, sizeof(p), "%s/root", tmp);
	root_fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(root_fd, 0);
}

static void teardown(void)
{
	root_fd = safe_close(root_fd);
	(void) cctest_rm_rf(tmp);
	free(tmp);
}

START_TEST(test_noproc_reads_and_refuses)
{
	char p[PATH_MAX], target[PATH_MAX];
	_cleanup_close_ int fd = -1;
	char *buf = NULL;

	ASSERT_OK(beneath_read(root_fd, "d/f", 16, &buf, NULL));
	ck_assert_str_eq(buf, "42\n");
	free(buf);
	buf = NULL;
	fd = beneath_open(root_fd, "d", O_RDONLY | O_DIRECTORY, S_IFDIR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	(void) snprintf(p, sizeof(p), "%s/root/fifo", tmp);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ASSERT_ERRNO(beneath_read(root_fd, "fifo", 16, &buf, NULL), EBADFD);
	ASSERT_ERRNO(beneath_open(root_fd, "fifo", O_WRONLY, S_IFREG), EBADFD);
	(void) snprintf(p, sizeof(p), "%s/root/link", tmp);
	(void) snprintf(target, sizeof(target), "%s/secret", tmp);
	ck_assert_int_eq(symlink(target, p), 0);
	ASSERT_ERRNO(beneath_read(root_fd, "link", 64, &buf, NULL), ELOOP);
	ASSERT_ERRNO(beneath_read(root_fd, "../secret", 64, &buf, NULL), EXDEV);
	ck_assert_ptr_null(buf);
}
END_TEST

START_TEST(test_noproc_no_write_or_truncate)
{
	/* The reopen opens the path again before it can check the file: a file swapped in
	 * meanwhile would be truncated or written before -ESTALE. So it does not write. */
	ASSERT_ERRNO(beneath_open(root_fd, "d/f", O_WRONLY | O_TRUNC, S_IFREG), EOPNOTSUPP);
	ASSERT_ERRNO(beneath_open(root_fd, "d/f", O_RDONLY | O_TRUNC, S_IFREG), EOPNOTSUPP);
	ASSERT_ERRNO(beneath_open(root_fd, "d/f", O_WRONLY, S_IFREG), EOPNOTSUPP);
	ASSERT_ERRNO(beneath_open(root_fd, "d/f", O_RDWR | O_APPEND, S_IFREG), EOPNOTSUPP);
	ck_assert_str_eq(cctest_read_at(tmp, "root/d/f"), "42\n");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("beneath-noproc");
	TCase *tc = tcase_create("noproc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_noproc_reads_and_refuses);
	tcase_add_test(tc, test_noproc_no_write_or_truncate);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	cctest_require_privileged(CLONE_NEWNS);
	return cctest_run_suite(suite());
}
