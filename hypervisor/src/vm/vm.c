/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "arch/layout.h"
#include "cc/cleanup.h"
#include "vm/cmdline.h"
#include "vm/vcpu.h"
#include "vm/vm-internal.h"
#include "sandbox/sandbox.h"

static const char *const vm_hugepages_names[_VM_HUGEPAGES_MAX] = {
	[VM_HUGEPAGES_OFF] = "off",
	[VM_HUGEPAGES_ON] = "on",
	[VM_HUGEPAGES_AUTO] = "auto",
};

const char *vm_hugepages_to_string(enum vm_hugepages h)
{
	return h >= 0 && h < _VM_HUGEPAGES_MAX ? vm_hugepages_names[h] : NULL;
}

enum vm_hugepages vm_hugepages_from_string(const char *s)
{
	for (int i = 0; s && i < _VM_HUGEPAGES_MAX; i++)
		if (strcmp(s, vm_hugepages_names[i]) == 0)
			return (enum vm_hugepages) i;
	return _VM_HUGEPAGES_INVALID;
}

void vm_config_init(struct vm_config *cfg)
{
	*cfg = (struct vm_config){
		.mem_mib = 128,
		.n_cpus = 1,
		.hugepages = VM_HUGEPAGES_OFF,
		.console_in_fd = -1,
		.console_out_fd = -1,
		.boot_markers_fd = -1,
#ifdef CC_SANITIZED
		.seccomp = VM_SECCOMP_LOG, /* the sanitizer runtimes make syscalls of their own */
#else
		.seccomp = VM_SECCOMP_KILL,
#endif
		.sandbox_keep_fd = -1,
		.kernel_pages_ro_fd = -1,
		.kernel_pages_chan_fd = -1,
		.kvm_fd = -1,
	};
}

void vm_request_stop(struct vm *vm, int status, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&vm->stop_lock);
	if (!vm->stopped) {
		vm->stopped = true;
		va_start(ap, fmt);
		/* A stop without an errno (a reset, a signal, a guest crash) is -EIO if it fails.
		 */
		(void) cc_error_vset_status(&vm->stop, status, err ? err : EIO, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&vm->stop_lock);
	atomic_store(&vm->stopping, true);
	/* A pause under way waits for a vCPU that may just have left its loop. */
	pthread_mutex_lock(&vm->pause_lock);
	pthread_cond_broadcast(&vm->paused_cond);
	pthread_mutex_unlock(&vm->pause_lock);
	evloop_stop(vm->loop);
}

static void vm_reset_cb(void *userdata)
{
	vm_request_stop(userdata, VMM_EXIT_OK, 0, "guest reset (i8042)");
}

static int vm_check_config(const struct vm_config *cfg, struct cc_error *reterr)
{
	if (!cfg->kernel_path)
		return cc_error_set_status(reterr, VMM_EXIT_USAGE, EINVAL, "no kernel given: %m");
	if (cfg->mem_mib < VM_MIN_MEM_MIB || cfg->mem_mib > VM_MAX_MEM_MIB)
		return cc_error_set_status(reterr, VMM_EXIT_USAGE, EINVAL,
					   "memory size %llu MiB out of range (%u-%u): %m",
					   (unsigned long long) cfg->mem_mib, VM_MIN_MEM_MIB,
					   VM_MAX_MEM_MIB);
	if (cfg->n_cpus < 1 || cfg->n_cpus > VM_MAX_CPUS)
		return cc_error_set_status(reterr, VMM_EXIT_USAGE, EINVAL,
					   "vCPU count %u out of range (1-%u): %m", cfg->n_cpus,
					   VM_MAX_CPUS);
	if (vm_hugepages_to_string(cfg->hugepages) == NULL)
		return cc_error_set_status(reterr, VMM_EXIT_USAGE, EINVAL,
					   "bad huge page policy: %m");
	if (cfg->n_shares > VM_MAX_SHARES || cfg->n_nets > VM_MAX_NETS ||
	    cfg->n_blks > VM_MAX_BLKS ||
	    (cfg->vsock_cid != 0 && (cfg->vsock_cid < VM_VSOCK_CID_MIN ||
				     cfg->vsock_cid > VM_VSOCK_CID_MAX || !cfg->vsock_path)))
		return cc_error_set_status(reterr, VMM_EXIT_USAGE, EINVAL,
					   "bad device configuration: %m");
	if (vm_devices_wanted(cfg) > VM_MAX_DEVICES)
		return cc_error_set_status(
			reterr, VMM_EXIT_USAGE, EINVAL,
			"too many virtio devices: %u, the console included (max %d)",
			vm_devices_wanted(cfg), VM_MAX_DEVICES);
	return 0;
}

