/* SPDX-License-Identifier: Apache-2.0 */
/* 9P2000.L message sequences through the operations layer, against a real temp directory. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cctest.h"
#include "p9c.h"

#define DOTL_RDONLY 0u
#define DOTL_WRONLY 1u
#define DOTL_RDWR   2u
#define DOTL_EXCL   0200u
#define DOTL_TRUNC  01000u

static struct p9c c;

static void setup(void)
{
	p9c_init(&c, false, true);
}

static void teardown(void)
{
	p9c_done(&c);
}

START_TEST(test_version_negotiates_msize)
{
	struct p9c v;
	uint32_t msize;
	char version[64];

	p9c_init(&v, false, false);
	ASSERT_ERRNO(p9c_attach(&v, 0, 0), EPROTO); /* nothing before Tversion */
	ASSERT_OK(p9c_version(&v, 8u << 20, "9P2000.L", &msize, version, sizeof(version)));
	ck_assert_uint_eq(msize, P9_MSIZE_MAX);
	ck_assert_str_eq(version, "9P2000.L");
	ASSERT_OK(p9c_version(&v, 8192, "9P2000.L", &msize, version, sizeof(version)));
	ck_assert_uint_eq(msize, 8192);
	ck_assert_uint_eq(p9_server_msize(v.srv), 8192);
	ASSERT_OK(p9c_version(&v, 8192, "9P2000.u", &msize, version, sizeof(version)));
	ck_assert_str_eq(version, "unknown");
	ASSERT_ERRNO(p9c_attach(&v, 0, 0), EPROTO);
	ASSERT_ERRNO(p9c_version(&v, 100, "9P2000.L", NULL, NULL, 0), EINVAL);
	p9c_done(&v);
}
END_TEST

START_TEST(test_version_clunks_all_fids)
{
	ASSERT_OK(p9c_walk1(&c, 0, 1, ""));
	ASSERT_OK(p9c_version(&c, 65536, "9P2000.L", NULL, NULL, 0));
	ASSERT_ERRNO(p9c_clunk(&c, 1), EBADF);
	ASSERT_ERRNO(p9c_clunk(&c, 0), EBADF);
}
END_TEST

START_TEST(test_walk_open_read_write)
{
	char buf[64] = {0};
	struct p9c_attr a;
	struct p9_qid q;
	const char *names[] = {"d", "f", NULL};

	ck_assert_int_eq(mkdir(p9c_host_path(&c, "d"), 0755), 0);
	p9c_host_write(&c, "d/f", "hello world");
	ck_assert_int_eq(p9c_walk(&c, 0, 1, names, &q), 2);
	ck_assert_uint_eq(q.type, P9_QTFILE);
	ASSERT_OK(p9c_getattr(&c, 1, &a));
	ck_assert_uint_eq(a.size, 11);
	ck_assert(S_ISREG(a.mode));
	ck_assert_uint_eq(a.qid.path, q.path);
	ASSERT_ERRNO(p9c_read(&c, 1, 0, 5, buf), EBADF); /* not open */
	ASSERT_OK(p9c_lopen(&c, 1, DOTL_RDWR));
	ASSERT_ERRNO(p9c_lopen(&c, 1, DOTL_RDWR), EBUSY);
	ck_assert_int_eq(p9c_read(&c, 1, 6, 32, buf), 5);
	ck_assert_str_eq(buf, "world");
	ck_assert_int_eq(p9c_write(&c, 1, 0, "HELLO", 5), 5);
	ck_assert_int_eq(p9c_read(&c, 1, 0, 64, buf), 11);
	ck_assert(memcmp(buf, "HELLO world", 11) == 0);
	ck_assert_int_eq(p9c_read(&c, 1, 100, 64, buf), 0); /* EOF */
	ASSERT_OK(p9c_fsync(&c, 1));
	ASSERT_OK(p9c_clunk(&c, 1));
	ASSERT_ERRNO(p9c_clunk(&c, 1), EBADF);
	/* A partial walk returns the qids it got and creates no fid. */
	ck_assert_int_eq(p9c_walk1(&c, 0, 2, "d/missing"), 1);
	ASSERT_ERRNO(p9c_clunk(&c, 2), EBADF);
	ASSERT_ERRNO(p9c_walk1(&c, 0, 2, "missing"), ENOENT);
	/* Read-only open refuses writes. */
	ASSERT_OK(p9c_walk1(&c, 0, 3, "d/f"));
	ASSERT_OK(p9c_lopen(&c, 3, DOTL_RDONLY));
	ASSERT_ERRNO(p9c_write(&c, 3, 0, "x", 1), EBADF);
}
END_TEST

