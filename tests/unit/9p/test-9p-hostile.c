/* SPDX-License-Identifier: Apache-2.0 */
/* Escape attempts and malformed messages against the 9p server. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cctest.h"
#include "p9c.h"

static struct p9c c;
static char *outside; /* a directory next to the export, which must stay unreachable */

static void setup(void)
{
	p9c_init(&c, false, true);
	outside = cctest_mkdtemp();
	ck_assert_int_eq(mkdir(p9c_host_path(&c, "sub"), 0755), 0);
}

static void teardown(void)
{
	p9c_done(&c);
	(void) cctest_rm_rf(outside);
	free(outside);
}

static void write_outside(const char *name, const char *content)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", outside, name);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t) strlen(content));
	close(fd);
}

START_TEST(test_dotdot_at_root_stays_at_root)
{
	struct p9c_attr root, a;
	struct p9_qid q;
	const char *up3[] = {"..", "..", "..", NULL};
	const char *sub_up[] = {"sub", "..", "..", NULL};

	ASSERT_OK(p9c_getattr(&c, 0, &root));
	ck_assert_int_eq(p9c_walk(&c, 0, 1, up3, &q), 3);
	ck_assert_uint_eq(q.path, root.qid.path);
	ASSERT_OK(p9c_getattr(&c, 1, &a));
	ck_assert_uint_eq(a.qid.path, root.qid.path);
	ck_assert_int_eq(p9c_walk(&c, 0, 2, sub_up, &q), 3);
	ck_assert_uint_eq(q.path, root.qid.path);
	/* Creating through a ".." fid still lands inside the export. */
	ASSERT_OK(p9c_mkdir(&c, 1, "made", 0755));
	ck_assert_int_eq(access(p9c_host_path(&c, "made"), F_OK), 0);
}
END_TEST

START_TEST(test_bad_names_are_refused)
{
	const char *slash[] = {"sub/..", NULL};
	const char *dot[] = {".", NULL};
	const char *empty[] = {"", NULL};

	ASSERT_ERRNO(p9c_walk(&c, 0, 1, slash, NULL), EINVAL);
	ASSERT_ERRNO(p9c_walk(&c, 0, 1, dot, NULL), EINVAL);
	ASSERT_ERRNO(p9c_walk(&c, 0, 1, empty, NULL), EINVAL);
	ASSERT_ERRNO(p9c_mkdir(&c, 0, "..", 0755), EINVAL);
	ASSERT_ERRNO(p9c_mkdir(&c, 0, "../x", 0755), EINVAL);
	ASSERT_ERRNO(p9c_lcreate(&c, 0, "/tmp/x", 2, 0644), EINVAL);
	ASSERT_ERRNO(p9c_symlink(&c, 0, "a/b", "x"), EINVAL);
	ASSERT_ERRNO(p9c_renameat(&c, 0, "sub", 0, "../sub"), EINVAL);
	ASSERT_ERRNO(p9c_renameat(&c, 0, "..", 0, "x"), EINVAL);
	ASSERT_ERRNO(p9c_unlinkat(&c, 0, "..", 0x200), EINVAL);
	ASSERT_ERRNO(p9c_unlinkat(&c, 0, ".", 0x200), EINVAL);
	ck_assert_int_eq(access(p9c_host_path(&c, "sub"), F_OK), 0);
}
END_TEST

