/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VM's side of the sandbox (src/sandbox): what the VM needs after setup decides what the
 * sandbox keeps. Called by vm_run() only when cfg.sandbox is set.
 */
#include <errno.h>
#include <string.h>

#include "vm/vm-internal.h"
#include "sandbox/sandbox-caps.h"
#include "sandbox/sandbox.h"

static const char *const vm_seccomp_names[_VM_SECCOMP_MAX] = {
	[VM_SECCOMP_KILL] = "kill",
	[VM_SECCOMP_LOG] = "log",
};

const char *vm_seccomp_to_string(enum vm_seccomp s)
{
	return s >= 0 && s < _VM_SECCOMP_MAX ? vm_seccomp_names[s] : NULL;
}

enum vm_seccomp vm_seccomp_from_string(const char *s)
{
	for (int i = 0; s && i < _VM_SECCOMP_MAX; i++)
		if (strcmp(s, vm_seccomp_names[i]) == 0)
			return (enum vm_seccomp) i;
	return _VM_SECCOMP_INVALID;
}

/* What a syscall outside the filters does, from --seccomp (the VMM's and its worker's). */
static int vm_sandbox_action(const struct vm_config *cfg, enum sandbox_action *ret)
{
	if (vm_seccomp_to_string(cfg->seccomp) == NULL)
		return -EINVAL;
	*ret = cfg->seccomp == VM_SECCOMP_LOG ? SANDBOX_ACTION_LOG : SANDBOX_ACTION_KILL;
	return 0;
}

/* Main thread, after setup, before any vCPU thread exists. */
int vm_sandbox_enter(struct vm *vm)
{
	struct sandbox_config cfg = {
		.keep_fd = vm->cfg.sandbox_keep_fd,
		.chroot_dir = vm->cfg.sandbox_root,
	};
	int r;

	r = vm_sandbox_action(&vm->cfg, &cfg.action);
	if (r < 0)
		return r;
	/* No capability: 9p, the only user of any, is the worker's (vm-9p.c), and so are the
	 * exports' files. */
	cfg.vmm_caps = 0;
	r = vm_9p_hide_exports(vm);
	if (r < 0)
		return r;
	cfg.threads = (1u << SANDBOX_THREAD_VCPU) | (1u << SANDBOX_THREAD_VMM);
	if (!vm->sandbox) {
		r = sandbox_new(&cfg, &vm->sandbox);
		if (r < 0)
			return r;
	}
	return sandbox_enter_process(vm->sandbox);
}

int vm_sandbox_enter_9p(void *userdata, enum p9_worker_role role)
{
	const struct vm_config *vc = userdata;
	enum sandbox_thread kind =
		role == P9_WORKER_BROKER ? SANDBOX_THREAD_9P_BROKER : SANDBOX_THREAD_9P;
	struct sandbox_config cfg = {
		.keep_fd = -1,
		.chroot_dir = vc->sandbox_root,
		.threads = 1u << kind,
	};
	struct sandbox *sb = NULL;
	bool any_rw = false, any_ro = false;
	int r;

	r = vm_sandbox_action(vc, &cfg.action);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < vc->n_shares; i++) {
		any_ro |= vc->shares[i].read_only;
		any_rw |= !vc->shares[i].read_only;
	}
	/* The capabilities are the broker's; the worker, which parses 9P, keeps none. */
	cfg.vmm_caps = role == P9_WORKER_BROKER ? sandbox_caps_for_9p(any_rw, any_ro) : 0;
	r = sandbox_new(&cfg, &sb);
	if (r >= 0)
		r = sandbox_enter_process(sb);
	if (r >= 0)
		r = sandbox_enter_thread(sb, kind);
	sandbox_free(sb);
	return r;
}

/* In the thread: a vCPU thread, or the main thread once the vCPUs are started. */
int vm_sandbox_enter_thread(struct vm *vm, bool vcpu)
{
	if (!vm->sandbox)
		return -EINVAL;
	return sandbox_enter_thread(vm->sandbox, vcpu ? SANDBOX_THREAD_VCPU : SANDBOX_THREAD_VMM);
}
