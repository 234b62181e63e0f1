/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virtio-console device model (port 0). Threads: queue_notify and the backend's ready()
 * callback run on the event-loop thread; activate, reset and config access on a vCPU thread.
 * The mutex guards everything below it in struct vcon. Registrations with the event loop
 * (backend watch) happen only on the event-loop thread; after a reset the next callback sees
 * the device inactive and drops its watches.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cc/log.h"
#include "console/console.h"

/* Config space layout (virtio 1.x, 5.3.4); all zero without F_SIZE and MULTIPORT. */
#define VCON_CONFIG_SIZE 12
/* Transmit chains handled per event-loop turn before yielding to other sources. */
#define VCON_TX_BUDGET 8

struct vcon {
	struct vdev dev; /* first: ops get &dev */
	struct virtq queues[_VCON_QUEUES];
	struct vcon_backend *be;

	pthread_mutex_t lock;
	bool active;
	bool in_eof;	 /* input ended or failed; no more reads */
	bool in_watch;	 /* asked the backend for readable events */
	bool out_watch;	 /* waiting for the backend to become writable */
	bool tx_pending; /* tx_chain popped, tx_off bytes of it written */
	uint64_t tx_off;
	struct virtq_chain tx_chain;
	bool rx_pending; /* rx_chain popped, not filled yet */
	struct virtq_chain rx_chain;

	atomic_uint_fast64_t tx_bytes, tx_dropped, rx_bytes, bad_chains, tx_yields;
};

static struct vcon *vcon_of(struct vdev *dev)
{
	return (struct vcon *) dev;
}

/* A chain the driver got wrong: hand it back empty if it can be named. */
static void vcon_bad_chain(struct vcon *c, struct virtq *vq, const struct virtq_chain *chain, int r)
{
	atomic_fetch_add(&c->bad_chains, 1);
	log_debug("virtio-console: bad chain on queue %u: %d", (unsigned) (vq - c->queues), r);
	(void) virtq_push(vq, chain->head, 0);
}

static void vcon_watch(struct vcon *c, bool input, bool output)
{
	if (!c->dev.loop || (input == c->in_watch && output == c->out_watch))
		return;
	if (c->be->ops->watch(c->be, c->dev.loop, input, output) < 0) {
		log_debug("virtio-console: cannot watch the backend");
		return;
	}
	c->in_watch = input;
	c->out_watch = output;
}

/*
 * Write the pending tx chain from tx_off on. Returns 1 when the chain is done (written, or
 * dropped after a hard error), 0 if the backend would block, -EINPROGRESS after a short write.
 */
static int vcon_tx_write(struct vcon *c)
{
	struct iovec iov[VIRTQ_CHAIN_MAX];
	unsigned n = 0;
	uint64_t skip = c->tx_off;
	ssize_t r;

	for (unsigned i = 0; i < c->tx_chain.n_out; i++) {
		const struct iovec *src = &c->tx_chain.iov[i];

		if (skip >= src->iov_len) {
			skip -= src->iov_len;
			continue;
		}
		iov[n].iov_base = (uint8_t *) src->iov_base + skip;
		iov[n].iov_len = src->iov_len - skip;
		skip = 0;
		n++;
	}
	if (n == 0)
		return 1;
	r = c->be->ops->write(c->be, iov, n);
	if (r == -EAGAIN)
		return 0;
	if (r < 0) {
		atomic_fetch_add(&c->tx_dropped, c->tx_chain.out_len - c->tx_off);
		log_debug("virtio-console: output failed, dropping %llu bytes: %zd",
			  (unsigned long long) (c->tx_chain.out_len - c->tx_off), r);
		return 1;
	}
	atomic_fetch_add(&c->tx_bytes, (uint64_t) r);
	c->tx_off += (uint64_t) r;
	return c->tx_off >= c->tx_chain.out_len ? 1 : -EINPROGRESS;
}

/*
 * Come back on a later event-loop round, when the output is writable (normally at once), so
 * that a guest that keeps transmitq0 full does not starve the loop's other sources. False if
 * the output cannot be polled (a regular file): then the caller keeps going.
 */
static bool vcon_tx_yield(struct vcon *c)
{
	if (!c->dev.loop || c->be->ops->watch(c->be, c->dev.loop, c->in_watch, true) != 0)
		return false;
	c->out_watch = true;
	atomic_fetch_add(&c->tx_yields, 1);
	return true;
}

