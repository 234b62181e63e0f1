/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-vsock device model (device id 19): queue 0 rx (device -> driver packets), queue 1 tx
 * (driver -> device packets), queue 2 event (unused: we never send TRANSPORT_RESET); config
 * space is the le64 guest_cid. Features: none beyond what the transport adds (no feature bit
 * means stream sockets only, virtio 1.2 5.10.3).
 *
 * The host side is the unix-socket muxer (vsock/muxer.h). Threads: queue kicks, host socket
 * events and resumption after a run used its budget run on the event-loop thread;
 * activate/reset on a vCPU thread. One mutex serialises them all.
 */

#include <stdint.h>

struct evloop;
struct vdev;

enum {
	VVSOCK_QUEUE_RX = 0,
	VVSOCK_QUEUE_TX = 1,
	VVSOCK_QUEUE_EVENT = 2,
	_VVSOCK_QUEUE_MAX,
};

struct vvsock_stats {
	uint64_t tx_packets; /* valid packets from the guest */
	uint64_t tx_dropped; /* malformed or misaddressed packets from the guest */
	uint64_t tx_refused; /* packets answered with an RST (bad type or op) */
	uint64_t rx_packets; /* packets delivered to the guest */
	uint64_t bad_chains; /* malformed descriptor chains, or rx buffers too small */
};

/*
 * A vsock device for guest_cid (3 .. 0xfffffffe) whose host side listens on uds_path (which
 * must not exist) and reaches "<uds_path>_<port>" for guest connections. Its sockets are
 * watched on loop.
 */
int vvsock_new(uint64_t guest_cid, const char *uds_path, struct evloop *loop, struct vdev **ret);

/* The fd the device watches on the event loop (readable when host sockets have events). */
int vvsock_host_fd(struct vdev *dev);
/* Handle ready host-socket events now (what the event-loop callback does). */
void vvsock_poll(struct vdev *dev);

void vvsock_get_stats(struct vdev *dev, struct vvsock_stats *ret);
