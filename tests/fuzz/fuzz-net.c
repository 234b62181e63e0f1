/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz the virtio-net device model: transmit chains and their headers, and the receive path
 * (single and mergeable buffers, running out of buffers mid-packet, oversize packets), as a
 * hostile guest sees it: the input is the guest's memory, rings and buffers included.
 *
 * Input: [0] features: bit 0 MRG_RXBUF, 1 CSUM, 2 GUEST_CSUM, 3 HOST_TSO4, 4 HOST_TSO6,
 *            5 GUEST_TSO4, 6 GUEST_TSO6, 7 EVENT_IDX;
 *        [1] bit 0 INDIRECT_DESC, bits 1-2 number of host packets (0-3);
 *        [2..7] three little-endian u16 host packet lengths (0xffff: one byte too long);
 *        [8..] guest memory image (FUZZ_MEM_SIZE bytes, zero-padded): rx rings at
 *            0x000/0x100/0x200, tx rings at 0x400/0x500/0x600 (16 entries each).
 * A fake backend aborts if the device ever hands it a packet whose header the negotiated
 * features do not allow, or whose size is outside [header + 14, header + 65550].
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/gmem.h"
#include "net/vnet-hdr.h"
#include "net/vnet.h"

#define FUZZ_MEM_SIZE 0x2000u
#define FUZZ_QSIZE    16
#define CTL_SIZE      8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fake_be {
	struct net_backend be;
	const struct vdev *dev;
	uint64_t features;
	unsigned n_pkts, next;
	uint32_t lens[3];
	const uint8_t *fill;
};

static void fuzz_check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz-net: invariant broken: %s\n", what);
		abort();
	}
}

static int fake_tx(struct net_backend *be, const struct iovec *iov, unsigned n)
{
	struct fake_be *f = (struct fake_be *) be;
	struct virtio_net_hdr_v1 hdr;
	size_t total = 0;

	for (unsigned i = 0; i < n; i++)
		total += iov[i].iov_len;
	fuzz_check(n >= 1 && iov[0].iov_len == VNET_HDR_LEN, "header not in its own iovec");
	memcpy(&hdr, iov[0].iov_base, sizeof(hdr));
	fuzz_check(total >= VNET_HDR_LEN + VNET_MIN_FRAME, "runt frame sent");
	fuzz_check(total <= VNET_HDR_LEN + VNET_MAX_FRAME, "oversize frame sent");
	fuzz_check(hdr.num_buffers == 0, "num_buffers not cleared");
	fuzz_check(vnet_hdr_check_tx(&hdr, total - VNET_HDR_LEN, f->features) == 0,
		   "header with unnegotiated offloads sent");
	return 0;
}

static ssize_t fake_rx(struct net_backend *be, const struct iovec *iov, unsigned n)
{
	struct fake_be *f = (struct fake_be *) be;
	uint32_t len;
	size_t done = 0;

	if (f->next >= f->n_pkts)
		return -EAGAIN;
	len = f->lens[f->next++];
	for (unsigned i = 0; i < n && done < len; i++) {
		size_t chunk = iov[i].iov_len < len - done ? iov[i].iov_len : len - done;

		for (size_t k = 0; k < chunk; k++)
			((uint8_t *) iov[i].iov_base)[k] = f->fill[(done + k) % FUZZ_MEM_SIZE];
		done += chunk;
	}
	return len;
}

static int fake_fd(struct net_backend *be)
{
	(void) be;
	return -1;
}

static int fake_set_offloads(struct net_backend *be, unsigned offloads)
{
	fuzz_check(!(offloads & ~be->offloads), "offload the backend cannot do");
	return 0;
}

static void fake_close(struct net_backend *be)
{
	free(be);
}

static const struct net_backend_ops fake_ops = {
	.tx = fake_tx,
	.rx = fake_rx,
	.fd = fake_fd,
	.set_offloads = fake_set_offloads,
	.close = fake_close,
};

