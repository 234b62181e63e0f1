/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Debug only (CC_VMM_SANDBOX_SELFTEST=escape[:PATH], tests/unit/stage1-run/test-run-real-vmm):
 * what a compromised VMM tries first, run by the main thread once the sandbox holds. PATH
 * (absolute; default /etc/hostname) is a host file outside the VMM's jail. Each attempt opens
 * it read-only:
 *   - by its own name (the VMM's root is not the host's),
 *   - as /proc/1/root/PATH (PID 1 of the VMM's procfs is the host's init without a PID
 *     namespace of its own),
 *   - as "../../..(32 times)/PATH" from every directory fd the VMM holds (9p exports, the vsock
 *     directory: a chroot is left this way).
 * Returns the number of attempts, all refused, or -EPERM with *ret_how naming the one that
 * opened the file (a static buffer).
 */

#include <stddef.h>

#define SANDBOX_ESCAPE_DEFAULT "/etc/hostname"

int sandbox_escape_try(const char *path, const char **ret_how);

/*
 * Debug only, with the above: what a compromised VMM's capabilities reach. For every fd on an
 * inode it does not own (stdio, tap, KVM, the kernel pages file; directories and sockets
 * aside), fchmod to the mode it has already. Returns the number of attempts, all refused, or
 * -EPERM with *ret_how naming the one that was allowed.
 */
int sandbox_reach_try(const char **ret_how);
