/* SPDX-License-Identifier: Apache-2.0 */
/* ccpod user/group resolution and rootfs lookups against a fake app rootfs. */
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
#include "stage1/rootfs.h"
#include "stage1/user.h"

static char *tmp;
static int rootfs_fd = -1;
/* Owners set up for the path tests: chown needs root; without it, our own ids. */
static uint32_t owned_uid, owned_gid, root_uid;

static void put(const char *rel, const char *content)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	ASSERT_OK(write_string_file_atomic(path, content, 0644));
}

static void mk(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

static void ln(const char *target, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	ck_assert_int_eq(symlink(target, path), 0);
}

static void setup(void)
{
	char path[512];

	tmp = cctest_mkdtemp();
	snprintf(path, sizeof(path), "%s/host-secret", tmp);
	ASSERT_OK(write_string_file_atomic(path, "evil:x:666:666::/:/bin/sh\n", 0644));
	snprintf(path, sizeof(path), "%s/rootfs", tmp);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	mk("rootfs/etc");
	put("rootfs/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"
				 "# a comment line\n"
				 "broken line without colons\n"
				 "bad:x:notanumber:1::/:/bin/sh\n"
				 "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
				 "app:x:1000:1000:App,,,:/home/app:/bin/sh\n"
				 "1234:x:4321:4321::/:/bin/sh\n"
				 "last:x:77:77::/:/bin/sh");
	put("rootfs/etc/group", "root:x:0:\n"
				"wheel:x:10:app\n"
				"app:x:1000:\n"
				"big:x:4294967294:\n");
	mk("rootfs/data");
	put("rootfs/data/owned", "x");
	snprintf(path, sizeof(path), "%s/rootfs/data/owned", tmp);
	owned_uid = 4242;
	owned_gid = 4343;
	root_uid = 31;
	if (chown(path, owned_uid, owned_gid) < 0) {
		ck_assert_int_eq(errno, EPERM);
		owned_uid = root_uid = (uint32_t) getuid();
		owned_gid = (uint32_t) getgid();
	}
	mk("rootfs/bin");
	put("rootfs/bin/tool", "#!/bin/sh\n");
	snprintf(path, sizeof(path), "%s/rootfs/bin/tool", tmp);
	ck_assert_int_eq(chmod(path, 0755), 0);
	put("rootfs/bin/noexec", "data");
	mk("rootfs/usr");
	mk("rootfs/usr/bin");
	ln("../../bin/tool", "rootfs/usr/bin/linked");
	snprintf(path, sizeof(path), "%s/rootfs", tmp);
	rootfs_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(rootfs_fd, 0);
}

static void teardown(void)
{
	rootfs_fd = safe_close(rootfs_fd);
	cctest_rm_rf(tmp);
	free(tmp);
}

START_TEST(test_names_resolve_in_the_app_rootfs)
{
	struct cc_error err = {};
	uint32_t id;

	ASSERT_OK(app_user_resolve(rootfs_fd, "root", &id, &err));
	ck_assert_uint_eq(id, 0);
	ASSERT_OK(app_user_resolve(rootfs_fd, "app", &id, &err));
	ck_assert_uint_eq(id, 1000);
	ASSERT_OK(app_user_resolve(rootfs_fd, "daemon", &id, &err));
	ck_assert_uint_eq(id, 1);
	/* A last line without a newline counts. */
	ASSERT_OK(app_user_resolve(rootfs_fd, "last", &id, &err));
	ck_assert_uint_eq(id, 77);
	ASSERT_OK(app_group_resolve(rootfs_fd, "wheel", &id, &err));
	ck_assert_uint_eq(id, 10);
	ASSERT_OK(app_group_resolve(rootfs_fd, "big", &id, &err));
	ck_assert_uint_eq(id, 4294967294u);
	/* appc: the database first, then the number. */
	ASSERT_OK(app_user_resolve(rootfs_fd, "1234", &id, &err));
	ck_assert_uint_eq(id, 4321);
}
END_TEST

START_TEST(test_numbers_need_no_database)
{
	struct cc_error err = {};
	uint32_t id;

	ASSERT_OK(app_user_resolve(rootfs_fd, "0", &id, &err));
	ck_assert_uint_eq(id, 0);
	ASSERT_OK(app_user_resolve(rootfs_fd, "65534", &id, &err));
	ck_assert_uint_eq(id, 65534);
	ASSERT_OK(app_group_resolve(rootfs_fd, "4294967294", &id, &err));
	ck_assert_uint_eq(id, 4294967294u);
	ASSERT_ERRNO(app_group_resolve(rootfs_fd, "4294967295", &id, &err), ERANGE);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "99999999999", &id, &err), ESRCH);

	/* No /etc/passwd at all: numbers still work, names do not. */
	ck_assert_int_eq(unlinkat(rootfs_fd, "etc/passwd", 0), 0);
	ASSERT_OK(app_user_resolve(rootfs_fd, "1000", &id, &err));
	ck_assert_uint_eq(id, 1000);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "app", &id, &err), ESRCH);
	ck_assert_str_eq(err.msg, "user 'app' not found in the app's /etc/passwd");
}
END_TEST

