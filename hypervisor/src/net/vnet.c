/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cc/macro.h"
#include "net/netbe-tap.h"
#include "net/vnet-internal.h"

static uint64_t vnet_get_features(struct vdev *dev)
{
	struct vnet *n = to_vnet(dev);
	unsigned off = n->be->offloads;
	uint64_t f = (1ull << VIRTIO_NET_F_MAC) | (1ull << VIRTIO_NET_F_STATUS) |
		     (1ull << VIRTIO_NET_F_MRG_RXBUF) | (1ull << VIRTIO_NET_F_CSUM) |
		     (1ull << VIRTIO_NET_F_HOST_TSO4) | (1ull << VIRTIO_NET_F_HOST_TSO6);

	if (off & NETBE_OFFLOAD_CSUM) {
		f |= 1ull << VIRTIO_NET_F_GUEST_CSUM;
		if (off & NETBE_OFFLOAD_TSO4)
			f |= 1ull << VIRTIO_NET_F_GUEST_TSO4;
		if (off & NETBE_OFFLOAD_TSO6)
			f |= 1ull << VIRTIO_NET_F_GUEST_TSO6;
	}
	return f;
}

static void vnet_config_read(struct vdev *dev, uint32_t off, void *data, uint32_t len)
{
	struct vnet *n = to_vnet(dev);

	if (off > sizeof(n->config) || len > sizeof(n->config) - off) {
		memset(data, 0, len);
		return;
	}
	memcpy(data, n->config + off, len);
}

static void vnet_config_write(struct vdev *dev, uint32_t off, const void *data, uint32_t len)
{
	/* The MAC is read-only in virtio 1.x (without CTRL_MAC_ADDR); nothing else is writable. */
	(void) dev;
	(void) off;
	(void) data;
	(void) len;
}

/* The receive offloads the acked features allow the backend to produce. */
static unsigned vnet_rx_offloads(uint64_t features)
{
	unsigned off = 0;

	if (!(features & (1ull << VIRTIO_NET_F_GUEST_CSUM)))
		return 0;
	off |= NETBE_OFFLOAD_CSUM;
	if (features & (1ull << VIRTIO_NET_F_GUEST_TSO4))
		off |= NETBE_OFFLOAD_TSO4;
	if (features & (1ull << VIRTIO_NET_F_GUEST_TSO6))
		off |= NETBE_OFFLOAD_TSO6;
	return off;
}

static int vnet_activate(struct vdev *dev, uint64_t acked)
{
	struct vnet *n = to_vnet(dev);
	const uint64_t tso_guest = (1ull << VIRTIO_NET_F_GUEST_TSO4) |
				   (1ull << VIRTIO_NET_F_GUEST_TSO6),
		       tso_host =
			       (1ull << VIRTIO_NET_F_HOST_TSO4) | (1ull << VIRTIO_NET_F_HOST_TSO6);
	int r;

	if (!n->queues[VNET_RXQ].ready || !n->queues[VNET_TXQ].ready)
		return -EINVAL; /* a NIC needs both its queues */
	/* Dependencies of virtio 1.x 5.1.3.1: TSO needs the matching checksum offload. */
	if ((acked & tso_guest) && !(acked & (1ull << VIRTIO_NET_F_GUEST_CSUM)))
		return -EINVAL;
	if ((acked & tso_host) && !(acked & (1ull << VIRTIO_NET_F_CSUM)))
		return -EINVAL;
	pthread_mutex_lock(&n->lock);
	r = n->be->ops->set_offloads(n->be, vnet_rx_offloads(acked));
	if (r >= 0) {
		n->features = acked;
		n->rx_mrg = acked & (1ull << VIRTIO_NET_F_MRG_RXBUF);
		vnet_rx_reset(n);
		/* The tap is watched from the first kick on, on the event-loop thread. */
		n->active = true;
	}
	pthread_mutex_unlock(&n->lock);
	return r < 0 ? r : 0;
}

