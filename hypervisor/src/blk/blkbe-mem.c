/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blk/blkbe-mem.h"
#include "cc/macro.h"

#define BLKBE_MEM_MAX_SIZE (1ull << 30)

struct blkbe_mem {
	struct blk_backend be; /* first: the ops get &be */
	uint8_t *data;
	int fail;
	unsigned flushes;
	unsigned discards;
};

static struct blkbe_mem *to_mem(struct blk_backend *be)
{
	return (struct blkbe_mem *) be;
}

static int blkbe_mem_range(const struct blkbe_mem *m, uint64_t off, uint64_t len)
{
	if (m->fail)
		return -m->fail;
	if (off > m->be.size || len > m->be.size - off)
		return -ERANGE;
	return 0;
}

static int blkbe_mem_read(struct blk_backend *be, uint64_t off, const struct iovec *iov, unsigned n)
{
	struct blkbe_mem *m = to_mem(be);
	int r;

	for (unsigned i = 0; i < n; i++) {
		r = blkbe_mem_range(m, off, iov[i].iov_len);
		if (r < 0)
			return r;
		if (iov[i].iov_len > 0)
			memcpy(iov[i].iov_base, m->data + off, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	return 0;
}

static int blkbe_mem_write(struct blk_backend *be, uint64_t off, const struct iovec *iov,
			   unsigned n)
{
	struct blkbe_mem *m = to_mem(be);
	int r;

	if (be->read_only)
		return -EROFS;
	for (unsigned i = 0; i < n; i++) {
		r = blkbe_mem_range(m, off, iov[i].iov_len);
		if (r < 0)
			return r;
		if (iov[i].iov_len > 0)
			memcpy(m->data + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	return 0;
}

static int blkbe_mem_flush(struct blk_backend *be)
{
	struct blkbe_mem *m = to_mem(be);

	if (m->fail)
		return -m->fail;
	m->flushes++;
	return 0;
}

static int blkbe_mem_discard(struct blk_backend *be, uint64_t off, uint64_t len)
{
	struct blkbe_mem *m = to_mem(be);
	int r;

	if (be->read_only)
		return -EROFS;
	r = blkbe_mem_range(m, off, len);
	if (r < 0)
		return r;
	memset(m->data + off, 0, len);
	m->discards++;
	return 0;
}

static void blkbe_mem_close(struct blk_backend *be)
{
	struct blkbe_mem *m = to_mem(be);

	free(m->data);
	free(m);
}

static const struct blk_backend_ops blkbe_mem_ops = {
	.read = blkbe_mem_read,
	.write = blkbe_mem_write,
	.flush = blkbe_mem_flush,
	.discard = blkbe_mem_discard,
	.close = blkbe_mem_close,
};

int blkbe_mem_new(uint64_t size, bool read_only, const char *serial, struct blk_backend **ret)
{
	struct blkbe_mem *m;

	assert_return(ret, -EINVAL);
	assert_return(size <= BLKBE_MEM_MAX_SIZE && size % BLK_SECTOR_SIZE == 0, -EINVAL);
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->data = calloc(1, size ? size : 1);
	if (!m->data) {
		free(m);
		return -ENOMEM;
	}
	m->be = (struct blk_backend){
		.ops = &blkbe_mem_ops,
		.size = size,
		.block_size = BLK_SECTOR_SIZE,
		.read_only = read_only,
	};
	if (serial)
		memcpy(m->be.serial, serial, strnlen(serial, sizeof(m->be.serial)));
	*ret = &m->be;
	return 0;
}

uint8_t *blkbe_mem_data(struct blk_backend *be)
{
	return to_mem(be)->data;
}

void blkbe_mem_fail(struct blk_backend *be, int err)
{
	to_mem(be)->fail = err < 0 ? -err : err;
}

unsigned blkbe_mem_flushes(struct blk_backend *be)
{
	return to_mem(be)->flushes;
}

unsigned blkbe_mem_discards(struct blk_backend *be)
{
	return to_mem(be)->discards;
}
