/* SPDX-License-Identifier: Apache-2.0 */
/* virtio-mmio version 2 register file and state machine (see mmio.h for the thread model). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/log.h"
#include "base/evloop.h"
#include "virtio/mmio.h"

/* Register offsets (virtio 1.x, 4.2.2). */
enum {
	MMIO_MAGIC = 0x000,
	MMIO_VERSION = 0x004,
	MMIO_DEVICE_ID = 0x008,
	MMIO_VENDOR_ID = 0x00c,
	MMIO_DEVICE_FEATURES = 0x010,
	MMIO_DEVICE_FEATURES_SEL = 0x014,
	MMIO_DRIVER_FEATURES = 0x020,
	MMIO_DRIVER_FEATURES_SEL = 0x024,
	MMIO_QUEUE_SEL = 0x030,
	MMIO_QUEUE_NUM_MAX = 0x034,
	MMIO_QUEUE_NUM = 0x038,
	MMIO_QUEUE_READY = 0x044,
	MMIO_QUEUE_NOTIFY = 0x050,
	MMIO_INTERRUPT_STATUS = 0x060,
	MMIO_INTERRUPT_ACK = 0x064,
	MMIO_STATUS = 0x070,
	MMIO_QUEUE_DESC_LOW = 0x080,
	MMIO_QUEUE_DESC_HIGH = 0x084,
	MMIO_QUEUE_DRIVER_LOW = 0x090,
	MMIO_QUEUE_DRIVER_HIGH = 0x094,
	MMIO_QUEUE_DEVICE_LOW = 0x0a0,
	MMIO_QUEUE_DEVICE_HIGH = 0x0a4,
	MMIO_SHM_SEL = 0x0ac,
	MMIO_SHM_LEN_LOW = 0x0b0,
	MMIO_SHM_LEN_HIGH = 0x0b4,
	MMIO_SHM_BASE_LOW = 0x0b8,
	MMIO_SHM_BASE_HIGH = 0x0bc,
	MMIO_CONFIG_GENERATION = 0x0fc,
	MMIO_CONFIG = 0x100,
};

#define MMIO_MAGIC_VALUE 0x74726976u /* "virt" */
#define MMIO_VENDOR	 0x4d564343u /* "CCVM"; Linux drivers match any vendor */

/* Device status bits (virtio 1.x, 2.1). */
#define STATUS_ACKNOWLEDGE 1u
#define STATUS_DRIVER	   2u
#define STATUS_DRIVER_OK   4u
#define STATUS_FEATURES_OK 8u
#define STATUS_NEEDS_RESET 64u
#define STATUS_FAILED	   128u

#define ISR_USED   1u
#define ISR_CONFIG 2u

struct vtrans_mmio_queue {
	struct vtrans_mmio *t;
	unsigned index;
	int efd;
};

struct vtrans_mmio {
	struct vtrans_mmio_env env;
	struct vdev *dev;
	uint64_t base;
	uint64_t device_features;

	pthread_mutex_t lock; /* guards everything below up to the atomics, and device ops */
	uint32_t status;      /* driver-visible bits, without NEEDS_RESET */
	uint64_t driver_features;
	uint32_t device_features_sel;
	uint32_t driver_features_sel;
	uint32_t queue_sel;
	bool active; /* activate() succeeded, no reset since */

	atomic_uint isr;
	atomic_bool needs_reset;
	atomic_uint config_generation;

	struct vtrans_mmio_queue *queues; /* dev->n_queues entries */
};

static void vtrans_mmio_irq(struct vtrans_mmio *t, unsigned bit)
{
	atomic_fetch_or(&t->isr, bit);
	(void) irq_line_trigger(&t->env.irq);
}

static void vtrans_mmio_notify_used(void *opaque, unsigned q)
{
	(void) q;
	vtrans_mmio_irq(opaque, ISR_USED);
}

static void vtrans_mmio_notify_config(void *opaque)
{
	struct vtrans_mmio *t = opaque;

	atomic_fetch_add(&t->config_generation, 1);
	vtrans_mmio_irq(t, ISR_CONFIG);
}

static void vtrans_mmio_needs_reset(void *opaque)
{
	struct vtrans_mmio *t = opaque;

	if (atomic_exchange(&t->needs_reset, true))
		return;
	log_debug("virtio-mmio@0x%" PRIx64 ": device needs reset", t->base);
	vtrans_mmio_irq(t, ISR_CONFIG);
}

