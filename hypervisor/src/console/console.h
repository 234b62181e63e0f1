/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-console (device id 3), port 0 only: receiveq0 (queue 0, host → guest) and
 * transmitq0 (queue 1, guest → host). No MULTIPORT and no F_SIZE (the output is a stream or a
 * file, with no terminal size to report; Linux's hvc then keeps its default), no EMERG_WRITE.
 *
 * Guest output is written to the backend in order and never dropped while the backend accepts
 * it: when the output would block, the device stops consuming transmitq0 and resumes when the
 * backend is writable again. Output the backend refuses with a hard error (EPIPE, EIO) is
 * dropped and counted in tx_dropped. Input is read when the backend is readable and the guest
 * has posted receive buffers.
 */

#include <stdint.h>

#include "console/console-fd.h"
#include "virtio/vdev.h"

enum {
	VCON_RX = 0,
	VCON_TX = 1,
	_VCON_QUEUES,
};

struct vcon_stats {
	uint64_t tx_bytes, tx_dropped, rx_bytes, bad_chains;
	uint64_t tx_yields; /* times transmit stopped to let the event loop serve others */
};

/* A console over host fds (see vcon_backend_fd_new(); the fds stay the caller's). */
int vcon_new(int in_fd, int out_fd, struct vdev **ret);
/* A console over any backend; takes ownership of be (also on failure). */
int vcon_new_backend(struct vcon_backend *be, struct vdev **ret);
/* Counters since creation; safe from any thread. */
void vcon_get_stats(struct vdev *dev, struct vcon_stats *ret);