/* Drain transmitq0 into the backend until it is empty, the backend would block, or the
 * budget is spent. */
static void vcon_tx(struct vcon *c)
{
	struct virtq *vq = &c->queues[VCON_TX];
	bool pushed = false, blocked = false;
	unsigned done = 0;

	while (c->active && vq->ready) {
		int r;

		if (!c->tx_pending) {
			if (done >= VCON_TX_BUDGET && vcon_tx_yield(c)) {
				blocked = true;
				break;
			}
			r = virtq_pop(vq, &c->tx_chain);
			if (r == 0)
				break;
			if (r < 0) {
				vcon_bad_chain(c, vq, &c->tx_chain, r);
				pushed = true;
				continue;
			}
			c->tx_pending = true;
			c->tx_off = 0;
		}
		r = vcon_tx_write(c);
		if (r == 0) {
			blocked = true;
			break;
		}
		if (r == 1) {
			(void) virtq_push(vq, c->tx_chain.head, 0);
			c->tx_pending = false;
			pushed = true;
			done++;
		}
	}
	vcon_watch(c, c->in_watch, blocked);
	if (pushed)
		vdev_queue_done(&c->dev, VCON_TX);
}

/*
 * Fill one receive buffer from the backend; one read per call (the input may block).
 * Returns whether a buffer was filled.
 */
static bool vcon_rx(struct vcon *c, bool readable)
{
	struct virtq *vq = &c->queues[VCON_RX];
	ssize_t n;
	int r;

	while (!c->rx_pending) {
		r = virtq_pop(vq, &c->rx_chain);
		if (r == 0) {
			vcon_watch(c, false, c->out_watch); /* wait for the guest's next kick */
			return false;
		}
		if (r > 0) {
			c->rx_pending = true;
			break;
		}
		vcon_bad_chain(c, vq, &c->rx_chain, r);
		vdev_queue_done(&c->dev, VCON_RX);
	}
	if (c->rx_chain.n_in == 0) {
		/* Nothing writable in it: give it back unused. */
		(void) virtq_push(vq, c->rx_chain.head, 0);
		c->rx_pending = false;
		vdev_queue_done(&c->dev, VCON_RX);
		return true;
	}
	if (!readable) {
		vcon_watch(c, true, c->out_watch);
		return false;
	}
	n = c->be->ops->read(c->be, c->rx_chain.iov + c->rx_chain.n_out, c->rx_chain.n_in);
	if (n == -EAGAIN)
		return false;
	if (n <= 0) {
		log_debug("virtio-console: input ended: %zd", n);
		c->in_eof = true;
		vcon_watch(c, false, c->out_watch);
		return false;
	}
	atomic_fetch_add(&c->rx_bytes, (uint64_t) n);
	(void) virtq_push(vq, c->rx_chain.head, (uint32_t) n);
	c->rx_pending = false;
	vdev_queue_done(&c->dev, VCON_RX);
	return true;
}

/* Receive as long as input is ready right away (unpollable input) or once (pollable). */
static void vcon_rx_run(struct vcon *c, bool readable)
{
	struct virtq *vq = &c->queues[VCON_RX];

	for (unsigned budget = 0; budget < 4096; budget++) {
		bool always = false;

		if (!c->active || !vq->ready || c->in_eof) {
			vcon_watch(c, false, c->out_watch);
			return;
		}
		if (!readable && c->dev.loop) {
			int r = c->be->ops->watch(c->be, c->dev.loop, true, c->out_watch);

			always = r == 1;
			if (r >= 0)
				c->in_watch = !always;
		}
		if (!vcon_rx(c, readable || always) || !always)
			return;
		readable = false;
	}
}

static void vcon_ready(void *opaque, bool readable, bool writable)
{
	struct vcon *c = opaque;

	pthread_mutex_lock(&c->lock);
	if (!c->active) {
		vcon_watch(c, false, false);
	} else {
		if (writable)
			vcon_tx(c);
		if (readable)
			vcon_rx_run(c, true);
	}
	pthread_mutex_unlock(&c->lock);
}

