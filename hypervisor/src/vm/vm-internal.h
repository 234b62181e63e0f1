/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * struct vm and the pieces of the VM that the VM files share. Only src/vm includes this;
 * everything else gets a narrow interface (gmem, iobus, evloop, irq_line).
 *
 * Threads: vm_run() runs the event loop on the calling thread (the "vmm" thread) and starts
 * one thread per vCPU. The iobuses are filled before any vCPU runs and are read-only after.
 * The stop state (stop_lock, stop_status, stop_msg) is written once by whoever stops the VM.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "9p/9p-worker.h"
#include "cc/error.h"
#include "arch/cpuid.h"
#include "vm/devices.h"
#include "base/evloop.h"
#include "base/gmem.h"
#include "base/iobus.h"
#include "vm/memslot.h"
#include "legacy/bootmarker.h"
#include "legacy/i8042.h"
#include "legacy/serial.h"
#include "loader/kernel.h"
#include "pci/hostbridge.h"
#include "vmm/vm.h"

#define VM_MAX_MEMSLOTS 32

struct balloon_map;
struct p9_worker;
struct sandbox;
struct vcpu;

struct vm {
	struct vm_config cfg;
	int kvm_fd;
	int vm_fd;
	int sig_fd;
	size_t run_size;

	/* Guest RAM: [0, low_size) at ram_hva, [4 GiB, 4 GiB + high_size) after it. */
	void *ram_hva;
	uint64_t ram_map_size;
	uint64_t low_size;
	uint64_t high_size;
	/* pmem: [pmem_gpa, pmem_gpa + pmem_size) at pmem_hva (file, then anonymous tail). */
	void *pmem_hva;
	uint64_t pmem_gpa;
	uint64_t pmem_size;
	unsigned n_memslots;
	/* The kernel's segments mapped MAP_PRIVATE from its file over RAM (vm_kernel_setup). */
	struct memslot_range kernel_maps[KERNEL_MAX_SEGMENTS];
	unsigned n_kernel_maps;

	struct gmem gm;
	struct iobus pio;
	struct iobus mmio;
	struct evloop *loop;
	struct kernel_image kernel;
	char cmdline[VM_CMDLINE_MAX];
	struct cpuid_table *cpuid; /* KVM_GET_SUPPORTED_CPUID, patched per vCPU */

	struct serial8250 serial;
	struct i8042 kbd;
	struct bootmarker markers;
	struct pci_host pci;
	struct vm_devices devs;

	struct sandbox *sandbox; /* built by vm_run() when cfg.sandbox, see vm-sandbox.c */
	/* With the sandbox and shares: the process that serves them (vm-9p.c), and what it did
	 * with each share. */
	struct p9_worker *p9_worker;
	struct p9_export_result p9_results[VM_MAX_SHARES];
	struct vcpu *vcpus[VM_MAX_CPUS];
	unsigned n_vcpus;

	pthread_mutex_t stop_lock;
	atomic_bool stopping;
	bool stopped; /* under stop_lock */
	struct cc_error stop;
	atomic_bool first_run_seen;

	/* Pausing the vCPUs (vcpu-pause.c): only the event-loop thread pauses, one pause at a
	 * time; n_paused is under pause_lock. */
	pthread_mutex_t pause_lock;
	pthread_cond_t paused_cond; /* a vCPU stopped: the pauser rechecks n_paused */
	pthread_cond_t resume_cond; /* pause_req went false */
	atomic_bool pause_req;
	unsigned n_paused;

	struct vm_zero_sweep *zero_sweep;     /* zero-sweep.c; NULL when off */
	struct vm_kernel_share *kernel_share; /* kernel-share.c; NULL when off */
};

/*
 * Ask every thread to stop; the first caller's status and message win (%m prints
 * strerror(-err)). Any thread.
 */
