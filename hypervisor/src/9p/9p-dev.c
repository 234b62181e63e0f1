/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virtio-9p device model: pops a chain, hands its device-readable part to the 9p server as the
 * request and its device-writable part as room for the reply, and pushes the reply length. The
 * mutex guards active and the server (see 9p-dev.h for the threads).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "9p/9p-dev.h"
#include "9p/9p.h"
#include "cc/log.h"

struct v9p {
	struct vdev dev; /* first: ops get &dev */
	struct virtq queue;
	uint8_t config[2 + V9P_TAG_MAX];

	pthread_mutex_t lock;
	bool active;
	struct p9_server *srv;
	uint8_t *req;  /* P9_MSIZE_MAX bytes: the request, gathered from out[] */
	uint8_t *resp; /* P9_MSIZE_MAX bytes: the reply, scattered into in[] */
	struct virtq_chain chain;

	atomic_uint_fast64_t requests, bad_chains, bytes_in, bytes_out;
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

/* Serve one chain; returns the number of reply bytes written into its in[] part. */
static uint32_t v9p_serve(struct v9p *v, const struct virtq_chain *c)
{
	const struct iovec *in_iov = c->iov + c->n_out;
	size_t req_len, resp_cap, resp_len;

	/*
	 * A request longer than the largest msize cannot be valid: it is cut, so its size field
	 * no longer matches and the server answers Rlerror(EBADMSG).
	 */
	req_len = iov_to_buf(c->iov, c->n_out, 0, v->req, MIN(c->out_len, (uint64_t) P9_MSIZE_MAX));
	resp_cap = MIN(c->in_len, (uint64_t) P9_MSIZE_MAX);
	resp_len = p9_server_handle(v->srv, v->req, req_len, v->resp, resp_cap);
	resp_len = iov_from_buf(in_iov, c->n_in, 0, v->resp, resp_len);
	atomic_fetch_add(&v->requests, 1);
	atomic_fetch_add(&v->bytes_in, req_len);
	atomic_fetch_add(&v->bytes_out, resp_len);
	return (uint32_t) resp_len;
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
	p9_server_reset(v->srv);
	pthread_mutex_unlock(&v->lock);
}

static void v9p_free(struct vdev *dev)
{
	struct v9p *v = v9p_of(dev);

	if (!dev)
		return;
	p9_server_free(v->srv);
	free(v->req);
	free(v->resp);
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

int v9p_new(const char *tag, const char *dir, bool read_only, struct vdev **ret)
{
	struct v9p *v;
	size_t tag_len;
	int r;

	assert_return(tag && dir && ret, -EINVAL);
	tag_len = strlen(tag);
	if (tag_len == 0 || tag_len > V9P_TAG_MAX)
		return -EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	pthread_mutex_init(&v->lock, NULL);
	v->dev.ops = &v9p_ops;
	v->dev.n_queues = 1;
	v->dev.queues = &v->queue;
	v->dev.config_size = (uint32_t) (2 + tag_len);
	v->config[0] = (uint8_t) tag_len;
	v->config[1] = (uint8_t) (tag_len >> 8);
	memcpy(v->config + 2, tag, tag_len);
	v->req = malloc(P9_MSIZE_MAX);
	v->resp = malloc(P9_MSIZE_MAX);
	if (!v->req || !v->resp) {
		v9p_free(&v->dev);
		return -ENOMEM;
	}
	r = p9_server_new(dir, read_only, &v->srv);
	if (r < 0) {
		v9p_free(&v->dev);
		return r;
	}
	*ret = &v->dev;
	return 0;
}

void v9p_get_stats(struct vdev *dev, struct v9p_stats *ret)
{
	struct v9p *v = v9p_of(dev);

	*ret = (struct v9p_stats){
		.requests = atomic_load(&v->requests),
		.bad_chains = atomic_load(&v->bad_chains),
		.bytes_in = atomic_load(&v->bytes_in),
		.bytes_out = atomic_load(&v->bytes_out),
	};
}
