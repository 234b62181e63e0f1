/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "balloon/vballoon.h"
#include "cc/macro.h"

#define VBALLOON_N_QUEUES 3
#define VBALLOON_CHUNK	  4096u /* bytes of PFN array parsed at a time (a multiple of 4) */

struct vballoon {
	struct vdev dev; /* first: the ops get &dev */
	struct virtq vqs[VBALLOON_N_QUEUES];
	struct balloon_map map;
	bool offer_reporting;
	bool reporting; /* acked; set by activate, under the transport's lock */
	balloon_discard_fn discard;
	void *discard_opaque;

	atomic_uint num_pages;
	atomic_uint actual;
	atomic_uint_fast64_t inflated, deflated, reported, discarded, refused, failed;

	struct virtq_chain chain;
	uint8_t buf[VBALLOON_CHUNK];
};

static struct vballoon *to_vballoon(struct vdev *dev)
{
	return (struct vballoon *) dev;
}

static int vballoon_madvise(void *hva, size_t len, void *opaque)
{
	(void) opaque;
	/* DONTNEED, not FREE: the pages leave RSS now, not when the host runs short. */
	return RET_NERRNO(madvise(hva, len, MADV_DONTNEED));
}

static uint64_t vballoon_get_features(struct vdev *dev)
{
	uint64_t f = 1ull << VIRTIO_BALLOON_F_DEFLATE_ON_OOM;

	if (to_vballoon(dev)->offer_reporting)
		f |= 1ull << VIRTIO_BALLOON_F_REPORTING;
	return f;
}

static void vballoon_config_bytes(struct vballoon *b, uint8_t cfg[VBALLOON_CONFIG_SIZE])
{
	uint32_t v[2] = {atomic_load(&b->num_pages), atomic_load(&b->actual)};

	for (unsigned i = 0; i < 2; i++)
		for (unsigned k = 0; k < 4; k++)
			cfg[4 * i + k] = (uint8_t) (v[i] >> (8 * k));
}

static void vballoon_config_read(struct vdev *dev, uint32_t off, void *data, uint32_t len)
{
	uint8_t cfg[VBALLOON_CONFIG_SIZE];

	vballoon_config_bytes(to_vballoon(dev), cfg);
	for (uint32_t i = 0; i < len; i++)
		((uint8_t *) data)[i] = off + i < sizeof(cfg) ? cfg[off + i] : 0;
}

/* Only `actual` (bytes 4-7) is the driver's; writes to num_pages are ignored. */
static void vballoon_config_write(struct vdev *dev, uint32_t off, const void *data, uint32_t len)
{
	struct vballoon *b = to_vballoon(dev);
	uint8_t cfg[VBALLOON_CONFIG_SIZE];
	uint32_t actual = 0;

	vballoon_config_bytes(b, cfg);
	for (uint32_t i = 0; i < len; i++)
		if (off + i >= 4 && off + i < sizeof(cfg))
			cfg[off + i] = ((const uint8_t *) data)[i];
	for (unsigned k = 0; k < 4; k++)
		actual |= (uint32_t) cfg[4 + k] << (8 * k);
	atomic_store(&b->actual, actual);
}

static int vballoon_activate(struct vdev *dev, uint64_t acked_features)
{
	struct vballoon *b = to_vballoon(dev);

	b->reporting = acked_features & (1ull << VIRTIO_BALLOON_F_REPORTING);
	if (!b->vqs[VBALLOON_Q_INFLATE].ready || !b->vqs[VBALLOON_Q_DEFLATE].ready)
		return -EINVAL;
	if (b->reporting && !b->vqs[VBALLOON_Q_REPORTING].ready)
		return -EINVAL;
	return 0;
}

/* Parse the chain's readable part as a PFN array, VBALLOON_CHUNK bytes at a time. */
static void vballoon_inflate(struct vballoon *b, struct balloon_sink *sink, bool inflate)
{
	const struct virtq_chain *c = &b->chain;
	uint64_t len = MIN(c->out_len, (uint64_t) VBALLOON_PFNS_MAX * 4);
	uint64_t pfns = 0;

	if (c->n_in > 0 || c->out_len > len)
		sink->refused++;
	if (!inflate) {
		atomic_fetch_add(&b->deflated, len / 4);
		if (len % 4)
			sink->refused++;
		return;
	}
	for (uint64_t off = 0; off < len; off += VBALLOON_CHUNK) {
		size_t n = iov_to_buf(c->iov, c->n_out, (size_t) off, b->buf,
				      (size_t) MIN(len - off, VBALLOON_CHUNK));

		pfns += balloon_pfns_discard(&b->map, b->buf, n, sink);
	}
	atomic_fetch_add(&b->inflated, pfns);
}