/* COM1's interrupt: an edge on ISA IRQ 4 of the in-kernel PIC/IOAPIC (from a vCPU thread). */
static int vm_com1_irq_trigger(void *opaque)
{
	struct vm *vm = opaque;
	struct kvm_irq_level line = {.irq = IRQ_COM1, .level = 1};
	int r;

	r = vm_kvm_ioctl(vm->vm_fd, KVM_IRQ_LINE, &line);
	line.level = 0;
	if (r >= 0)
		r = vm_kvm_ioctl(vm->vm_fd, KVM_IRQ_LINE, &line);
	return r;
}

static const struct irq_line_ops vm_com1_irq_ops = {
	.trigger = vm_com1_irq_trigger,
};

static int vm_legacy_setup(struct vm *vm)
{
	int r;

	serial8250_init(&vm->serial, vm->cfg.console_out_fd);
	serial8250_set_irq(
		&vm->serial,
		(struct irq_line){.ops = &vm_com1_irq_ops, .opaque = vm, .gsi = IRQ_COM1});
	i8042_init(&vm->kbd, vm_reset_cb, vm);
	pci_host_init(&vm->pci);
	r = iobus_register(&vm->pio, PORT_COM1, SERIAL_PORTS, &serial8250_iobus_ops, &vm->serial);
	if (r >= 0)
		r = iobus_register(&vm->pio, PORT_I8042_DATA, I8042_PORT_SPAN, &i8042_iobus_ops,
				   &vm->kbd);
	if (r >= 0)
		r = iobus_register(&vm->pio, PORT_PCI_CONF_ADDR, 8, &pci_host_iobus_ops, &vm->pci);
	if (r >= 0)
		r = iobus_register(&vm->pio, PORT_BOOT_MARKER, 1, &bootmarker_iobus_ops,
				   &vm->markers);
	return r;
}

static int vm_setup(struct vm *vm, struct cc_error *reterr)
{
	int r;

	/* First: the worker's fork copies nothing of the VM. */
	r = vm_9p_worker_setup(vm, reterr);
	if (r >= 0)
		r = vm_kvm_open(vm, reterr);
	if (r >= 0)
		r = vm_memory_setup(vm, reterr);
	if (r >= 0)
		r = vm_kernel_setup(vm, reterr);
	if (r >= 0)
		r = vm_pmem_setup(vm, reterr);
	if (r >= 0)
		r = vm_kvm_irqchip(vm, reterr);
	if (r < 0)
		return r;
	r = vm_legacy_setup(vm);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot register legacy devices: %m");
	r = cmdline_append(vm->cmdline, sizeof(vm->cmdline), vm->cfg.cmdline ?: "");
	if (r == -E2BIG)
		return cc_error_set_status(reterr, VMM_EXIT_USAGE, EINVAL,
					   "kernel command line too long (max %zu bytes)",
					   sizeof(vm->cmdline) - 1);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_USAGE, EINVAL,
					   "kernel command line contains control characters");
	r = vm_9p_worker_ready(vm, reterr);
	if (r >= 0)
		r = vm_devices_setup(vm, reterr);
	if (r >= 0)
		r = vm_zero_sweep_setup(vm, reterr);
	if (r < 0)
		return r;
	r = vm_boot_data_setup(vm, reterr);
	for (unsigned i = 0; r >= 0 && i < vm->cfg.n_cpus; i++) {
		r = vcpu_new(vm, i, &vm->vcpus[i], reterr);
		if (r >= 0)
			vm->n_vcpus++;
	}
	if (r < 0)
		return r;
	r = vcpu_signal_setup();
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot install the vCPU signal: %m");
	return 0;
}

int vm_new(const struct vm_config *cfg, struct vm **ret, struct cc_error *reterr)
{
	struct vm *vm;
	uint64_t start_ns = bootmarker_now_ns();
	int r;

	assert_return(cfg && ret, -EINVAL);
	r = vm_check_config(cfg, reterr);
	if (r < 0)
		return r;
	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, ENOMEM, "out of memory: %m");
	vm->cfg = *cfg;
	vm->kvm_fd = vm->vm_fd = vm->sig_fd = -1;
	pthread_mutex_init(&vm->stop_lock, NULL);
	r = vm_pause_init(vm);
	if (r < 0) {
		pthread_mutex_destroy(&vm->stop_lock);
		free(vm);
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot set up vCPU pausing: %m");
	}
	gmem_init(&vm->gm);
	iobus_init(&vm->pio);
	iobus_init(&vm->mmio);
	bootmarker_init(&vm->markers, cfg->boot_markers_fd,
			cfg->start_ns ? cfg->start_ns : start_ns);
	r = evloop_new(&vm->loop);
	if (r < 0) {
		vm_free(vm);
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot create the event loop: %m");
	}
	r = vm_setup(vm, reterr);
	if (r < 0) {
		vm_free(vm);
		return r;
	}
	*ret = vm;
	return 0;
}

