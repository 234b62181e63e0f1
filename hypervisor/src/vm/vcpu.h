/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * One vCPU and its thread. vCPU 0 is the boot processor and starts in 64-bit mode at the
 * kernel entry; the others wait in KVM's reset state for INIT/SIPI from the guest (Linux
 * starts them through the local APIC, with a real-mode trampoline).
 */

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>

struct vm;
struct cc_error;

struct vcpu {
	struct vm *vm;
	unsigned index;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool started;
};

int vcpu_new(struct vm *vm, unsigned index, struct vcpu **ret, struct cc_error *reterr);
struct vcpu *vcpu_free(struct vcpu *vcpu);
int vcpu_start(struct vcpu *vcpu);
/* Make the thread leave KVM_RUN (it then sees vm->stopping) and wait for it. */
void vcpu_kick(struct vcpu *vcpu);
void vcpu_join(struct vcpu *vcpu);
/* At the top of the vCPU loop: wait while the VM is paused (vcpu-pause.c). */
void vcpu_pause_point(struct vcpu *vcpu);
/* Install the (empty) handler of the kick signal; once per process. */
int vcpu_signal_setup(void);
