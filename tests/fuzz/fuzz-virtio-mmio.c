/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz the virtio-mmio register file and the virtio-console behind it, as a hostile driver
 * would drive them: any sequence of register reads and writes of any width, kicks, and guest
 * memory (rings, descriptors, buffers) with any content.
 *
 * Input: an 8 KiB guest memory image (guest physical [0, 8K); missing bytes are zero; the
 * guest also has a read-only page at 0x10000, all zero), then 6-byte operations:
 *   [0] op: bits 0-1: 0 read, 1 write, 2 kick queue (value % 2), 3 access of width
 *       1 << (value % 4) (a read if bit 2 of op is set)
 *   [1] register offset / 2 (0x000..0x1fe)
 *   [2..5] value (le32)
 * A kick runs the device's queue_notify directly (single-threaded; no event loop), as the
 * event-loop thread would after an ioeventfd. Console output goes to /dev/null.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/gmem.h"
#include "console/console.h"
#include "virtio/mmio.h"

#define MEM_SIZE 0x2000u
#define RO_GPA	 0x10000u
#define OPS_MAX	 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_irq(void *opaque)
{
	(void) opaque;
	return 0;
}

static const struct irq_line_ops fuzz_irq_ops = {.trigger = fuzz_irq};

static void fuzz_op(struct vtrans_mmio *t, struct vdev *dev, const uint8_t *op)
{
	uint64_t off = (uint64_t) op[1] * 2;
	uint32_t v = (uint32_t) op[2] | (uint32_t) op[3] << 8 | (uint32_t) op[4] << 16 |
		     (uint32_t) op[5] << 24;
	uint8_t buf[8];
	uint32_t len;

	switch (op[0] & 3) {
	case 0:
		vtrans_mmio_iobus_ops.read(t, off, buf, 4);
		break;
	case 1:
		vtrans_mmio_iobus_ops.write(t, off, &v, 4);
		break;
	case 2:
		/* What the transport's kick callback does, minus the event loop. */
		if (dev->queues[v % 2].ready)
			dev->ops->queue_notify(dev, v % 2);
		break;
	default:
		len = 1u << (v % 4);
		if (off + len > VTRANS_MMIO_SIZE)
			break; /* the iobus never routes an access across the window's end */
		memset(buf, (int) (v >> 8), sizeof(buf));
		if (op[0] & 4)
			vtrans_mmio_iobus_ops.read(t, off, buf, len);
		else
			vtrans_mmio_iobus_ops.write(t, off, buf, len);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int null_fd = -1;
	struct vtrans_mmio_env env;
	struct vtrans_mmio *t = NULL;
	struct vdev *dev = NULL;
	uint8_t *mem, *ro;
	struct gmem gm;
	size_t img = size < MEM_SIZE ? size : MEM_SIZE;

	if (null_fd < 0)
		null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	mem = calloc(1, MEM_SIZE);
	ro = calloc(1, 0x1000);
	if (null_fd < 0 || !mem || !ro)
		abort();
	memcpy(mem, data, img);
	gmem_init(&gm);
	if (gmem_add_region(&gm, 0, MEM_SIZE, mem, 0) < 0 ||
	    gmem_add_region(&gm, RO_GPA, 0x1000, ro, GMEM_READONLY) < 0)
		abort();

	env = (struct vtrans_mmio_env){
		.gm = &gm,
		.irq = {.ops = &fuzz_irq_ops},
	};
	if (vcon_new(-1, null_fd, &dev) < 0 || vtrans_mmio_new(&env, dev, 0xd0000000, &t) < 0)
		abort();
	data += img;
	size -= img;
	for (unsigned i = 0; i < OPS_MAX && size >= 6; i++, data += 6, size -= 6)
		fuzz_op(t, dev, data);

	vtrans_mmio_free(t);
	dev->ops->free(dev);
	free(ro);
	free(mem);
	return 0;
}