/* Event-loop thread: the driver kicked queue q (through ioeventfd or QueueNotify). */
static void vtrans_mmio_kick(void *userdata, uint32_t events)
{
	struct vtrans_mmio_queue *mq = userdata;
	struct vtrans_mmio *t = mq->t;
	struct vdev *dev = t->dev;
	uint64_t cnt;

	(void) events;
	(void) !read(mq->efd, &cnt, sizeof(cnt));
	pthread_mutex_lock(&t->lock);
	if (t->active && !(t->status & STATUS_FAILED) && !atomic_load(&t->needs_reset) &&
	    dev->queues[mq->index].ready && dev->ops->queue_notify)
		dev->ops->queue_notify(dev, mq->index);
	pthread_mutex_unlock(&t->lock);
}

static void vtrans_mmio_signal(struct vtrans_mmio_queue *mq)
{
	uint64_t one = 1;

	(void) !write(mq->efd, &one, sizeof(one));
}

static struct virtq *vtrans_mmio_selected(struct vtrans_mmio *t)
{
	return t->queue_sel < t->dev->n_queues ? &t->dev->queues[t->queue_sel] : NULL;
}

/* Called with the lock held. */
static void vtrans_mmio_reset(struct vtrans_mmio *t)
{
	struct vdev *dev = t->dev;

	/* The device first: after this it no longer touches its queues from any thread. */
	if (dev->ops->reset)
		dev->ops->reset(dev);
	for (unsigned i = 0; i < dev->n_queues; i++) {
		struct virtq *vq = &dev->queues[i];

		vq->ready = false;
		vq->num = 0;
		vq->desc_gpa = vq->avail_gpa = vq->used_gpa = 0;
		vq->event_idx = vq->indirect = false;
		vq->gm = t->env.gm;
		virtq_reset(vq);
	}
	t->status = 0;
	t->driver_features = 0;
	t->device_features_sel = t->driver_features_sel = 0;
	t->queue_sel = 0;
	t->active = false;
	atomic_store(&t->isr, 0);
	atomic_store(&t->needs_reset, false);
}

static void vtrans_mmio_queue_features(struct vtrans_mmio *t, struct virtq *vq)
{
	vq->event_idx = t->driver_features & (1ull << VIRTIO_F_EVENT_IDX);
	vq->indirect = t->driver_features & (1ull << VIRTIO_F_INDIRECT_DESC);
}

static bool vtrans_mmio_features_ok(const struct vtrans_mmio *t)
{
	if (t->driver_features & ~t->device_features)
		return false; /* the driver took something we did not offer */
	return t->driver_features & (1ull << VIRTIO_F_VERSION_1);
}

static void vtrans_mmio_activate(struct vtrans_mmio *t)
{
	struct vdev *dev = t->dev;
	int r;

	for (unsigned i = 0; i < dev->n_queues; i++)
		vtrans_mmio_queue_features(t, &dev->queues[i]);
	r = dev->ops->activate ? dev->ops->activate(dev, t->driver_features) : 0;
	if (r != 0) {
		log_debug("virtio-mmio@0x%" PRIx64 ": activate failed: %d", t->base, r);
		vtrans_mmio_needs_reset(t);
		return;
	}
	t->active = true;
	for (unsigned i = 0; i < dev->n_queues; i++)
		if (dev->queues[i].ready)
			vtrans_mmio_signal(&t->queues[i]);
}

/*
 * A status write. Bits only ever get added, in order (ACKNOWLEDGE, DRIVER, FEATURES_OK,
 * DRIVER_OK); clearing needs a reset (0). FAILED is always taken. FEATURES_OK sticks only when
 * the negotiated features are acceptable; the driver reads it back to find out.
 */
static void vtrans_mmio_status_write(struct vtrans_mmio *t, uint32_t v)
{
	uint32_t old = t->status, added;

	if (v == 0) {
		vtrans_mmio_reset(t);
		return;
	}
	if (v & STATUS_FAILED)
		t->status |= STATUS_FAILED;
	/* NEEDS_RESET is device-owned; undefined bits are dropped. */
	v &= STATUS_ACKNOWLEDGE | STATUS_DRIVER | STATUS_FEATURES_OK | STATUS_DRIVER_OK;
	if ((v & old) != (old & ~STATUS_FAILED))
		return; /* tries to clear a bit */
	added = v & ~old;
	if (((added & STATUS_DRIVER) && !(v & STATUS_ACKNOWLEDGE)) ||
	    ((added & STATUS_FEATURES_OK) && !(v & STATUS_DRIVER)) ||
	    ((added & STATUS_DRIVER_OK) && !(v & STATUS_FEATURES_OK)))
		return; /* out of order */
	if ((added & STATUS_FEATURES_OK) && !vtrans_mmio_features_ok(t))
		v &= ~STATUS_FEATURES_OK;
	if ((added & STATUS_DRIVER_OK) && !(v & STATUS_FEATURES_OK))
		v &= ~STATUS_DRIVER_OK;
	t->status = (t->status & STATUS_FAILED) | v;
	if ((added & STATUS_DRIVER_OK) && (t->status & STATUS_DRIVER_OK) &&
	    !(t->status & STATUS_FAILED) && !atomic_load(&t->needs_reset))
		vtrans_mmio_activate(t);
}

