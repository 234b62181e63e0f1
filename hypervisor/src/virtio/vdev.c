/* SPDX-License-Identifier: Apache-2.0 */
#include "virtio/vdev.h"

void vdev_queue_done(struct vdev *dev, unsigned q)
{
	struct virtq *vq;

	if (!dev || q >= dev->n_queues)
		return;
	vq = &dev->queues[q];
	if (vq->broken) {
		vdev_fail(dev);
		return;
	}
	if (virtq_should_notify(vq) && dev->transport.notify_used)
		dev->transport.notify_used(dev->transport.opaque, q);
}

void vdev_fail(struct vdev *dev)
{
	if (dev && dev->transport.needs_reset)
		dev->transport.needs_reset(dev->transport.opaque);
}

uint16_t vdev_queue_max(const struct vdev *dev, unsigned q)
{
	uint16_t m = dev->ops->queue_max_of ? dev->ops->queue_max_of(dev, q) : 0;

	if (!m)
		m = dev->ops->queue_max;

	return m && m <= VIRTQ_MAX_SIZE ? m : VIRTQ_MAX_SIZE;
}
