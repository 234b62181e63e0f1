/* SPDX-License-Identifier: Apache-2.0 */
/* The raw-file block backend, and vblk_new() on a real file. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blk/blkbe-raw.h"
#include "blk/vblk.h"
#include "cc/cleanup.h"
#include "cctest.h"
#include "devtest.h"

static char *dir;

static void setup(void)
{
	dir = cctest_mkdtemp();
}

static void teardown(void)
{
	(void) cctest_rm_rf(dir);
}

/* A file of size bytes, byte i = i % 251; returns its path (static). */
static const char *make_file(const char *name, size_t size)
{
	static char path[4096];
	_cleanup_free_ uint8_t *buf = malloc(size ? size : 1);
	_cleanup_close_ int fd = -1;

	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < size; i++)
		buf[i] = (uint8_t) (i % 251);
	(void) snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, size), (ssize_t) size);
	return path;
}

START_TEST(test_blkbe_raw_read_write_flush)
{
	struct blk_backend *be;
	uint8_t a[512], b[1536], out[2048];
	struct iovec iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};

	ASSERT_OK(blkbe_raw_open(make_file("disk", 1 << 20), false, &be));
	ck_assert_uint_eq(be->size, 1 << 20);
	ASSERT_OK(be->ops->read(be, 4096, iov, 2));
	for (unsigned i = 0; i < 512; i++)
		ck_assert_uint_eq(a[i], (4096 + i) % 251);
	ck_assert_uint_eq(b[0], (4096 + 512) % 251);
	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	ASSERT_OK(be->ops->write(be, 8192, iov, 2));
	ASSERT_OK(be->ops->flush(be));
	struct iovec o = {out, sizeof(out)};
	ASSERT_OK(be->ops->read(be, 8192, &o, 1));
	ck_assert_uint_eq(out[0], 1);
	ck_assert_uint_eq(out[511], 1);
	ck_assert_uint_eq(out[512], 2);
	ck_assert_uint_eq(out[2047], 2);
	/* Reading past the end of the file is an error, not zeroes. */
	ASSERT_ERRNO(be->ops->read(be, (1 << 20) - 512, &o, 1), EIO);
	blk_backend_close(be);
}
END_TEST

START_TEST(test_blkbe_raw_discard_punches_hole)
{
	struct blk_backend *be;
	const char *path = make_file("sparse", 1 << 20);
	uint8_t buf[65536], zero[65536] = {0};
	struct iovec iov = {buf, sizeof(buf)};
	struct stat before, after;

	ASSERT_OK(blkbe_raw_open(path, false, &be));
	ck_assert_int_eq(stat(path, &before), 0);
	ASSERT_OK(be->ops->discard(be, 65536, 65536));
	ck_assert_int_eq(stat(path, &after), 0);
	ASSERT_OK(be->ops->read(be, 65536, &iov, 1));
	/* tmpfs, ext4, xfs, btrfs all punch holes; a filesystem that cannot keeps the data. */
	if (after.st_blocks < before.st_blocks)
		ck_assert_mem_eq(buf, zero, sizeof(buf));
	ck_assert_int_eq(after.st_size, before.st_size);
	blk_backend_close(be);
}
END_TEST

START_TEST(test_blkbe_raw_read_only)
{
	struct blk_backend *be;
	uint8_t a[512] = {0};
	struct iovec iov = {a, sizeof(a)};

	ASSERT_OK(blkbe_raw_open(make_file("ro", 4096), true, &be));
	ck_assert(be->read_only);
	ASSERT_ERRNO(be->ops->write(be, 0, &iov, 1), EROFS);
	ASSERT_ERRNO(be->ops->discard(be, 0, 512), EROFS);
	ASSERT_OK(be->ops->read(be, 0, &iov, 1));
	ASSERT_OK(be->ops->flush(be));
	blk_backend_close(be);
}
END_TEST

START_TEST(test_blkbe_raw_size_rounds_down)
{
	struct blk_backend *be;

	ASSERT_OK(blkbe_raw_open(make_file("odd", 1000), false, &be));
	ck_assert_uint_eq(be->size, 512);
	blk_backend_close(be);
}
END_TEST

