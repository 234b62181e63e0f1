/* SPDX-License-Identifier: Apache-2.0 */
/* Mount targets inside an app rootfs (root-path.h): symlink escapes stay inside the rootfs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "root-path.h"

static char *tmp;
static int root_fd = -1;

static void setup(void)
{
	char p[PATH_MAX];

	tmp = cctest_mkdtemp();
	(void) snprintf(p, sizeof(p), "%s/rootfs", tmp);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	(void) snprintf(p, sizeof(p), "%s/outside", tmp);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	(void) snprintf(p, sizeof(p), "%s/rootfs", tmp);
	root_fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(root_fd, 0);
}

static void teardown(void)
{
	root_fd = safe_close(root_fd);
	(void) cctest_rm_rf(tmp);
	free(tmp);
}

static void sym(const char *target, const char *link)
{
	ck_assert_int_eq(symlinkat(target, root_fd, link), 0);
}

static int exists(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	(void) snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	return lstat(p, &st) == 0;
}

/* fd must be the directory tmp/<rel>. */
static void assert_is(int fd, const char *rel)
{
	char p[PATH_MAX];
	struct stat a, b;

	(void) snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	ck_assert_int_eq(fstat(fd, &a), 0);
	ck_assert_msg(stat(p, &b) == 0, "%s missing", p);
	ck_assert_msg(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "fd is not %s", p);
}

/* Skips the test (never passes it) on a kernel without openat2. */
static void require_openat2(void)
{
	int fd = root_path_open(root_fd, "/", O_PATH);

	if (fd == -ENOSYS)
		cctest_skip("the kernel has no openat2: root_path cannot be tested");
	ck_assert_int_ge(fd, 0);
	(void) close(fd);
}

START_TEST(test_create_nested_dirs)
{
	_cleanup_close_ int fd = -1;
	int flags;

	require_openat2();
	ASSERT_OK(root_path_open_create(root_fd, "/a/b/c", ROOT_PATH_DIR, &fd, &flags));
	assert_is(fd, "rootfs/a/b/c");
	ck_assert_int_eq(flags, ROOT_PATH_CREATED);
}
END_TEST

START_TEST(test_absolute_symlink_escape_stays_inside)
{
	_cleanup_close_ int fd = -1;
	char abs[PATH_MAX], in_root[PATH_MAX * 2 + 32];

	require_openat2();
	/* On the host this names tmp/outside; in the app's view it is <rootfs>/<tmp>/outside,
	 * which does not exist: a dangling link, refused, and nothing is created anywhere. */
	(void) snprintf(abs, sizeof(abs), "%s/outside", tmp);
	sym(abs, "evil");
	ASSERT_ERRNO(root_path_open_create(root_fd, "/evil/vol", ROOT_PATH_DIR, &fd, NULL),
		     ENOLINK);
	ck_assert(!exists("outside/vol"));
	/* Once the app's own view has that directory, the target lands there, inside. */
	(void) snprintf(in_root, sizeof(in_root), "mkdir -p %s/rootfs%s", tmp, abs);
	ck_assert_int_eq(system(in_root), 0);
	ASSERT_OK(root_path_open_create(root_fd, "/evil/vol", ROOT_PATH_DIR, &fd, NULL));
	ck_assert(!exists("outside/vol"));
	(void) snprintf(in_root, sizeof(in_root), "rootfs%s/vol", abs);
	assert_is(fd, in_root);
}
END_TEST

START_TEST(test_dotdot_symlink_escape_stays_inside)
{
	_cleanup_close_ int fd = -1;

	require_openat2();
	sym("../../../../../../outside", "up");
	/* ".." stops at the rootfs root: the link names <rootfs>/outside, missing so far. */
	ASSERT_ERRNO(root_path_open_create(root_fd, "/up/vol", ROOT_PATH_DIR, &fd, NULL), ENOLINK);
	ck_assert(!exists("outside/vol"));
	ck_assert_int_eq(mkdirat(root_fd, "outside", 0755), 0);
	ASSERT_OK(root_path_open_create(root_fd, "/up/vol", ROOT_PATH_DIR, &fd, NULL));
	ck_assert(!exists("outside/vol"));
	assert_is(fd, "rootfs/outside/vol");
	/* ".." in the target itself cannot climb out either. */
	fd = safe_close(fd);
	ASSERT_OK(root_path_open_create(root_fd, "/../../outside/v2", ROOT_PATH_DIR, &fd, NULL));
	ck_assert(!exists("outside/v2"));
	assert_is(fd, "rootfs/outside/v2");
}
END_TEST

START_TEST(test_in_root_symlink_followed)
{
	_cleanup_close_ int fd = -1;

	require_openat2();
	ck_assert_int_eq(mkdirat(root_fd, "run", 0755), 0);
	ck_assert_int_eq(mkdirat(root_fd, "var", 0755), 0);
	sym("/run", "var/run");
	ASSERT_OK(root_path_open_create(root_fd, "/var/run/sock", ROOT_PATH_DIR, &fd, NULL));
	assert_is(fd, "rootfs/run/sock");
}
END_TEST

START_TEST(test_dangling_symlink_refused)
{
	_cleanup_close_ int fd = -1;

	require_openat2();
	sym("/nowhere/x", "dangling");
	ASSERT_ERRNO(root_path_open_create(root_fd, "/dangling/vol", ROOT_PATH_DIR, &fd, NULL),
		     ENOLINK);
	ASSERT_ERRNO(root_path_open_create(root_fd, "/dangling", ROOT_PATH_DIR, &fd, NULL),
		     ENOLINK);
	ck_assert(!exists("rootfs/nowhere"));
}
END_TEST

static void make_file(const char *rel)
{
	char p[PATH_MAX];
	int fd;

	(void) snprintf(p, sizeof(p), "%s/rootfs/%s", tmp, rel);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(close(fd), 0);
}

START_TEST(test_types)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int flags;

	require_openat2();
	make_file("f");
	/* A file in the middle of the path. */
	ASSERT_ERRNO(root_path_open_create(root_fd, "/f/x", ROOT_PATH_DIR, &fd, NULL), ENOTDIR);
	/* A file where a directory volume goes: replaced. */
	ASSERT_OK(root_path_open_create(root_fd, "/f", ROOT_PATH_DIR, &fd, &flags));
	ck_assert_int_eq(flags, ROOT_PATH_REPLACED_FILE);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	fd = safe_close(fd);
	/* A single-file volume: an empty file is created; a directory there is refused. */
	ASSERT_OK(root_path_open_create(root_fd, "/etc/conf", ROOT_PATH_FILE, &fd, &flags));
	ck_assert_int_eq(flags, ROOT_PATH_CREATED);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_size, 0);
	fd = safe_close(fd);
	ASSERT_ERRNO(root_path_open_create(root_fd, "/etc", ROOT_PATH_FILE, &fd, NULL), EISDIR);
	/* A non-empty directory is reported. */
	ASSERT_OK(root_path_open_create(root_fd, "/", ROOT_PATH_DIR, &fd, &flags));
	ck_assert_int_eq(flags, ROOT_PATH_NOT_EMPTY);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-root-path");
	TCase *tc = tcase_create("root-path");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_nested_dirs);
	tcase_add_test(tc, test_absolute_symlink_escape_stays_inside);
	tcase_add_test(tc, test_dotdot_symlink_escape_stays_inside);
	tcase_add_test(tc, test_in_root_symlink_followed);
	tcase_add_test(tc, test_dangling_symlink_refused);
	tcase_add_test(tc, test_types);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(suite());
}
