/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc/rm-rf.h, the one recursive removal (stage1's run, cc-stage0, the tests): a tree goes, a
 * symlink is removed and never followed, a mount point stops the walk and keeps what it holds,
 * a missing path is success, and "/" or ".." are refused.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/rm-rf.h"
#include "cctest.h"

static char *tmp;

static void setup(void)
{
	tmp = cctest_mkdtemp();
	ck_assert_ptr_nonnull(tmp);
}

static void teardown(void)
{
	(void) rm_rf(tmp);
	free(tmp);
}

static char *at(const char *rel)
{
	static char buf[4][4200];
	static unsigned k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmp, rel);
	return buf[k];
}

START_TEST(test_removes_a_tree)
{
	cctest_mkdir_at(tmp, "t");
	cctest_mkdir_at(tmp, "t/a");
	cctest_mkdir_at(tmp, "t/a/b");
	cctest_write_at(tmp, "t/a/b/f", "x");
	cctest_write_at(tmp, "t/g", "y");
	ck_assert_int_eq(mkfifo(at("t/a/fifo"), 0600), 0);
	ck_assert_int_eq(chmod(at("t/a"), 0), 0); /* not even readable: root's walk goes on */
	ck_assert_int_eq(rm_rf(at("t/")), 0);
	ck_assert_int_eq(access(at("t"), F_OK), -1);
	/* missing: success */
	ck_assert_int_eq(rm_rf(at("t")), 0);
	ck_assert_int_eq(rm_rf(at("no/such/dir")), 0);
}
END_TEST

START_TEST(test_never_follows_a_symlink)
{
	cctest_mkdir_at(tmp, "outside");
	cctest_write_at(tmp, "outside/keep", "k");
	cctest_mkdir_at(tmp, "t");
	ck_assert_int_eq(symlink(at("outside"), at("t/link")), 0);
	ck_assert_int_eq(symlink(at("outside"), at("top")), 0);
	ck_assert_int_eq(rm_rf(at("t")), 0);
	ck_assert_int_eq(rm_rf(at("top")), 0);
	ck_assert_int_eq(access(at("top"), F_OK), -1);
	ck_assert_str_eq(cctest_read_at(tmp, "outside/keep"), "k");
}
END_TEST

START_TEST(test_refuses_root_and_dots)
{
	ASSERT_ERRNO(rm_rf("/"), EINVAL);
	ASSERT_ERRNO(rm_rf("//"), EINVAL);
	ASSERT_ERRNO(rm_rf(""), EINVAL);
	ASSERT_ERRNO(rm_rf(at("..")), EINVAL);
	ASSERT_ERRNO(rm_rf(at(".")), EINVAL);
	ck_assert_int_eq(access(tmp, F_OK), 0);
}
END_TEST

START_TEST(test_stops_at_a_mount_point)
{
	cctest_require_privileged(CLONE_NEWNS);
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	cctest_mkdir_at(tmp, "t");
	cctest_mkdir_at(tmp, "t/m");
	ck_assert_int_eq(mount("tmpfs", at("t/m"), "tmpfs", 0, NULL), 0);
	cctest_write_at(tmp, "t/m/inside", "i");
	ASSERT_ERRNO(rm_rf(at("t")), EBUSY);
	ck_assert_str_eq(cctest_read_at(tmp, "t/m/inside"), "i");
	ck_assert_int_eq(umount2(at("t/m"), MNT_DETACH), 0);
	ck_assert_int_eq(rm_rf(at("t")), 0);
}
END_TEST

static Suite *rm_rf_suite(void)
{
	Suite *s = suite_create("rm-rf");
	TCase *tc = tcase_create("rm-rf");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_removes_a_tree);
	tcase_add_test(tc, test_never_follows_a_symlink);
	tcase_add_test(tc, test_refuses_root_and_dots);
	tcase_add_test(tc, test_stops_at_a_mount_point);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(rm_rf_suite());
}
