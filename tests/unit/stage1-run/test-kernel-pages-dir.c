/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel pages directory (kernel-pages-dir.h): made with its missing parents, 0700; an
 * existing good one accepted as it is; refused when it is not a directory, is open to others,
 * or the path is relative.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cctest.h"
#include "kernel-pages-dir.h"

static char *tmp;
static char path[PATH_MAX];

static void setup(void)
{
	tmp = cctest_mkdtemp();
	(void) snprintf(path, sizeof(path), "%s/run/clear-containers/kernel-pages", tmp);
}

static void teardown(void)
{
	cctest_rm_rf(tmp);
	free(tmp);
}

START_TEST(test_made_with_parents)
{
	struct cc_error err = {};
	struct stat st;

	ASSERT_OK(kernel_pages_dir_prepare(path, &err));
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	/* Again: it is there, and fine. */
	ASSERT_OK(kernel_pages_dir_prepare(path, &err));
}
END_TEST

START_TEST(test_refused)
{
	struct cc_error err = {};

	ASSERT_OK(kernel_pages_dir_prepare(path, &err));
	ck_assert_int_eq(chmod(path, 0755), 0);
	ASSERT_ERRNO(kernel_pages_dir_prepare(path, &err), EPERM);
	ck_assert_msg(strstr(err.msg, path) != NULL, "%s", err.msg);

	ck_assert_int_eq(rmdir(path), 0);
	cctest_write_at(tmp, "run/clear-containers/kernel-pages", "");
	ck_assert_int_lt(kernel_pages_dir_prepare(path, &err), 0);

	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink(tmp, path), 0);
	ASSERT_ERRNO(kernel_pages_dir_prepare(path, &err), ENOTDIR);

	ASSERT_ERRNO(kernel_pages_dir_prepare("run/kernel-pages", &err), EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel-pages-dir");
	TCase *tc = tcase_create("prepare");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_made_with_parents);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
