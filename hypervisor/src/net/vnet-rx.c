/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Receive path: backend -> guest.
 *
 * A packet is read from the backend into rx_buf (header + frame), then copied into one receive
 * chain, or with MRG_RXBUF into as many chains as it needs, the count going into the first
 * chain's num_buffers. The chains are returned to the guest together, once the packet is
 * complete. When the guest runs out of receive buffers, before a packet or in the middle of
 * one, the packet stays in rx_buf, the backend fd is no longer watched (so the host queues or
 * drops, not us), and a kick on the receive queue resumes.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/epoll.h>

#include "cc/macro.h"
#include "base/evloop.h"
#include "net/vnet-internal.h"

enum {
	VNET_RX_DONE = 1,      /* packet delivered (or dropped), rx_buf is free */
	VNET_RX_NEED_BUFS = 0, /* the guest has no more buffers; packet kept */
	VNET_RX_BROKEN = -EIO, /* the queue is broken */
};

static struct virtq *vnet_rxq(struct vnet *n)
{
	return &n->dev.queues[VNET_RXQ];
}

static void vnet_rx_watch(struct vnet *n, uint32_t events)
{
	if (!n->rx_watching || n->rx_watch == events)
		return;
	if (evloop_modify(n->dev.loop, n->be->ops->fd(n->be), events) >= 0)
		n->rx_watch = events;
}

static void vnet_rx_drop_pending(struct vnet *n)
{
	n->rx_len = n->rx_off = 0;
	n->rx_nbufs = 0;
}

/* Remember where num_buffers (header bytes 10 and 11) lies in the first chain. */
static void vnet_rx_note_num_buffers(struct vnet *n, const struct virtq_chain *c)
{
	const struct iovec *in = c->iov + c->n_out;
	size_t want = offsetof(struct virtio_net_hdr_v1, num_buffers), base = 0;
	unsigned found = 0;

	/* The chain holds at least VNET_HDR_LEN bytes (vnet_rx_chain_ok), so both are found. */
	for (unsigned i = 0; i < c->n_in && found < 2; i++) {
		while (found < 2 && want + found - base < in[i].iov_len) {
			n->rx_num_buffers[found] =
				(uint8_t *) in[i].iov_base + (want + found - base);
			found++;
		}
		base += in[i].iov_len;
	}
}

/* Give back every chain of the pending packet, then forget it. */
static void vnet_rx_complete(struct vnet *n)
{
	uint16_t nb = (uint16_t) n->rx_nbufs;

	if (nb > 0) {
		*n->rx_num_buffers[0] = (uint8_t) (nb & 0xff);
		*n->rx_num_buffers[1] = (uint8_t) (nb >> 8);
	}
	(void) virtq_push_batch(vnet_rxq(n), n->rx_heads, n->rx_lens, n->rx_nbufs);
	vnet_rx_drop_pending(n);
}

/* Return the chains taken so far with length 0 and drop the packet. */
static void vnet_rx_abort(struct vnet *n)
{
	for (unsigned i = 0; i < n->rx_nbufs; i++)
		(void) virtq_push(vnet_rxq(n), n->rx_heads[i], 0);
	n->stats.rx_dropped++;
	vnet_rx_drop_pending(n);
}

/* Check a freshly popped receive chain; false: it was returned empty. */
static bool vnet_rx_chain_ok(struct vnet *n, const struct virtq_chain *c)
{
	/* Receive buffers are device-writable only; with MRG_RXBUF each holds a header. */
	size_t min = (n->rx_mrg || n->rx_nbufs == 0) ? VNET_HDR_LEN : 1;

	if (c->n_out == 0 && c->in_len >= min)
		return true;
	n->stats.malformed++;
	(void) virtq_push(vnet_rxq(n), c->head, 0);
	return false;
}

/* Copy the pending packet into receive chains. */
static int vnet_rx_deliver(struct vnet *n)
{
	struct virtq_chain *c = &n->rx_chain;

	while (n->rx_off < n->rx_len) {
		size_t copied;
		int r;

		if (n->rx_nbufs >= ARRAY_SIZE(n->rx_heads)) {
			vnet_rx_abort(n); /* thousands of tiny buffers: not a real driver */
			return VNET_RX_DONE;
		}
		r = virtq_pop(vnet_rxq(n), c);
		if (r == 0)
			return VNET_RX_NEED_BUFS;
		if (r < 0) {
			n->stats.malformed++;
			if (c->head == VIRTQ_NO_HEAD) {
				vnet_rx_abort(n);
				return VNET_RX_BROKEN;
			}
			(void) virtq_push(vnet_rxq(n), c->head, 0);
			continue;
		}
		if (!vnet_rx_chain_ok(n, c))
			continue;
		if (!n->rx_mrg && c->in_len < n->rx_len) {
			/* Without MRG_RXBUF the packet must fit one chain. */
			(void) virtq_push(vnet_rxq(n), c->head, 0);
			n->stats.rx_dropped++;
			vnet_rx_drop_pending(n);
			return VNET_RX_DONE;
		}
		copied = iov_from_buf(c->iov, c->n_in, 0, n->rx_buf + n->rx_off,
				      n->rx_len - n->rx_off);
		if (n->rx_nbufs == 0)
			vnet_rx_note_num_buffers(n, c);
		n->rx_heads[n->rx_nbufs] = c->head;
		n->rx_lens[n->rx_nbufs] = (uint32_t) copied;
		n->rx_nbufs++;
		n->rx_off += copied;
	}
	n->stats.rx_packets++;
	n->stats.rx_bytes += n->rx_len - VNET_HDR_LEN;
	vnet_rx_complete(n);
	return VNET_RX_DONE;
}

