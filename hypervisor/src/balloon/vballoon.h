/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-balloon device model (device ID 5, virtio 1.x section 5.5).
 *
 * Queues: 0 inflateq, 1 deflateq, and 2 reporting_vq when VIRTIO_BALLOON_F_PAGE_REPORTING is
 * offered (no stats or free page hinting are offered, so the reporting queue is the third one:
 * drivers number only the queues that exist).
 *  - inflateq: arrays of le32 PFNs (4 KiB pages) the guest gives up; each run of consecutive
 *    PFNs is discarded (madvise MADV_DONTNEED) where it lies in the balloon map.
 *  - deflateq: PFNs the guest takes back; counted only (a discarded page faults back in as
 *    zeroes, and MUST_TELL_HOST is not offered).
 *  - reporting_vq: each device-writable buffer is a free guest range (the guest's page
 *    reporting, order >= its pageblock order); discarded where it lies in the map, then the
 *    chain goes back with length 0.
 * DEFLATE_ON_OOM is offered: a guest under memory pressure may shrink an inflated balloon.
 * Config space: le32 num_pages (the host's target, read-only for the driver), le32 actual
 * (written by the driver).
 *
 * Everything the guest sends is validated by balloon-map.h: whole pages, inside the map
 * (guest RAM minus the kernel's file-mapped segments; never pmem), or refused and counted.
 * Threads: queue_notify on the event-loop thread; config access, activate and reset on vCPU
 * threads (under the transport's lock); the counters and the target are atomics.
 */

#include <stdbool.h>
#include <stdint.h>

#include "density/balloon-map.h"
#include "virtio/vdev.h"

#define VIRTIO_BALLOON_F_MUST_TELL_HOST 0
#define VIRTIO_BALLOON_F_STATS_VQ	1
#define VIRTIO_BALLOON_F_DEFLATE_ON_OOM 2
#define VIRTIO_BALLOON_F_FREE_PAGE_HINT 3
#define VIRTIO_BALLOON_F_PAGE_POISON	4
#define VIRTIO_BALLOON_F_REPORTING	5

enum {
	VBALLOON_Q_INFLATE = 0,
	VBALLOON_Q_DEFLATE = 1,
	VBALLOON_Q_REPORTING = 2,
};

#define VBALLOON_CONFIG_SIZE 8u
/* Most PFNs taken from one inflate chain (16 KiB of array); the rest is refused. */
#define VBALLOON_PFNS_MAX 4096u

struct vballoon_config {
	const struct balloon_map *map; /* copied */
	bool reporting;		       /* offer VIRTIO_BALLOON_F_PAGE_REPORTING */
	/* NULL: madvise(MADV_DONTNEED). Tests record the ranges instead. */
	balloon_discard_fn discard;
	void *discard_opaque;
};

struct vballoon_stats {
	uint64_t inflated_pages;  /* PFNs received on inflateq */
	uint64_t deflated_pages;  /* PFNs received on deflateq */
	uint64_t reported_bytes;  /* bytes of free ranges received on reporting_vq */
	uint64_t discarded_bytes; /* bytes given back to the host (both paths) */
	uint64_t refused;	  /* malformed chains, unaligned or out-of-map ranges */
	uint64_t failed;	  /* discard calls the host refused */
	uint32_t actual;	  /* the driver's config "actual" (pages in the balloon) */
};

int vballoon_new(const struct vballoon_config *cfg, struct vdev **ret);
/* Ask the guest for a balloon of `pages` 4 KiB pages (config change interrupt). Any thread. */
void vballoon_set_target(struct vdev *dev, uint32_t pages);
void vballoon_get_stats(struct vdev *dev, struct vballoon_stats *ret);
