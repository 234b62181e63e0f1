/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Console backends: a byte stream in (host → guest) and out (guest → host). The console
 * device model (dev/console.c) drives one; a backend never sees a virtqueue, only iovecs.
 *
 * Threads: every op runs on the event-loop thread (from the device's queue_notify or from
 * ready()), except free, which runs with the loop stopped.
 */

#include <stdbool.h>
#include <sys/types.h>
#include <sys/uio.h>

struct evloop;
struct vcon_backend;

/* The backend's input became readable (or hit EOF/error) or its output writable. */
typedef void (*vcon_backend_ready_fn)(void *opaque, bool readable, bool writable);

struct vcon_backend_ops {
	/* Bytes read, 0 at end of input (or no input), -EAGAIN, or another -errno. */
	ssize_t (*read)(struct vcon_backend *be, const struct iovec *iov, unsigned n);
	/* Bytes written (possibly short), -EAGAIN when it would block, or another -errno. */
	ssize_t (*write)(struct vcon_backend *be, const struct iovec *iov, unsigned n);
	/*
	 * Call ready() while input is readable / output writable (each flag on or off).
	 * Returns 0, 1 if the stream asked for cannot be polled and is always ready (a regular
	 * file: read or write right away), or -errno.
	 */
	int (*watch)(struct vcon_backend *be, struct evloop *loop, bool input, bool output);
	struct vcon_backend *(*free)(struct vcon_backend *be);
};

struct vcon_backend {
	const struct vcon_backend_ops *ops;
	vcon_backend_ready_fn ready; /* set by the device */
	void *opaque;
};

/*
 * A backend over two host fds (they may be the same fd); in_fd < 0 means no input. The fds
 * stay owned by the caller and are used as they are: a blocking out_fd blocks the event loop
 * while the host side is slow, a non-blocking one makes the device wait for EPOLLOUT.
 * Blocking input is fine: the backend reads only once per readiness event. The VMM should
 * ignore SIGPIPE so that a closed output pipe is an error (EPIPE), not a signal.
 */
int vcon_backend_fd_new(int in_fd, int out_fd, struct vcon_backend **ret);