static uint64_t pick_features(uint8_t b)
{
	static const unsigned bits[] = {
		VIRTIO_NET_F_MRG_RXBUF,	 VIRTIO_NET_F_CSUM,	 VIRTIO_NET_F_GUEST_CSUM,
		VIRTIO_NET_F_HOST_TSO4,	 VIRTIO_NET_F_HOST_TSO6, VIRTIO_NET_F_GUEST_TSO4,
		VIRTIO_NET_F_GUEST_TSO6,
	};
	uint64_t f = 1ull << VIRTIO_F_VERSION_1;

	for (unsigned i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (b & (1u << i))
			f |= 1ull << bits[i];
	return f;
}

static void setup_queue(struct virtq *vq, const struct gmem *gm, uint64_t base, uint8_t ctl0,
			uint8_t ctl1)
{
	vq->gm = gm;
	vq->num = FUZZ_QSIZE;
	vq->desc_gpa = base;
	vq->avail_gpa = base + 0x100;
	vq->used_gpa = base + 0x200;
	vq->event_idx = ctl0 & 0x80;
	vq->indirect = ctl1 & 1;
	vq->ready = true;
	virtq_reset(vq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct vnet_config cfg = {.tap_fd = -1, .has_mac = true, .mac = {2}};
	static uint8_t *mem;
	struct fake_be *f;
	struct gmem gm;
	struct vdev *dev;
	uint64_t features;

	if (size < CTL_SIZE)
		return 0;
	if (!mem)
		mem = malloc(FUZZ_MEM_SIZE);
	fuzz_check(mem != NULL, "malloc");
	memset(mem, 0, FUZZ_MEM_SIZE);
	memcpy(mem, data + CTL_SIZE,
	       size - CTL_SIZE < FUZZ_MEM_SIZE ? size - CTL_SIZE : FUZZ_MEM_SIZE);
	gmem_init(&gm);
	fuzz_check(gmem_add_region(&gm, 0, FUZZ_MEM_SIZE, mem, 0) == 0, "gmem");

	f = calloc(1, sizeof(*f));
	fuzz_check(f != NULL, "calloc");
	f->be = (struct net_backend){
		.ops = &fake_ops,
		.offloads = NETBE_OFFLOAD_CSUM | NETBE_OFFLOAD_TSO4 | NETBE_OFFLOAD_TSO6,
	};
	f->n_pkts = (data[1] >> 1) & 3;
	for (unsigned i = 0; i < 3; i++) {
		uint16_t v = (uint16_t) (data[2 + 2 * i] | data[3 + 2 * i] << 8);

		f->lens[i] = v == 0xffff ? VNET_HDR_LEN + VNET_MAX_FRAME + 1 : v;
	}
	f->fill = mem;
	fuzz_check(vnet_new_with_backend(&cfg, &f->be, &dev) == 0, "vnet_new");
	features = pick_features(data[0]) &
		   (dev->ops->get_features(dev) | (1ull << VIRTIO_F_VERSION_1));
	f->features = features;
	setup_queue(&dev->queues[VNET_RXQ], &gm, 0x000, data[0], data[1]);
	setup_queue(&dev->queues[VNET_TXQ], &gm, 0x400, data[0], data[1]);
	if (dev->ops->activate(dev, features) == 0) {
		dev->ops->queue_notify(dev, VNET_TXQ);
		vnet_rx_poll(dev);
		dev->ops->queue_notify(dev, VNET_RXQ);
		dev->ops->queue_notify(dev, VNET_TXQ);
		dev->ops->reset(dev);
	}
	if (getenv("FUZZ_VERBOSE")) {
		struct vnet_stats st;

		vnet_get_stats(dev, &st);
		fprintf(stderr, "tx %llu drop %llu rx %llu drop %llu bad %llu\n",
			(unsigned long long) st.tx_packets, (unsigned long long) st.tx_dropped,
			(unsigned long long) st.rx_packets, (unsigned long long) st.rx_dropped,
			(unsigned long long) st.malformed);
	}
	dev->ops->free(dev);
	return 0;
}