START_TEST(test_read_is_bounded_by_msize)
{
	static char big[100000];
	char *buf = malloc(P9_MSIZE_MAX);
	int fd;

	memset(big, 'x', sizeof(big));
	fd = open(p9c_host_path(&c, "big"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, big, sizeof(big)), sizeof(big));
	close(fd);
	ASSERT_OK(p9c_walk1(&c, 0, 1, "big"));
	ASSERT_OK(p9c_lopen(&c, 1, DOTL_RDONLY));
	/* msize is 65536: Rread carries at most msize - 11 bytes. */
	ck_assert_int_eq(p9c_read(&c, 1, 0, 1000000, buf), 65536 - 11);
	free(buf);
}
END_TEST

START_TEST(test_lcreate_and_readdir)
{
	char names[4096] = "", buf[16] = {0};
	uint64_t off = 0;
	struct stat st;
	int n, total = 0;

	ASSERT_OK(p9c_walk1(&c, 0, 1, ""));
	ASSERT_OK(p9c_lcreate(&c, 1, "new", DOTL_RDWR, 0640));
	ck_assert_int_eq(p9c_write(&c, 1, 0, "abc", 3), 3);
	ck_assert_int_eq(stat(p9c_host_path(&c, "new"), &st), 0);
	ck_assert_uint_eq(st.st_size, 3);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(p9c_walk1(&c, 0, 2, "new/x"), 1); /* partial: "new" only */
	ASSERT_OK(p9c_walk1(&c, 0, 2, ""));
	ASSERT_ERRNO(p9c_lcreate(&c, 2, "new", DOTL_RDWR | DOTL_EXCL, 0640), EEXIST);
	/* Without O_EXCL an existing file is opened, not recreated. */
	ASSERT_OK(p9c_lcreate(&c, 2, "new", DOTL_RDONLY, 0600));
	ck_assert_int_eq(p9c_read(&c, 2, 0, 16, buf), 3);
	ck_assert_int_eq(stat(p9c_host_path(&c, "new"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ASSERT_OK(p9c_walk1(&c, 0, 5, ""));
	/* The guest's mode is kept exactly: the VMM's umask does not apply. */
	ASSERT_OK(p9c_lcreate(&c, 5, "open", DOTL_RDWR | DOTL_EXCL, 04777));
	ck_assert_int_eq(stat(p9c_host_path(&c, "open"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 04777);
	ASSERT_OK(p9c_mkdir(&c, 0, "opendir", 0777));
	ck_assert_int_eq(stat(p9c_host_path(&c, "opendir"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0777);
	for (int i = 0; i < 20; i++) {
		char name[32];

		snprintf(name, sizeof(name), "file%02d", i);
		p9c_host_write(&c, name, "");
	}
	ASSERT_OK(p9c_walk1(&c, 0, 3, ""));
	ASSERT_OK(p9c_lopen(&c, 3, DOTL_RDONLY));
	/* A small count forces several Treaddir calls continued by offset. */
	while ((n = p9c_readdir(&c, 3, &off, 100, names, sizeof(names))) > 0)
		total += n;
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(total, 25); /* . .. new open opendir file00..file19 */
	ck_assert_ptr_nonnull(strstr(names, "new/"));
	ck_assert_ptr_nonnull(strstr(names, "file19/"));
	/* An existing directory is not a file to create. */
	ASSERT_OK(p9c_walk1(&c, 0, 6, ""));
	ASSERT_ERRNO(p9c_lcreate(&c, 6, "opendir", DOTL_RDONLY, 0600), EISDIR);
	/* Readdir needs an open directory. */
	ASSERT_OK(p9c_walk1(&c, 0, 4, ""));
	off = 0;
	ASSERT_ERRNO(p9c_readdir(&c, 4, &off, 100, names, sizeof(names)), EBADF);
}
END_TEST

START_TEST(test_mkdir_symlink_link_readlink)
{
	char target[256];
	struct p9c_attr a;
	struct stat st;

	ASSERT_OK(p9c_mkdir(&c, 0, "dir", 0750));
	ck_assert_int_eq(stat(p9c_host_path(&c, "dir"), &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0750);
	ASSERT_ERRNO(p9c_mkdir(&c, 0, "dir", 0750), EEXIST);
	ASSERT_OK(p9c_symlink(&c, 0, "sl", "dir/../whatever"));
	ASSERT_OK(p9c_walk1(&c, 0, 1, "sl"));
	ASSERT_OK(p9c_getattr(&c, 1, &a));
	ck_assert(S_ISLNK(a.mode));
	ck_assert_uint_eq(a.qid.type, P9_QTSYMLINK);
	ASSERT_OK(p9c_readlink(&c, 1, target, sizeof(target)));
	ck_assert_str_eq(target, "dir/../whatever");
	ASSERT_ERRNO(p9c_readlink(&c, 0, target, sizeof(target)), EINVAL);

	p9c_host_write(&c, "f", "data");
	ASSERT_OK(p9c_walk1(&c, 0, 2, "f"));
	ASSERT_OK(p9c_walk1(&c, 0, 3, "dir"));
	ASSERT_OK(p9c_link(&c, 3, 2, "hard"));
	ck_assert_int_eq(stat(p9c_host_path(&c, "dir/hard"), &st), 0);
	ck_assert_uint_eq(st.st_nlink, 2);
	ASSERT_OK(p9c_getattr(&c, 2, &a));
	ck_assert_uint_eq(a.nlink, 2);
	ASSERT_ERRNO(p9c_link(&c, 0, 3, "dirlink"), EPERM);

	ASSERT_OK(p9c_mknod(&c, 0, "fifo", S_IFIFO | 0600));
	ck_assert_int_eq(lstat(p9c_host_path(&c, "fifo"), &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ASSERT_ERRNO(p9c_mknod(&c, 0, "blk", S_IFBLK | 0600), EPERM);
	/* Opening a FIFO on the host would block the event loop. */
	ASSERT_OK(p9c_walk1(&c, 0, 4, "fifo"));
	ASSERT_ERRNO(p9c_lopen(&c, 4, DOTL_RDONLY), EOPNOTSUPP);
}
END_TEST

START_TEST(test_rename_unlink_remove)
{
	struct stat st;
	char buf[16] = {0};

	ck_assert_int_eq(mkdir(p9c_host_path(&c, "a"), 0755), 0);
	ck_assert_int_eq(mkdir(p9c_host_path(&c, "b"), 0755), 0);
	p9c_host_write(&c, "a/f", "1");
	ASSERT_OK(p9c_walk1(&c, 0, 1, "a"));
	ASSERT_OK(p9c_walk1(&c, 0, 2, "b"));
	ASSERT_OK(p9c_renameat(&c, 1, "f", 2, "g"));
	ck_assert_int_eq(stat(p9c_host_path(&c, "b/g"), &st), 0);
	ASSERT_ERRNO(p9c_renameat(&c, 1, "f", 2, "g"), ENOENT);

	/* Trename moves the fid's own file and the fid follows it. */
	ASSERT_OK(p9c_walk1(&c, 0, 3, "b/g"));
	ASSERT_OK(p9c_rename(&c, 3, 1, "h"));
	ck_assert_int_eq(stat(p9c_host_path(&c, "a/h"), &st), 0);
	ASSERT_OK(p9c_rename(&c, 3, 0, "top"));
	ck_assert_int_eq(stat(p9c_host_path(&c, "top"), &st), 0);
	ASSERT_OK(p9c_lopen(&c, 3, DOTL_RDONLY));
	ck_assert_int_eq(p9c_read(&c, 3, 0, 16, buf), 1);
	ASSERT_ERRNO(p9c_rename(&c, 0, 1, "root"), EBUSY);

	ASSERT_ERRNO(p9c_unlinkat(&c, 0, "a", 0), EISDIR);
	p9c_host_write(&c, "a/keep", "");
	ASSERT_ERRNO(p9c_unlinkat(&c, 0, "a", 0x200), ENOTEMPTY);
	ASSERT_OK(p9c_unlinkat(&c, 1, "keep", 0));
	ASSERT_OK(p9c_unlinkat(&c, 0, "a", 0x200));
	ck_assert_int_ne(stat(p9c_host_path(&c, "a"), &st), 0);
	ASSERT_ERRNO(p9c_unlinkat(&c, 0, "b", 0x1), EINVAL);

	/* Tremove unlinks and clunks, even when it fails. */
	ASSERT_OK(p9c_remove(&c, 3));
	ck_assert_int_ne(stat(p9c_host_path(&c, "top"), &st), 0);
	ASSERT_ERRNO(p9c_clunk(&c, 3), EBADF);
	ASSERT_OK(p9c_walk1(&c, 0, 4, "b"));
	ASSERT_OK(p9c_remove(&c, 4));
	ck_assert_int_ne(stat(p9c_host_path(&c, "b"), &st), 0);
	/* A fid whose name was taken by another file is stale, not silently retargeted. */
	p9c_host_write(&c, "x", "1");
	ASSERT_OK(p9c_walk1(&c, 0, 5, "x"));
	ck_assert_int_eq(unlink(p9c_host_path(&c, "x")), 0);
	p9c_host_write(&c, "x", "2");
	ASSERT_ERRNO(p9c_remove(&c, 5), ESTALE);
	ck_assert_int_eq(stat(p9c_host_path(&c, "x"), &st), 0);
}
END_TEST

START_TEST(test_setattr_statfs)
{
	struct p9c_attr a;
	struct stat st;
	uint32_t bsize, namelen;

	p9c_host_write(&c, "f", "0123456789");
	ASSERT_OK(p9c_walk1(&c, 0, 1, "f"));
	ASSERT_OK(p9c_setattr(&c, 1, 0x8, 0, 4, 0));		    /* size */
	ASSERT_OK(p9c_setattr(&c, 1, 0x1, 0600, 0, 0));		    /* mode */
	ASSERT_OK(p9c_setattr(&c, 1, 0x20 | 0x100, 0, 0, 1000000)); /* mtime set */
	ck_assert_int_eq(stat(p9c_host_path(&c, "f"), &st), 0);
	ck_assert_uint_eq(st.st_size, 4);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1000000);
	ASSERT_OK(p9c_getattr(&c, 1, &a));
	ck_assert_uint_eq(a.size, 4);
	ck_assert_uint_eq(a.mtime_sec, 1000000);
	ASSERT_ERRNO(p9c_setattr(&c, 0, 0x8, 0, 4, 0), EISDIR);
	ASSERT_OK(p9c_statfs(&c, 0, &bsize, &namelen));
	ck_assert_uint_gt(bsize, 0);
	ck_assert_uint_ge(namelen, 255);
}
END_TEST

START_TEST(test_fsync_and_locks)
{
	uint8_t type;

	p9c_host_write(&c, "f", "x");
	ASSERT_OK(p9c_walk1(&c, 0, 1, "f"));
	ASSERT_ERRNO(p9c_fsync(&c, 1), EBADF);
	ASSERT_ERRNO(p9c_lock(&c, 1, 1, 0, 0), EBADF);
	ASSERT_OK(p9c_lopen(&c, 1, DOTL_RDWR));
	ASSERT_OK(p9c_fsync(&c, 1));
	ASSERT_OK(p9c_walk1(&c, 0, 2, "f"));
	ASSERT_OK(p9c_lopen(&c, 2, DOTL_RDWR));
	ck_assert_int_eq(p9c_lock(&c, 1, 1, 0, 0), 0);	/* write lock: success */
	ck_assert_int_eq(p9c_lock(&c, 2, 1, 0, 0), 1);	/* another open: blocked */
	ck_assert_int_eq(p9c_lock(&c, 2, 0, 0, 10), 1); /* read lock too */
	ASSERT_OK(p9c_getlock(&c, 2, 1, &type));
	ck_assert_uint_eq(type, 1);		       /* conflicting write lock */
	ck_assert_int_eq(p9c_lock(&c, 1, 2, 0, 0), 0); /* unlock */
	ck_assert_int_eq(p9c_lock(&c, 2, 1, 0, 0), 0);
	ASSERT_OK(p9c_getlock(&c, 2, 1, &type));
	ck_assert_uint_eq(type, 2); /* no conflict with its own lock */
	ASSERT_ERRNO(p9c_lock(&c, 2, 7, 0, 0), EINVAL);
	/* Clunking drops the open file description and its locks. */
	ASSERT_OK(p9c_clunk(&c, 2));
	ck_assert_int_eq(p9c_lock(&c, 1, 1, 0, 0), 0);
}
END_TEST

START_TEST(test_xattrs)
{
	char buf[64] = {0};
	uint64_t size;
	int r;

	p9c_host_write(&c, "f", "x");
	r = setxattr(p9c_host_path(&c, "f"), "user.probe", "1", 1, 0);
	if (r < 0 && errno == EOPNOTSUPP)
		cctest_skip("the temporary directory's file system has no user xattrs");
	ck_assert_int_eq(r, 0);
	ASSERT_OK(p9c_walk1(&c, 0, 1, "f"));
	ASSERT_OK(p9c_xattrcreate(&c, 1, "user.test", 5, 0));
	ck_assert_int_eq(p9c_write(&c, 1, 0, "hello", 5), 5);
	ASSERT_OK(p9c_clunk(&c, 1));
	ck_assert_int_eq(getxattr(p9c_host_path(&c, "f"), "user.test", buf, sizeof(buf)), 5);

	ASSERT_OK(p9c_walk1(&c, 0, 2, "f"));
	ASSERT_OK(p9c_xattrwalk(&c, 2, 3, "user.test", &size));
	ck_assert_uint_eq(size, 5);
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(p9c_read(&c, 3, 0, 64, buf), 5);
	ck_assert_str_eq(buf, "hello");
	ASSERT_OK(p9c_clunk(&c, 3));
	ASSERT_OK(p9c_xattrwalk(&c, 2, 3, "", &size)); /* the list */
	ck_assert_int_eq(p9c_read(&c, 3, 0, 64, buf), (int) size);
	ck_assert(memmem(buf, size, "user.test", 10) != NULL);
	ASSERT_OK(p9c_clunk(&c, 3));
	ASSERT_ERRNO(p9c_xattrwalk(&c, 2, 3, "user.none", &size), ENODATA);

	/* Size 0 removes; only user.* can be set; an incomplete value fails at clunk. */
	ASSERT_OK(p9c_walk1(&c, 0, 4, "f"));
	ASSERT_OK(p9c_xattrcreate(&c, 4, "user.test", 0, 0));
	ASSERT_OK(p9c_clunk(&c, 4));
	ck_assert_int_lt(getxattr(p9c_host_path(&c, "f"), "user.test", buf, sizeof(buf)), 0);
	ASSERT_OK(p9c_walk1(&c, 0, 4, "f"));
	ASSERT_ERRNO(p9c_xattrcreate(&c, 4, "security.capability", 4, 0), EOPNOTSUPP);
	ASSERT_ERRNO(p9c_xattrcreate(&c, 4, "user.big", 1u << 20, 0), E2BIG);
	ASSERT_OK(p9c_xattrcreate(&c, 4, "user.part", 4, 0));
	ASSERT_ERRNO(p9c_write(&c, 4, 2, "xyz", 3), ENOSPC);
	ck_assert_int_eq(p9c_write(&c, 4, 0, "ab", 2), 2);
	ASSERT_ERRNO(p9c_clunk(&c, 4), EINVAL);
	ASSERT_ERRNO(p9c_clunk(&c, 4), EBADF);
}
END_TEST

START_TEST(test_read_only_export)
{
	struct p9c ro;
	char buf[16] = {0};

	p9c_init(&ro, true, true);
	p9c_host_write(&ro, "f", "data");
	ck_assert_int_eq(mkdir(p9c_host_path(&ro, "d"), 0755), 0);
	ASSERT_OK(p9c_walk1(&ro, 0, 1, "f"));
	ASSERT_ERRNO(p9c_lopen(&ro, 1, DOTL_RDWR), EROFS);
	ASSERT_ERRNO(p9c_lopen(&ro, 1, DOTL_WRONLY), EROFS);
	ASSERT_ERRNO(p9c_lopen(&ro, 1, DOTL_RDONLY | DOTL_TRUNC), EROFS);
	ASSERT_ERRNO(p9c_setattr(&ro, 1, 0x8, 0, 0, 0), EROFS);
	ASSERT_ERRNO(p9c_xattrcreate(&ro, 1, "user.x", 1, 0), EROFS);
	ASSERT_OK(p9c_lopen(&ro, 1, DOTL_RDONLY));
	ck_assert_int_eq(p9c_read(&ro, 1, 0, 16, buf), 4);
	ASSERT_ERRNO(p9c_write(&ro, 1, 0, "x", 1), EROFS);
	ASSERT_OK(p9c_walk1(&ro, 0, 2, ""));
	ASSERT_ERRNO(p9c_lcreate(&ro, 2, "n", DOTL_RDWR, 0644), EROFS);
	ASSERT_ERRNO(p9c_mkdir(&ro, 0, "n", 0755), EROFS);
	ASSERT_ERRNO(p9c_symlink(&ro, 0, "n", "f"), EROFS);
	ASSERT_ERRNO(p9c_mknod(&ro, 0, "n", S_IFIFO | 0600), EROFS);
	ASSERT_ERRNO(p9c_link(&ro, 0, 1, "n"), EROFS);
	ASSERT_ERRNO(p9c_renameat(&ro, 0, "f", 0, "g"), EROFS);
	ASSERT_ERRNO(p9c_rename(&ro, 1, 0, "g"), EROFS);
	ASSERT_ERRNO(p9c_unlinkat(&ro, 0, "f", 0), EROFS);
	ASSERT_OK(p9c_walk1(&ro, 0, 3, "d"));
	ASSERT_ERRNO(p9c_remove(&ro, 3), EROFS);
	ASSERT_ERRNO(p9c_clunk(&ro, 3), EBADF); /* Tremove clunked it anyway */
	ck_assert_int_eq(access(p9c_host_path(&ro, "d"), F_OK), 0);
	ck_assert_int_eq(access(p9c_host_path(&ro, "f"), F_OK), 0);
	ck_assert_int_ne(access(p9c_host_path(&ro, "n"), F_OK), 0);
	p9c_done(&ro);
}
END_TEST

static Suite *p9_ops_suite(void)
{
	Suite *s = suite_create("9p-ops");
	TCase *tc = tcase_create("ops");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_version_negotiates_msize);
	tcase_add_test(tc, test_version_clunks_all_fids);
	tcase_add_test(tc, test_walk_open_read_write);
	tcase_add_test(tc, test_read_is_bounded_by_msize);
	tcase_add_test(tc, test_lcreate_and_readdir);
	tcase_add_test(tc, test_mkdir_symlink_link_readlink);
	tcase_add_test(tc, test_rename_unlink_remove);
	tcase_add_test(tc, test_setattr_statfs);
	tcase_add_test(tc, test_fsync_and_locks);
	tcase_add_test(tc, test_xattrs);
	tcase_add_test(tc, test_read_only_export);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(p9_ops_suite());
}
