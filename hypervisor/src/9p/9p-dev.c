/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virtio-9p device model: pops a chain, hands its device-readable part to the 9p server as the
 * request and its device-writable part as room for the reply, and pushes the reply length. The
 * mutex guards active, the server and the buffers (see 9p-dev.h for the threads).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "9p/9p-buf.h"
#include "9p/9p-dev.h"
#include "9p/9p-worker.h"
#include "9p/9p.h"
#include "cc/cleanup.h"
#include "cc/log.h"
#include "base/evloop.h"

struct v9p {
	struct vdev dev; /* first: ops get &dev */
	struct virtq queue;
	uint8_t config[2 + V9P_TAG_MAX];

	pthread_mutex_t lock;
	bool active;
	/* The backend: a server of our own, or export `export` of the 9p worker. */
	struct p9_server *srv;
	struct p9_worker *worker;
	unsigned export;
	bool reset_pending; /* the worker's server forgets every fid with the next request */
	/* P9_MSIZE_MAX bytes each: the request, gathered from out[], and the reply, scattered into
	 * in[]; with the worker, its shared areas for this export. */
	struct p9_buf req;
	struct p9_buf resp;
	struct virtq_chain chain;

	/* Idle trim: a one-shot timer armed when a buffer grew past V9P_BUF_KEEP. */
	struct evloop *loop;
	int trim_fd;
	bool trim_armed;
	uint64_t trim_seen; /* requests when the timer was armed */

	atomic_uint_fast64_t requests, bad_chains, bytes_in, bytes_out, trims, bytes_trimmed;
};

static struct v9p *v9p_of(struct vdev *dev)
{
	return (struct v9p *) dev;
}

static uint64_t v9p_get_features(struct vdev *dev)
{
	(void) dev;
	return 1ull << VIRTIO_9P_MOUNT_TAG;
}

static void v9p_config_read(struct vdev *dev, uint32_t off, void *data, uint32_t len)
{
	struct v9p *v = v9p_of(dev);

	memset(data, 0, len);
	if (off < dev->config_size)
		memcpy(data, v->config + off, MIN((size_t) len, (size_t) (dev->config_size - off)));
}

static void v9p_config_write(struct vdev *dev, uint32_t off, const void *data, uint32_t len)
{
	/* The tag is read-only for the driver. */
	(void) dev;
	(void) off;
	(void) data;
	(void) len;
}

static size_t v9p_backend_handle(struct v9p *v, size_t req_len, size_t resp_cap)
{
	ssize_t n;

	if (!v->worker)
		return p9_server_handle(v->srv, v->req.p, req_len, v->resp.p, resp_cap);
	n = p9_worker_call(v->worker, v->export, v->reset_pending, req_len, resp_cap);
	if (n >= 0) {
		v->reset_pending = false;
		return (size_t) n;
	}
	return p9_reply_error(v->req.p, req_len, -EIO, v->resp.p, resp_cap);
}

/* Serve one chain; returns the number of reply bytes written into its in[] part. */
static uint32_t v9p_serve(struct v9p *v, const struct virtq_chain *c)
{
	const struct iovec *in_iov = c->iov + c->n_out;
	size_t req_len, resp_cap, resp_len;

	/*
	 * A request longer than the largest msize cannot be valid: it is cut, so its size field
	 * no longer matches and the server answers Rlerror(EBADMSG).
	 */
	req_len =
		iov_to_buf(c->iov, c->n_out, 0, v->req.p, MIN(c->out_len, (uint64_t) P9_MSIZE_MAX));
	resp_cap = MIN(c->in_len, (uint64_t) P9_MSIZE_MAX);
	resp_len = v9p_backend_handle(v, req_len, resp_cap);
	p9_buf_used(&v->req, req_len);
	p9_buf_used(&v->resp, resp_len);
	resp_len = iov_from_buf(in_iov, c->n_in, 0, v->resp.p, resp_len);
	atomic_fetch_add(&v->requests, 1);
	atomic_fetch_add(&v->bytes_in, req_len);
	atomic_fetch_add(&v->bytes_out, resp_len);
	return (uint32_t) resp_len;
}

static void v9p_trim_arm(struct v9p *v)
{
	struct itimerspec its = {.it_value.tv_nsec = V9P_IDLE_NS};

	if (v->trim_armed || v->trim_fd < 0)
		return;
	if (v->req.hi <= V9P_BUF_KEEP && v->resp.hi <= V9P_BUF_KEEP)
		return;
	v->trim_seen = atomic_load(&v->requests);
	if (timerfd_settime(v->trim_fd, 0, &its, NULL) == 0)
		v->trim_armed = true;
}

