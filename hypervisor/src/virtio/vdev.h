/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A virtio device model as the transport sees it. The device never sees an MMIO offset or a
 * register: the transport (virtio/mmio.c) owns the register file, the status and feature
 * state machine, and queue setup, and calls these ops. Backends (host I/O) sit behind the
 * device and never see a virtqueue.
 *
 * Threads: config_read/config_write run on a vCPU thread; queue_notify runs on the event-loop
 * thread (the transport wires each queue's ioeventfd there); activate/reset run on a vCPU
 * thread with the device quiesced by the transport. A device that shares state between these
 * threads protects it with its own mutex.
 */

#include <stdbool.h>
#include <stdint.h>

#include "virtio/virtq.h"

struct vdev;
struct evloop;

/* Virtio device IDs (virtio 1.x, section 5). */
enum {
	VIRTIO_ID_NET = 1,
	VIRTIO_ID_BLOCK = 2,
	VIRTIO_ID_CONSOLE = 3,
	VIRTIO_ID_RNG = 4,
	VIRTIO_ID_BALLOON = 5,
	VIRTIO_ID_9P = 9,
	VIRTIO_ID_VSOCK = 19,
};

struct vdev_ops {
	uint32_t device_id;
	/*
	 * Largest queue size the device offers (QueueNumMax), a power of two up to
	 * VIRTQ_MAX_SIZE; 0 means VIRTQ_MAX_SIZE. Linux drivers take the offered size as it is,
	 * and some fill every entry with a buffer from guest RAM at probe time (console and
	 * vsock: one page per entry), so this is a memory cost per VM (docs/devices.md).
	 */
	uint16_t queue_max;
	/*
	 * Optional: the size offered for queue q where it differs from queue_max, e.g. a receive
	 * queue the driver fills with buffers next to a transmit queue it does not (same rules;
	 * 0 means queue_max).
	 */
	uint16_t (*queue_max_of)(const struct vdev *dev, unsigned q);
	/* Device-specific feature bits (the transport adds VERSION_1, EVENT_IDX, INDIRECT_DESC). */
	uint64_t (*get_features)(struct vdev *dev);
	/* Device config space, bounds-checked against config_size by the transport. */
	void (*config_read)(struct vdev *dev, uint32_t off, void *data, uint32_t len);
	void (*config_write)(struct vdev *dev, uint32_t off, const void *data, uint32_t len);
	/* DRIVER_OK: queues are set up and validated. Non-zero makes the transport fail the device.
	 */
	int (*activate)(struct vdev *dev, uint64_t acked_features);
	/* The driver kicked queue q. */
	void (*queue_notify)(struct vdev *dev, unsigned q);
	/* Device reset by the driver: drop in-flight state, stop using the queues. */
	void (*reset)(struct vdev *dev);
	/* Release the device model and its backend. */
	void (*free)(struct vdev *dev);
};

/* Hooks the transport gives the device, to interrupt the driver. */
struct vdev_transport {
	void (*notify_used)(void *opaque, unsigned q); /* used-buffer interrupt (if needed) */
	void (*notify_config)(void *opaque);	       /* config-change interrupt */
	void (*needs_reset)(void *opaque); /* set DEVICE_NEEDS_RESET and interrupt (may be NULL) */
	void *opaque;
};

struct vdev {
	const struct vdev_ops *ops;
	unsigned n_queues;
	struct virtq *queues; /* n_queues entries, owned by the device */
	uint32_t config_size;
	struct vdev_transport transport; /* filled in by the transport on attach */
	struct evloop *loop;		 /* the VMM's event loop, for backends */
};

/*
 * Push done, then interrupt the driver if the queue wants it (virtq_should_notify). If the
 * queue is broken (see struct virtq), the device is failed with vdev_fail() instead.
 */
void vdev_queue_done(struct vdev *dev, unsigned q);
/* The size the device offers for queue q: ops->queue_max_of or ops->queue_max, or
 * VIRTQ_MAX_SIZE when unset. */
uint16_t vdev_queue_max(const struct vdev *dev, unsigned q);
/* The driver broke the device: ask the transport to set DEVICE_NEEDS_RESET and tell it. */
void vdev_fail(struct vdev *dev);
