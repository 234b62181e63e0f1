/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/layout.h"
#include "arch/longmode.h"
#include "vm/vcpu.h"
#include "vm/vm-internal.h"

#define VCPU_KICK_SIGNAL (SIGRTMIN)
#define APIC_LVT0	 0x350
#define APIC_LVT1	 0x360
#define APIC_MODE_NMI	 0x4
#define APIC_MODE_EXTINT 0x7

static void vcpu_kick_handler(int sig)
{
	(void) sig;
}

int vcpu_signal_setup(void)
{
	struct sigaction sa = {.sa_handler = vcpu_kick_handler};

	sigemptyset(&sa.sa_mask);
	return sigaction(VCPU_KICK_SIGNAL, &sa, NULL) < 0 ? -errno : 0;
}

static void apic_set_lvt(struct kvm_lapic_state *s, unsigned reg, uint32_t mode)
{
	uint32_t v;

	memcpy(&v, s->regs + reg, 4);
	v = (v & ~0x700u & ~0x10000u) | mode << 8;
	memcpy(s->regs + reg, &v, 4);
}

static int vcpu_setup_common(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;
	struct cpuid_table *t;
	struct msr_table msrs = {0};
	struct kvm_lapic_state lapic;
	int r;

	t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	memcpy(t, vm->cpuid, sizeof(*t));
	cpuid_patch(t, vcpu->index, vm->cfg.n_cpus);
	r = vm_kvm_ioctl(vcpu->fd, KVM_SET_CPUID2, t);
	free(t);
	if (r < 0)
		return r;
	msrs.nmsrs = msrs_boot_fill(msrs.entries, MSRS_BOOT_MAX);
	/* KVM sets what it can and returns the count; a missing MSR is not fatal. */
	r = vm_kvm_ioctl(vcpu->fd, KVM_SET_MSRS, &msrs);
	if (r < 0)
		return r;
	r = vm_kvm_ioctl(vcpu->fd, KVM_GET_LAPIC, &lapic);
	if (r < 0)
		return r;
	apic_set_lvt(&lapic, APIC_LVT0, APIC_MODE_EXTINT);
	apic_set_lvt(&lapic, APIC_LVT1, APIC_MODE_NMI);
	return vm_kvm_ioctl(vcpu->fd, KVM_SET_LAPIC, &lapic);
}

static int vcpu_setup_boot(struct vcpu *vcpu)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_fpu fpu;
	int r;

	r = vm_kvm_ioctl(vcpu->fd, KVM_GET_SREGS, &sregs);
	if (r < 0)
		return r;
	longmode_sregs_setup(&sregs);
	r = vm_kvm_ioctl(vcpu->fd, KVM_SET_SREGS, &sregs);
	if (r < 0)
		return r;
	longmode_regs_setup(&regs, vcpu->vm->kernel.entry_gpa, LAYOUT_ZERO_PAGE_GPA);
	r = vm_kvm_ioctl(vcpu->fd, KVM_SET_REGS, &regs);
	if (r < 0)
		return r;
	longmode_fpu_setup(&fpu);
	return vm_kvm_ioctl(vcpu->fd, KVM_SET_FPU, &fpu);
}

int vcpu_new(struct vm *vm, unsigned index, struct vcpu **ret, struct cc_error *reterr)
{
	struct vcpu *vcpu;
	void *p;
	int r;

	vcpu = calloc(1, sizeof(*vcpu));
	if (!vcpu)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, ENOMEM, "out of memory: %m");
	vcpu->vm = vm;
	vcpu->index = index;
	vcpu->fd = vm_kvm_ioctl(vm->vm_fd, KVM_CREATE_VCPU, (void *) (long) index);
	if (vcpu->fd < 0) {
		r = vcpu->fd;
		vcpu_free(vcpu);
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r,
					   "KVM_CREATE_VCPU %u failed: %m", index);
	}
	(void) fcntl(vcpu->fd, F_SETFD, FD_CLOEXEC);
	p = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd, 0);
	if (p == MAP_FAILED) {
		r = -errno;
		vcpu_free(vcpu);
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r, "cannot map vCPU %u: %m",
					   index);
	}
	vcpu->run = p;
	r = vcpu_setup_common(vcpu);
	if (r >= 0 && index == 0)
		r = vcpu_setup_boot(vcpu);
	if (r < 0) {
		vcpu_free(vcpu);
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r,
					   "cannot set up vCPU %u: %m", index);
	}
	*ret = vcpu;
	return 0;
}

struct vcpu *vcpu_free(struct vcpu *vcpu)
{
	if (!vcpu)
		return NULL;
	if (vcpu->run)
		(void) munmap(vcpu->run, vcpu->vm->run_size);
	if (vcpu->fd >= 0)
		(void) close(vcpu->fd);
	free(vcpu);
	return NULL;
}

void vcpu_kick(struct vcpu *vcpu)
{
	if (!vcpu->started)
		return;
	__atomic_store_n(&vcpu->run->immediate_exit, 1, __ATOMIC_SEQ_CST);
	(void) pthread_kill(vcpu->thread, VCPU_KICK_SIGNAL);
}

void vcpu_join(struct vcpu *vcpu)
{
	if (!vcpu->started)
		return;
	(void) pthread_join(vcpu->thread, NULL);
	vcpu->started = false;
}