/* Point tx_iov at our checked header copy, then the frame (the chain past its header). */
static unsigned vnet_tx_build_iov(struct vnet *n, struct virtio_net_hdr_v1 *hdr)
{
	const struct virtq_chain *c = &n->tx_chain;
	size_t skip = VNET_HDR_LEN;
	unsigned k = 0;

	n->tx_iov[k++] = (struct iovec){.iov_base = hdr, .iov_len = sizeof(*hdr)};
	for (unsigned i = 0; i < c->n_out; i++) {
		if (skip >= c->iov[i].iov_len) {
			skip -= c->iov[i].iov_len;
			continue;
		}
		n->tx_iov[k++] = (struct iovec){
			.iov_base = (uint8_t *) c->iov[i].iov_base + skip,
			.iov_len = c->iov[i].iov_len - skip,
		};
		skip = 0;
	}
	return k;
}

/* Send one transmit chain; the chain is returned by the caller either way. */
static void vnet_tx_one(struct vnet *n)
{
	const struct virtq_chain *c = &n->tx_chain;
	struct virtio_net_hdr_v1 hdr;
	size_t frame_len;
	int r;

	/* Transmit buffers are device-readable only: header, then the frame. */
	if (c->n_in > 0 || c->out_len < VNET_HDR_LEN) {
		n->stats.malformed++;
		return;
	}
	frame_len = c->out_len - VNET_HDR_LEN;
	(void) iov_to_buf(c->iov, c->n_out, 0, &hdr, sizeof(hdr));
	hdr.num_buffers = 0;
	if (vnet_hdr_check_tx(&hdr, frame_len, n->features) < 0) {
		n->stats.malformed++;
		n->stats.tx_dropped++;
		return;
	}
	r = n->be->ops->tx(n->be, n->tx_iov, vnet_tx_build_iov(n, &hdr));
	if (r == -EAGAIN) {
		n->stats.tx_dropped++; /* the host is full: drop, as a NIC would */
		return;
	}
	if (r < 0) {
		n->stats.tx_errors++;
		return;
	}
	n->stats.tx_packets++;
	n->stats.tx_bytes += frame_len;
}

/*
 * Send every available chain. Used chains are signalled every VNET_TX_SIGNAL_BATCH chains, not
 * only once the ring is empty: Linux (napi_tx) frees a sent skb only when it finds its buffer
 * used (tx interrupt, rx poll or next transmit), and TCP keeps only a couple of unfreed skbs
 * per socket (TSQ), so while a driver keeps the ring busy its sockets would otherwise wait for
 * the end of the whole batch. virtq_should_notify() still honours used_event.
 */
static void vnet_tx_process(struct vnet *n)
{
	struct virtq *vq = &n->queues[VNET_TXQ];
	unsigned since_signal = 0;

	for (;;) {
		int r = virtq_pop(vq, &n->tx_chain);

		if (r == 0)
			break;
		if (r < 0) {
			n->stats.malformed++;
			if (n->tx_chain.head == VIRTQ_NO_HEAD)
				break; /* broken queue: vdev_queue_done() fails the device */
		} else {
			vnet_tx_one(n);
		}
		(void) virtq_push(vq, n->tx_chain.head, 0);
		if (++since_signal == VNET_TX_SIGNAL_BATCH) {
			vdev_queue_done(&n->dev, VNET_TXQ);
			since_signal = 0;
		}
	}
	vdev_queue_done(&n->dev, VNET_TXQ);
}

static void vnet_queue_notify(struct vdev *dev, unsigned q)
{
	struct vnet *n = to_vnet(dev);

	pthread_mutex_lock(&n->lock);
	if (n->active) {
		vnet_rx_watch_start(n);
		if (q == VNET_RXQ)
			vnet_rx_kick(n);
		else if (q == VNET_TXQ)
			vnet_tx_process(n);
	}
	pthread_mutex_unlock(&n->lock);
}

static void vnet_reset(struct vdev *dev)
{
	struct vnet *n = to_vnet(dev);

	/* The fd stays registered: the next callback sees !active and unregisters it there. */
	pthread_mutex_lock(&n->lock);
	vnet_rx_reset(n);
	(void) n->be->ops->set_offloads(n->be, 0);
	n->active = false;
	n->features = 0;
	n->rx_mrg = false;
	pthread_mutex_unlock(&n->lock);
}

