/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-rng device model (device ID 4): one request queue; each chain's device-writable
 * buffers are filled from getrandom(GRND_NONBLOCK), at most VRNG_MAX_REQ bytes per chain.
 * No feature bits, no config space. Runs on the event-loop thread (queue_notify).
 */

#include <stddef.h>
#include <sys/types.h>

#include "virtio/vdev.h"

#define VRNG_MAX_REQ (64u * 1024)

/* The entropy source: getrandom() by default, replaceable for tests. */
typedef ssize_t (*vrng_source_fn)(void *buf, size_t len, unsigned flags);

int vrng_new(struct vdev **ret);
/* A device on another source (tests). */
int vrng_new_with_source(vrng_source_fn source, struct vdev **ret);
/* Bytes handed to the guest so far. */
uint64_t vrng_get_bytes(struct vdev *dev);
