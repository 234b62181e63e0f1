/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blk/blk-iov.h"
#include "blk/blkbe-raw.h"
#include "cc/cleanup.h"
#include "cc/macro.h"
#include "virtio/virtq.h"

struct blkbe_raw {
	struct blk_backend be; /* first: the ops get &be */
	int fd;
	bool is_blkdev;
};

static struct blkbe_raw *to_raw(struct blk_backend *be)
{
	return (struct blkbe_raw *) be;
}

/* preadv/pwritev until everything moved; a read that hits EOF early is -EIO. */
static int blkbe_raw_rw(struct blkbe_raw *raw, bool write, uint64_t off, const struct iovec *iov,
			unsigned n)
{
	struct iovec tmp[VIRTQ_CHAIN_MAX];
	unsigned left_n;

	if (n > ARRAY_SIZE(tmp))
		return -E2BIG;
	memcpy(tmp, iov, n * sizeof(*iov));
	left_n = blk_iov_advance(tmp, n, 0); /* drops leading empty entries */
	while (left_n > 0) {
		ssize_t k;

		if (off > INT64_MAX)
			return -EINVAL;
		if (write)
			k = pwritev(raw->fd, tmp, (int) left_n, (off_t) off);
		else
			k = preadv(raw->fd, tmp, (int) left_n, (off_t) off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		off += (uint64_t) k;
		left_n = blk_iov_advance(tmp, left_n, (size_t) k);
	}
	return 0;
}

static int blkbe_raw_read(struct blk_backend *be, uint64_t off, const struct iovec *iov, unsigned n)
{
	return blkbe_raw_rw(to_raw(be), false, off, iov, n);
}

static int blkbe_raw_write(struct blk_backend *be, uint64_t off, const struct iovec *iov,
			   unsigned n)
{
	if (be->read_only)
		return -EROFS;
	return blkbe_raw_rw(to_raw(be), true, off, iov, n);
}

static int blkbe_raw_flush(struct blk_backend *be)
{
	if (be->read_only)
		return 0;
	return RET_NERRNO(fdatasync(to_raw(be)->fd));
}

static int blkbe_raw_discard(struct blk_backend *be, uint64_t off, uint64_t len)
{
	struct blkbe_raw *raw = to_raw(be);
	int r;

	if (be->read_only)
		return -EROFS;
	if (off > INT64_MAX || len > INT64_MAX - off)
		return -EINVAL;
	if (raw->is_blkdev) {
		uint64_t range[2] = {off, len};

		r = RET_NERRNO(ioctl(raw->fd, BLKDISCARD, range));
	} else {
		r = RET_NERRNO(fallocate(raw->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					 (off_t) off, (off_t) len));
	}
	/* Discard is a hint: storage that cannot punch holes keeps the data, which is allowed. */
	if (r == -EOPNOTSUPP || r == -ENOTTY)
		return 0;
	return r;
}

static void blkbe_raw_close(struct blk_backend *be)
{
	struct blkbe_raw *raw = to_raw(be);

	safe_close(raw->fd);
	free(raw);
}

static const struct blk_backend_ops blkbe_raw_ops = {
	.read = blkbe_raw_read,
	.write = blkbe_raw_write,
	.flush = blkbe_raw_flush,
	.discard = blkbe_raw_discard,
	.close = blkbe_raw_close,
};

static void blkbe_raw_make_serial(const struct stat *st, char serial[BLK_SERIAL_LEN])
{
	uint64_t keys[2] = {(uint64_t) st->st_dev, (uint64_t) st->st_ino};
	const uint8_t *p = (const uint8_t *) keys;
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 offset basis */
	char buf[BLK_SERIAL_LEN + 1];

	for (size_t i = 0; i < sizeof(keys); i++) {
		h ^= p[i];
		h *= 0x100000001b3ull; /* FNV-1a 64 prime */
	}
	(void) snprintf(buf, sizeof(buf), "cc-%016llx", (unsigned long long) h);
	memset(serial, 0, BLK_SERIAL_LEN);
	memcpy(serial, buf, strlen(buf));
}

/* The host's preferred I/O size if it is a sane power of two, else a sector. */
static uint32_t blkbe_raw_block_size(const struct stat *st)
{
	uint64_t b = st->st_blksize > 0 ? (uint64_t) st->st_blksize : 0;

	if (b < BLK_SECTOR_SIZE || b > 1024 * 1024 || (b & (b - 1)) != 0)
		return BLK_SECTOR_SIZE;
	return (uint32_t) b;
}

int blkbe_raw_open_fd(int fd, bool read_only, struct blk_backend **ret)
{
	_cleanup_close_ int owned = fd;
	struct blkbe_raw *raw;
	uint64_t size;
	struct stat st;

	assert_return(fd >= 0 && ret, -EINVAL);
	if (fstat(owned, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(owned, BLKGETSIZE64, &size) < 0)
			return -errno;
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t) st.st_size;
	} else {
		return -EINVAL;
	}
	raw = calloc(1, sizeof(*raw));
	if (!raw)
		return -ENOMEM;
	raw->be = (struct blk_backend){
		.ops = &blkbe_raw_ops,
		.size = ALIGN_DOWN(size, (uint64_t) BLK_SECTOR_SIZE),
		.block_size = blkbe_raw_block_size(&st),
		.read_only = read_only,
	};
	raw->fd = TAKE_FD(owned);
	raw->is_blkdev = S_ISBLK(st.st_mode);
	blkbe_raw_make_serial(&st, raw->be.serial);
	*ret = &raw->be;
	return 0;
}

int blkbe_raw_open(const char *path, bool read_only, struct blk_backend **ret)
{
	int fd;

	assert_return(path && ret, -EINVAL);
	fd = open(path, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return blkbe_raw_open_fd(fd, read_only, ret);
}