static void vnet_free(struct vdev *dev)
{
	struct vnet *n;

	if (!dev)
		return;
	n = to_vnet(dev);
	vnet_rx_stop(n); /* the loop is stopped by now */
	net_backend_close(n->be);
	pthread_mutex_destroy(&n->lock);
	free(n->rx_buf);
	free(n);
}

static const struct vdev_ops vnet_ops = {
	.device_id = VIRTIO_ID_NET,
	/* 256 rx buffers (the guest posts one per entry): Firecracker's size, line rate here. */
	.queue_max = 256,
	.get_features = vnet_get_features,
	.config_read = vnet_config_read,
	.config_write = vnet_config_write,
	.activate = vnet_activate,
	.queue_notify = vnet_queue_notify,
	.reset = vnet_reset,
	.free = vnet_free,
};

static int vnet_pick_mac(const struct vnet_config *cfg, uint8_t mac[6])
{
	if (cfg->has_mac) {
		/* A multicast address cannot be a NIC's own. */
		if (cfg->mac[0] & 1)
			return -EINVAL;
		memcpy(mac, cfg->mac, 6);
		return 0;
	}
	if (getrandom(mac, 6, 0) != 6)
		return -EIO;
	mac[0] = (uint8_t) ((mac[0] & 0xfe) | 0x02); /* unicast, locally administered */
	return 0;
}

int vnet_new_with_backend(const struct vnet_config *cfg, struct net_backend *be, struct vdev **ret)
{
	struct vnet *n = NULL;
	uint16_t status = VIRTIO_NET_S_LINK_UP, pairs = 1;
	int r;

	if (!be)
		return -EINVAL;
	r = cfg && ret ? 0 : -EINVAL;
	if (r == 0) {
		n = calloc(1, sizeof(*n));
		r = n ? 0 : -ENOMEM;
	}
	if (r == 0) {
		n->rx_buf = malloc(VNET_RX_BUF_SIZE);
		r = n->rx_buf ? vnet_pick_mac(cfg, n->config) : -ENOMEM;
	}
	if (r < 0) {
		if (n)
			free(n->rx_buf);
		free(n);
		net_backend_close(be);
		return r;
	}
	pthread_mutex_init(&n->lock, NULL);
	memcpy(n->config + 6, &status, 2);
	memcpy(n->config + 8, &pairs, 2);
	n->be = be;
	n->dev = (struct vdev){
		.ops = &vnet_ops,
		.n_queues = 2,
		.queues = n->queues,
		.config_size = VNET_CONFIG_SIZE,
	};
	*ret = &n->dev;
	return 0;
}

int vnet_new(const struct vnet_config *cfg, struct vdev **ret)
{
	struct net_backend *be;
	int r;

	assert_return(cfg && ret, -EINVAL);
	assert_return(cfg->tap_fd >= 0 || cfg->tap_name[0], -EINVAL);
	if (cfg->tap_fd >= 0)
		r = netbe_tap_open_fd(cfg->tap_fd, &be);
	else
		r = netbe_tap_open(cfg->tap_name, &be);
	if (r < 0)
		return r;
	return vnet_new_with_backend(cfg, be, ret);
}

void vnet_rx_poll(struct vdev *dev)
{
	struct vnet *n = to_vnet(dev);

	pthread_mutex_lock(&n->lock);
	vnet_rx_process(n);
	pthread_mutex_unlock(&n->lock);
}

bool vnet_rx_paused(struct vdev *dev)
{
	struct vnet *n = to_vnet(dev);
	bool paused;

	pthread_mutex_lock(&n->lock);
	paused = n->rx_paused;
	pthread_mutex_unlock(&n->lock);
	return paused;
}

bool vnet_rx_watching(struct vdev *dev)
{
	struct vnet *n = to_vnet(dev);
	bool watching;

	pthread_mutex_lock(&n->lock);
	watching = n->rx_watching;
	pthread_mutex_unlock(&n->lock);
	return watching;
}

void vnet_get_mac(struct vdev *dev, uint8_t ret[6])
{
	memcpy(ret, to_vnet(dev)->config, 6);
}

void vnet_get_stats(struct vdev *dev, struct vnet_stats *ret)
{
	struct vnet *n = to_vnet(dev);

	pthread_mutex_lock(&n->lock);
	*ret = n->stats;
	pthread_mutex_unlock(&n->lock);
}
