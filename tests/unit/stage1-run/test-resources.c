/* SPDX-License-Identifier: Apache-2.0 */
/* The cc/resources record (pod-resources.h): append, parse, load, hostile input. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "pod-resources.h"

static char *tmp;
static int pod_fd = -1;

static void setup(void)
{
	char p[PATH_MAX];

	tmp = cctest_mkdtemp();
	(void) snprintf(p, sizeof(p), "%s/cc", tmp);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	pod_fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(pod_fd, 0);
}

static void teardown(void)
{
	pod_fd = safe_close(pod_fd);
	(void) cctest_rm_rf(tmp);
	free(tmp);
}

START_TEST(test_kind_names)
{
	ck_assert_str_eq(pod_resource_kind_to_string(POD_RESOURCE_TAP), "tap");
	ck_assert_str_eq(pod_resource_kind_to_string(POD_RESOURCE_NETNS), "netns");
	ck_assert_str_eq(pod_resource_kind_to_string(POD_RESOURCE_JOURNAL_LINK), "journal-link");
	ck_assert_int_eq(pod_resource_kind_from_string("machine"), POD_RESOURCE_MACHINE);
	ck_assert_ptr_null(pod_resource_kind_to_string(_POD_RESOURCE_KIND_MAX));
	ck_assert_int_eq(pod_resource_kind_from_string("tap"), POD_RESOURCE_TAP);
	ck_assert_int_eq(pod_resource_kind_from_string("mount"), _POD_RESOURCE_KIND_INVALID);
	ck_assert_int_eq(pod_resource_kind_from_string(NULL), _POD_RESOURCE_KIND_INVALID);
}
END_TEST

START_TEST(test_names)
{
	ck_assert(pod_resource_name_valid(POD_RESOURCE_TAP, "cc-1234abcd-0"));
	ck_assert(pod_resource_name_valid(POD_RESOURCE_TAP, "abcdefghijklmno"));   /* 15 */
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_TAP, "abcdefghijklmnop")); /* 16 */
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_TAP, ""));
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_TAP, "a b"));
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_NETNS, "../etc"));
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_NETNS, ".."));
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_NETNS, "a/b"));
	ck_assert(pod_resource_name_valid(POD_RESOURCE_NETNS, "cc-0123"));
	ck_assert(pod_resource_name_valid(POD_RESOURCE_JOURNAL_LINK,
					  "0123abcd456789ef0123456789abcdef"));
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_JOURNAL_LINK,
					   "0123ABCD456789ef0123456789abcdef"));
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_JOURNAL_LINK, "0123abcd"));
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_JOURNAL_LINK, "../../../etc/passwd"));
	ck_assert(pod_resource_name_valid(POD_RESOURCE_MACHINE,
					  "rkt-0123abcd-4567-89ef-0123-456789abcdef"));
	ck_assert(!pod_resource_name_valid(POD_RESOURCE_MACHINE, "rkt x"));
}
END_TEST

/* A journal link is removed only while it is a symlink: a directory there is not ours. */
START_TEST(test_remove_journal_link)
{
	char host[] = "/tmp/cc-test-journal.XXXXXX", path[sizeof(host) + POD_RESOURCE_NAME_MAX + 2];
	struct pod_resource r = {.kind = POD_RESOURCE_JOURNAL_LINK};

	ck_assert_ptr_nonnull(mkdtemp(host));
	ck_assert_int_eq(setenv("CC_HOST_JOURNAL_DIR", host, 1), 0);
	strcpy(r.name, "0123abcd456789ef0123456789abcdef");
	(void) snprintf(path, sizeof(path), "%s/%s", host, r.name);
	ck_assert_int_eq(symlink("/nonexistent", path), 0);
	ASSERT_OK(pod_resource_remove(&r));
	ck_assert_int_lt(access(path, F_OK), 0);
	ASSERT_OK(pod_resource_remove(&r)); /* gone already */
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ASSERT_OK(pod_resource_remove(&r));
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(rmdir(host), 0);
	ck_assert_int_eq(unsetenv("CC_HOST_JOURNAL_DIR"), 0);
}
END_TEST