/* Every device-writable buffer of the chain is one free range. */
static void vballoon_report(struct vballoon *b, struct balloon_sink *sink)
{
	const struct virtq_chain *c = &b->chain;
	const struct iovec *in = c->iov + c->n_out;

	if (c->n_out > 0)
		sink->refused++;
	for (unsigned i = 0; i < c->n_in; i++) {
		atomic_fetch_add(&b->reported, in[i].iov_len);
		(void) balloon_map_discard_hva(&b->map, in[i].iov_base, in[i].iov_len, sink);
	}
}

static void vballoon_queue_notify(struct vdev *dev, unsigned q)
{
	struct vballoon *b = to_vballoon(dev);
	struct balloon_sink sink = {.discard = b->discard, .opaque = b->discard_opaque};
	struct virtq *vq;

	if (q >= dev->n_queues || (q == VBALLOON_Q_REPORTING && !b->reporting))
		return;
	vq = &b->vqs[q];
	for (;;) {
		int r = virtq_pop(vq, &b->chain);

		if (r == 0)
			break;
		if (r < 0 && b->chain.head == VIRTQ_NO_HEAD)
			break; /* broken queue: vdev_queue_done() fails the device */
		if (r < 0)
			sink.refused++;
		else if (q == VBALLOON_Q_REPORTING)
			vballoon_report(b, &sink);
		else
			vballoon_inflate(b, &sink, q == VBALLOON_Q_INFLATE);
		(void) virtq_push(vq, b->chain.head, 0);
	}
	atomic_fetch_add(&b->discarded, sink.discarded);
	atomic_fetch_add(&b->refused, sink.refused);
	atomic_fetch_add(&b->failed, sink.failed);
	vdev_queue_done(dev, q);
}

static void vballoon_reset(struct vdev *dev)
{
	struct vballoon *b = to_vballoon(dev);

	b->reporting = false;
	atomic_store(&b->actual, 0);
}

static void vballoon_free(struct vdev *dev)
{
	free(dev ? to_vballoon(dev) : NULL);
}

static const struct vdev_ops vballoon_ops = {
	.device_id = VIRTIO_ID_BALLOON,
	.queue_max = 128,
	.get_features = vballoon_get_features,
	.config_read = vballoon_config_read,
	.config_write = vballoon_config_write,
	.activate = vballoon_activate,
	.queue_notify = vballoon_queue_notify,
	.reset = vballoon_reset,
	.free = vballoon_free,
};

int vballoon_new(const struct vballoon_config *cfg, struct vdev **ret)
{
	struct vballoon *b;

	assert_return(cfg && cfg->map && ret, -EINVAL);
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->map = *cfg->map;
	b->offer_reporting = cfg->reporting;
	b->discard = cfg->discard ? cfg->discard : vballoon_madvise;
	b->discard_opaque = cfg->discard_opaque;
	b->dev = (struct vdev){
		.ops = &vballoon_ops,
		.n_queues = cfg->reporting ? 3 : 2,
		.queues = b->vqs,
		.config_size = VBALLOON_CONFIG_SIZE,
	};
	*ret = &b->dev;
	return 0;
}

void vballoon_set_target(struct vdev *dev, uint32_t pages)
{
	struct vballoon *b = to_vballoon(dev);

	if (atomic_exchange(&b->num_pages, pages) != pages && dev->transport.notify_config)
		dev->transport.notify_config(dev->transport.opaque);
}

void vballoon_get_stats(struct vdev *dev, struct vballoon_stats *ret)
{
	struct vballoon *b = to_vballoon(dev);

	*ret = (struct vballoon_stats){
		.inflated_pages = atomic_load(&b->inflated),
		.deflated_pages = atomic_load(&b->deflated),
		.reported_bytes = atomic_load(&b->reported),
		.discarded_bytes = atomic_load(&b->discarded),
		.refused = atomic_load(&b->refused),
		.failed = atomic_load(&b->failed),
		.actual = atomic_load(&b->actual),
	};
}
