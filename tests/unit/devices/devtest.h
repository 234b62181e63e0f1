/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Test helpers for the device suites (blk, net, rng): one fake guest RAM region (a malloc'd
 * buffer in a gmem), the driver's side of any number of split virtqueues, and a fake
 * transport that counts used-buffer interrupts and NEEDS_RESET requests.
 *
 * Guest physical layout: RAM at [0, DT_MEM_SIZE). Queue i has its rings at
 * DT_RING_BASE + i * 0x10000 (desc, avail at +0x4000, used at +0x8000); buffers are handed
 * out from DT_BUF_BASE upwards.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/gmem.h"
#include "virtio/vdev.h"

#define DT_MEM_SIZE  (4u << 20)
#define DT_RING_BASE 0x10000u
#define DT_BUF_BASE  0x100000u

struct dt_guest {
	struct gmem gm;
	uint8_t *mem;
	uint64_t next_free;
};

struct dt_queue {
	struct dt_guest *g;
	struct virtq *vq;
	uint16_t num;
	uint64_t desc, avail, used;
	uint16_t next_desc;
	uint16_t avail_idx;
	uint16_t used_seen;
};

struct dt_buf {
	uint64_t gpa;
	uint32_t len;
	bool writable;
};

struct dt_transport {
	unsigned used_irqs;
	unsigned needs_reset;
};

void dt_guest_init(struct dt_guest *g);
void dt_guest_done(struct dt_guest *g);
/* A zeroed guest buffer of len bytes; returns its host pointer, sets *ret_gpa. */
void *dt_alloc(struct dt_guest *g, size_t len, uint64_t *ret_gpa);
void *dt_hva(struct dt_guest *g, uint64_t gpa);

/* Set dev->queues[index] up as the transport would, num entries. */
void dt_queue_init(struct dt_queue *q, struct dt_guest *g, struct vdev *dev, unsigned index,
		   uint16_t num);
/* The driver side only (fresh rings for queue index), for a device behind a real transport. */
void dt_queue_driver_init(struct dt_queue *q, struct dt_guest *g, unsigned index, uint16_t num);
/* Make a chain of n buffers available; returns its head. */
uint16_t dt_queue_add(struct dt_queue *q, const struct dt_buf *bufs, unsigned n);
/* Publish a raw avail index (to break the queue). */
void dt_queue_set_avail_idx(struct dt_queue *q, uint16_t idx);
/* The next used element, if the device returned one. */
bool dt_queue_used(struct dt_queue *q, uint32_t *ret_id, uint32_t *ret_len);

/* Attach the fake transport to dev. */
void dt_transport_attach(struct dt_transport *t, struct vdev *dev);
