/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The VMM sandboxes itself after setup, before the first KVM_RUN (docs/vmm.md "Sandbox"):
 *
 *   sandbox_new()            main thread, after setup: has libseccomp generate one BPF
 *                            program per thread kind from the tables of sandbox-rules.c
 *                            (nothing applied yet);
 *   sandbox_enter_process()  main thread, before any other thread exists: closes inherited
 *                            fds, sets no_new_privs, enters the chroot if one is set,
 *                            drops capabilities (bounding set too), malloc_trim(0); threads
 *                            created afterwards inherit all of it;
 *   sandbox_enter_thread()   in each thread, before it runs guest work: drops what that
 *                            thread kind does not need and installs its own filter with
 *                            seccomp(2) (TSYNC off: that thread only).
 *                            The main thread enters last, after starting the vCPUs.
 *
 * Thread kinds are the threads the VMM really has: one per vCPU, and the main thread, which
 * runs the event loop (every device backend) and then tears the VM down; and the one thread of
 * the 9p worker, a process of its own that sandboxes itself the same way.
 */

#include <stdbool.h>
#include <stdint.h>

enum sandbox_thread {
	SANDBOX_THREAD_VCPU, /* KVM_RUN and MMIO/PIO exits: "vcpu" */
	SANDBOX_THREAD_VMM,  /* the main thread: event loop, devices, teardown: "vmm" */
	SANDBOX_THREAD_9P,   /* the 9p worker process, which parses 9P (9p/9p-worker.h): "9p" */
	SANDBOX_THREAD_9P_BROKER, /* its broker, which does the file operations: "9p-broker" */
	_SANDBOX_THREAD_MAX,
	_SANDBOX_THREAD_INVALID = -22,
};

enum sandbox_action {
	SANDBOX_ACTION_KILL, /* a syscall outside the list kills the process (SIGSYS) */
	SANDBOX_ACTION_LOG,  /* ... is allowed and logged by the kernel (debug, sanitizers) */
	_SANDBOX_ACTION_MAX,
	_SANDBOX_ACTION_INVALID = -22,
};

/*
 * Debug only: CC_VMM_SANDBOX_SELFTEST=<thread kind> makes every thread of that kind call
 * getppid(), which no table allows, right after loading its filter (tests/kvm/sandbox).
 * CC_VMM_SANDBOX_SELFTEST=escape[:PATH]: once capabilities are dropped, the main thread tries to
 * open the host file PATH the ways a compromised VMM would (sandbox-escape.h); one that works
 * fails sandbox_enter_process() with a message naming it, else one warning line counts them;
 * then the same for chmod through the fds it holds on others' inodes (sandbox_reach_try()).
 */
#define SANDBOX_SELFTEST_ENV "CC_VMM_SANDBOX_SELFTEST"

struct sandbox_config {
	enum sandbox_action action;
	int keep_fd; /* an inherited fd to keep open (rkt's pod lock), or -1 */
	/* Capabilities the process keeps (1 << CAP_*, sandbox-caps.h): none for the VMM, 9p's set
	 * for the 9p worker. vCPU threads drop them all. */
	uint64_t vmm_caps;
	/* The thread kinds to build filters for (1 << SANDBOX_THREAD_*); 0: all. */
	uint32_t threads;
	/*
	 * A directory that becomes the process's root (chroot, then chdir "/"), or NULL. Every
	 * file the VM uses is open by then; a path the VMM resolves later (a vsock UDS_PATH_P
	 * connection) resolves inside it.
	 */
	const char *chroot_dir;
};

struct sandbox;

int sandbox_new(const struct sandbox_config *cfg, struct sandbox **ret);
struct sandbox *sandbox_free(struct sandbox *sb);
int sandbox_enter_process(struct sandbox *sb);
/* In the thread itself (-EINVAL for a kind whose filter was not built). Safe to call from several
 * threads at once (no allocation, no lock). */
int sandbox_enter_thread(struct sandbox *sb, enum sandbox_thread kind);

const char *sandbox_thread_to_string(enum sandbox_thread t);
enum sandbox_thread sandbox_thread_from_string(const char *s);
const char *sandbox_action_to_string(enum sandbox_action a);
enum sandbox_action sandbox_action_from_string(const char *s);
