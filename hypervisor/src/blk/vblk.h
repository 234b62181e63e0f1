/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-blk device model (device ID 2): one request queue, requests executed synchronously on
 * the event-loop thread (queue_notify), on a struct blk_backend.
 *
 * Features: SEG_MAX, BLK_SIZE, FLUSH, DISCARD, and RO for a read-only backend. Config space
 * (virtio 1.x 5.2.4): capacity, seg_max, blk_size, max_discard_sectors, max_discard_seg,
 * discard_sector_alignment. Config writes are ignored (no CONFIG_WCE).
 */

#include <stdbool.h>

#include "blk/blk-backend.h"
#include "blk/vblk-req.h"
#include "virtio/vdev.h"

/* Feature bits (virtio 1.x 5.2.3). */
#define VIRTIO_BLK_F_SIZE_MAX 1
#define VIRTIO_BLK_F_SEG_MAX  2
#define VIRTIO_BLK_F_RO	      5
#define VIRTIO_BLK_F_BLK_SIZE 6
#define VIRTIO_BLK_F_FLUSH    9
#define VIRTIO_BLK_F_DISCARD  13

#define VBLK_CONFIG_SIZE 60 /* up to and including write_zeroes_may_unmap + padding */

/*
 * Parse the CLI form "FILE[,ro]" (--blk). *ret_path is a new string. A path that itself ends
 * in ",ro" cannot be given (use a symlink). -EINVAL for an empty path.
 */
int vblk_spec_parse(const char *spec, char **ret_path, bool *ret_read_only);

/* Open path as a raw image and make a device on it. */
int vblk_new(const char *path, bool read_only, struct vdev **ret);
/* A device on an existing backend, which it takes over (closed even on error). */
int vblk_new_with_backend(struct blk_backend *be, struct vdev **ret);
/* Counters since creation. */
void vblk_get_stats(struct vdev *dev, struct vblk_req_stats *ret);