void vm_request_stop(struct vm *vm, int status, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* vm-sandbox.c: the process part, before any vCPU thread exists; then each thread's part. */
int vm_sandbox_enter(struct vm *vm);
int vm_sandbox_enter_thread(struct vm *vm, bool vcpu);
/* In the 9p worker, its exports open (p9_worker_enter_fn, userdata its const struct
 * vm_config): its sandbox. */
int vm_sandbox_enter_9p(void *userdata, enum p9_worker_role role);

/*
 * vm-9p.c: start the 9p worker (with the sandbox, when there are shares: first thing, so that
 * its fork copies nothing of the VM); wait for it to be ready (before the devices, so that
 * its start overlaps the VM's own setup); stop it.
 */
int vm_9p_worker_setup(struct vm *vm, struct cc_error *reterr);
int vm_9p_worker_ready(struct vm *vm, struct cc_error *reterr);
void vm_9p_worker_free(struct vm *vm);
/* The worker went away (userdata the vm): the VM stops with a failure. */
void vm_9p_worker_gone(void *userdata);
/*
 * Once setup is over, with a worker: the exports are the worker's alone. The VMM enters a mount
 * namespace of its own and covers each share's directory with an empty read-only tmpfs, so that
 * by path it reaches none of their files (a unix socket in a host volume, a world-writable
 * directory); a --9p-visible share stays, read-only (machined reads the pod's journal through
 * the VMM's root). Needs CAP_SYS_ADMIN (over its mount namespace); without it, a debug line.
 */
int vm_9p_hide_exports(struct vm *vm);

/* memory.c */
int vm_memory_setup(struct vm *vm, struct cc_error *reterr);
int vm_memslot_add(struct vm *vm, uint64_t gpa, uint64_t size, void *hva, bool readonly);
void vm_memory_free(struct vm *vm);
int vm_pmem_setup(struct vm *vm, struct cc_error *reterr);
int vm_kernel_setup(struct vm *vm, struct cc_error *reterr);
/* After kernel_load: a guest without SMAP gets NOPs back at the clac/stac sites its kernel
 * file holds pre-written (vm/kernel-smap.c). */
int vm_kernel_smap_fixup(struct vm *vm, int fd, uint64_t file_size, struct cc_error *reterr);

/* vcpu-pause.c: stop every started vCPU outside KVM_RUN and outside any MMIO handler, and let
 * them go again. vm_vcpus_pause() returns 0, or -ETIMEDOUT (a vCPU did not stop within
 * timeout_ms, or the VM is stopping: nothing is paused then). Event-loop thread only. */
int vm_pause_init(struct vm *vm);
void vm_pause_done(struct vm *vm);
int vm_vcpus_pause(struct vm *vm, unsigned timeout_ms);
void vm_vcpus_resume(struct vm *vm);

/* zero-sweep.c: give back the guest RAM pages the guest left all zero, on a timer
 * (cfg.zero_sweep). Setup after vm_kernel_setup; free is idempotent. */
int vm_zero_sweep_setup(struct vm *vm, struct cc_error *reterr);
void vm_zero_sweep_free(struct vm *vm);

/* kernel-share.c: the kernel's pages every VM writes alike at boot, shared between the VMs of
 * the host (cfg.kernel_pages_dir or _ro_fd). Setup by vm_kernel_setup once the kernel is
 * mapped, with the kernel file it mapped (fd); free is idempotent. */
int vm_kernel_share_setup(struct vm *vm, int fd, struct cc_error *reterr);
void vm_kernel_share_free(struct vm *vm);

/* memory.c: the anonymous pieces of guest RAM (the kernel's file-mapped segments left out
 * when without_kernel), for the balloon and the zero sweep. */
int vm_ram_map(const struct vm *vm, bool without_kernel, struct balloon_map *ret);

/* boot.c */
int vm_boot_data_setup(struct vm *vm, struct cc_error *reterr);

/* kvm.c */
int vm_kvm_open(struct vm *vm, struct cc_error *reterr);
/* The in-kernel irqchip and PIT (after the memslots, before the vCPUs). */
int vm_kvm_irqchip(struct vm *vm, struct cc_error *reterr);
int vm_kvm_ioctl(int fd, unsigned long req, void *arg);
/* No retry on EINTR: for KVM_RUN, where EINTR means "kicked". */
int vm_kvm_ioctl_once(int fd, unsigned long req);
