/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A block backend: host storage behind virtio-blk. It sees byte offsets and host iovecs, never
 * a virtqueue or guest address. The device model (vblk-req.c) has already checked every range
 * against size, so a backend may assume off + len <= size and 512-byte multiples; it still
 * refuses writes when read_only (defence in depth).
 *
 * Threading: all ops run on the thread that works the device's queue (the event loop).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#define BLK_SECTOR_SIZE 512u
#define BLK_SERIAL_LEN	20u /* VIRTIO_BLK_ID_BYTES */

struct blk_backend;

struct blk_backend_ops {
	/* Fill iov (n entries) from byte offset off. 0 or -errno (-EIO on a short read). */
	int (*read)(struct blk_backend *be, uint64_t off, const struct iovec *iov, unsigned n);
	/* Write iov at byte offset off. 0 or -errno (-EROFS when read-only). */
	int (*write)(struct blk_backend *be, uint64_t off, const struct iovec *iov, unsigned n);
	/* Make completed writes durable. */
	int (*flush)(struct blk_backend *be);
	/* Forget [off, off+len): later reads return zeroes or the old data. */
	int (*discard)(struct blk_backend *be, uint64_t off, uint64_t len);
	/* Release the backend (and struct blk_backend itself). */
	void (*close)(struct blk_backend *be);
};

struct blk_backend {
	const struct blk_backend_ops *ops;
	uint64_t size;	     /* bytes; the guest sees size / 512 sectors */
	uint32_t block_size; /* preferred I/O granularity of the host storage (discard alignment) */
	bool read_only;
	char serial[BLK_SERIAL_LEN]; /* GET_ID answer, NUL-padded, not necessarily terminated */
};

static inline void blk_backend_close(struct blk_backend *be)
{
	if (be)
		be->ops->close(be);
}

static inline void blk_backend_closep(struct blk_backend **be)
{
	blk_backend_close(*be);
}