static void vtrans_mmio_queue_ready(struct vtrans_mmio *t, struct virtq *vq, uint32_t v)
{
	int r;

	if (v == 0) {
		vq->ready = false;
		return;
	}
	if (vq->ready)
		return;
	vq->gm = t->env.gm;
	r = virtq_validate(vq);
	if (r < 0) {
		log_debug("virtio-mmio@0x%" PRIx64 ": queue %u refused: %d", t->base, t->queue_sel,
			  r);
		vtrans_mmio_needs_reset(t);
		return;
	}
	vtrans_mmio_queue_features(t, vq);
	virtq_reset(vq);
	vq->ready = true;
}

static void vtrans_mmio_set_half(uint64_t *v, uint32_t half, bool high)
{
	if (high)
		*v = (*v & 0xffffffffull) | ((uint64_t) half << 32);
	else
		*v = (*v & ~0xffffffffull) | half;
}

/* Queue setup registers: only while the selected queue is off and DRIVER_OK is not set. */
static void vtrans_mmio_queue_write(struct vtrans_mmio *t, uint64_t off, uint32_t v)
{
	struct virtq *vq = vtrans_mmio_selected(t);

	if (!vq || (t->status & STATUS_DRIVER_OK))
		return;
	if (off == MMIO_QUEUE_READY) {
		vtrans_mmio_queue_ready(t, vq, v);
		return;
	}
	if (vq->ready)
		return;
	switch (off) {
	case MMIO_QUEUE_NUM:
		/* An invalid size is kept as 0, so that QueueReady refuses it. */
		vq->num = v <= vdev_queue_max(t->dev, t->queue_sel) ? (uint16_t) v : 0;
		break;
	case MMIO_QUEUE_DESC_LOW:
	case MMIO_QUEUE_DESC_HIGH:
		vtrans_mmio_set_half(&vq->desc_gpa, v, off == MMIO_QUEUE_DESC_HIGH);
		break;
	case MMIO_QUEUE_DRIVER_LOW:
	case MMIO_QUEUE_DRIVER_HIGH:
		vtrans_mmio_set_half(&vq->avail_gpa, v, off == MMIO_QUEUE_DRIVER_HIGH);
		break;
	case MMIO_QUEUE_DEVICE_LOW:
	case MMIO_QUEUE_DEVICE_HIGH:
		vtrans_mmio_set_half(&vq->used_gpa, v, off == MMIO_QUEUE_DEVICE_HIGH);
		break;
	default:
		break;
	}
}

/* Called with the lock held. InterruptAck never gets here (vtrans_mmio_write). */
static void vtrans_mmio_reg_write(struct vtrans_mmio *t, uint64_t off, uint32_t v)
{
	switch (off) {
	case MMIO_DEVICE_FEATURES_SEL:
		t->device_features_sel = v;
		break;
	case MMIO_DRIVER_FEATURES_SEL:
		t->driver_features_sel = v;
		break;
	case MMIO_DRIVER_FEATURES:
		/* Only during negotiation; the upper selector values name no features. */
		if ((t->status & STATUS_DRIVER) && !(t->status & STATUS_FEATURES_OK) &&
		    t->driver_features_sel < 2)
			vtrans_mmio_set_half(&t->driver_features, v, t->driver_features_sel == 1);
		break;
	case MMIO_QUEUE_SEL:
		t->queue_sel = v;
		break;
	case MMIO_STATUS:
		vtrans_mmio_status_write(t, v);
		break;
	default:
		vtrans_mmio_queue_write(t, off, v);
		break;
	}
}

