/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Running build/bin/cc-vmm from the kvm-tier tests: spawn with captured stdout/stderr, wait
 * with a timeout (the VMM is killed and the test fails on a hang).
 */

#include <stdbool.h>
#include <sys/types.h>

struct vmm_proc {
	pid_t pid;
	int out_fd;
	int err_fd;
};

struct vmm_result {
	int status; /* exit status, or 128 + signal, or -1 on timeout */
	char out[16384];
	/* -vv logs two lines per zero sweep: a slow run (a loaded host) logs hundreds of sweeps. */
	char err[262144];
};

/* Exits 77 with a reason when /dev/kvm is missing, unless CI=true (then the test fails). */
void vmm_require_kvm(void);
const char *vmm_binary(void);
/* Path of build/guests/<name>.elf (static buffer per call slot: copy it if you keep it). */
const char *vmm_guest(const char *name);

/* argv without argv[0]; NULL-terminated. */
int vmm_spawn(char *const argv[], struct vmm_proc *ret);
/* Reads stdout until 'needle' shows up (true) or timeout/EOF (false); text kept in res. */
bool vmm_wait_output(struct vmm_proc *p, const char *needle, int timeout_ms,
		     struct vmm_result *res);
/* Waits for exit (killing after timeout_ms) and collects the rest of the output. */
void vmm_finish(struct vmm_proc *p, int timeout_ms, struct vmm_result *res);
/* spawn + finish */
void vmm_run(char *const argv[], int timeout_ms, struct vmm_result *res);
/*
 * The end of s, at most 3000 bytes from a line start where there is one: what fits in a check
 * message (a longer one fails as "Message string too long" and hides the failing assertion).
 */
const char *vmm_tail(const char *s);
/* Value of a "key=hex" line in out, or -1 if absent. */
long long vmm_kv(const char *out, const char *key);

/* Threads of pid, without the kernel workers KVM attaches to a VM's process (kvm-nx-lpage-*). */
unsigned vmm_count_threads(pid_t pid);
/* How many fds of pid point at something whose name starts with prefix. */
int vmm_count_fds(pid_t pid, const char *prefix);
/* The child of pid whose command is comm; fails the test when there is none or more than one. */
pid_t vmm_child(pid_t pid, const char *comm);
/* The 9p worker of the VMM pid (its child named cc-vmm-9p). */
pid_t vmm_9p_worker(pid_t pid);
/* The 9p worker's broker (its child named cc-vmm-9p-fs). */
pid_t vmm_9p_broker(pid_t worker);
