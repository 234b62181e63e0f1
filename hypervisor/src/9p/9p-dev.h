/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-9p (device id 9): one request queue carrying 9P2000.L messages for the server in
 * 9p.h. Feature VIRTIO_9P_MOUNT_TAG; config space is le16 tag_len followed by the tag bytes
 * (the guest mounts it with `mount -t 9p -o trans=virtio,version=9p2000.L TAG DIR`).
 *
 * Backend: a 9p server in this process (9p.h), or, in the sandboxed VMM, one export of the 9p
 * worker process (9p-worker.h), which holds the capabilities and the export's descriptors.
 *
 * Threads: requests run synchronously on the event-loop thread (queue_notify), one at a time,
 * under the device mutex; activate and reset take the same mutex on a vCPU thread, so a reset
 * waits for the request in progress. config_read only reads the immutable tag and takes no
 * lock, so a slow filesystem call never stalls a vCPU on config access.
 *
 * Memory: the request and reply buffers are P9_MSIZE_MAX each, and a large Tread or Twrite
 * leaves that much of them resident. Once the device has seen no request for V9P_IDLE_NS
 * (a one-shot timer on the event loop, armed only when a buffer grew past V9P_BUF_KEEP),
 * everything above V9P_BUF_KEEP goes back to the host (9p-buf.h): an idle pod keeps 2 x 16 KiB
 * per share instead of up to 2 x 512 KiB, and a busy one never refaults between requests.
 */

#include <stdbool.h>
#include <stdint.h>

#include "9p/9p.h"
#include "virtio/vdev.h"

#define VIRTIO_9P_MOUNT_TAG 0
#define V9P_TAG_MAX	    255u
#define V9P_BUF_KEEP	    (16u * 1024)
#define V9P_IDLE_NS	    500000000L

struct evloop;

struct v9p_stats {
	uint64_t requests, bad_chains, bytes_in, bytes_out;
	uint64_t trims, bytes_trimmed; /* idle trims that released something, and how much */
};

/*
 * Export dir under tag (1..V9P_TAG_MAX bytes, no NUL), read-write or read-only. With a loop,
 * the device registers its idle-trim timer there (call before the loop runs); without one,
 * only v9p_idle_tick() trims.
 */
int v9p_new(const char *tag, const char *dir, bool read_only, struct evloop *loop,
	    struct vdev **ret);
struct p9_worker;
/*
 * The same device, served by export `export` of a 9p worker (9p-worker.h) that the caller
 * keeps until the device is freed; its host volumes are the worker's business.
 */
int v9p_new_remote(const char *tag, struct p9_worker *worker, unsigned export, struct evloop *loop,
		   struct vdev **ret);
/* A host volume inside the export (9p.h, p9_server_add_hostvol()); before the device runs. */
int v9p_add_hostvol(struct vdev *dev, const struct p9_hostvol *v);
/* The whole export is one (p9_server_add_hostvol_root()). */
int v9p_add_hostvol_root(struct vdev *dev);
/*
 * What the idle timer does: trims the buffers if no request came since the timer was armed
 * (returns true), else arms it again (false). Safe from any thread.
 */
bool v9p_idle_tick(struct vdev *dev);
/* Counters since creation; safe from any thread. */
void v9p_get_stats(struct vdev *dev, struct v9p_stats *ret);
