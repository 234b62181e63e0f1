/* SPDX-License-Identifier: Apache-2.0 */
/* cc-init's accounts for the apps' numeric users and groups (guest-image/init/users.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "users.h"

static char *root;

static void put(const char *rel, const char *s)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "we");
	ck_assert_ptr_nonnull(f);
	fputs(s, f);
	fclose(f);
}

static char *get(const char *rel)
{
	static char *last;
	char p[1024];

	free(last);
	last = NULL;
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_int_ge(read_full_file(p, 1 << 20, &last, NULL), 0);
	return last;
}

static void setup(void)
{
	char p[1024];

	root = cctest_mkdtemp();
	snprintf(p, sizeof(p), "%s/etc", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void teardown(void)
{
	cctest_rm_rf(root);
}

START_TEST(test_users_added_once)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/etc/cc", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	strcat(p, "/enter");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	put("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534::/:/x");
	put("etc/group", "root:x:0:\nsudo:x:27:\n");
	put("etc/cc/enter/web", "app=web\nuid=1000\ngid=1000\ngroups=27,1001\ncwd=/\n");
	put("etc/cc/enter/db", "uid=0\ngid=0\ngroups=\n");
	put("etc/cc/enter/nobody", "uid=65534\ngid=1001\n");

	ck_assert_int_eq(users_sync(root), 3);
	ck_assert_str_eq(get("etc/passwd"),
			 "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534::/:/x\n"
			 "cc-uid-1000:x:1000:1000::/:/usr/sbin/nologin\n");
	ck_assert_str_eq(get("etc/group"), "root:x:0:\nsudo:x:27:\ncc-gid-1000:x:1000:\n"
					   "cc-gid-1001:x:1001:\n");
	/* A second run (or a pod with nothing new) adds nothing. */
	ck_assert_int_eq(users_sync(root), 0);
}
END_TEST

START_TEST(test_users_without_pod_layer)
{
	put("etc/passwd", "root:x:0:0::/:/bin/sh\n");
	ck_assert_int_eq(users_sync(root), 0);
	ck_assert_str_eq(get("etc/passwd"), "root:x:0:0::/:/bin/sh\n");
}
END_TEST

START_TEST(test_users_bad_enter_file)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/etc/cc", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	strcat(p, "/enter");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	put("etc/cc/enter/web", "uid=abc\ngid=0\n");
	ASSERT_ERRNO(users_sync(root), EBADMSG);
}
END_TEST

static Suite *users_suite(void)
{
	Suite *s = suite_create("guest-users");
	TCase *tc = tcase_create("users");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_users_added_once);
	tcase_add_test(tc, test_users_without_pod_layer);
	tcase_add_test(tc, test_users_bad_enter_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(users_suite());
}