START_TEST(test_symlinks_are_never_followed)
{
	char path[4096], buf[64] = {0};
	struct p9c_attr a;
	struct stat st;
	const char *through_abs[] = {"abs", "secret", NULL};
	const char *through_rel[] = {"rel", "secret", NULL};

	write_outside("secret", "top secret");
	snprintf(path, sizeof(path), "%s/secret", outside);
	ck_assert_int_eq(symlink(outside, p9c_host_path(&c, "abs")), 0);
	ck_assert_int_eq(symlink("../../../../../../../../tmp", p9c_host_path(&c, "rel")), 0);
	ck_assert_int_eq(symlink(path, p9c_host_path(&c, "file")), 0);

	/* Walking through a symlink stops at the link: the guest resolves it, in the guest. */
	ck_assert_int_eq(p9c_walk(&c, 0, 1, through_abs, NULL), 1);
	ASSERT_ERRNO(p9c_clunk(&c, 1), EBADF);
	ck_assert_int_eq(p9c_walk(&c, 0, 1, through_rel, NULL), 1);
	ASSERT_OK(p9c_walk1(&c, 0, 2, "file"));
	ASSERT_OK(p9c_getattr(&c, 2, &a));
	ck_assert(S_ISLNK(a.mode));
	ASSERT_ERRNO(p9c_lopen(&c, 2, 0), ELOOP);
	ASSERT_ERRNO(p9c_read(&c, 2, 0, 64, buf), EBADF);
	/* Metadata changes on the link never reach its target. */
	ASSERT_ERRNO(p9c_setattr(&c, 2, 0x1, 0777, 0, 0), EOPNOTSUPP);
	ASSERT_ERRNO(p9c_setattr(&c, 2, 0x8, 0, 0, 0), EINVAL);
	ASSERT_OK(p9c_setattr(&c, 2, 0x20 | 0x100, 0, 0, 12345));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
	ck_assert_uint_eq(st.st_size, 10);
	ck_assert_int_ne(st.st_mtim.tv_sec, 12345);
	ck_assert_int_eq(lstat(p9c_host_path(&c, "file"), &st), 0);
	ck_assert_int_eq(st.st_mtim.tv_sec, 12345);
	/* Nor do creations through a link to a directory. */
	ASSERT_OK(p9c_walk1(&c, 0, 3, "abs"));
	ASSERT_ERRNO(p9c_mkdir(&c, 3, "x", 0755), ENOTDIR);
	ASSERT_ERRNO(p9c_lcreate(&c, 3, "x", 2, 0644), ENOTDIR);
	/* A hard link to the symlink is a link to the symlink, not to the target. */
	ASSERT_OK(p9c_link(&c, 0, 2, "hl"));
	ck_assert_int_eq(lstat(p9c_host_path(&c, "hl"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_nlink, 1);
}
END_TEST

START_TEST(test_symlink_swapped_mid_walk)
{
	char moved[4096];
	struct stat st;
	const char *into[] = {"sub", "f", NULL};

	p9c_host_write(&c, "sub/f", "inside");
	write_outside("f", "outside");
	ASSERT_OK(p9c_walk1(&c, 0, 1, "sub"));
	/* The host swaps sub for a symlink to the outside between two walks. */
	snprintf(moved, sizeof(moved), "%s/moved", c.dir);
	ck_assert_int_eq(rename(p9c_host_path(&c, "sub"), moved), 0);
	ck_assert_int_eq(symlink(outside, p9c_host_path(&c, "sub")), 0);
	/* The fid holds the directory itself, wherever it went. */
	ASSERT_OK(p9c_walk1(&c, 1, 2, "f"));
	ASSERT_OK(p9c_lopen(&c, 2, 0));
	{
		char buf[16] = {0};

		ck_assert_int_eq(p9c_read(&c, 2, 0, 16, buf), 6);
		ck_assert_str_eq(buf, "inside");
	}
	/* A fresh walk meets the symlink and stops there. */
	ck_assert_int_eq(p9c_walk(&c, 0, 3, into, NULL), 1);
	ASSERT_ERRNO(p9c_clunk(&c, 3), EBADF);
	/* Trename/Tremove of the swapped name are refused as stale, never applied outside. */
	ASSERT_ERRNO(p9c_remove(&c, 1), ESTALE);
	ck_assert_int_eq(lstat(p9c_host_path(&c, "sub"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(moved, &st), 0);
}
END_TEST

START_TEST(test_rename_into_a_dir_moved_by_the_host)
{
	char from[4096], to[4096];

	ck_assert_int_eq(mkdir(p9c_host_path(&c, "sub/x"), 0755), 0);
	ASSERT_OK(p9c_walk1(&c, 0, 1, "sub"));
	ASSERT_OK(p9c_walk1(&c, 1, 2, "x")); /* x is walked through sub's node */
	/* The host moves x out of sub: on disk, sub may now go into x. */
	snprintf(from, sizeof(from), "%s/sub/x", c.dir);
	snprintf(to, sizeof(to), "%s/x", c.dir);
	ck_assert_int_eq(rename(from, to), 0);
	ASSERT_OK(p9c_rename(&c, 1, 2, "sub2"));
	ck_assert_int_eq(access(p9c_host_path(&c, "x/sub2"), F_OK), 0);
	/*
	 * The node tree got no cycle: once the fids are gone every node is freed. A leaked cycle
	 * would eat the node budget (2 x max_fids): root + x + sub2 must fit in 4.
	 */
	ASSERT_OK(p9c_walk1(&c, 1, 3, ".."));
	ASSERT_OK(p9c_clunk(&c, 1));
	ASSERT_OK(p9c_clunk(&c, 2));
	ASSERT_OK(p9c_clunk(&c, 3));
	p9_server_set_max_fids(c.srv, 2);
	ck_assert_int_eq(p9c_walk1(&c, 0, 1, "x/sub2"), 2);
}
END_TEST

START_TEST(test_short_and_bad_size)
{
	uint8_t msg[64] = {0};
	struct p9_in in;
	uint8_t type;
	uint16_t tag;
	uint32_t ecode;

	ck_assert_uint_eq(p9c_raw(&c, msg, 0), 0);
	memcpy(msg, "\x07\x00\x00\x00\x78\x01", 6);
	ck_assert_uint_eq(p9c_raw(&c, msg, 6), 0); /* no tag: no reply */
	/* size says 100, buffer is 11. */
	memcpy(msg, "\x64\x00\x00\x00\x78\x05\x00\x00\x00\x00\x00", 11);
	ck_assert_uint_eq(p9c_raw(&c, msg, 11), 11);
	p9_in_init(&in, c.resp, c.resp_len);
	ck_assert_int_eq(p9_get_header(&in, &type, &tag), 0);
	ck_assert_uint_eq(type, P9_RLERROR);
	ck_assert_uint_eq(tag, 5);
	ck_assert_int_eq(p9_get_u32(&in, &ecode), 0);
	ck_assert_uint_eq(ecode, EBADMSG);
	/* A reply buffer too small for an Rlerror gets nothing. */
	c.resp_cap = 10;
	ck_assert_uint_eq(p9c_raw(&c, msg, 11), 0);
	c.resp_cap = P9_MSIZE_MAX;
}
END_TEST

START_TEST(test_truncated_fields_and_strings)
{
	struct p9_out *o;

	/* Twalk whose name claims more bytes than the message holds. */
	o = p9c_begin(&c);
	p9_put_u32(o, 0);
	p9_put_u32(o, 1);
	p9_put_u16(o, 1);
	p9_put_u16(o, 200);
	p9_put_data(o, "sub", 3);
	ASSERT_ERRNO(p9c_send(&c, P9_TWALK), EBADMSG);
	/* A string with a NUL inside. */
	o = p9c_begin(&c);
	p9_put_u32(o, 0);
	p9_put_u32(o, 1);
	p9_put_u16(o, 1);
	p9_put_strn(o, "su\0b", 4);
	ASSERT_ERRNO(p9c_send(&c, P9_TWALK), EINVAL);
	/* A name longer than NAME_MAX. */
	{
		char longname[300];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = 0;
		ASSERT_ERRNO(p9c_mkdir(&c, 0, longname, 0755), ENAMETOOLONG);
	}
	/* Missing trailing fields. */
	o = p9c_begin(&c);
	p9_put_u32(o, 0);
	ASSERT_ERRNO(p9c_send(&c, P9_TLOPEN), EBADMSG);
	o = p9c_begin(&c);
	p9_put_u32(o, 0);
	p9_put_u64(o, 0);
	p9_put_u32(o, 100); /* Twrite count beyond the data */
	p9_put_data(o, "abc", 3);
	ASSERT_ERRNO(p9c_send(&c, P9_TWRITE), EBADMSG);
	/* Twalk with more than 16 names. */
	o = p9c_begin(&c);
	p9_put_u32(o, 0);
	p9_put_u32(o, 1);
	p9_put_u16(o, 17);
	for (int i = 0; i < 17; i++)
		p9_put_str(o, "..");
	ASSERT_ERRNO(p9c_send(&c, P9_TWALK), E2BIG);
	ASSERT_ERRNO(p9c_clunk(&c, 1), EBADF);
}
END_TEST

START_TEST(test_unknown_types_and_bad_fids)
{
	struct p9_out *o;

	o = p9c_begin(&c);
	p9_put_u32(o, 0);
	ASSERT_ERRNO(p9c_send(&c, 250), EOPNOTSUPP);
	o = p9c_begin(&c);
	ASSERT_ERRNO(p9c_send(&c, P9_RLERROR), EOPNOTSUPP);
	o = p9c_begin(&c);
	p9_put_u32(o, 0);
	ASSERT_ERRNO(p9c_send(&c, P9_TSTAT), EOPNOTSUPP); /* 9P2000 only */
	o = p9c_begin(&c);
	p9_put_u32(o, 0);
	p9_put_u32(o, P9_NOFID);
	p9_put_str(o, "");
	p9_put_str(o, "");
	p9_put_u32(o, 0);
	ASSERT_ERRNO(p9c_send(&c, P9_TAUTH), EOPNOTSUPP);
	o = p9c_begin(&c);
	p9_put_u16(o, 1);
	ASSERT_OK(p9c_send(&c, P9_TFLUSH));

	ASSERT_ERRNO(p9c_clunk(&c, 77), EBADF);
	ASSERT_ERRNO(p9c_lopen(&c, P9_NOFID, 0), EBADF);
	ASSERT_ERRNO(p9c_walk1(&c, 5, 6, "sub"), EBADF);
	ASSERT_ERRNO(p9c_attach(&c, 0, 0), EBADF); /* fid 0 in use */
	ASSERT_ERRNO(p9c_attach(&c, P9_NOFID, 0), EBADF);
	ASSERT_OK(p9c_walk1(&c, 0, 1, "sub"));
	ASSERT_ERRNO(p9c_walk1(&c, 0, 1, "sub"), EBADF); /* newfid in use */
	/* Walking a fid onto itself replaces it. */
	ASSERT_OK(p9c_walk1(&c, 1, 1, ".."));
	ASSERT_ERRNO(p9c_mkdir(&c, 1, "sub", 0755), EEXIST);
	/* Operations on the wrong kind of file. */
	p9c_host_write(&c, "f", "x");
	ASSERT_OK(p9c_walk1(&c, 0, 2, "f"));
	ASSERT_ERRNO(p9c_mkdir(&c, 2, "x", 0755), ENOTDIR);
	ASSERT_ERRNO(p9c_walk1(&c, 2, 3, "x"), ENOTDIR);
	ASSERT_ERRNO(p9c_walk1(&c, 2, 3, ".."), ENOTDIR);
	ASSERT_ERRNO(p9c_lopen(&c, 0, 2), EISDIR);
	ASSERT_ERRNO(p9c_lopen(&c, 2, 3), EINVAL);
}
END_TEST

START_TEST(test_fid_limit)
{
	int r = 0;
	unsigned n;

	p9_server_set_max_fids(c.srv, 8);
	for (n = 1; n < 100; n++) {
		r = p9c_walk1(&c, 0, n, "sub");
		if (r < 0)
			break;
	}
	ASSERT_ERRNO(r, EMFILE);
	ck_assert_uint_eq(n, 8); /* fid 0 plus 7 clones */
	ASSERT_ERRNO(p9c_xattrwalk(&c, 0, 200, "", &(uint64_t){0}), EMFILE);
	ASSERT_OK(p9c_clunk(&c, 1));
	ASSERT_OK(p9c_walk1(&c, 0, 1, "sub"));
	/* Deep walks are bounded by the node limit too, and fail cleanly. */
	p9_server_reset(c.srv);
	ASSERT_OK(p9c_version(&c, 65536, "9P2000.L", NULL, NULL, 0));
	ASSERT_OK(p9c_attach(&c, 0, 0));
	ck_assert_int_eq(mkdir(p9c_host_path(&c, "sub/a"), 0755), 0);
	ck_assert_int_eq(mkdir(p9c_host_path(&c, "sub/a/b"), 0755), 0);
	ck_assert_int_eq(mkdir(p9c_host_path(&c, "sub/a/b/c"), 0755), 0);
	p9_server_set_max_fids(c.srv, 2); /* 4 nodes: root, sub, a, b */
	ck_assert_int_eq(p9c_walk1(&c, 0, 1, "sub/a/b/c"), 3);
	ASSERT_ERRNO(p9c_clunk(&c, 1), EBADF);
	ASSERT_OK(p9c_walk1(&c, 0, 1, "sub/a/b"));
}
END_TEST

START_TEST(test_reply_room_checked_before_side_effects)
{
	/* Rlcreate needs 24 bytes, Rmkdir 20: with less room, nothing may be created. */
	ASSERT_OK(p9c_walk1(&c, 0, 1, ""));
	c.resp_cap = 19;
	ASSERT_ERRNO(p9c_lcreate(&c, 1, "nofit", 2, 0644), ENOBUFS);
	ASSERT_ERRNO(p9c_mkdir(&c, 0, "nofit", 0755), ENOBUFS);
	c.resp_cap = P9_MSIZE_MAX;
	ck_assert_int_ne(access(p9c_host_path(&c, "nofit"), F_OK), 0);
	ASSERT_OK(p9c_lopen(&c, 1, 0));
}
END_TEST

static Suite *p9_hostile_suite(void)
{
	Suite *s = suite_create("9p-hostile");
	TCase *tc = tcase_create("hostile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_dotdot_at_root_stays_at_root);
	tcase_add_test(tc, test_bad_names_are_refused);
	tcase_add_test(tc, test_symlinks_are_never_followed);
	tcase_add_test(tc, test_symlink_swapped_mid_walk);
	tcase_add_test(tc, test_rename_into_a_dir_moved_by_the_host);
	tcase_add_test(tc, test_short_and_bad_size);
	tcase_add_test(tc, test_truncated_fields_and_strings);
	tcase_add_test(tc, test_unknown_types_and_bad_fids);
	tcase_add_test(tc, test_fid_limit);
	tcase_add_test(tc, test_reply_room_checked_before_side_effects);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(p9_hostile_suite());
}
