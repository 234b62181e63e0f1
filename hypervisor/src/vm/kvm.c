/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "arch/layout.h"
#include "vm/vm-internal.h"

int vm_kvm_ioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

int vm_kvm_ioctl_once(int fd, unsigned long req)
{
	int r = ioctl(fd, req, 0);

	return r < 0 ? -errno : r;
}

static const struct {
	int cap;
	const char *name;
} vm_required_caps[] = {
	{KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP"},
	{KVM_CAP_PIT2, "KVM_CAP_PIT2"},
	{KVM_CAP_IRQFD, "KVM_CAP_IRQFD"},
	{KVM_CAP_IOEVENTFD, "KVM_CAP_IOEVENTFD"},
	{KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY"},
	{KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID"},
	{KVM_CAP_SET_TSS_ADDR, "KVM_CAP_SET_TSS_ADDR"},
	{KVM_CAP_IMMEDIATE_EXIT, "KVM_CAP_IMMEDIATE_EXIT"},
};

static int vm_kvm_open_dev(struct vm *vm, struct cc_error *reterr)
{
	const char *path = vm->cfg.kvm_path ? vm->cfg.kvm_path : "/dev/kvm";
	int r;

	if (vm->cfg.kvm_fd >= 0) {
		/* Opened by a more privileged caller (the stage1's jail): the device need not be
		 * reachable from the VMM's root. */
		path = "the --kvm-fd device";
		vm->kvm_fd = fcntl(vm->cfg.kvm_fd, F_DUPFD_CLOEXEC, 3);
	} else
		vm->kvm_fd = open(path, O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0) {
		r = -errno;
		if (r == -EBUSY || r == -EAGAIN)
			return cc_error_set_status(reterr, VMM_EXIT_KVM_BUSY, r, "%s is busy: %m",
						   path);
		return cc_error_set_status(reterr, VMM_EXIT_NO_KVM, r, "cannot open %s: %m", path);
	}
	r = vm_kvm_ioctl(vm->kvm_fd, KVM_GET_API_VERSION, NULL);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_NO_KVM, r, "%s is not a KVM device: %m",
					   path);
	if (r != KVM_API_VERSION)
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, EINVAL,
					   "KVM API version %d, expected %d: %m", r,
					   KVM_API_VERSION);
	for (size_t i = 0; i < sizeof(vm_required_caps) / sizeof(vm_required_caps[0]); i++)
		if (vm_kvm_ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION,
				 (void *) (long) vm_required_caps[i].cap) <= 0)
			return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, EOPNOTSUPP,
						   "KVM lacks %s: %m", vm_required_caps[i].name);
	r = vm_kvm_ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, NULL);
	if (r <= 0)
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r < 0 ? r : EINVAL,
					   "KVM_GET_VCPU_MMAP_SIZE failed: %m");
	vm->run_size = (size_t) r;
	return 0;
}

static int vm_kvm_cpuid(struct vm *vm, struct cc_error *reterr)
{
	int r;

	vm->cpuid = calloc(1, sizeof(*vm->cpuid));
	if (!vm->cpuid)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, ENOMEM, "out of memory: %m");
	vm->cpuid->nent = CPUID_MAX_ENTRIES;
	r = vm_kvm_ioctl(vm->kvm_fd, KVM_GET_SUPPORTED_CPUID, vm->cpuid);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r,
					   "KVM_GET_SUPPORTED_CPUID failed: %m");
	return 0;
}

int vm_kvm_open(struct vm *vm, struct cc_error *reterr)
{
	uint64_t idmap = LAYOUT_KVM_IDMAP_GPA;
	int r;

	r = vm_kvm_open_dev(vm, reterr);
	if (r < 0)
		return r;
	do
		vm->vm_fd = vm_kvm_ioctl(vm->kvm_fd, KVM_CREATE_VM, NULL);
	while (vm->vm_fd == -EINTR);
	if (vm->vm_fd < 0) {
		r = vm->vm_fd;
		if (r == -EBUSY || r == -EAGAIN)
			return cc_error_set_status(reterr, VMM_EXIT_KVM_BUSY, r,
						   "KVM_CREATE_VM: KVM is busy: %m");
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r,
					   "KVM_CREATE_VM failed: %m");
	}
	/* KVM sets O_CLOEXEC on its fds already; keep it explicit. */
	(void) fcntl(vm->vm_fd, F_SETFD, FD_CLOEXEC);
	r = vm_kvm_ioctl(vm->vm_fd, KVM_SET_IDENTITY_MAP_ADDR, &idmap);
	if (r >= 0)
		r = vm_kvm_ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, (void *) (long) LAYOUT_KVM_TSS_GPA);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r,
					   "cannot set the KVM TSS address: %m");
	return vm_kvm_cpuid(vm, reterr);
}

int vm_kvm_irqchip(struct vm *vm, struct cc_error *reterr)
{
	struct kvm_pit_config pit = {.flags = KVM_PIT_SPEAKER_DUMMY};
	int r;

	r = vm_kvm_ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, NULL);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r,
					   "KVM_CREATE_IRQCHIP failed: %m");
	r = vm_kvm_ioctl(vm->vm_fd, KVM_CREATE_PIT2, &pit);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r,
					   "KVM_CREATE_PIT2 failed: %m");
	return 0;
}