/* With the lock held: trim if no request came since the last look, else look again later. */
static bool v9p_idle_check(struct v9p *v)
{
	uint64_t n = atomic_load(&v->requests), freed;

	v->trim_armed = false;
	if (n != v->trim_seen) {
		v->trim_seen = n;
		v9p_trim_arm(v);
		return false;
	}
	freed = p9_buf_trim(&v->req, V9P_BUF_KEEP) + p9_buf_trim(&v->resp, V9P_BUF_KEEP);
	if (freed > 0) {
		atomic_fetch_add(&v->trims, 1);
		atomic_fetch_add(&v->bytes_trimmed, freed);
	}
	return true;
}

bool v9p_idle_tick(struct vdev *dev)
{
	struct v9p *v = v9p_of(dev);
	bool trimmed;

	pthread_mutex_lock(&v->lock);
	trimmed = v9p_idle_check(v);
	pthread_mutex_unlock(&v->lock);
	return trimmed;
}

/* On the event loop: a reset the worker has not heard of yet (a request of 0 bytes with the
 * reset flag), so that the old fids' descriptors and locks go now, not at the next request. */
static void v9p_reset_flush(struct v9p *v)
{
	pthread_mutex_lock(&v->lock);
	if (v->worker && v->reset_pending &&
	    p9_worker_call(v->worker, v->export, true, 0, P9_MSIZE_MIN) >= 0)
		v->reset_pending = false;
	pthread_mutex_unlock(&v->lock);
}

