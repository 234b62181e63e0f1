/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-net device model (device ID 1): queue 0 is receive, queue 1 is transmit; no control
 * queue, one queue pair. Features: MAC, STATUS (link always up), MRG_RXBUF, CSUM, GUEST_CSUM,
 * GUEST_TSO4/6, HOST_TSO4/6 (the GUEST_* ones only when the backend can do them). No UFO or
 * ECN: see docs/devices.md. The header is always the 12-byte virtio 1.x one (modern only).
 *
 * Threads (see virtio/README.md): queue_notify and the backend's EPOLLIN callback run on the
 * event-loop thread, activate/reset on a vCPU thread; one device mutex, taken inside the
 * transport's, guards the rx/tx state. The backend fd is registered with dev->loop at the first
 * queue kick after activation and unregistered by the first callback after a reset, both on the
 * event-loop thread. config_read only reads the immutable config.
 */

#include <stdbool.h>
#include <stdint.h>

#include "net/net-backend.h"
#include "virtio/vdev.h"

#define VNET_CONFIG_SIZE 10 /* mac[6], status, max_virtqueue_pairs */
#define VNET_RXQ	 0
#define VNET_TXQ	 1

#define VNET_TAP_NAME_MAX 16 /* IFNAMSIZ */

struct vnet_config {
	int tap_fd; /* an open tap fd (ownership passes to the device), or -1 */
	char tap_name[VNET_TAP_NAME_MAX]; /* else: the tap to attach to */
	uint8_t mac[6];
	bool has_mac; /* false: a random locally administered unicast MAC */
};

struct vnet_stats {
	uint64_t tx_packets, tx_bytes, tx_dropped, tx_errors;
	uint64_t rx_packets, rx_bytes, rx_dropped, rx_errors;
	uint64_t malformed; /* chains the guest got wrong */
};

/*
 * Parse the CLI form "tap=NAME|fd=N[,mac=XX:XX:XX:XX:XX:XX]" (--net). Exactly one of tap= and
 * fd= is required; the MAC must be unicast. -EINVAL for anything else. The fd is not checked.
 */
int vnet_config_parse(const char *spec, struct vnet_config *ret);

/* The tap is watched on dev->loop (set by the transport); without one, see vnet_rx_poll(). */
int vnet_new(const struct vnet_config *cfg, struct vdev **ret);
/* A device on an existing backend, which it takes over (closed even on error); cfg's tap_fd
 * and tap_name are ignored. */
int vnet_new_with_backend(const struct vnet_config *cfg, struct net_backend *be, struct vdev **ret);

/*
 * Move packets from the backend to the guest, as the backend fd's EPOLLIN callback does when
 * dev->loop is set. For tests, and for callers that poll the backend themselves.
 */
void vnet_rx_poll(struct vdev *dev);
/* Whether rx stopped reading the backend because the guest has no receive buffers. */
bool vnet_rx_paused(struct vdev *dev);
/* Whether the backend fd is registered with the event loop (for tests and metrics). */
bool vnet_rx_watching(struct vdev *dev);
void vnet_get_mac(struct vdev *dev, uint8_t ret[6]);
void vnet_get_stats(struct vdev *dev, struct vnet_stats *ret);
