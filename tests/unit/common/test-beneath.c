/* SPDX-License-Identifier: Apache-2.0 */
/*
 * beneath.h: host access to a directory the guest can write. Each test plants what a hostile
 * guest would (symlinks to a host file, "..", magic links, FIFOs, device nodes, huge files)
 * and checks that nothing outside the root is reached and nothing blocks. Every test has a
 * 10 s limit (fork mode): a regression that blocks in open() fails instead of hanging.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"

/* tmp/root is the guest's directory; tmp/host/secret a host file it must not reach. */
static char *tmp;
static int root_fd = -1;
static char secret[PATH_MAX], host_dir[PATH_MAX];

static void setup(void)
{
	char root[PATH_MAX];

	tmp = cctest_mkdtemp();
	cctest_mkdir_at(tmp, "root");
	cctest_mkdir_at(tmp, "root/d");
	cctest_mkdir_at(tmp, "host");
	cctest_write_at(tmp, "host/secret", "host secret\n");
	cctest_write_at(tmp, "root/d/f", "42\n");
	(void) snprintf(secret, sizeof(secret), "%s/host/secret", tmp);
	(void) snprintf(host_dir, sizeof(host_dir), "%s/host", tmp);
	(void) snprintf(root, sizeof(root), "%s/root", tmp);
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(root_fd, 0);
}

static void teardown(void)
{
	root_fd = safe_close(root_fd);
	(void) cctest_rm_rf(tmp);
	free(tmp);
}

static void plant_symlink(const char *target, const char *rel)
{
	char p[PATH_MAX];

	(void) snprintf(p, sizeof(p), "%s/root/%s", tmp, rel);
	ck_assert_msg(symlink(target, p) == 0, "symlink %s: %s", p, strerror(errno));
}

static void plant_fifo(const char *rel)
{
	char p[PATH_MAX];

	(void) snprintf(p, sizeof(p), "%s/root/%s", tmp, rel);
	ck_assert_msg(mkfifo(p, 0644) == 0, "mkfifo %s: %s", p, strerror(errno));
}

START_TEST(test_reads_a_regular_file)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;

	ASSERT_OK(beneath_read(root_fd, "d/f", 16, &buf, &len));
	ck_assert_str_eq(buf, "42\n");
	ck_assert_uint_eq(len, 3);
}
END_TEST

START_TEST(test_oversize_file_is_refused_not_read)
{
	char big[8193];
	char *buf = NULL;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cctest_write_at(tmp, "root/big", big);
	ASSERT_ERRNO(beneath_read(root_fd, "big", 16, &buf, NULL), EFBIG);
	ck_assert_ptr_null(buf);
	/* Exactly at the cap is fine. */
	ASSERT_OK(beneath_read(root_fd, "big", sizeof(big) - 1, &buf, NULL));
	ck_assert_uint_eq(strlen(buf), sizeof(big) - 1);
	free(buf);
}
END_TEST

START_TEST(test_symlink_last_component_not_followed)
{
	char *buf = NULL;

	plant_symlink(secret, "d/link");
	ASSERT_ERRNO(beneath_read(root_fd, "d/link", 64, &buf, NULL), ELOOP);
	ck_assert_ptr_null(buf);
	ASSERT_ERRNO(beneath_open(root_fd, "d/link", O_WRONLY | O_TRUNC, S_IFREG), ELOOP);
	ASSERT_ERRNO(beneath_open(root_fd, "d/link", O_PATH, S_IFREG), ELOOP);
	/* Even a relative link that stays inside the root is refused: no link at all. */
	plant_symlink("f", "d/inside");
	ASSERT_ERRNO(beneath_read(root_fd, "d/inside", 64, &buf, NULL), ELOOP);
	ck_assert_str_eq(cctest_read_at(tmp, "host/secret"), "host secret\n");
}
END_TEST

START_TEST(test_symlink_inner_component_not_followed)
{
	_cleanup_free_ char *buf = NULL;

	/* The guest replaces a directory on the way (as rkt/ or rkt/status) with a link. */
	plant_symlink(host_dir, "evil");
	ASSERT_ERRNO(beneath_read(root_fd, "evil/secret", 64, &buf, NULL), ELOOP);
	ASSERT_ERRNO(beneath_open(root_fd, "evil", O_PATH | O_DIRECTORY, S_IFDIR), ELOOP);
	plant_symlink("d", "rel");
	ASSERT_ERRNO(beneath_read(root_fd, "rel/f", 64, &buf, NULL), ELOOP);
}
END_TEST