static void v9p_trim_cb(void *userdata, uint32_t events)
{
	struct v9p *v = userdata;
	uint64_t expirations;

	(void) events;
	if (read(v->trim_fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	v9p_reset_flush(v);
	(void) v9p_idle_tick(&v->dev);
}

static void v9p_queue_notify(struct vdev *dev, unsigned q)
{
	struct v9p *v = v9p_of(dev);
	bool pushed = false;

	if (q != 0)
		return;
	pthread_mutex_lock(&v->lock);
	/*
	 * Drain what is available now. The ring holds at most num chains beyond what we consumed,
	 * and a guest that keeps refilling it only spends its own requests, one at a time.
	 */
	while (v->active && v->queue.ready) {
		int r = virtq_pop(&v->queue, &v->chain);

		if (r == 0)
			break;
		if (r < 0) {
			atomic_fetch_add(&v->bad_chains, 1);
			log_debug("virtio-9p: bad chain: %d", r);
			if (virtq_push(&v->queue, v->chain.head, 0) == 0)
				pushed = true;
			if (v->queue.broken)
				break;
			continue;
		}
		(void) virtq_push(&v->queue, v->chain.head, v9p_serve(v, &v->chain));
		pushed = true;
	}
	if (pushed || v->queue.broken)
		vdev_queue_done(dev, 0);
	v9p_trim_arm(v);
	pthread_mutex_unlock(&v->lock);
}

static int v9p_activate(struct vdev *dev, uint64_t acked_features)
{
	struct v9p *v = v9p_of(dev);

	(void) acked_features;
	if (!v->queue.ready)
		return -EINVAL;
	pthread_mutex_lock(&v->lock);
	v->active = true;
	pthread_mutex_unlock(&v->lock);
	return 0;
}

static void v9p_reset(struct vdev *dev)
{
	struct v9p *v = v9p_of(dev);

	pthread_mutex_lock(&v->lock);
	v->active = false;
	/* The worker hears of it from the event loop (the idle timer, fired at once) or with the
	 * next request, whichever comes first: no socket I/O on a vCPU thread. */
	if (v->worker) {
		struct itimerspec now = {.it_value.tv_nsec = 1};

		v->reset_pending = true;
		if (v->trim_fd >= 0 && timerfd_settime(v->trim_fd, 0, &now, NULL) == 0)
			v->trim_armed = true;
	} else {
		p9_server_reset(v->srv);
	}
	pthread_mutex_unlock(&v->lock);
}

static void v9p_free(struct vdev *dev)
{
	struct v9p *v = v9p_of(dev);

	if (!dev)
		return;
	if (v->loop && v->trim_fd >= 0)
		(void) evloop_remove(v->loop, v->trim_fd);
	safe_close(v->trim_fd);
	p9_server_free(v->srv);
	p9_buf_free(&v->req);
	p9_buf_free(&v->resp);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

static const struct vdev_ops v9p_ops = {
	.device_id = VIRTIO_ID_9P,
	/* One request per chain, no buffers posted ahead: 128 requests in flight. */
	.queue_max = 128,
	.get_features = v9p_get_features,
	.config_read = v9p_config_read,
	.config_write = v9p_config_write,
	.activate = v9p_activate,
	.queue_notify = v9p_queue_notify,
	.reset = v9p_reset,
	.free = v9p_free,
};

/* The device with its idle timer, no backend and no buffers yet. */
static int v9p_alloc(const char *tag, struct evloop *loop, struct v9p **ret)
{
	struct v9p *v;
	size_t tag_len;
	int r;

	assert_return(tag && ret, -EINVAL);
	tag_len = strlen(tag);
	if (tag_len == 0 || tag_len > V9P_TAG_MAX)
		return -EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	pthread_mutex_init(&v->lock, NULL);
	v->trim_fd = -1;
	v->dev.ops = &v9p_ops;
	v->dev.n_queues = 1;
	v->dev.queues = &v->queue;
	v->dev.config_size = (uint32_t) (2 + tag_len);
	v->config[0] = (uint8_t) tag_len;
	v->config[1] = (uint8_t) (tag_len >> 8);
	memcpy(v->config + 2, tag, tag_len);
	r = 0;
	if (loop) {
		v->trim_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		r = v->trim_fd < 0 ? -errno : evloop_add(loop, v->trim_fd, EPOLLIN, v9p_trim_cb, v);
		if (r >= 0)
			v->loop = loop;
	}
	if (r < 0) {
		v9p_free(&v->dev);
		return r;
	}
	*ret = v;
	return 0;
}

int v9p_new(const char *tag, const char *dir, bool read_only, struct evloop *loop,
	    struct vdev **ret)
{
	struct v9p *v;
	int r;

	assert_return(dir && ret, -EINVAL);
	r = v9p_alloc(tag, loop, &v);
	if (r < 0)
		return r;
	r = p9_buf_init(&v->req, P9_MSIZE_MAX);
	if (r >= 0)
		r = p9_buf_init(&v->resp, P9_MSIZE_MAX);
	if (r >= 0)
		r = p9_server_new(dir, read_only, &v->srv);
	if (r < 0) {
		v9p_free(&v->dev);
		return r;
	}
	*ret = &v->dev;
	return 0;
}

int v9p_new_remote(const char *tag, struct p9_worker *worker, unsigned export, struct evloop *loop,
		   struct vdev **ret)
{
	struct v9p *v;
	int r;

	assert_return(worker && ret && p9_worker_req(worker, export), -EINVAL);
	r = v9p_alloc(tag, loop, &v);
	if (r < 0)
		return r;
	v->worker = worker;
	v->export = export;
	p9_buf_init_shared(&v->req, p9_worker_req(worker, export), P9_MSIZE_MAX);
	p9_buf_init_shared(&v->resp, p9_worker_resp(worker, export), P9_MSIZE_MAX);
	*ret = &v->dev;
	return 0;
}

int v9p_add_hostvol(struct vdev *dev, const struct p9_hostvol *hv)
{
	struct v9p *v = v9p_of(dev);
	int r;

	if (v->worker)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&v->lock);
	r = p9_server_add_hostvol(v->srv, hv);
	pthread_mutex_unlock(&v->lock);
	return r;
}

int v9p_add_hostvol_root(struct vdev *dev)
{
	struct v9p *v = v9p_of(dev);
	int r;

	if (v->worker)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&v->lock);
	r = p9_server_add_hostvol_root(v->srv);
	pthread_mutex_unlock(&v->lock);
	return r;
}

void v9p_get_stats(struct vdev *dev, struct v9p_stats *ret)
{
	struct v9p *v = v9p_of(dev);

	*ret = (struct v9p_stats){
		.requests = atomic_load(&v->requests),
		.bad_chains = atomic_load(&v->bad_chains),
		.bytes_in = atomic_load(&v->bytes_in),
		.bytes_out = atomic_load(&v->bytes_out),
		.trims = atomic_load(&v->trims),
		.bytes_trimmed = atomic_load(&v->bytes_trimmed),
	};
}
