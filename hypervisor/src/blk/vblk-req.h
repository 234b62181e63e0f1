/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * One virtio-blk request (virtio 1.x, 5.2.6), decoded from a popped chain and executed on a
 * backend. The chain is guest-controlled: no framing is assumed (the header, data, discard
 * segments and status byte may be split across buffers anywhere), and every field is checked
 * before the backend sees it:
 *  - out[] holds the 16-byte header, then the data (OUT) or discard segments (DISCARD);
 *  - in[] holds the data (IN, GET_ID), then the status byte as its very last byte;
 *  - data lengths are multiples of 512, sector ranges lie within the capacity (overflow-safe);
 *  - writes and discards on a read-only device, bad ranges and backend failures are IOERR;
 *    unknown types and discard flags are UNSUPP.
 */

#include <stdint.h>

#include "blk/blk-backend.h"
#include "virtio/virtq.h"

/* Request types. */
#define VIRTIO_BLK_T_IN		  0
#define VIRTIO_BLK_T_OUT	  1
#define VIRTIO_BLK_T_FLUSH	  4
#define VIRTIO_BLK_T_GET_ID	  8
#define VIRTIO_BLK_T_DISCARD	  11
#define VIRTIO_BLK_T_WRITE_ZEROES 13

/* Status byte. */
#define VIRTIO_BLK_S_OK	    0
#define VIRTIO_BLK_S_IOERR  1
#define VIRTIO_BLK_S_UNSUPP 2

#define VIRTIO_BLK_DISCARD_F_UNMAP 1u

/* Limits we advertise in config space (vblk.c) and enforce here. */
#define VBLK_MAX_DISCARD_SECTORS (1u << 22) /* 2 GiB per segment */
#define VBLK_MAX_DISCARD_SEG	 32u
/* Largest data part of one request (a bigger one is IOERR); Linux sends at most a few MiB. */
#define VBLK_MAX_REQ_BYTES (256u << 20)

struct vblk_req_stats {
	uint64_t reads, writes, flushes, discards, get_ids;
	uint64_t read_bytes, write_bytes;
	uint64_t ioerr, unsupp, malformed;
};

/*
 * Execute the request in chain. Returns the number of bytes written into in[] (data plus the
 * status byte), or -EINVAL when in[] cannot even hold a status byte (return the chain with
 * length 0).
 */
int vblk_req_handle(struct blk_backend *be, const struct virtq_chain *chain,
		    struct vblk_req_stats *stats);
