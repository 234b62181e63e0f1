/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The virtio-net packet header (virtio 1.x 5.1.6) and the checks applied to the one the guest
 * sends with each frame. The tap trusts this header to build a socket buffer (checksum
 * offsets, GSO), so we check it against the features the guest negotiated before the tap
 * sees it, on our own copy (the guest cannot change it after the check).
 */

#include <stddef.h>
#include <stdint.h>

/* Feature bits (virtio 1.x 5.1.3). */
#define VIRTIO_NET_F_CSUM	0
#define VIRTIO_NET_F_GUEST_CSUM 1
#define VIRTIO_NET_F_MAC	5
#define VIRTIO_NET_F_GUEST_TSO4 7
#define VIRTIO_NET_F_GUEST_TSO6 8
#define VIRTIO_NET_F_GUEST_ECN	9
#define VIRTIO_NET_F_GUEST_UFO	10
#define VIRTIO_NET_F_HOST_TSO4	11
#define VIRTIO_NET_F_HOST_TSO6	12
#define VIRTIO_NET_F_HOST_ECN	13
#define VIRTIO_NET_F_HOST_UFO	14
#define VIRTIO_NET_F_MRG_RXBUF	15
#define VIRTIO_NET_F_STATUS	16

#define VIRTIO_NET_HDR_F_NEEDS_CSUM 1
#define VIRTIO_NET_HDR_F_DATA_VALID 2
#define VIRTIO_NET_HDR_F_RSC_INFO   4

#define VIRTIO_NET_HDR_GSO_NONE	 0
#define VIRTIO_NET_HDR_GSO_TCPV4 1
#define VIRTIO_NET_HDR_GSO_UDP	 3
#define VIRTIO_NET_HDR_GSO_TCPV6 4
#define VIRTIO_NET_HDR_GSO_ECN	 0x80

#define VIRTIO_NET_S_LINK_UP 1

#define VNET_HDR_LEN 12u
/* Largest frame (without the header): a 64 KiB GSO packet plus the Ethernet header. */
#define VNET_MAX_FRAME 65550u
#define VNET_MIN_FRAME 14u /* an Ethernet header */

struct virtio_net_hdr_v1 {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers;
};

_Static_assert(sizeof(struct virtio_net_hdr_v1) == VNET_HDR_LEN, "virtio_net_hdr_v1 layout");

/*
 * Check a guest tx header for a frame of frame_len bytes, given the acked features.
 * Returns 0, -EMSGSIZE (frame too short or too long), -EINVAL (flags or offsets) or
 * -EOPNOTSUPP (a checksum or GSO offload the guest did not negotiate).
 */
int vnet_hdr_check_tx(const struct virtio_net_hdr_v1 *hdr, size_t frame_len, uint64_t features);