static void vm_signal_cb(void *userdata, uint32_t events)
{
	struct vm *vm = userdata;
	struct signalfd_siginfo si;

	(void) events;
	if (read(vm->sig_fd, &si, sizeof(si)) != sizeof(si))
		return;
	vm_request_stop(vm, VMM_EXIT_SIGNAL_BASE + (int) si.ssi_signo, 0, "stopped by signal %u",
			si.ssi_signo);
}

static int vm_run_threads(struct vm *vm)
{
	int r = 0;

	/* The sandbox: the process part first (threads inherit it), the main thread's last. */
	if (vm->cfg.sandbox) {
		r = vm_sandbox_enter(vm);
		if (r < 0)
			vm_request_stop(vm, VMM_EXIT_FAILURE, r, "cannot enter the sandbox: %m");
	}
	for (unsigned i = 0; r >= 0 && i < vm->n_vcpus; i++) {
		r = vcpu_start(vm->vcpus[i]);
		if (r < 0)
			vm_request_stop(vm, VMM_EXIT_FAILURE, r,
					"cannot start the vCPU threads: %m");
	}
	if (r >= 0 && vm->cfg.sandbox) {
		r = vm_sandbox_enter_thread(vm, false);
		if (r < 0)
			vm_request_stop(vm, VMM_EXIT_FAILURE, r,
					"cannot load the main thread's seccomp filter: %m");
	}
	if (r >= 0)
		r = evloop_run(vm->loop);
	if (r < 0)
		vm_request_stop(vm, VMM_EXIT_FAILURE, r, "event loop failed: %m");
	atomic_store(&vm->stopping, true);
	for (unsigned i = 0; i < vm->n_vcpus; i++)
		vcpu_kick(vm->vcpus[i]);
	for (unsigned i = 0; i < vm->n_vcpus; i++)
		vcpu_join(vm->vcpus[i]);
	return 0;
}

int vm_run(struct vm *vm, struct vm_exit *ret_exit, struct cc_error *reterr)
{
	sigset_t mask, old;
	int r;

	assert_return(vm && ret_exit, -EINVAL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	r = -pthread_sigmask(SIG_BLOCK, &mask, &old);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r, "cannot block signals: %m");
	vm->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (vm->sig_fd < 0)
		r = -errno;
	else
		r = evloop_add(vm->loop, vm->sig_fd, EPOLLIN, vm_signal_cb, vm);
	if (r >= 0)
		r = vm_run_threads(vm);
	else
		(void) cc_error_set_status(reterr, VMM_EXIT_FAILURE, r, "cannot watch signals: %m");
	if (vm->sig_fd >= 0) {
		(void) evloop_remove(vm->loop, vm->sig_fd);
		vm->sig_fd = safe_close(vm->sig_fd);
	}
	(void) pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0)
		return r;
	if (vm->stop.status == VMM_EXIT_OK || vm->stop.status > VMM_EXIT_SIGNAL_BASE) {
		ret_exit->status = vm->stop.status;
		(void) snprintf(ret_exit->reason, sizeof(ret_exit->reason), "%s", vm->stop.msg);
		return 0;
	}
	if (reterr)
		*reterr = vm->stop;
	return vm->stop.code;
}

struct vm *vm_free(struct vm *vm)
{
	if (!vm)
		return NULL;
	for (unsigned i = 0; i < vm->n_vcpus; i++)
		vm->vcpus[i] = vcpu_free(vm->vcpus[i]);
	vm_zero_sweep_free(vm);
	vm_kernel_share_free(vm);
	vm_devices_free(vm);
	vm_9p_worker_free(vm);
	vm->vm_fd = safe_close(vm->vm_fd);
	vm->kvm_fd = safe_close(vm->kvm_fd);
	vm_memory_free(vm);
	vm->loop = evloop_free(vm->loop);
	vm->sandbox = sandbox_free(vm->sandbox);
	bootmarker_done(&vm->markers);
	pthread_mutex_destroy(&vm->stop_lock);
	vm_pause_done(vm);
	free(vm->cpuid);
	free(vm);
	return NULL;
}