/* Read the next packet from the backend into rx_buf. 1: got one, 0: none, <0: backend error. */
static int vnet_rx_read(struct vnet *n)
{
	struct iovec iov = {.iov_base = n->rx_buf, .iov_len = VNET_RX_BUF_SIZE};

	/* Bounded: a flood of bad packets must not keep the event loop here. */
	for (unsigned tries = 0; tries < VNET_RX_BUDGET; tries++) {
		ssize_t k = n->be->ops->rx(n->be, &iov, 1);

		if (k == -EAGAIN)
			return 0;
		if (k < 0) {
			n->stats.rx_errors++;
			return (int) k;
		}
		if ((size_t) k < VNET_HDR_LEN + VNET_MIN_FRAME || (size_t) k > VNET_RX_BUF_SIZE) {
			n->stats.rx_dropped++;
			continue;
		}
		n->rx_len = (size_t) k;
		n->rx_off = 0;
		n->rx_nbufs = 0;
		return 1;
	}
	return 0; /* EPOLLIN is level-triggered: we come back for the rest */
}

/* No buffers: ask for a kick, and stop watching the backend unless buffers raced in. */
static bool vnet_rx_pause(struct vnet *n)
{
	virtq_enable_notify(vnet_rxq(n));
	if (virtq_has_avail(vnet_rxq(n)))
		return false;
	n->rx_paused = true;
	return true;
}

/*
 * The backend failed for good (the tap was deleted, the peer closed): stop watching its fd, or
 * EPOLLERR/EPOLLHUP, which epoll always reports, would call us in a loop. Transmit goes on.
 */
static void vnet_rx_backend_failed(struct vnet *n)
{
	if (n->rx_watching)
		(void) evloop_remove(n->dev.loop, n->be->ops->fd(n->be));
	n->rx_watching = false;
	n->rx_dead = true;
}

void vnet_rx_process(struct vnet *n)
{
	uint16_t used_before = vnet_rxq(n)->used_idx;

	if (!n->active || n->rx_dead)
		return;
	for (unsigned budget = VNET_RX_BUDGET; budget > 0; budget--) {
		int r;

		if (n->rx_len == 0) {
			if (!virtq_has_avail(vnet_rxq(n)) && vnet_rx_pause(n))
				break;
			r = vnet_rx_read(n);
			if (r < 0)
				vnet_rx_backend_failed(n);
			if (r <= 0)
				break;
		}
		r = vnet_rx_deliver(n);
		if (r == VNET_RX_BROKEN)
			break;
		if (r == VNET_RX_NEED_BUFS && vnet_rx_pause(n))
			break;
	}
	vnet_rx_watch(n, n->rx_paused ? 0 : EPOLLIN);
	if (vnet_rxq(n)->used_idx != used_before || vnet_rxq(n)->broken)
		vdev_queue_done(&n->dev, VNET_RXQ);
}

void vnet_rx_kick(struct vnet *n)
{
	n->rx_paused = false;
	vnet_rx_process(n);
}

/* Stop watching the backend (event-loop thread, or with the loop stopped). */
static void vnet_rx_unwatch(struct vnet *n)
{
	if (n->rx_watching)
		(void) evloop_remove(n->dev.loop, n->be->ops->fd(n->be));
	n->rx_watching = false;
}

/* Event-loop thread: the backend fd is ready. */
static void vnet_rx_event(void *userdata, uint32_t events)
{
	struct vnet *n = userdata;

	pthread_mutex_lock(&n->lock);
	if (!n->active) {
		vnet_rx_unwatch(n); /* reset since: the next kick after activation re-adds it */
	} else if ((events & (EPOLLERR | EPOLLHUP)) && !(events & EPOLLIN)) {
		n->stats.rx_errors++;
		vnet_rx_backend_failed(n);
	} else {
		vnet_rx_process(n);
	}
	pthread_mutex_unlock(&n->lock);
}

void vnet_rx_watch_start(struct vnet *n)
{
	if (n->rx_watching || n->rx_dead || !n->dev.loop || n->be->ops->fd(n->be) < 0)
		return;
	if (evloop_add(n->dev.loop, n->be->ops->fd(n->be), EPOLLIN, vnet_rx_event, n) < 0) {
		n->stats.rx_errors++;
		return;
	}
	n->rx_watching = true;
	n->rx_watch = EPOLLIN;
}

void vnet_rx_reset(struct vnet *n)
{
	vnet_rx_drop_pending(n);
	n->rx_paused = false;
	n->rx_dead = false;
}

void vnet_rx_stop(struct vnet *n)
{
	vnet_rx_unwatch(n);
	vnet_rx_reset(n);
}
