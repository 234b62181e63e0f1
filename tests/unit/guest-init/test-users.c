/* SPDX-License-Identifier: Apache-2.0 */
/* cc-init appends the pod layer's users and groups to the guest's database (init/users.c). */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cctest.h"
#include "users.h"

static char *root;

static void put(const char *rel, const char *s)
{
	cctest_write_at(root, rel, s);
}

static const char *get(const char *rel)
{
	return cctest_read_at(root, rel);
}

static void setup(void)
{
	root = cctest_mkdtemp();
	cctest_mkdir_at(root, "etc");
}

static void teardown(void)
{
	cctest_rm_rf(root);
}

START_TEST(test_users_appended)
{
	cctest_mkdir_at(root, "etc/cc");
	put("etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
	put("etc/group", "root:x:0:\n");
	put("etc/cc/passwd", "web:x:1000:50:rkt app web:/srv:/bin/sh\n");
	put("etc/cc/group", "staff:x:50:\nrkt-gid-2000:x:2000:\n");

	ASSERT_OK(users_append(root));
	ck_assert_str_eq(get("etc/passwd"), "root:x:0:0:root:/root:/bin/bash\n"
					    "web:x:1000:50:rkt app web:/srv:/bin/sh\n");
	ck_assert_str_eq(get("etc/group"), "root:x:0:\nstaff:x:50:\nrkt-gid-2000:x:2000:\n");
}
END_TEST

START_TEST(test_users_without_pod_layer)
{
	put("etc/passwd", "root:x:0:0::/:/bin/sh\n");
	ASSERT_OK(users_append(root));
	ck_assert_str_eq(get("etc/passwd"), "root:x:0:0::/:/bin/sh\n");
}
END_TEST

START_TEST(test_users_malformed_list)
{
	cctest_mkdir_at(root, "etc/cc");
	put("etc/passwd", "root:x:0:0::/:/bin/sh\n");
	/* A list that does not end with a newline would glue its last entry to the next. */
	put("etc/cc/passwd", "web:x:1000:50::/:/bin/sh");
	ASSERT_ERRNO(users_append(root), EBADMSG);
	ck_assert_str_eq(get("etc/passwd"), "root:x:0:0::/:/bin/sh\n");
}
END_TEST

START_TEST(test_users_missing_database)
{
	cctest_mkdir_at(root, "etc/cc");
	put("etc/cc/group", "staff:x:50:\n");
	ASSERT_ERRNO(users_append(root), ENOENT);
}
END_TEST

static Suite *users_suite(void)
{
	Suite *s = suite_create("guest-users");
	TCase *tc = tcase_create("users");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_users_appended);
	tcase_add_test(tc, test_users_without_pod_layer);
	tcase_add_test(tc, test_users_malformed_list);
	tcase_add_test(tc, test_users_missing_database);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(users_suite());
}
