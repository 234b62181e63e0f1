/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pausing the vCPUs, for work that must not race with the guest (the zero-page sweep).
 *
 * The pauser (the event-loop thread, the only thread that runs devices) sets pause_req and
 * kicks every vCPU out of KVM_RUN (immediate_exit and the kick signal, as for a stop). Each
 * vCPU thread checks pause_req at the top of its loop, after any MMIO or PIO handler has
 * returned, counts itself in n_paused and waits for resume_cond. KVM writes guest memory on a
 * vCPU's behalf (kvmclock, steal time) only inside KVM_RUN, so once every started vCPU is
 * counted nothing but the pauser touches guest RAM.
 */
#include <errno.h>
#include <time.h>

#include "vm/vcpu.h"
#include "vm/vm-internal.h"

int vm_pause_init(struct vm *vm)
{
	pthread_condattr_t attr;
	int r;

	r = -pthread_condattr_init(&attr);
	if (r < 0)
		return r;
	r = -pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (r >= 0)
		r = -pthread_cond_init(&vm->paused_cond, &attr);
	if (r >= 0) {
		r = -pthread_cond_init(&vm->resume_cond, &attr);
		if (r < 0)
			(void) pthread_cond_destroy(&vm->paused_cond);
	}
	(void) pthread_condattr_destroy(&attr);
	if (r < 0)
		return r;
	(void) pthread_mutex_init(&vm->pause_lock, NULL);
	return 0;
}

void vm_pause_done(struct vm *vm)
{
	(void) pthread_cond_destroy(&vm->paused_cond);
	(void) pthread_cond_destroy(&vm->resume_cond);
	(void) pthread_mutex_destroy(&vm->pause_lock);
}

void vcpu_pause_point(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;

	if (!atomic_load(&vm->pause_req))
		return;
	pthread_mutex_lock(&vm->pause_lock);
	if (atomic_load(&vm->pause_req)) {
		vm->n_paused++;
		pthread_cond_signal(&vm->paused_cond);
		while (atomic_load(&vm->pause_req))
			pthread_cond_wait(&vm->resume_cond, &vm->pause_lock);
		vm->n_paused--;
	}
	pthread_mutex_unlock(&vm->pause_lock);
}

static unsigned vm_vcpus_started(const struct vm *vm)
{
	unsigned n = 0;

	for (unsigned i = 0; i < vm->n_vcpus; i++)
		n += vm->vcpus[i]->started;
	return n;
}

int vm_vcpus_pause(struct vm *vm, unsigned timeout_ms)
{
	unsigned want = vm_vcpus_started(vm);
	uint64_t end_ns = bootmarker_now_ns() + (uint64_t) timeout_ms * 1000000u;
	struct timespec deadline = {
		.tv_sec = (time_t) (end_ns / 1000000000u),
		.tv_nsec = (long) (end_ns % 1000000000u),
	};
	bool all;

	if (atomic_load(&vm->stopping))
		return -ETIMEDOUT;
	atomic_store(&vm->pause_req, true);
	for (unsigned i = 0; i < vm->n_vcpus; i++)
		vcpu_kick(vm->vcpus[i]);
	pthread_mutex_lock(&vm->pause_lock);
	/* A vCPU thread that has left its loop (the VM is stopping) never counts itself. */
	while (vm->n_paused < want && !atomic_load(&vm->stopping))
		if (pthread_cond_timedwait(&vm->paused_cond, &vm->pause_lock, &deadline) ==
		    ETIMEDOUT)
			break;
	all = vm->n_paused == want && !atomic_load(&vm->stopping);
	pthread_mutex_unlock(&vm->pause_lock);
	if (all)
		return 0;
	vm_vcpus_resume(vm);
	return -ETIMEDOUT;
}

void vm_vcpus_resume(struct vm *vm)
{
	pthread_mutex_lock(&vm->pause_lock);
	atomic_store(&vm->pause_req, false);
	pthread_cond_broadcast(&vm->resume_cond);
	pthread_mutex_unlock(&vm->pause_lock);
}
