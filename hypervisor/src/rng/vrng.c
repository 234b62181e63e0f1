/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

#include "cc/macro.h"
#include "rng/vrng.h"

/* Threads: everything but creation runs on the event-loop thread (queue_notify). */
struct vrng {
	struct vdev dev; /* first: the ops get &dev */
	struct virtq vq;
	vrng_source_fn source;
	uint64_t bytes;
	struct virtq_chain chain;
};

static struct vrng *to_vrng(struct vdev *dev)
{
	return (struct vrng *) dev;
}

static uint64_t vrng_get_features(struct vdev *dev)
{
	(void) dev;
	return 0;
}

static void vrng_config_read(struct vdev *dev, uint32_t off, void *data, uint32_t len)
{
	(void) dev;
	(void) off;
	for (uint32_t i = 0; i < len; i++)
		((uint8_t *) data)[i] = 0;
}

static void vrng_config_write(struct vdev *dev, uint32_t off, const void *data, uint32_t len)
{
	(void) dev;
	(void) off;
	(void) data;
	(void) len;
}

static int vrng_activate(struct vdev *dev, uint64_t acked_features)
{
	(void) acked_features;
	return to_vrng(dev)->vq.ready ? 0 : -EINVAL;
}

/* Fill the chain's writable buffers, up to VRNG_MAX_REQ bytes; returns the bytes written. */
static uint32_t vrng_fill(struct vrng *g, const struct virtq_chain *chain)
{
	const struct iovec *in = chain->iov + chain->n_out;
	size_t left = VRNG_MAX_REQ, done = 0;

	for (unsigned i = 0; i < chain->n_in && left > 0; i++) {
		size_t want = MIN(in[i].iov_len, left), got = 0;

		while (got < want) {
			ssize_t k = g->source((uint8_t *) in[i].iov_base + got, want - got,
					      GRND_NONBLOCK);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return (uint32_t) (done +
						   got); /* pool not ready: give what we have */
			got += (size_t) k;
		}
		done += got;
		left -= got;
	}
	return (uint32_t) done;
}

static void vrng_queue_notify(struct vdev *dev, unsigned q)
{
	struct vrng *g = to_vrng(dev);

	if (q != 0)
		return;
	for (;;) {
		uint32_t written = 0;
		int r = virtq_pop(&g->vq, &g->chain);

		if (r == 0)
			break;
		if (r < 0 && g->chain.head == VIRTQ_NO_HEAD)
			break; /* broken queue: vdev_queue_done() fails the device */
		if (r > 0)
			written = vrng_fill(g, &g->chain);
		g->bytes += written;
		(void) virtq_push(&g->vq, g->chain.head, written);
	}
	vdev_queue_done(dev, 0);
}

static void vrng_reset(struct vdev *dev)
{
	(void) dev;
}

static void vrng_free(struct vdev *dev)
{
	free(dev ? to_vrng(dev) : NULL);
}

static const struct vdev_ops vrng_ops = {
	.device_id = VIRTIO_ID_RNG,
	.queue_max = 64,
	.get_features = vrng_get_features,
	.config_read = vrng_config_read,
	.config_write = vrng_config_write,
	.activate = vrng_activate,
	.queue_notify = vrng_queue_notify,
	.reset = vrng_reset,
	.free = vrng_free,
};

int vrng_new_with_source(vrng_source_fn source, struct vdev **ret)
{
	struct vrng *g;

	assert_return(source && ret, -EINVAL);
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->source = source;
	g->dev = (struct vdev){
		.ops = &vrng_ops,
		.n_queues = 1,
		.queues = &g->vq,
		.config_size = 0,
	};
	*ret = &g->dev;
	return 0;
}

static ssize_t vrng_getrandom(void *buf, size_t len, unsigned flags)
{
	return getrandom(buf, len, flags);
}

int vrng_new(struct vdev **ret)
{
	return vrng_new_with_source(vrng_getrandom, ret);
}

uint64_t vrng_get_bytes(struct vdev *dev)
{
	return to_vrng(dev)->bytes;
}