START_TEST(test_path_owner)
{
	struct cc_error err = {};
	uint32_t id;

	ASSERT_OK(app_user_resolve(rootfs_fd, "/data/owned", &id, &err));
	ck_assert_uint_eq(id, owned_uid);
	ASSERT_OK(app_group_resolve(rootfs_fd, "/data/owned", &id, &err));
	ck_assert_uint_eq(id, owned_gid);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "/data/missing", &id, &err), ESRCH);
	ck_assert(strstr(err.msg, "user '/data/missing': cannot stat that path"));
}
END_TEST

START_TEST(test_missing_names_fail)
{
	struct cc_error err = {};
	uint32_t id = 99;

	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "nobody", &id, &err), ESRCH);
	ck_assert_str_eq(err.msg, "user 'nobody' not found in the app's /etc/passwd");
	ASSERT_ERRNO(app_group_resolve(rootfs_fd, "nogroup", &id, &err), ESRCH);
	ck_assert_str_eq(err.msg, "group 'nogroup' not found in the app's /etc/group");
	/* A malformed entry is skipped, not half-parsed. */
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "bad", &id, &err), ESRCH);
	/* Names that cannot be in the database, and empty values. */
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "root:x", &id, &err), ESRCH);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "root\nx", &id, &err), ESRCH);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "", &id, &err), EINVAL);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "-1", &id, &err), ESRCH);
	ck_assert_uint_eq(id, 99);
}
END_TEST

START_TEST(test_symlinks_cannot_escape_the_rootfs)
{
	struct cc_error err = {};
	char target[512];
	uint32_t id;

	/* /etc/passwd pointing at a host file, absolutely and through "..": both stay inside. */
	ck_assert_int_eq(unlinkat(rootfs_fd, "etc/passwd", 0), 0);
	snprintf(target, sizeof(target), "%s/host-secret", tmp);
	ck_assert_int_eq(symlinkat(target, rootfs_fd, "etc/passwd"), 0);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "evil", &id, &err), ESRCH);
	ck_assert_int_eq(unlinkat(rootfs_fd, "etc/passwd", 0), 0);
	ck_assert_int_eq(symlinkat("../../../../../../host-secret", rootfs_fd, "etc/passwd"), 0);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "evil", &id, &err), ESRCH);
	/* An absolute link resolves against the rootfs: /etc/passwd -> /data/pw is fine. */
	ck_assert_int_eq(unlinkat(rootfs_fd, "etc/passwd", 0), 0);
	put("rootfs/data/pw", "inside:x:55:55::/:/bin/sh\n");
	ck_assert_int_eq(symlinkat("/data/pw", rootfs_fd, "etc/passwd"), 0);
	ASSERT_OK(app_user_resolve(rootfs_fd, "inside", &id, &err));
	ck_assert_uint_eq(id, 55);
	/* A path user through an escaping link sees the rootfs's own /, not the host's. */
	ck_assert_int_eq(symlinkat("/../../../../", rootfs_fd, "data/up"), 0);
	if (root_uid == 31)
		ck_assert_int_eq(fchownat(rootfs_fd, "", 31, 32, AT_EMPTY_PATH), 0);
	ASSERT_OK(app_user_resolve(rootfs_fd, "/data/up", &id, &err));
	ck_assert_uint_eq(id, root_uid);
	/* Magic links are refused. */
	ck_assert_int_eq(symlinkat("/proc/self/root/etc", rootfs_fd, "data/magic"), 0);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "/data/magic", &id, &err), ESRCH);
}
END_TEST

START_TEST(test_odd_database_files)
{
	struct cc_error err = {};
	uint32_t id;

	/* A FIFO must not block, a directory must not be read. */
	ck_assert_int_eq(unlinkat(rootfs_fd, "etc/passwd", 0), 0);
	ck_assert_int_eq(mkfifoat(rootfs_fd, "etc/passwd", 0644), 0);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "app", &id, &err), ESRCH);
	ck_assert(strstr(err.msg, "cannot read the app's /etc/passwd"));
	ASSERT_OK(app_user_resolve(rootfs_fd, "7", &id, &err));
	ck_assert_int_eq(unlinkat(rootfs_fd, "etc/passwd", 0), 0);
	ck_assert_int_eq(mkdirat(rootfs_fd, "etc/passwd", 0755), 0);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "app", &id, &err), ESRCH);
	ck_assert(strstr(err.msg, "Is a directory"));
}
END_TEST

START_TEST(test_oversized_database_is_refused)
{
	_cleanup_free_ char *big = malloc(STAGE1_ETC_FILE_MAX + 2);
	struct cc_error err = {};
	uint32_t id;

	ck_assert_ptr_nonnull(big);
	memset(big, 'a', STAGE1_ETC_FILE_MAX + 1);
	big[STAGE1_ETC_FILE_MAX + 1] = '\0';
	put("rootfs/etc/passwd", big);
	ASSERT_ERRNO(app_user_resolve(rootfs_fd, "app", &id, &err), ESRCH);
	ck_assert(strstr(err.msg, "File too large"));
}
END_TEST

