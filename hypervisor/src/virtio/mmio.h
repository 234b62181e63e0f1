/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-mmio transport, version 2 (virtio 1.x, 4.2; modern devices only).
 *
 * The transport owns the register file of one device window: feature negotiation, the status
 * state machine (including FAILED, DEVICE_NEEDS_RESET and reset on a 0 write), queue setup
 * (rings are validated with virtq_validate() when the driver sets QueueReady), the interrupt
 * status, and config space at 0x100. The device model behind it (struct vdev) never sees a
 * register.
 *
 * Wiring (done by the VMM): register [base, base + VTRANS_MMIO_SIZE) on the MMIO iobus with
 * vtrans_mmio_iobus_ops and the transport as opaque, and append vtrans_mmio_cmdline() to the
 * kernel command line.
 *
 * Kicks: each queue has an eventfd, bound with env->ioeventfd_bind(gpa = base + 0x50,
 * datamatch = queue index) and watched by env->loop. Its callback runs the device's
 * queue_notify on the event-loop thread. Without ioeventfd (bind NULL or failed), a QueueNotify
 * write signals the same eventfd, so queue_notify always runs on the event-loop thread. After
 * DRIVER_OK the transport signals every ready queue once, so kicks the driver sent before
 * DRIVER_OK are not lost.
 *
 * Interrupts: InterruptStatus bit 0 (used buffer) or 1 (config change, also NEEDS_RESET) is
 * set and env->irq is edge-triggered.
 *
 * Threads and locking: register accesses come from vCPU threads, queue notifications from the
 * event-loop thread. One mutex per transport serialises the register file (status, features,
 * selectors, the queues' setup fields) and every device op the transport calls: config
 * read/write, activate, reset and queue_notify; so a device never sees reset or activate
 * while one of its queue_notify runs. The interrupt status, the needs-reset flag and the config
 * generation are atomics, because devices raise them from inside queue_notify (lock held) or
 * from their own backend callbacks (lock not held); InterruptStatus reads and InterruptAck
 * writes do not take the mutex, so the guest's interrupt handler never waits for a
 * queue_notify in progress (a whole tx batch). The device's queue fields it does not set
 * up (last_avail, used_idx, ...) belong to the device; the transport resets them only after
 * the device's reset op returned.
 */

#include <stddef.h>
#include <stdint.h>

#include "base/gmem.h"
#include "base/iobus.h"
#include "base/irq.h"
#include "virtio/vdev.h"

#define VTRANS_MMIO_SIZE 0x200

struct evloop;
struct vtrans_mmio;

struct vtrans_mmio_env {
	const struct gmem *gm;
	struct evloop *loop;
	struct irq_line irq;
	/* Bind efd as an ioeventfd (4-byte write of datamatch at gpa). NULL: none. */
	int (*ioeventfd_bind)(void *ctx, uint64_t gpa, uint32_t datamatch, int efd);
	void *ctx;
};

/*
 * Attach dev behind a new transport at guest address base. dev stays owned by the caller and
 * must outlive the transport; the transport fills dev->transport and dev->loop. Creates one
 * eventfd per queue and adds it to env->loop (before the loop runs).
 */
int vtrans_mmio_new(const struct vtrans_mmio_env *env, struct vdev *dev, uint64_t base,
		    struct vtrans_mmio **ret);
/* Call with the event loop stopped. Accepts NULL; returns NULL. */
struct vtrans_mmio *vtrans_mmio_free(struct vtrans_mmio *t);

extern const struct iobus_ops vtrans_mmio_iobus_ops;

/*
 * Append " virtio_mmio.device=0x200@0x<base>:<gsi>" to the NUL-terminated string in buf (of
 * size len). -ENOSPC (buf unchanged) if it does not fit.
 */
int vtrans_mmio_cmdline(const struct vtrans_mmio *t, uint32_t gsi, char *buf, size_t len);
