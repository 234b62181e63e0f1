/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>

#include "net/vnet-hdr.h"

static bool has(uint64_t features, unsigned bit)
{
	return features & (1ull << bit);
}

static int vnet_hdr_check_gso(const struct virtio_net_hdr_v1 *hdr, size_t frame_len,
			      uint64_t features)
{
	uint8_t type = hdr->gso_type & (uint8_t) ~VIRTIO_NET_HDR_GSO_ECN;

	if (type == VIRTIO_NET_HDR_GSO_NONE)
		return hdr->gso_type == VIRTIO_NET_HDR_GSO_NONE ? 0 : -EINVAL;
	if ((hdr->gso_type & VIRTIO_NET_HDR_GSO_ECN) && !has(features, VIRTIO_NET_F_HOST_ECN))
		return -EOPNOTSUPP;
	switch (type) {
	case VIRTIO_NET_HDR_GSO_TCPV4:
		if (!has(features, VIRTIO_NET_F_HOST_TSO4))
			return -EOPNOTSUPP;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		if (!has(features, VIRTIO_NET_F_HOST_TSO6))
			return -EOPNOTSUPP;
		break;
	case VIRTIO_NET_HDR_GSO_UDP: /* HOST_UFO is never offered */
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	if (hdr->gso_size == 0 || hdr->hdr_len > frame_len)
		return -EINVAL;
	return 0;
}

int vnet_hdr_check_tx(const struct virtio_net_hdr_v1 *hdr, size_t frame_len, uint64_t features)
{
	if (frame_len < VNET_MIN_FRAME || frame_len > VNET_MAX_FRAME)
		return -EMSGSIZE;
	/* DATA_VALID and RSC_INFO are device-to-driver only. */
	if (hdr->flags & (uint8_t) ~VIRTIO_NET_HDR_F_NEEDS_CSUM)
		return -EINVAL;
	if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if (!has(features, VIRTIO_NET_F_CSUM))
			return -EOPNOTSUPP;
		/* The 16-bit checksum field must lie inside the frame. */
		if ((size_t) hdr->csum_start + hdr->csum_offset + 2 > frame_len)
			return -EINVAL;
	}
	return vnet_hdr_check_gso(hdr, frame_len, features);
}