START_TEST(test_dotdot_and_absolute_paths_refused)
{
	_cleanup_free_ char *buf = NULL;
	char rel[PATH_MAX];

	ASSERT_ERRNO(beneath_read(root_fd, "../host/secret", 64, &buf, NULL), EXDEV);
	ASSERT_ERRNO(beneath_read(root_fd, "d/../../host/secret", 64, &buf, NULL), EXDEV);
	ASSERT_ERRNO(beneath_read(root_fd, secret, 64, &buf, NULL), EXDEV);
	/* An absolute symlink: refused as a link, not resolved from the host's / . */
	plant_symlink(secret, "abs");
	ASSERT_ERRNO(beneath_read(root_fd, "abs", 64, &buf, NULL), ELOOP);
	/* A relative link climbing out. */
	(void) snprintf(rel, sizeof(rel), "../host/secret");
	plant_symlink(rel, "climb");
	ASSERT_ERRNO(beneath_read(root_fd, "climb", 64, &buf, NULL), ELOOP);
}
END_TEST

START_TEST(test_magic_links_refused)
{
	_cleanup_close_ int proc_fd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	char fdname[32];

	ck_assert_int_ge(proc_fd, 0);
	/* /proc/self/cwd, root and fd/N are magic links: they jump anywhere, not by name. */
	ASSERT_ERRNO(beneath_open(proc_fd, "cwd", O_PATH | O_DIRECTORY, S_IFDIR), ELOOP);
	ASSERT_ERRNO(beneath_read(proc_fd, "root/etc/hostname", 64, &buf, NULL), ELOOP);
	(void) snprintf(fdname, sizeof(fdname), "fd/%d", root_fd);
	ASSERT_ERRNO(beneath_open(proc_fd, fdname, O_PATH | O_DIRECTORY, S_IFDIR), ELOOP);
	/* The walk without openat2 refuses them too. */
	ck_assert_int_eq(beneath_resolve_walk(proc_fd, "cwd", O_RDONLY | O_DIRECTORY), -ELOOP);
	ck_assert_int_eq(beneath_resolve_walk(proc_fd, "root/etc", O_PATH), -ELOOP);
}
END_TEST

START_TEST(test_fifo_fails_at_once)
{
	char *buf = NULL;

	/* No writer: a plain open(O_RDONLY) would block forever (the test timeout catches that). */
	plant_fifo("fifo");
	ASSERT_ERRNO(beneath_read(root_fd, "fifo", 64, &buf, NULL), EBADFD);
	ck_assert_ptr_null(buf);
	ASSERT_ERRNO(beneath_open(root_fd, "fifo", O_WRONLY, S_IFREG), EBADFD);
	ASSERT_ERRNO(beneath_open(root_fd, "fifo", O_RDONLY, S_IFREG), EBADFD);
	ASSERT_ERRNO(beneath_open(root_fd, "fifo", O_PATH | O_DIRECTORY, S_IFDIR), ENOTDIR);
}
END_TEST

START_TEST(test_device_node_never_opened)
{
	_cleanup_close_ int dev_fd = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *buf = NULL;

	ck_assert_int_ge(dev_fd, 0);
	ASSERT_ERRNO(beneath_read(dev_fd, "null", 64, &buf, NULL), EBADFD);
	ASSERT_ERRNO(beneath_open(dev_fd, "zero", O_RDONLY, S_IFREG), EBADFD);
}
END_TEST

START_TEST(test_type_checked)
{
	_cleanup_close_ int fd = -1;
	char *buf = NULL;

	ASSERT_ERRNO(beneath_read(root_fd, "d", 64, &buf, NULL), EISDIR);
	ASSERT_ERRNO(beneath_open(root_fd, "d/f", O_RDONLY, S_IFDIR), ENOTDIR);
	ASSERT_ERRNO(beneath_open(root_fd, "d/f", O_PATH | O_DIRECTORY, S_IFDIR), ENOTDIR);
	ASSERT_ERRNO(beneath_open(root_fd, "nope", O_RDONLY, S_IFREG), ENOENT);
	fd = beneath_open(root_fd, "d", O_RDONLY | O_DIRECTORY, S_IFDIR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & (O_NONBLOCK | O_ACCMODE), O_NONBLOCK | O_RDONLY);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	/* Bad arguments. */
	ASSERT_ERRNO(beneath_open(root_fd, "x", O_RDONLY | O_CREAT, S_IFREG), EINVAL);
	ASSERT_ERRNO(beneath_open(root_fd, "x", O_RDONLY, S_IFIFO), EINVAL);
	ASSERT_ERRNO(beneath_open(-1, "x", O_RDONLY, S_IFREG), EBADF);
}
END_TEST

START_TEST(test_socket_found_by_o_path_only)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	_cleanup_close_ int fd = -1;

	/* O_PATH with another type: a socket, as the vsock socket is looked up. */
	ck_assert_int_ge(s, 0);
	ck_assert_int_lt(snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/root/d/sock", tmp),
			 (int) sizeof(sa.sun_path));
	ck_assert_int_eq(bind(s, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ASSERT_ERRNO(beneath_open(root_fd, "d/f", O_PATH, S_IFSOCK), EBADFD);
	ASSERT_ERRNO(beneath_open(root_fd, "d/sock", O_RDONLY, S_IFREG), EBADFD);
	fd = beneath_open(root_fd, "d/sock", O_PATH, S_IFSOCK);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_PATH, O_PATH);
}
END_TEST

