/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The virtio-mmio devices of a VM, created from an explicit table walked in order (see
 * devices.c): each gets a window in the 32-bit MMIO hole (0xd0000000 + 0x1000 * i), an IOAPIC
 * pin (GSI) wired as an irqfd, ioeventfds for its queue kicks, and a virtio_mmio.device=
 * declaration on the kernel command line.
 */

#include <stdint.h>

#include "core/irq.h"

#define VM_MAX_DEVICES 16

struct vm;
struct vdev;
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

/* The GSI of the i-th device slot, or 0 past the last usable pin. */
uint32_t vm_device_gsi(unsigned i);

/* Create the configured devices and append their declarations to vm->cmdline. */
int vm_devices_setup(struct vm *vm);
void vm_devices_free(struct vm *vm);
