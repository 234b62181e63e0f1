/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-9p (device id 9): one request queue carrying 9P2000.L messages for the server in
 * 9p.h. Feature VIRTIO_9P_MOUNT_TAG; config space is le16 tag_len followed by the tag bytes
 * (the guest mounts it with `mount -t 9p -o trans=virtio,version=9p2000.L TAG DIR`).
 *
 * Threads: requests run synchronously on the event-loop thread (queue_notify), one at a time,
 * under the device mutex; activate and reset take the same mutex on a vCPU thread, so a reset
 * waits for the request in progress. config_read only reads the immutable tag and takes no
 * lock, so a slow filesystem call never stalls a vCPU on config access.
 */

#include <stdbool.h>
#include <stdint.h>

#include "virtio/vdev.h"

#define VIRTIO_9P_MOUNT_TAG 0
#define V9P_TAG_MAX	    255u

struct v9p_stats {
	uint64_t requests, bad_chains, bytes_in, bytes_out;
};

/* Export dir under tag (1..V9P_TAG_MAX bytes, no NUL), read-write or read-only. */
int v9p_new(const char *tag, const char *dir, bool read_only, struct vdev **ret);
/* Counters since creation; safe from any thread. */
void v9p_get_stats(struct vdev *dev, struct v9p_stats *ret);
