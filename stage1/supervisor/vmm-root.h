/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The VMM's root: cc-vmm runs chrooted in the stage1 rootfs (--chroot), so that the pod's
 * machine (systemd-machined, journalctl -M) sees the pod's journal under its leader's root,
 * as with rkt's nspawn stage1, and the VMM sees no more of the host than it needs. The VMM's
 * 9p server reaches file xattrs through /proc/self/fd, so the root gets a procfs: a new
 * instance with only the process directories (subset=pid), mounted in run's private mount
 * namespace, so that it goes away with run and the VMM.
 */

/* Mount that procfs on <pod>/POD_STAGE1_ROOTFS/proc, creating the directory. */
int vmm_root_prepare(int pod_fd);