/* Called with the lock held. InterruptStatus never gets here (vtrans_mmio_read). */
static uint32_t vtrans_mmio_reg_read(struct vtrans_mmio *t, uint64_t off)
{
	struct virtq *vq = vtrans_mmio_selected(t);

	switch (off) {
	case MMIO_MAGIC:
		return MMIO_MAGIC_VALUE;
	case MMIO_VERSION:
		return 2;
	case MMIO_DEVICE_ID:
		return t->dev->ops->device_id;
	case MMIO_VENDOR_ID:
		return MMIO_VENDOR;
	case MMIO_DEVICE_FEATURES:
		if (t->device_features_sel >= 2)
			return 0;
		return (uint32_t) (t->device_features >> (32 * t->device_features_sel));
	case MMIO_QUEUE_NUM_MAX:
		return vq ? vdev_queue_max(t->dev, t->queue_sel) : 0;
	case MMIO_QUEUE_READY:
		return vq ? vq->ready : 0;
	case MMIO_STATUS:
		return t->status | (atomic_load(&t->needs_reset) ? STATUS_NEEDS_RESET : 0);
	case MMIO_CONFIG_GENERATION:
		return atomic_load(&t->config_generation);
	case MMIO_SHM_LEN_LOW:
	case MMIO_SHM_LEN_HIGH:
	case MMIO_SHM_BASE_LOW:
	case MMIO_SHM_BASE_HIGH:
		return 0xffffffff; /* no shared memory regions: all ones, whatever SHMSel says */
	default:
		return 0; /* write-only or reserved */
	}
}

static bool vtrans_mmio_config_range(const struct vtrans_mmio *t, uint64_t off, uint32_t len)
{
	uint64_t size = MIN((uint64_t) t->dev->config_size, VTRANS_MMIO_SIZE - MMIO_CONFIG);

	return len > 0 && len <= 8 && off >= MMIO_CONFIG && off - MMIO_CONFIG <= size &&
	       len <= size - (off - MMIO_CONFIG);
}

static void vtrans_mmio_read(void *opaque, uint64_t off, void *data, uint32_t len)
{
	struct vtrans_mmio *t = opaque;
	uint32_t v;

	memset(data, 0, len);
	if (off >= MMIO_CONFIG) {
		if (!vtrans_mmio_config_range(t, off, len) || !t->dev->ops->config_read)
			return;
		pthread_mutex_lock(&t->lock);
		t->dev->ops->config_read(t->dev, (uint32_t) (off - MMIO_CONFIG), data, len);
		pthread_mutex_unlock(&t->lock);
		return;
	}
	if (len != 4 || off % 4 != 0)
		return; /* registers are 32-bit wide and aligned */
	if (off == MMIO_INTERRUPT_STATUS) {
		/* An atomic: never wait behind a queue_notify (see vtrans_mmio_write). */
		v = atomic_load(&t->isr);
		memcpy(data, &v, sizeof(v));
		return;
	}
	pthread_mutex_lock(&t->lock);
	v = vtrans_mmio_reg_read(t, off);
	pthread_mutex_unlock(&t->lock);
	memcpy(data, &v, sizeof(v));
}

static void vtrans_mmio_write(void *opaque, uint64_t off, const void *data, uint32_t len)
{
	struct vtrans_mmio *t = opaque;
	uint32_t v;

	if (off >= MMIO_CONFIG) {
		if (!vtrans_mmio_config_range(t, off, len) || !t->dev->ops->config_write)
			return;
		pthread_mutex_lock(&t->lock);
		t->dev->ops->config_write(t->dev, (uint32_t) (off - MMIO_CONFIG), data, len);
		pthread_mutex_unlock(&t->lock);
		return;
	}
	if (len != 4 || off % 4 != 0)
		return;
	memcpy(&v, data, sizeof(v));
	if (off == MMIO_QUEUE_NOTIFY) {
		/* Reached only without ioeventfd: hand the kick to the event-loop thread. */
		if (v < t->dev->n_queues)
			vtrans_mmio_signal(&t->queues[v]);
		return;
	}
	if (off == MMIO_INTERRUPT_ACK) {
		/*
		 * The guest's interrupt handler reads InterruptStatus and writes InterruptAck for
		 * every used-buffer interrupt. Both are atomics, so they do not take the lock that
		 * queue_notify holds for a whole batch (a tx batch writes every frame to the tap):
		 * the vCPU would sit in the handler until the batch ends, and the guest could
		 * neither free its sent buffers nor queue new ones meanwhile.
		 */
		atomic_fetch_and(&t->isr, ~v);
		return;
	}
	pthread_mutex_lock(&t->lock);
	vtrans_mmio_reg_write(t, off, v);
	pthread_mutex_unlock(&t->lock);
}