START_TEST(test_append_then_load)
{
	_cleanup_free_ struct pod_resource *v = NULL;
	_cleanup_free_ char *buf = NULL;
	char p[PATH_MAX];
	struct stat st;
	size_t n = 99;

	/* No record yet: nothing to do. */
	ASSERT_OK(pod_resources_load(pod_fd, &v, &n, NULL));
	ck_assert_uint_eq(n, 0);
	ASSERT_OK(pod_resources_append(pod_fd, POD_RESOURCE_TAP, "cc-0a1b2c3d"));
	ASSERT_OK(pod_resources_append(pod_fd, POD_RESOURCE_NETNS, "cc-0a1b2c3d"));
	ASSERT_ERRNO(pod_resources_append(pod_fd, POD_RESOURCE_NETNS, "../x"), EINVAL);
	ASSERT_ERRNO(pod_resources_append(pod_fd, _POD_RESOURCE_KIND_MAX, "x"), EINVAL);
	/* The callback form (ccnet's record hook). */
	ASSERT_OK(pod_resources_record(&pod_fd, "tap", "cc-tap1"));
	ASSERT_ERRNO(pod_resources_record(&pod_fd, "mount", "x"), EINVAL);
	ASSERT_ERRNO(pod_resources_record(&pod_fd, "tap", "a/b"), EINVAL);

	(void) snprintf(p, sizeof(p), "%s/" POD_RESOURCES_PATH, tmp);
	ASSERT_OK(read_full_file(p, 1024, &buf, NULL));
	ck_assert_str_eq(buf, "tap cc-0a1b2c3d\nnetns cc-0a1b2c3d\ntap cc-tap1\n");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);

	ASSERT_OK(pod_resources_load(pod_fd, &v, &n, NULL));
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(v[0].kind, POD_RESOURCE_TAP);
	ck_assert_str_eq(v[0].name, "cc-0a1b2c3d");
	ck_assert_int_eq(v[1].kind, POD_RESOURCE_NETNS);
}
END_TEST

START_TEST(test_parse_hostile)
{
	static const struct {
		const char *in;
		int r;
		unsigned line;
		size_t n;
	} t[] = {
		{"", 0, 0, 0},
		{"tap a\n", 0, 0, 1},
		/* A torn last line (crash while appending): the resource was never created. */
		{"tap a\ntap b", 0, 0, 1},
		{"tap", 0, 0, 0},
		{"tap a\nmount /x\n", -EBADMSG, 2, 0},
		{"tap a\n\n", -EBADMSG, 2, 0},
		{"tap  a\n", -EBADMSG, 1, 0},
		{"tap a b\n", -EBADMSG, 1, 0},
		{"netns ../../etc/passwd\n", -EBADMSG, 1, 0},
		{"tap "
		 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
		 -EBADMSG, 1, 0},
		{" tap a\n", -EBADMSG, 1, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		_cleanup_free_ struct pod_resource *v = NULL;
		unsigned line = 0;
		size_t n = 0;
		int r = pod_resources_parse(t[i].in, strlen(t[i].in), &v, &n, &line);

		ck_assert_msg(r == t[i].r, "case %zu: %d", i, r);
		if (r < 0)
			ck_assert_msg(line == t[i].line, "case %zu: line %u", i, line);
		else
			ck_assert_msg(n == t[i].n, "case %zu: n %zu", i, n);
	}
	{
		_cleanup_free_ struct pod_resource *v = NULL;
		size_t n;

		ASSERT_ERRNO(pod_resources_parse("tap a\0\n", 7, &v, &n, NULL), EBADMSG);
	}
}
END_TEST

START_TEST(test_too_big)
{
	_cleanup_free_ struct pod_resource *v = NULL;
	_cleanup_free_ char *big = malloc(POD_RESOURCES_SIZE_MAX + 8);
	size_t n;

	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i + 6 <= POD_RESOURCES_SIZE_MAX + 6; i += 6)
		memcpy(big + i, "tap a\n", 6);
	ASSERT_ERRNO(pod_resources_parse(big, POD_RESOURCES_SIZE_MAX + 6, &v, &n, NULL), EFBIG);
}
END_TEST

START_TEST(test_remove_rejects_bad_names)
{
	struct pod_resource r = {.kind = POD_RESOURCE_NETNS};

	strcpy(r.name, "../../etc");
	ASSERT_ERRNO(pod_resource_remove(&r), EINVAL);
	r.kind = _POD_RESOURCE_KIND_MAX;
	strcpy(r.name, "x");
	ASSERT_ERRNO(pod_resource_remove(&r), EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-resources");
	TCase *tc = tcase_create("record");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_kind_names);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_append_then_load);
	tcase_add_test(tc, test_parse_hostile);
	tcase_add_test(tc, test_remove_journal_link);
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_remove_rejects_bad_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(suite());
}
