/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/log.h"
#include "base/evloop.h"
#include "virtio/vdev.h"
#include "virtio/virtq.h"
#include "vsock/muxer.h"
#include "vsock/packet.h"
#include "vsock/vsock.h"

#define VVSOCK_CONFIG_SIZE 8 /* le64 guest_cid */
/* Chains per queue in one run; then we yield to the event loop and resume through resume_fd. */
#define VVSOCK_BUDGET 128

struct vvsock {
	struct vdev vdev;
	struct virtq queues[_VVSOCK_QUEUE_MAX];
	uint64_t guest_cid;
	struct evloop *loop;
	struct vsock_mux *mux;
	int resume_fd; /* eventfd: more queue work after a run ran out of budget */

	pthread_mutex_t lock; /* guards everything below, and the muxer */
	bool active;
	bool have_held; /* held is a popped rx chain we could not fill yet */
	struct virtq_chain held;
	struct virtq_chain tx_chain;
	struct vvsock_stats stats;
};

static struct vvsock *to_vvsock(struct vdev *dev)
{
	_Static_assert(offsetof(struct vvsock, vdev) == 0, "vdev must come first");
	return (struct vvsock *) (void *) dev;
}

static uint64_t vvsock_get_features(struct vdev *dev)
{
	(void) dev;
	return 0;
}

static void vvsock_config_read(struct vdev *dev, uint32_t off, void *data, uint32_t len)
{
	struct vvsock *v = to_vvsock(dev);
	uint8_t cfg[VVSOCK_CONFIG_SIZE];

	for (unsigned i = 0; i < sizeof(cfg); i++)
		cfg[i] = (uint8_t) (v->guest_cid >> (8 * i));
	memset(data, 0, len);
	if (off < sizeof(cfg))
		memcpy(data, cfg + off, MIN((size_t) len, sizeof(cfg) - off));
}

static void vvsock_config_write(struct vdev *dev, uint32_t off, const void *data, uint32_t len)
{
	/* The config space is read-only. */
	(void) dev;
	(void) off;
	(void) data;
	(void) len;
}

/* One guest packet from the tx queue. */
static void vvsock_handle_tx(struct vvsock *v, const struct virtq_chain *ch)
{
	uint8_t raw[VSOCK_HDR_SIZE];
	struct vsock_hdr h;
	size_t k;
	int r;

	k = iov_to_buf(ch->iov, ch->n_out, 0, raw, sizeof(raw));
	r = vsock_pkt_parse_tx(raw, k, ch->out_len, v->guest_cid, &h);
	if (r == 0) {
		v->stats.tx_packets++;
		vsock_mux_send(v->mux, &h, ch->iov, ch->n_out, VSOCK_HDR_SIZE);
	} else if (vsock_pkt_error_wants_rst(r)) {
		v->stats.tx_refused++;
		vsock_mux_send_rst(v->mux, &h);
	} else {
		v->stats.tx_dropped++;
		log_debug_errno(r, "vsock: dropping guest packet: %m");
	}
}

/*
 * Pop the next chain; on an empty ring, re-enable kicks and look once more (EVENT_IDX race).
 * Returns 1 with a chain, 0 when empty, or -errno for a malformed (consumed) chain.
 */
static int vvsock_pop(struct virtq *vq, struct virtq_chain *ch)
{
	int r = virtq_pop(vq, ch);

	if (r != 0)
		return r;
	virtq_enable_notify(vq);
	if (!virtq_has_avail(vq))
		return 0;
	return virtq_pop(vq, ch);
}

/* Returns whether any tx chain was consumed. */
static bool vvsock_process_tx(struct vvsock *v, unsigned *budget)
{
	struct virtq *vq = &v->queues[VVSOCK_QUEUE_TX];
	bool pushed = false;

	/* Stop while the answers could not be queued: the rx side resumes us. */
	while (*budget > 0 && vsock_mux_can_send(v->mux)) {
		int r = vvsock_pop(vq, &v->tx_chain);

		if (r == 0)
			break;
		if (r > 0)
			vvsock_handle_tx(v, &v->tx_chain);
		else
			v->stats.bad_chains++;
		(void) virtq_push(vq, v->tx_chain.head, 0);
		pushed = true;
		(*budget)--;
	}
	if (pushed)
		vdev_queue_done(&v->vdev, VVSOCK_QUEUE_TX);
	return pushed;
}

static void vvsock_process_rx(struct vvsock *v, unsigned *budget)
{
	struct virtq *vq = &v->queues[VVSOCK_QUEUE_RX];
	struct virtq_chain *ch = &v->held;
	bool pushed = false;

	while (*budget > 0 && vsock_mux_has_rx(v->mux)) {
		uint32_t len = 0;
		int r;

		if (!v->have_held) {
			r = vvsock_pop(vq, ch);
			if (r == 0)
				break;
			if (r < 0) {
				v->stats.bad_chains++;
				(void) virtq_push(vq, ch->head, 0);
				pushed = true;
				(*budget)--;
				continue;
			}
			v->have_held = true;
		}
		r = vsock_mux_fill_rx(v->mux, &ch->iov[ch->n_out], ch->n_in, &len);
		if (r == 0)
			break; /* nothing to send after all: keep the buffer for later */
		if (r < 0) {
			v->stats.bad_chains++;
			len = 0;
		} else {
			v->stats.rx_packets++;
		}
		v->have_held = false;
		(void) virtq_push(vq, ch->head, len);
		pushed = true;
		(*budget)--;
	}
	if (pushed)
		vdev_queue_done(&v->vdev, VVSOCK_QUEUE_RX);
}

