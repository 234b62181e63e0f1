/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "arch/layout.h"
#include "cc/cleanup.h"
#include "vm/vm-internal.h"
#include "virtio/mmio.h"

/*
 * IOAPIC pins for the devices, in order: 4 is COM1, 8 the RTC, 12 the PS/2 mouse and 13 the
 * FPU on PCs, so they stay free.
 */
static const uint8_t vm_device_gsis[VM_MAX_DEVICES] = {5,  6,  7,  9,  10, 11, 14, 15,
						       16, 17, 18, 19, 20, 21, 22, 23};

uint32_t vm_device_gsi(unsigned i)
{
	return i < VM_MAX_DEVICES ? vm_device_gsis[i] : 0;
}

static int vm_irqfd_trigger(void *opaque)
{
	const struct vm_device *d = opaque;
	uint64_t one = 1;

	return write(d->irq_fd, &one, sizeof(one)) < 0 ? -errno : 0;
}

static const struct irq_line_ops vm_irqfd_ops = {
	.trigger = vm_irqfd_trigger,
};

/* The ioeventfd_bind callback of the transport: a 4-byte QueueNotify write of 'datamatch'. */
static int vm_ioeventfd_bind(void *ctx, uint64_t gpa, uint32_t datamatch, int efd)
{
	struct vm *vm = ctx;
	struct kvm_ioeventfd io = {
		.datamatch = datamatch,
		.addr = gpa,
		.len = 4,
		.fd = efd,
		.flags = KVM_IOEVENTFD_FLAG_DATAMATCH,
	};

	return vm_kvm_ioctl(vm->vm_fd, KVM_IOEVENTFD, &io);
}

/* Reserve the next window and GSI, with its irqfd. Returns the slot index. */
static int vm_device_slot(struct vm *vm, const char *name)
{
	struct vm_device *d;
	struct kvm_irqfd irqfd = {0};
	int r;

	if (vm->devs.n >= VM_MAX_DEVICES)
		return -ENOSPC;
	d = &vm->devs.devices[vm->devs.n];
	*d = (struct vm_device){
		.name = name,
		.base_gpa = LAYOUT_VIRTIO_MMIO_GPA + vm->devs.n * LAYOUT_VIRTIO_MMIO_STEP,
		.gsi = vm_device_gsi(vm->devs.n),
	};
	d->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->irq_fd < 0)
		return -errno;
	irqfd.fd = (uint32_t) d->irq_fd;
	irqfd.gsi = d->gsi;
	r = vm_kvm_ioctl(vm->vm_fd, KVM_IRQFD, &irqfd);
	if (r < 0) {
		d->irq_fd = safe_close(d->irq_fd);
		return r;
	}
	d->irq = (struct irq_line){.ops = &vm_irqfd_ops, .opaque = d, .gsi = d->gsi};
	return (int) vm->devs.n++;
}

static int vm_device_attach(struct vm *vm, const char *name, struct vdev *dev)
{
	struct vtrans_mmio_env env;
	struct vm_device *d;
	int r;

	r = vm_device_slot(vm, name);
	if (r < 0) {
		dev->ops->free(dev);
		return r;
	}
	d = &vm->devs.devices[r];
	d->dev = dev; /* freed by vm_devices_free(), after its transport */
	env = (struct vtrans_mmio_env){
		.gm = &vm->gm,
		.loop = vm->loop,
		.irq = d->irq,
		.ioeventfd_bind = vm_ioeventfd_bind,
		.ctx = vm,
	};
	r = vtrans_mmio_new(&env, dev, d->base_gpa, &d->trans);
	if (r < 0)
		return r;
	r = iobus_register(&vm->mmio, d->base_gpa, VTRANS_MMIO_SIZE, &vtrans_mmio_iobus_ops,
			   d->trans);
	if (r < 0)
		return r;
	r = vtrans_mmio_cmdline(d->trans, d->gsi, vm->cmdline, sizeof(vm->cmdline));
	return r == -ENOSPC ? -E2BIG : r;
}

unsigned vm_devices_wanted(const struct vm_config *cfg)
{
	unsigned n = 0;

	for (const struct vm_device_desc *desc = vm_device_table; desc->name; desc++)
		n += desc->count(cfg);
	return n;
}

int vm_devices_setup(struct vm *vm, struct cc_error *reterr)
{
	for (const struct vm_device_desc *desc = vm_device_table; desc->name; desc++) {
		unsigned n = desc->count(&vm->cfg);

		for (unsigned i = 0; i < n; i++) {
			struct vm_device_ctx ctx = {
				.cfg = &vm->cfg, .loop = vm->loop, .index = i, .vm = vm};
			struct vdev *dev = NULL;
			int r;

			r = desc->create(&ctx, &dev, reterr);
			if (r < 0)
				return r;
			r = vm_device_attach(vm, desc->name, dev);
			if (r == -E2BIG)
				return cc_error_set_status(
					reterr, VMM_EXIT_USAGE, EINVAL,
					"kernel command line too long for the %s "
					"device (max %zu bytes)",
					desc->name, sizeof(vm->cmdline) - 1);
			if (r < 0)
				return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
							   "cannot attach the %s device: %m",
							   desc->name);
		}
	}
	return 0;
}

void vm_devices_free(struct vm *vm)
{
	for (unsigned i = vm->devs.n; i-- > 0;) {
		struct vm_device *d = &vm->devs.devices[i];

		/* The transport first: the device must outlive it. */
		d->trans = vtrans_mmio_free(d->trans);
		if (d->dev)
			d->dev->ops->free(d->dev);
		d->dev = NULL;
		d->irq_fd = safe_close(d->irq_fd);
	}
	vm->devs.n = 0;
}
