/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz the virtio-blk device model (virtq chains + request decoding + execution) as a hostile
 * guest sees it: the input is the guest's memory, rings and buffers included.
 *
 * Input: [0] control: bit 0 read-only disk, bit 1 EVENT_IDX, bit 2 INDIRECT_DESC, bit 3 the
 *            backend fails every operation;
 *        [1..] guest memory image (FUZZ_MEM_SIZE bytes, zero-padded): descriptor table at
 *            0x000 (16 entries), avail ring at 0x100, used ring at 0x200, anything else free.
 * The in-memory disk is wrapped by a checking backend that aborts if the device model ever
 * hands it a range beyond the disk, a length that is not a multiple of 512, or a write to a
 * read-only disk: the validation in vblk-req.c must have caught those.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blk/blkbe-mem.h"
#include "blk/vblk.h"
#include "base/gmem.h"

#define FUZZ_MEM_SIZE 0x2000u
#define FUZZ_QSIZE    16
#define DISK_SIZE     (8u * 512)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check_be {
	struct blk_backend be;
	struct blk_backend *inner;
};

static void fuzz_check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz-blk: invariant broken: %s\n", what);
		abort();
	}
}

static void check_range(struct blk_backend *be, uint64_t off, uint64_t len)
{
	fuzz_check(off % 512 == 0 && len % 512 == 0, "unaligned backend I/O");
	fuzz_check(off <= be->size && len <= be->size - off, "backend I/O beyond the disk");
}

static uint64_t iov_total(const struct iovec *iov, unsigned n)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

static int chk_read(struct blk_backend *be, uint64_t off, const struct iovec *iov, unsigned n)
{
	struct check_be *c = (struct check_be *) be;

	check_range(be, off, iov_total(iov, n));
	return c->inner->ops->read(c->inner, off, iov, n);
}

static int chk_write(struct blk_backend *be, uint64_t off, const struct iovec *iov, unsigned n)
{
	struct check_be *c = (struct check_be *) be;

	fuzz_check(!be->read_only, "write to a read-only disk");
	check_range(be, off, iov_total(iov, n));
	return c->inner->ops->write(c->inner, off, iov, n);
}

static int chk_flush(struct blk_backend *be)
{
	struct check_be *c = (struct check_be *) be;

	return c->inner->ops->flush(c->inner);
}

static int chk_discard(struct blk_backend *be, uint64_t off, uint64_t len)
{
	struct check_be *c = (struct check_be *) be;

	fuzz_check(!be->read_only, "discard on a read-only disk");
	fuzz_check(len > 0, "empty discard");
	check_range(be, off, len);
	return c->inner->ops->discard(c->inner, off, len);
}

static void chk_close(struct blk_backend *be)
{
	struct check_be *c = (struct check_be *) be;

	blk_backend_close(c->inner);
	free(c);
}

static const struct blk_backend_ops chk_ops = {
	.read = chk_read,
	.write = chk_write,
	.flush = chk_flush,
	.discard = chk_discard,
	.close = chk_close,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *mem;
	struct check_be *c;
	struct gmem gm;
	struct vdev *dev;
	struct virtq *vq;
	uint8_t ctl;
	bool ro;

	if (size < 1)
		return 0;
	if (!mem)
		mem = malloc(FUZZ_MEM_SIZE);
	fuzz_check(mem != NULL, "malloc");
	ctl = data[0];
	ro = ctl & 1;
	memset(mem, 0, FUZZ_MEM_SIZE);
	memcpy(mem, data + 1, size - 1 < FUZZ_MEM_SIZE ? size - 1 : FUZZ_MEM_SIZE);
	gmem_init(&gm);
	fuzz_check(gmem_add_region(&gm, 0, FUZZ_MEM_SIZE, mem, 0) == 0, "gmem");

	c = calloc(1, sizeof(*c));
	fuzz_check(c != NULL, "calloc");
	fuzz_check(blkbe_mem_new(DISK_SIZE, ro, "fuzz", &c->inner) == 0, "blkbe_mem_new");
	if (ctl & 8)
		blkbe_mem_fail(c->inner, EIO);
	c->be = *c->inner;
	c->be.ops = &chk_ops;
	fuzz_check(vblk_new_with_backend(&c->be, &dev) == 0, "vblk_new");

	vq = &dev->queues[0];
	vq->gm = &gm;
	vq->num = FUZZ_QSIZE;
	vq->desc_gpa = 0x000;
	vq->avail_gpa = 0x100;
	vq->used_gpa = 0x200;
	vq->event_idx = ctl & 2;
	vq->indirect = ctl & 4;
	vq->ready = true;
	virtq_reset(vq);
	if (dev->ops->activate(dev, dev->ops->get_features(dev)) == 0) {
		dev->ops->queue_notify(dev, 0);
		dev->ops->queue_notify(dev, 0);
	}
	if (getenv("FUZZ_VERBOSE")) {
		struct vblk_req_stats st;

		vblk_get_stats(dev, &st);
		fprintf(stderr,
			"r %llu w %llu f %llu d %llu id %llu ioerr %llu unsupp %llu bad %llu\n",
			(unsigned long long) st.reads, (unsigned long long) st.writes,
			(unsigned long long) st.flushes, (unsigned long long) st.discards,
			(unsigned long long) st.get_ids, (unsigned long long) st.ioerr,
			(unsigned long long) st.unsupp, (unsigned long long) st.malformed);
	}
	dev->ops->free(dev);
	return 0;
}
