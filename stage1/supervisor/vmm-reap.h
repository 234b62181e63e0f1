/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * gc's leftover-VMM check: the process named by the pod's `pid` file is killed (SIGKILL) only
 * if it is alive, its executable is named cc-vmm and its cwd is this pod dir, so a recycled
 * PID is never hit.
 */

#include <sys/types.h>

#define VMM_EXE_NAME "cc-vmm"

/*
 * Whether pid is a cc-vmm of the pod dir dir_fd: its cwd is the pod dir (before the sandbox)
 * or its root is the pod's stage1 rootfs (after). 1 yes, 0 no (or gone), <0 error.
 */
int vmm_process_matches(pid_t pid, int dir_fd);

/*
 * Kill a leftover VMM of the pod dir pod_fd and wait up to timeout_ms for it to exit.
 * Returns 1 if one was killed, 0 if there was none (no pid file, dead, or another
 * process), -ETIMEDOUT if it did not die in time.
 */
int vmm_reap_leftover(int pod_fd, unsigned timeout_ms, pid_t *ret_pid);