static void vvsock_run(struct vvsock *v)
{
	unsigned rx_budget = VVSOCK_BUDGET, tx_budget = VVSOCK_BUDGET;
	uint64_t one = 1;
	bool progress;

	if (!v->active)
		return;
	do {
		vvsock_process_rx(v, &rx_budget);
		progress = vvsock_process_tx(v, &tx_budget);
		/* Only loop when tx stopped on a full answer queue that rx may have drained. */
	} while (progress && tx_budget > 0 && !vsock_mux_can_send(v->mux));
	vvsock_process_rx(v, &rx_budget);
	/* A busy guest does not get to hold the event-loop thread: let others run first. */
	if (rx_budget == 0 || tx_budget == 0)
		(void) !write(v->resume_fd, &one, sizeof(one));
}

static int vvsock_activate(struct vdev *dev, uint64_t acked_features)
{
	struct vvsock *v = to_vvsock(dev);

	(void) acked_features;
	pthread_mutex_lock(&v->lock);
	v->active = true;
	pthread_mutex_unlock(&v->lock);
	/* The driver kicks rx once it has posted buffers; queue work starts there. */
	return 0;
}

static void vvsock_queue_notify(struct vdev *dev, unsigned q)
{
	struct vvsock *v = to_vvsock(dev);

	if (q >= _VVSOCK_QUEUE_MAX)
		return;
	pthread_mutex_lock(&v->lock);
	/* Event buffers are only kept for a TRANSPORT_RESET we never send. */
	if (q != VVSOCK_QUEUE_EVENT)
		vvsock_run(v);
	pthread_mutex_unlock(&v->lock);
}

static void vvsock_reset(struct vdev *dev)
{
	struct vvsock *v = to_vvsock(dev);

	pthread_mutex_lock(&v->lock);
	v->active = false;
	v->have_held = false;
	vsock_mux_reset(v->mux);
	for (unsigned i = 0; i < _VVSOCK_QUEUE_MAX; i++)
		virtq_reset(&v->queues[i]);
	pthread_mutex_unlock(&v->lock);
}

static void vvsock_free(struct vdev *dev)
{
	struct vvsock *v;

	if (!dev)
		return;
	v = to_vvsock(dev);
	if (v->loop) {
		(void) evloop_remove(v->loop, vsock_mux_fd(v->mux));
		(void) evloop_remove(v->loop, v->resume_fd);
	}
	v->mux = vsock_mux_free(v->mux);
	safe_close(v->resume_fd);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

static const struct vdev_ops vvsock_ops = {
	.device_id = VIRTIO_ID_VSOCK,
	/* The guest fills the rx queue with 4 KiB buffers: 16 entries are 64 KiB per VM. */
	.queue_max = 16,
	.get_features = vvsock_get_features,
	.config_read = vvsock_config_read,
	.config_write = vvsock_config_write,
	.activate = vvsock_activate,
	.queue_notify = vvsock_queue_notify,
	.reset = vvsock_reset,
	.free = vvsock_free,
};

int vvsock_host_fd(struct vdev *dev)
{
	return vsock_mux_fd(to_vvsock(dev)->mux);
}

void vvsock_poll(struct vdev *dev)
{
	struct vvsock *v = to_vvsock(dev);

	pthread_mutex_lock(&v->lock);
	vsock_mux_process(v->mux);
	vvsock_run(v);
	pthread_mutex_unlock(&v->lock);
}

static void vvsock_on_host_event(void *userdata, uint32_t events)
{
	(void) events;
	vvsock_poll(userdata);
}

static void vvsock_on_resume(void *userdata, uint32_t events)
{
	struct vvsock *v = to_vvsock(userdata);
	uint64_t cnt;

	(void) events;
	(void) !read(v->resume_fd, &cnt, sizeof(cnt));
	pthread_mutex_lock(&v->lock);
	vvsock_run(v);
	pthread_mutex_unlock(&v->lock);
}

void vvsock_get_stats(struct vdev *dev, struct vvsock_stats *ret)
{
	struct vvsock *v = to_vvsock(dev);

	pthread_mutex_lock(&v->lock);
	*ret = v->stats;
	pthread_mutex_unlock(&v->lock);
}

static void vvsock_freep(struct vvsock **p)
{
	if (*p)
		vvsock_free(&(*p)->vdev);
}

int vvsock_new(uint64_t guest_cid, const char *uds_path, struct evloop *loop, struct vdev **ret)
{
	_cleanup_(vvsock_freep) struct vvsock *v = NULL;
	int r;

	assert_return(uds_path && loop && ret, -EINVAL);
	/* 0-2 are reserved (hypervisor, local, host); 2^32-1 is VMADDR_CID_ANY. */
	assert_return(guest_cid > VSOCK_HOST_CID && guest_cid < UINT32_MAX, -EINVAL);

	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	pthread_mutex_init(&v->lock, NULL);
	v->resume_fd = -1;
	v->guest_cid = guest_cid;
	v->vdev = (struct vdev){
		.ops = &vvsock_ops,
		.n_queues = _VVSOCK_QUEUE_MAX,
		.queues = v->queues,
		.config_size = VVSOCK_CONFIG_SIZE,
		.loop = loop,
	};
	r = vsock_mux_new(guest_cid, uds_path, &v->mux);
	if (r < 0)
		return r;
	v->resume_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->resume_fd < 0)
		return -errno;
	r = evloop_add(loop, vsock_mux_fd(v->mux), EPOLLIN, vvsock_on_host_event, &v->vdev);
	if (r < 0)
		return r;
	v->loop = loop;
	r = evloop_add(loop, v->resume_fd, EPOLLIN, vvsock_on_resume, &v->vdev);
	if (r < 0)
		return r;
	*ret = &TAKE_PTR(v)->vdev;
	return 0;
}