START_TEST(test_app_ids)
{
	uint32_t gids[] = {10, 2000, 10};
	struct manifest_app app = {
		.user = (char *) "app",
		.group = (char *) "wheel",
		.supplementary_gids = gids,
		.n_supplementary_gids = 3,
	};
	struct app_ids ids;
	struct cc_error err = {};

	ASSERT_OK(app_ids_resolve(rootfs_fd, &app, &ids, &err));
	ck_assert_uint_eq(ids.uid, 1000);
	ck_assert_uint_eq(ids.gid, 10);
	ck_assert_uint_eq(ids.n_supplementary_gids, 3);
	ck_assert_uint_eq(ids.supplementary_gids[1], 2000);
	/* The entry that names the ids in the guest's database. */
	ck_assert_str_eq(ids.user_name, "app");
	ck_assert_str_eq(ids.home, "/home/app");
	ck_assert_str_eq(ids.shell, "/bin/sh");
	ck_assert_str_eq(ids.group_name, "wheel");
	app_ids_done(&ids);

	/* Numeric ids without an entry, and entries with unsafe fields, have no names. */
	put("rootfs/etc/passwd", "-bad:x:5:5:x:/home/\x01:/bin/sh\n");
	app.user = (char *) "5";
	app.group = (char *) "77";
	ASSERT_OK(app_ids_resolve(rootfs_fd, &app, &ids, &err));
	ck_assert_ptr_null(ids.user_name);
	ck_assert_ptr_null(ids.home);
	ck_assert_str_eq(ids.shell, "/bin/sh");
	ck_assert_ptr_null(ids.group_name);
	app_ids_done(&ids);
	ck_assert(user_entry_field_is_safe("www-data", true));
	ck_assert(!user_entry_field_is_safe("a:b", true));
	ck_assert(!user_entry_field_is_safe("a/b", true));
	ck_assert(user_entry_field_is_safe("/a/b", false));
	ck_assert(!user_entry_field_is_safe("", false));
	app.user = (char *) "app";
	app.group = (char *) "wheel";
	app.group = (char *) "nogroup";
	ASSERT_ERRNO(app_ids_resolve(rootfs_fd, &app, &ids, &err), ESRCH);
}
END_TEST

START_TEST(test_find_executable)
{
	_cleanup_free_ char *p = NULL;

	ASSERT_OK(rootfs_find_executable(rootfs_fd, "tool", &p));
	ck_assert_str_eq(p, "/bin/tool");
	free(TAKE_PTR(p));
	/* /usr/bin comes before /bin in the ACE PATH; the link resolves inside the rootfs. */
	ASSERT_OK(rootfs_find_executable(rootfs_fd, "linked", &p));
	ck_assert_str_eq(p, "/usr/bin/linked");
	free(TAKE_PTR(p));
	ASSERT_OK(rootfs_find_executable(rootfs_fd, "/not/checked", &p));
	ck_assert_str_eq(p, "/not/checked");
	ASSERT_ERRNO(rootfs_find_executable(rootfs_fd, "noexec", &p), ENOENT);
	ASSERT_ERRNO(rootfs_find_executable(rootfs_fd, "missing", &p), ENOENT);
	ASSERT_ERRNO(rootfs_find_executable(rootfs_fd, "bin/tool", &p), EINVAL);
	ASSERT_ERRNO(rootfs_find_executable(rootfs_fd, "..", &p), EINVAL);
	ASSERT_ERRNO(rootfs_find_executable(rootfs_fd, "", &p), EINVAL);
}
END_TEST

START_TEST(test_unit_paths)
{
	ck_assert(unit_path_is_valid("/"));
	ck_assert(unit_path_is_valid("/opt/my dir/x"));
	ck_assert(unit_path_is_valid("/a//b"));
	ck_assert(!unit_path_is_valid("relative"));
	ck_assert(!unit_path_is_valid(""));
	ck_assert(!unit_path_is_valid("/a/../b"));
	ck_assert(!unit_path_is_valid("/a/./b"));
	ck_assert(!unit_path_is_valid("/a/.."));
	ck_assert(!unit_path_is_valid("/a\nb"));
	ck_assert(!unit_path_is_valid("/a "));
	ck_assert(!unit_path_is_valid("/a\\"));
	ck_assert(unit_path_is_valid("/a/...b/.c"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stage1-user");
	TCase *tc = tcase_create("user");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_names_resolve_in_the_app_rootfs);
	tcase_add_test(tc, test_numbers_need_no_database);
	tcase_add_test(tc, test_path_owner);
	tcase_add_test(tc, test_missing_names_fail);
	tcase_add_test(tc, test_symlinks_cannot_escape_the_rootfs);
	tcase_add_test(tc, test_odd_database_files);
	tcase_add_test(tc, test_oversized_database_is_refused);
	tcase_add_test(tc, test_app_ids);
	tcase_add_test(tc, test_find_executable);
	tcase_add_test(tc, test_unit_paths);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