const struct iobus_ops vtrans_mmio_iobus_ops = {
	.read = vtrans_mmio_read,
	.write = vtrans_mmio_write,
};

static int vtrans_mmio_queue_init(struct vtrans_mmio *t, unsigned i)
{
	struct vtrans_mmio_queue *mq = &t->queues[i];
	int r;

	mq->t = t;
	mq->index = i;
	mq->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (mq->efd < 0)
		return -errno;
	if (t->env.loop) {
		r = evloop_add(t->env.loop, mq->efd, EPOLLIN, vtrans_mmio_kick, mq);
		if (r < 0) {
			mq->efd = safe_close(mq->efd);
			return r;
		}
	}
	if (t->env.ioeventfd_bind) {
		r = t->env.ioeventfd_bind(t->env.ctx, t->base + MMIO_QUEUE_NOTIFY, i, mq->efd);
		if (r < 0) /* QueueNotify writes then reach us and take the same path */
			log_debug("virtio-mmio@0x%" PRIx64 ": no ioeventfd for queue %u: %d",
				  t->base, i, r);
	}
	return 0;
}

static void vtrans_mmio_freep(struct vtrans_mmio **t)
{
	vtrans_mmio_free(*t);
}

int vtrans_mmio_new(const struct vtrans_mmio_env *env, struct vdev *dev, uint64_t base,
		    struct vtrans_mmio **ret)
{
	_cleanup_(vtrans_mmio_freep) struct vtrans_mmio *t = NULL;
	uint64_t end;
	int r;

	assert_return(env && env->gm && env->irq.ops && dev && dev->ops && ret, -EINVAL);
	assert_return(dev->n_queues == 0 || dev->queues, -EINVAL);
	assert_return(!add_overflows_u64(base, VTRANS_MMIO_SIZE, &end), -EINVAL);

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->env = *env;
	t->dev = dev;
	t->base = base;
	t->device_features = (dev->ops->get_features ? dev->ops->get_features(dev) : 0) |
			     (1ull << VIRTIO_F_VERSION_1) | (1ull << VIRTIO_F_EVENT_IDX) |
			     (1ull << VIRTIO_F_INDIRECT_DESC);
	pthread_mutex_init(&t->lock, NULL);
	t->queues = calloc(dev->n_queues ? dev->n_queues : 1, sizeof(*t->queues));
	if (!t->queues)
		return -ENOMEM;
	for (unsigned i = 0; i < dev->n_queues; i++)
		t->queues[i].efd = -1;
	for (unsigned i = 0; i < dev->n_queues; i++) {
		r = vtrans_mmio_queue_init(t, i);
		if (r < 0)
			return r;
	}
	dev->transport = (struct vdev_transport){
		.notify_used = vtrans_mmio_notify_used,
		.notify_config = vtrans_mmio_notify_config,
		.needs_reset = vtrans_mmio_needs_reset,
		.opaque = t,
	};
	dev->loop = env->loop;
	for (unsigned i = 0; i < dev->n_queues; i++) {
		memset(&dev->queues[i], 0, sizeof(dev->queues[i]));
		dev->queues[i].gm = env->gm;
	}
	*ret = TAKE_PTR(t);
	return 0;
}

struct vtrans_mmio *vtrans_mmio_free(struct vtrans_mmio *t)
{
	if (!t)
		return NULL;
	if (t->queues) {
		for (unsigned i = 0; i < t->dev->n_queues; i++) {
			if (t->queues[i].efd < 0)
				continue;
			if (t->env.loop)
				(void) evloop_remove(t->env.loop, t->queues[i].efd);
			safe_close(t->queues[i].efd);
		}
		free(t->queues);
	}
	pthread_mutex_destroy(&t->lock);
	free(t);
	return NULL;
}

int vtrans_mmio_cmdline(const struct vtrans_mmio *t, uint32_t gsi, char *buf, size_t len)
{
	size_t used;
	int n;

	assert_return(t && buf && len > 0, -EINVAL);
	used = strnlen(buf, len);
	if (used == len)
		return -EINVAL; /* not terminated */
	n = snprintf(buf + used, len - used, " virtio_mmio.device=0x%x@0x%" PRIx64 ":%" PRIu32,
		     VTRANS_MMIO_SIZE, t->base, gsi);
	if (n < 0 || (size_t) n >= len - used) {
		buf[used] = '\0';
		return -ENOSPC;
	}
	return 0;
}
