/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blk/blkbe-raw.h"
#include "blk/vblk.h"
#include "cc/macro.h"

/*
 * Threads: config_read runs on a vCPU thread and only reads config[], which is immutable after
 * creation. queue_notify runs on the event-loop thread and owns chain, stats and the backend.
 * activate/reset run with the device quiesced by the transport.
 */
struct vblk {
	struct vdev dev; /* first: the ops get &dev */
	struct virtq vq;
	struct blk_backend *be;
	uint8_t config[VBLK_CONFIG_SIZE];
	struct vblk_req_stats stats;
	struct virtq_chain chain;
};

static struct vblk *to_vblk(struct vdev *dev)
{
	return (struct vblk *) dev;
}

static uint64_t vblk_get_features(struct vdev *dev)
{
	struct vblk *b = to_vblk(dev);
	uint64_t f = (1ull << VIRTIO_BLK_F_SEG_MAX) | (1ull << VIRTIO_BLK_F_BLK_SIZE) |
		     (1ull << VIRTIO_BLK_F_FLUSH);

	if (b->be->read_only)
		f |= 1ull << VIRTIO_BLK_F_RO;
	else
		f |= 1ull << VIRTIO_BLK_F_DISCARD;
	return f;
}

static void vblk_config_read(struct vdev *dev, uint32_t off, void *data, uint32_t len)
{
	struct vblk *b = to_vblk(dev);

	if (off > sizeof(b->config) || len > sizeof(b->config) - off) {
		memset(data, 0, len);
		return;
	}
	memcpy(data, b->config + off, len);
}

static void vblk_config_write(struct vdev *dev, uint32_t off, const void *data, uint32_t len)
{
	/* Nothing is writable without CONFIG_WCE. */
	(void) dev;
	(void) off;
	(void) data;
	(void) len;
}

static int vblk_activate(struct vdev *dev, uint64_t acked_features)
{
	(void) acked_features;
	return to_vblk(dev)->vq.ready ? 0 : -EINVAL;
}

static void vblk_queue_notify(struct vdev *dev, unsigned q)
{
	struct vblk *b = to_vblk(dev);

	if (q != 0)
		return;
	for (;;) {
		int r = virtq_pop(&b->vq, &b->chain);

		if (r == 0)
			break;
		if (r < 0) {
			b->stats.malformed++;
			if (b->chain.head == VIRTQ_NO_HEAD)
				break; /* the queue is broken: vdev_queue_done() fails the device */
			(void) virtq_push(&b->vq, b->chain.head, 0);
			continue;
		}
		r = vblk_req_handle(b->be, &b->chain, &b->stats);
		(void) virtq_push(&b->vq, b->chain.head, r < 0 ? 0 : (uint32_t) r);
	}
	vdev_queue_done(dev, 0);
}

static void vblk_reset(struct vdev *dev)
{
	/* Requests complete synchronously: nothing is in flight. */
	(void) dev;
}

static void vblk_free(struct vdev *dev)
{
	struct vblk *b;

	if (!dev)
		return;
	b = to_vblk(dev);
	blk_backend_close(b->be);
	free(b);
}

static const struct vdev_ops vblk_ops = {
	.device_id = VIRTIO_ID_BLOCK,
	.queue_max = 256,
	.get_features = vblk_get_features,
	.config_read = vblk_config_read,
	.config_write = vblk_config_write,
	.activate = vblk_activate,
	.queue_notify = vblk_queue_notify,
	.reset = vblk_reset,
	.free = vblk_free,
};

static void put_le32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void vblk_build_config(struct vblk *b)
{
	uint64_t capacity = b->be->size / BLK_SECTOR_SIZE;
	uint32_t align = MAX(b->be->block_size / BLK_SECTOR_SIZE, 1u);

	memcpy(b->config + 0, &capacity, 8);		    /* capacity */
	put_le32(b->config + 12, VIRTQ_CHAIN_MAX - 2);	    /* seg_max: minus header, status */
	put_le32(b->config + 20, BLK_SECTOR_SIZE);	    /* blk_size */
	put_le32(b->config + 36, VBLK_MAX_DISCARD_SECTORS); /* max_discard_sectors */
	put_le32(b->config + 40, VBLK_MAX_DISCARD_SEG);	    /* max_discard_seg */
	put_le32(b->config + 44, align);		    /* discard_sector_alignment */
}

int vblk_new_with_backend(struct blk_backend *be, struct vdev **ret)
{
	struct vblk *b;

	if (!be)
		return -EINVAL;
	if (!ret) {
		blk_backend_close(be);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		blk_backend_close(be);
		return -ENOMEM;
	}
	b->be = be;
	b->dev = (struct vdev){
		.ops = &vblk_ops,
		.n_queues = 1,
		.queues = &b->vq,
		.config_size = VBLK_CONFIG_SIZE,
	};
	vblk_build_config(b);
	*ret = &b->dev;
	return 0;
}

int vblk_new(const char *path, bool read_only, struct vdev **ret)
{
	struct blk_backend *be;
	int r;

	assert_return(path && ret, -EINVAL);
	r = blkbe_raw_open(path, read_only, &be);
	if (r < 0)
		return r;
	return vblk_new_with_backend(be, ret);
}

void vblk_get_stats(struct vdev *dev, struct vblk_req_stats *ret)
{
	*ret = to_vblk(dev)->stats;
}

int vblk_spec_parse(const char *spec, char **ret_path, bool *ret_read_only)
{
	size_t len;
	bool ro = false;
	char *path;

	assert_return(spec && ret_path && ret_read_only, -EINVAL);
	len = strlen(spec);
	if (len >= 3 && strcmp(spec + len - 3, ",ro") == 0) {
		ro = true;
		len -= 3;
	}
	if (len == 0)
		return -EINVAL;
	path = strndup(spec, len);
	if (!path)
		return -ENOMEM;
	*ret_path = path;
	*ret_read_only = ro;
	return 0;
}