START_TEST(test_blkbe_raw_serial)
{
	struct blk_backend *a, *a2, *b;
	char pa[4096];

	(void) snprintf(pa, sizeof(pa), "%s", make_file("one", 4096));
	ASSERT_OK(blkbe_raw_open(pa, false, &a));
	ASSERT_OK(blkbe_raw_open(pa, true, &a2));
	ASSERT_OK(blkbe_raw_open(make_file("two", 4096), false, &b));
	ck_assert_mem_eq(a->serial, "cc-", 3);
	for (unsigned i = 3; i < 19; i++)
		ck_assert(strchr("0123456789abcdef", a->serial[i]));
	ck_assert_uint_eq(a->serial[19], 0);
	ck_assert_mem_eq(a->serial, a2->serial, BLK_SERIAL_LEN);
	ck_assert(memcmp(a->serial, b->serial, BLK_SERIAL_LEN) != 0);
	blk_backend_close(a);
	blk_backend_close(a2);
	blk_backend_close(b);
}
END_TEST

START_TEST(test_blkbe_raw_refuses_bad_files)
{
	struct blk_backend *be;
	char missing[4096];

	(void) snprintf(missing, sizeof(missing), "%s/missing", dir);
	ASSERT_ERRNO(blkbe_raw_open(missing, false, &be), ENOENT);
	ASSERT_ERRNO(blkbe_raw_open(dir, true, &be), EINVAL); /* a directory */
	ASSERT_ERRNO(blkbe_raw_open_fd(open("/dev/null", O_RDONLY | O_CLOEXEC), true, &be), EINVAL);
}
END_TEST

/* The whole device on a file: a write request lands in the file. */
START_TEST(test_vblk_new_on_file)
{
	const char *path = make_file("vdisk", 64 * 512);
	struct dt_guest g;
	struct dt_queue q;
	struct dt_transport t;
	struct vdev *dev;
	uint64_t hdr_gpa, data_gpa, st_gpa;
	uint8_t *hdr, *data, *st, check[512];
	uint32_t type = 1, id, len;
	uint64_t sector = 5, cap;
	_cleanup_close_ int fd = -1;

	dt_guest_init(&g);
	ASSERT_OK(vblk_new(path, false, &dev));
	dt_transport_attach(&t, dev);
	dt_queue_init(&q, &g, dev, 0, 16);
	ASSERT_OK(dev->ops->activate(dev, dev->ops->get_features(dev)));
	dev->ops->config_read(dev, 0, &cap, 8);
	ck_assert_uint_eq(cap, 64);
	hdr = dt_alloc(&g, 16, &hdr_gpa);
	data = dt_alloc(&g, 512, &data_gpa);
	st = dt_alloc(&g, 1, &st_gpa);
	memcpy(hdr, &type, 4);
	memcpy(hdr + 8, &sector, 8);
	memset(data, 0x77, 512);
	struct dt_buf b[] = {{hdr_gpa, 16, false}, {data_gpa, 512, false}, {st_gpa, 1, true}};
	dt_queue_add(&q, b, 3);
	dev->ops->queue_notify(dev, 0);
	ck_assert(dt_queue_used(&q, &id, &len));
	ck_assert_uint_eq(len, 1);
	ck_assert_uint_eq(*st, 0);
	dev->ops->free(dev);
	dt_guest_done(&g);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(pread(fd, check, 512, 5 * 512), 512);
	for (unsigned i = 0; i < 512; i++)
		ck_assert_uint_eq(check[i], 0x77);
	ASSERT_ERRNO(vblk_new("/nonexistent/disk", false, &dev), ENOENT);
}
END_TEST

static Suite *raw_suite(void)
{
	Suite *s = suite_create("blkbe-raw");
	TCase *tc = tcase_create("raw");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_blkbe_raw_read_write_flush);
	tcase_add_test(tc, test_blkbe_raw_discard_punches_hole);
	tcase_add_test(tc, test_blkbe_raw_read_only);
	tcase_add_test(tc, test_blkbe_raw_size_rounds_down);
	tcase_add_test(tc, test_blkbe_raw_serial);
	tcase_add_test(tc, test_blkbe_raw_refuses_bad_files);
	tcase_add_test(tc, test_vblk_new_on_file);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(raw_suite());
}
