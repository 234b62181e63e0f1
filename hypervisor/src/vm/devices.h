/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The virtio-mmio devices of a VM, created from an explicit table walked in order
 * (device-table.c): each device gets a window in the 32-bit MMIO hole (0xd0000000 + 0x1000 * i),
 * an IOAPIC pin (GSI) wired as an irqfd, ioeventfds for its queue kicks, and a
 * virtio_mmio.device= declaration on the kernel command line (devices.c).
 */

#include <stdint.h>

#include "base/irq.h"

#define VM_MAX_DEVICES 16

struct evloop;
struct vdev;
struct vm;
struct vm_config;
struct cc_error;
struct vtrans_mmio;

struct vm_device {
	const char *name;
	struct vdev *dev;
	struct vtrans_mmio *trans;
	uint64_t base_gpa;
	uint32_t gsi;
	int irq_fd; /* eventfd bound with KVM_IRQFD */
	struct irq_line irq;
};

struct vm_devices {
	struct vm_device devices[VM_MAX_DEVICES];
	unsigned n;
};

/* What a row's constructor gets: the config, the VM's event loop, and which instance it makes. */
struct vm_device_ctx {
	const struct vm_config *cfg;
	struct evloop *loop; /* the loop the device's backend fds go on (not running yet) */
	unsigned index;	     /* 0 .. count(cfg) - 1 */
	const struct vm *vm; /* memory layout (RAM, kernel segments), set up before the devices */
};

/*
 * One row of the device table: count() says how many instances the config wants (0: none),
 * create() makes instance ctx->index (the device model with its backend). On failure create()
 * fills reterr (exit status and one-line message) and returns a negative errno.
 */
struct vm_device_desc {
	const char *name;
	unsigned (*count)(const struct vm_config *cfg);
	int (*create)(const struct vm_device_ctx *ctx, struct vdev **ret, struct cc_error *reterr);
};

/* The table, in device order, ended by a row with a NULL name. */
extern const struct vm_device_desc vm_device_table[];

/* The GSI of the i-th device slot, or 0 past the last usable pin. */
uint32_t vm_device_gsi(unsigned i);

/* How many virtio devices cfg asks for (every row's count). */
unsigned vm_devices_wanted(const struct vm_config *cfg);

/* Create the configured devices and append their declarations to vm->cmdline. */
int vm_devices_setup(struct vm *vm, struct cc_error *reterr);
void vm_devices_free(struct vm *vm);
