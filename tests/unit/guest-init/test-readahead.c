/* SPDX-License-Identifier: Apache-2.0 */
/* cc-init sets the readahead of the 9p shares' backing devices (init/readahead.c). */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cctest.h"
#include "readahead.h"

static char *dir;

/* A backing device as sysfs shows it: a directory with a read_ahead_kb file, empty here
 * (sysfs replaces the value on a write; a regular file would keep a longer old one's tail). */
static void bdi_add(const char *name)
{
	char rel[512];

	cctest_mkdir_at(dir, name);
	snprintf(rel, sizeof(rel), "%s/read_ahead_kb", name);
	cctest_write_at(dir, rel, "");
}

static const char *bdi_get(const char *name)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "%s/read_ahead_kb", name);
	return cctest_read_at(dir, rel);
}

static void setup(void)
{
	dir = cctest_mkdtemp();
}

static void teardown(void)
{
	cctest_rm_rf(dir);
}

START_TEST(test_readahead_sets_prefix_only)
{
	bdi_add("9p-1");
	bdi_add("9p-12");
	bdi_add("259:0");
	bdi_add("overlay-3");

	ck_assert_int_eq(readahead_set(dir, "9p-", 64), 2);
	ck_assert_str_eq(bdi_get("9p-1"), "64");
	ck_assert_str_eq(bdi_get("9p-12"), "64");
	ck_assert_str_eq(bdi_get("259:0"), "");
	ck_assert_str_eq(bdi_get("overlay-3"), "");
}
END_TEST

START_TEST(test_readahead_none_matching)
{
	bdi_add("259:0");
	ck_assert_int_eq(readahead_set(dir, "9p-", 64), 0);
	ck_assert_str_eq(bdi_get("259:0"), "");
}
END_TEST

/* A device without the attribute fails the call, and the others are still set. */
START_TEST(test_readahead_reports_failed_write)
{
	cctest_mkdir_at(dir, "9p-1");
	bdi_add("9p-2");

	ASSERT_ERRNO(readahead_set(dir, "9p-", 64), ENOENT);
	ck_assert_str_eq(bdi_get("9p-2"), "64");
}
END_TEST

START_TEST(test_readahead_bad_arguments)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/absent", dir);
	ASSERT_ERRNO(readahead_set(p, "9p-", 64), ENOENT);
	ASSERT_ERRNO(readahead_set(NULL, "9p-", 64), EINVAL);
	ASSERT_ERRNO(readahead_set(dir, "", 64), EINVAL);
	ASSERT_ERRNO(readahead_set(dir, NULL, 64), EINVAL);
}
END_TEST

static Suite *readahead_suite(void)
{
	Suite *s = suite_create("guest-readahead");
	TCase *tc = tcase_create("readahead");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_readahead_sets_prefix_only);
	tcase_add_test(tc, test_readahead_none_matching);
	tcase_add_test(tc, test_readahead_reports_failed_write);
	tcase_add_test(tc, test_readahead_bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(readahead_suite());
}