START_TEST(test_create_never_opens_what_is_there)
{
	_cleanup_close_ int dir_fd = -1, fd = -1;

	dir_fd = beneath_open(root_fd, "d", O_PATH | O_DIRECTORY, S_IFDIR);
	ck_assert_int_ge(dir_fd, 0);
	fd = beneath_create(dir_fd, "new", O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	ASSERT_OK(loop_write(fd, "7", 1));
	ck_assert_str_eq(cctest_read_at(tmp, "root/d/new"), "7");
	/* A symlink (to a host file, or dangling), a FIFO or a file already there: EEXIST. */
	plant_symlink(secret, "d/link");
	ASSERT_ERRNO(beneath_create(dir_fd, "link", O_WRONLY, 0644), EEXIST);
	plant_symlink("/nonexistent-cc-test/x", "d/dangling");
	ASSERT_ERRNO(beneath_create(dir_fd, "dangling", O_WRONLY, 0644), EEXIST);
	plant_fifo("d/fifo");
	ASSERT_ERRNO(beneath_create(dir_fd, "fifo", O_WRONLY, 0644), EEXIST);
	ASSERT_ERRNO(beneath_create(dir_fd, "f", O_WRONLY, 0644), EEXIST);
	ck_assert_str_eq(cctest_read_at(tmp, "host/secret"), "host secret\n");
	ck_assert_int_eq(access("/nonexistent-cc-test", F_OK), -1);
	/* One component only. */
	ASSERT_ERRNO(beneath_create(dir_fd, "../x", O_WRONLY, 0644), EINVAL);
	ASSERT_ERRNO(beneath_create(dir_fd, "..", O_WRONLY, 0644), EINVAL);
	ASSERT_ERRNO(beneath_create(dir_fd, "", O_WRONLY, 0644), EINVAL);
	ASSERT_ERRNO(beneath_create(dir_fd, "x", O_RDONLY, 0644), EINVAL);
}
END_TEST

/* The walk beneath_open() falls back to without openat2: the same attacks, the same answers. */
START_TEST(test_walk_without_openat2)
{
	_cleanup_close_ int fd = -1;
	char buf[8] = {0};

	plant_symlink(secret, "d/link");
	plant_symlink(host_dir, "evil");
	plant_fifo("fifo");
	fd = beneath_resolve_walk(root_fd, "./d//f", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), 3);
	ck_assert_str_eq(buf, "42\n");
	ck_assert_int_eq(beneath_resolve_walk(root_fd, "d/link", O_RDONLY), -ELOOP);
	ck_assert_int_eq(beneath_resolve_walk(root_fd, "evil/secret", O_RDONLY), -ELOOP);
	ck_assert_int_eq(beneath_resolve_walk(root_fd, "evil", O_RDONLY | O_DIRECTORY), -ELOOP);
	ck_assert_int_eq(beneath_resolve_walk(root_fd, "../host/secret", O_RDONLY), -EXDEV);
	ck_assert_int_eq(beneath_resolve_walk(root_fd, "d/../f", O_RDONLY), -EXDEV);
	ck_assert_int_eq(beneath_resolve_walk(root_fd, secret, O_RDONLY), -EXDEV);
	ck_assert_int_eq(beneath_resolve_walk(root_fd, "", O_RDONLY), -ENOENT);
	ck_assert_int_eq(beneath_resolve_walk(root_fd, "d/f/x", O_RDONLY), -ENOTDIR);
	/* The FIFO as beneath_open() asks for it: O_PATH, so nothing blocks. */
	fd = safe_close(fd);
	fd = beneath_resolve_walk(root_fd, "fifo", O_PATH);
	ck_assert_int_ge(fd, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("beneath");
	TCase *tc = tcase_create("beneath");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_reads_a_regular_file);
	tcase_add_test(tc, test_oversize_file_is_refused_not_read);
	tcase_add_test(tc, test_symlink_last_component_not_followed);
	tcase_add_test(tc, test_symlink_inner_component_not_followed);
	tcase_add_test(tc, test_dotdot_and_absolute_paths_refused);
	tcase_add_test(tc, test_magic_links_refused);
	tcase_add_test(tc, test_fifo_fails_at_once);
	tcase_add_test(tc, test_device_node_never_opened);
	tcase_add_test(tc, test_type_checked);
	tcase_add_test(tc, test_socket_found_by_o_path_only);
	tcase_add_test(tc, test_create_never_opens_what_is_there);
	tcase_add_test(tc, test_walk_without_openat2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(suite());
}
