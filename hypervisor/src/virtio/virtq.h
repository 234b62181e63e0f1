/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Split virtqueues (virtio 1.x, section 2.7), device side.
 *
 * The guest owns the rings and can change them at any time, so everything read from them is
 * validated: indexes against the queue size, descriptor addresses and lengths through gmem
 * (never raw pointer arithmetic), chain length against VIRTQ_CHAIN_MAX and the queue size
 * (loops), indirect tables (size, alignment, no nesting), and the rule that device-readable
 * descriptors come before device-writable ones.
 *
 * A popped chain is a list of host iovecs: out[] (device reads, driver→device) followed by
 * in[] (device writes, device→driver), so backends can use readv()/writev() directly.
 *
 * Threading: one thread at a time works a given queue (the device's event-loop or I/O thread).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "base/gmem.h"

#define VIRTQ_MAX_SIZE	1024 /* largest queue size we offer (QueueNumMax) */
#define VIRTQ_CHAIN_MAX 512  /* most descriptors in one chain, indirect ones included */

/* Descriptor flags (virtio 1.x 2.7.5). */
#define VIRTQ_DESC_F_NEXT     1
#define VIRTQ_DESC_F_WRITE    2
#define VIRTQ_DESC_F_INDIRECT 4

/* Ring flags. */
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1
#define VIRTQ_USED_F_NO_NOTIFY	   1

/* Feature bits shared by all devices. */
#define VIRTIO_F_INDIRECT_DESC	 28
#define VIRTIO_F_EVENT_IDX	 29
#define VIRTIO_F_VERSION_1	 32
#define VIRTIO_F_ACCESS_PLATFORM 33

struct virtq {
	/* Set by the transport from the driver's register writes. */
	uint16_t num; /* queue size, a power of two, 1..VIRTQ_MAX_SIZE */
	bool ready;
	uint64_t desc_gpa;
	uint64_t avail_gpa;
	uint64_t used_gpa;
	bool event_idx; /* VIRTIO_F_EVENT_IDX negotiated */
	bool indirect;	/* VIRTIO_F_INDIRECT_DESC negotiated */

	/* Device-side state. */
	const struct gmem *gm;
	uint16_t last_avail; /* next avail ring slot to consume */
	uint16_t used_idx;   /* next used ring slot to fill */
	uint16_t signalled_used;
	bool signalled_used_valid;
	/*
	 * The driver broke the queue as a whole (avail->idx ran more than num ahead, or the rings
	 * left guest memory): virtq_pop() returned the error once and now reports an empty ring
	 * until virtq_reset(). vdev_queue_done() then asks the transport for NEEDS_RESET.
	 */
	bool broken;
};

/* chain->head after an error that consumed no chain (nothing to push back). */
#define VIRTQ_NO_HEAD UINT16_MAX

struct virtq_chain {
	uint16_t head;	/* descriptor index to hand back in virtq_push() */
	unsigned n_out; /* iov[0..n_out) are device-readable */
	unsigned n_in;	/* iov[n_out..n_out+n_in) are device-writable */
	uint64_t out_len;
	uint64_t in_len;
	struct iovec iov[VIRTQ_CHAIN_MAX];
};

/* Reset device-side state (on device reset or queue re-enable). */
void virtq_reset(struct virtq *vq);

/*
 * Check that the rings lie in guest memory (desc 16*num, avail 6+2*num, used 6+8*num, with
 * their alignment) and that num is valid. Called by the transport when the driver sets
 * QueueReady. Returns 0 or -EINVAL/-EFAULT.
 */
int virtq_validate(const struct virtq *vq);

/*
 * Take the next available chain. Returns 1 and fills *chain, 0 when the ring is empty, or a
 * negative errno when the chain is malformed: -EINVAL (bad index, loop, order, indirect rule,
 * too long) or -EFAULT (address outside guest memory, or a writable buffer in read-only
 * memory). A malformed chain is consumed; the device should then put it back with length 0
 * (virtq_push) or fail the device (NEEDS_RESET), as it sees fit. chain->head is always set on
 * error: VIRTQ_NO_HEAD when no chain was consumed (the queue is then broken, see above), else
 * the head as the driver wrote it; virtq_push() refuses VIRTQ_NO_HEAD and any head >= num
 * harmlessly with -EINVAL, so pushing chain->head back is always safe. A buffer that spans two
 * adjacent guest memory regions becomes several iovecs.
 */
int virtq_pop(struct virtq *vq, struct virtq_chain *chain);

/*
 * Return a chain to the driver with the number of bytes written into its in[] buffers.
 * -EINVAL for head >= num or a queue that is not set up, -EFAULT if the used ring left
 * writable guest memory.
 */
int virtq_push(struct virtq *vq, uint16_t head, uint32_t written);

/*
 * Return n chains at once: the used elements are written first and used->idx is published
 * once, so the driver sees all of them or none (a mergeable rx packet spread over several
 * buffers must not show up piece by piece). Same errors as virtq_push(); nothing is pushed
 * when any head is invalid.
 */
int virtq_push_batch(struct virtq *vq, const uint16_t *heads, const uint32_t *written, unsigned n);

/*
 * After one or more virtq_push(): should the device interrupt the driver? Honours
 * VIRTQ_AVAIL_F_NO_INTERRUPT, or used_event with EVENT_IDX.
 */
bool virtq_should_notify(struct virtq *vq);

/*
 * Ask the driver to kick when it adds buffers: with EVENT_IDX, avail_event = last_avail;
 * without, clear VIRTQ_USED_F_NO_NOTIFY. Includes a full barrier: check virtq_has_avail()
 * after it to close the race with a driver that added buffers just before. virtq_pop() also
 * refreshes avail_event on every call, so a device that never suppresses kicks needs neither.
 */
void virtq_enable_notify(struct virtq *vq);
/* Ask the driver not to kick (polling mode): sets VIRTQ_USED_F_NO_NOTIFY (a hint only). */
void virtq_disable_notify(struct virtq *vq);

/* Whether the driver has made more chains available than the device consumed. */
bool virtq_has_avail(const struct virtq *vq);

/* iovec helpers for device models; each copies at most len bytes and returns what it copied. */
size_t iov_to_buf(const struct iovec *iov, unsigned n, size_t off, void *buf, size_t len);
size_t iov_from_buf(const struct iovec *iov, unsigned n, size_t off, const void *buf, size_t len);
size_t iov_size(const struct iovec *iov, unsigned n);
