/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A network backend: where the guest's Ethernet frames go on the host. It never sees a
 * virtqueue. Every packet, in both directions, is a 12-byte virtio_net_hdr_v1 (the tap's vnet
 * header, TUNSETVNETHDRSZ = 12) followed by the frame, so the tap needs no translation.
 *
 * Threading: all ops run on the event-loop thread, except set_offloads (activate, vCPU thread,
 * device quiesced) and close.
 */

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Receive offloads the backend can hand to the guest (same values as TUN_F_*). */
enum {
	NETBE_OFFLOAD_CSUM = 1u << 0, /* partial checksums (NEEDS_CSUM) */
	NETBE_OFFLOAD_TSO4 = 1u << 1,
	NETBE_OFFLOAD_TSO6 = 1u << 2,
};

struct net_backend;

struct net_backend_ops {
	/* Send one packet (header + frame). 0, -EAGAIN when the host is full, or -errno. */
	int (*tx)(struct net_backend *be, const struct iovec *iov, unsigned n);
	/*
	 * Receive one packet into iov. Returns its full length, which may exceed the iov (the
	 * excess is lost: the caller drops the packet), -EAGAIN when there is none, or another
	 * -errno when the backend is gone for good (the device then stops receiving).
	 */
	ssize_t (*rx)(struct net_backend *be, const struct iovec *iov, unsigned n);
	/* The fd that polls EPOLLIN when rx has a packet, or -1. */
	int (*fd)(struct net_backend *be);
	/* Enable these receive offloads (a subset of offloads) for the packets rx returns. */
	int (*set_offloads)(struct net_backend *be, unsigned offloads);
	/* Release the backend (and struct net_backend itself). */
	void (*close)(struct net_backend *be);
};

struct net_backend {
	const struct net_backend_ops *ops;
	unsigned offloads; /* NETBE_OFFLOAD_* the backend supports */
};

static inline void net_backend_close(struct net_backend *be)
{
	if (be)
		be->ops->close(be);
}

static inline void net_backend_closep(struct net_backend **be)
{
	net_backend_close(*be);
}