static void vcon_queue_notify(struct vdev *dev, unsigned q)
{
	struct vcon *c = vcon_of(dev);

	pthread_mutex_lock(&c->lock);
	if (c->active && q == VCON_TX)
		vcon_tx(c);
	else if (c->active && q == VCON_RX && !c->rx_pending)
		vcon_rx_run(c, false);
	pthread_mutex_unlock(&c->lock);
}

static uint64_t vcon_get_features(struct vdev *dev)
{
	(void) dev;
	return 0;
}

static void vcon_config_read(struct vdev *dev, uint32_t off, void *data, uint32_t len)
{
	(void) dev;
	(void) off;
	memset(data, 0, len); /* cols, rows, max_nr_ports, emerg_wr: unused */
}

static void vcon_config_write(struct vdev *dev, uint32_t off, const void *data, uint32_t len)
{
	(void) dev;
	(void) off;
	(void) data;
	(void) len; /* emerg_wr needs VIRTIO_CONSOLE_F_EMERG_WRITE, which we do not offer */
}

static int vcon_activate(struct vdev *dev, uint64_t acked_features)
{
	struct vcon *c = vcon_of(dev);

	(void) acked_features;
	if (!c->queues[VCON_TX].ready)
		return -EINVAL; /* a console without its transmit queue is useless */
	pthread_mutex_lock(&c->lock);
	c->active = true;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

static void vcon_reset(struct vdev *dev)
{
	struct vcon *c = vcon_of(dev);

	pthread_mutex_lock(&c->lock);
	c->active = false;
	c->tx_pending = c->rx_pending = false;
	c->tx_off = 0;
	pthread_mutex_unlock(&c->lock);
}

static void vcon_free(struct vdev *dev)
{
	struct vcon *c = vcon_of(dev);

	if (!dev)
		return;
	c->be->ops->free(c->be);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/*
 * The guest fills the rx queue with one page per entry, so 8 entries are 32 KiB of its RAM;
 * console input is typed or piped text, which the driver reads and reposts at once. The tx
 * queue posts nothing ahead: 16 entries let a burst of output use more than a turn's budget.
 */
#define VCON_RX_QUEUE_MAX 8
#define VCON_TX_QUEUE_MAX 16

/* The rx queue's size; the tx queue takes queue_max (0). */
static uint16_t vcon_queue_max_of(const struct vdev *dev, unsigned q)
{
	(void) dev;
	return q == VCON_RX ? VCON_RX_QUEUE_MAX : 0;
}

static const struct vdev_ops vcon_ops = {
	.device_id = VIRTIO_ID_CONSOLE,
	.queue_max = VCON_TX_QUEUE_MAX,
	.queue_max_of = vcon_queue_max_of,
	.get_features = vcon_get_features,
	.config_read = vcon_config_read,
	.config_write = vcon_config_write,
	.activate = vcon_activate,
	.queue_notify = vcon_queue_notify,
	.reset = vcon_reset,
	.free = vcon_free,
};

int vcon_new_backend(struct vcon_backend *be, struct vdev **ret)
{
	struct vcon *c;

	assert_return(be && be->ops && ret, -EINVAL);
	c = calloc(1, sizeof(*c));
	if (!c) {
		be->ops->free(be);
		return -ENOMEM;
	}
	c->dev.ops = &vcon_ops;
	c->dev.n_queues = _VCON_QUEUES;
	c->dev.queues = c->queues;
	c->dev.config_size = VCON_CONFIG_SIZE;
	c->be = be;
	be->ready = vcon_ready;
	be->opaque = c;
	pthread_mutex_init(&c->lock, NULL);
	*ret = &c->dev;
	return 0;
}

int vcon_new(int in_fd, int out_fd, struct vdev **ret)
{
	struct vcon_backend *be;
	int r;

	assert_return(ret, -EINVAL);
	r = vcon_backend_fd_new(in_fd, out_fd, &be);
	if (r < 0)
		return r;
	return vcon_new_backend(be, ret);
}

void vcon_get_stats(struct vdev *dev, struct vcon_stats *ret)
{
	struct vcon *c = vcon_of(dev);

	*ret = (struct vcon_stats){
		.tx_bytes = atomic_load(&c->tx_bytes),
		.tx_dropped = atomic_load(&c->tx_dropped),
		.rx_bytes = atomic_load(&c->rx_bytes),
		.bad_chains = atomic_load(&c->bad_chains),
		.tx_yields = atomic_load(&c->tx_yields),
	};
}
