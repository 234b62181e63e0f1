/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "vm/vcpu.h"
#include "vm/vm-internal.h"

/* What one KVM exit means for the VM: keep running, or stop (with a status). */
enum vcpu_action {
	VCPU_CONTINUE,
	VCPU_STOP,
};

static void vcpu_handle_io(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint8_t *data = (uint8_t *) run + run->io.data_offset;
	bool is_write = run->io.direction == KVM_EXIT_IO_OUT;

	for (uint32_t i = 0; i < run->io.count; i++) {
		(void) iobus_dispatch(&vcpu->vm->pio, run->io.port, data, run->io.size, is_write);
		data += run->io.size;
	}
}

static void vcpu_handle_mmio(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint32_t len = run->mmio.len <= 8 ? run->mmio.len : 8;

	(void) iobus_dispatch(&vcpu->vm->mmio, run->mmio.phys_addr, run->mmio.data, len,
			      run->mmio.is_write);
}

static enum vcpu_action vcpu_crash(struct vcpu *vcpu, const char *what, uint64_t detail)
{
	struct kvm_regs regs;
	uint64_t rip = 0;

	if (vm_kvm_ioctl(vcpu->fd, KVM_GET_REGS, &regs) >= 0)
		rip = regs.rip;
	vm_request_stop(vcpu->vm, VMM_EXIT_GUEST_CRASH, 0,
			"guest crashed on vCPU %u: %s (0x%llx) at rip 0x%llx", vcpu->index, what,
			(unsigned long long) detail, (unsigned long long) rip);
	return VCPU_STOP;
}

static enum vcpu_action vcpu_handle_system_event(struct vcpu *vcpu)
{
	switch (vcpu->run->system_event.type) {
	case KVM_SYSTEM_EVENT_SHUTDOWN:
	case KVM_SYSTEM_EVENT_RESET:
		vm_request_stop(vcpu->vm, VMM_EXIT_OK, 0, "guest %s",
				vcpu->run->system_event.type == KVM_SYSTEM_EVENT_RESET
					? "reset"
					: "powered off");
		return VCPU_STOP;
	default:
		return vcpu_crash(vcpu, "system event", vcpu->run->system_event.type);
	}
}

static enum vcpu_action vcpu_handle_exit(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		vcpu_handle_io(vcpu);
		return VCPU_CONTINUE;
	case KVM_EXIT_MMIO:
		vcpu_handle_mmio(vcpu);
		return VCPU_CONTINUE;
	case KVM_EXIT_INTR:
	case KVM_EXIT_HLT:
		return VCPU_CONTINUE;
	case KVM_EXIT_SHUTDOWN:
		vm_request_stop(vcpu->vm, VMM_EXIT_OK, 0, "guest reset (triple fault)");
		return VCPU_STOP;
	case KVM_EXIT_SYSTEM_EVENT:
		return vcpu_handle_system_event(vcpu);
	case KVM_EXIT_INTERNAL_ERROR:
		return vcpu_crash(vcpu, "KVM internal error, suberror", run->internal.suberror);
	case KVM_EXIT_FAIL_ENTRY:
		return vcpu_crash(vcpu, "VM entry failed, reason",
				  run->fail_entry.hardware_entry_failure_reason);
	default:
		return vcpu_crash(vcpu, "unhandled exit", run->exit_reason);
	}
}

static void *vcpu_thread(void *userdata)
{
	struct vcpu *vcpu = userdata;
	struct vm *vm = vcpu->vm;

	if (vm->cfg.sandbox) {
		int r = vm_sandbox_enter_thread(vm, true);

		if (r < 0) {
			vm_request_stop(vm, VMM_EXIT_FAILURE, r,
					"vCPU %u: cannot load its seccomp filter: %m", vcpu->index);
			return NULL;
		}
	}
	for (;;) {
		int r;

		/* A kick (immediate_exit, then the signal) is cleared before what it asked for is
		 * looked at: one that lands after this store makes KVM_RUN return at once, one
		 * before it is seen by the checks below (the flags are set before the kick). */
		__atomic_store_n(&vcpu->run->immediate_exit, 0, __ATOMIC_SEQ_CST);
		vcpu_pause_point(vcpu);
		if (atomic_load(&vm->stopping))
			break;
		if (vcpu->index == 0 && !atomic_exchange(&vm->first_run_seen, true))
			bootmarker_record(&vm->markers, BOOTMARKER_FIRST_KVM_RUN);
		r = vm_kvm_ioctl_once(vcpu->fd, KVM_RUN);
		if (r < 0) {
			if (r == -EINTR || r == -EAGAIN)
				continue;
			vm_request_stop(vm, VMM_EXIT_KVM_ERROR, r, "KVM_RUN failed on vCPU %u: %m",
					vcpu->index);
			break;
		}
		if (vcpu_handle_exit(vcpu) == VCPU_STOP)
			break;
	}
	return NULL;
}

int vcpu_start(struct vcpu *vcpu)
{
	char name[16];
	int r;

	r = -pthread_create(&vcpu->thread, NULL, vcpu_thread, vcpu);
	if (r < 0)
		return r;
	vcpu->started = true;
	(void) snprintf(name, sizeof(name), "vcpu%u", vcpu->index);
	(void) pthread_setname_np(vcpu->thread, name);
	return 0;
}
