/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Carrying out a volume plan in the supervisor's private mount namespace: empty volumes are
 * created under cc/volumes/<name> with their mode, uid and gid; each mount is a detached
 * bind (open_tree, recursive unless the volume says otherwise), made read-only as a whole tree
 * when asked (mount_setattr), then attached on the target opened inside the app rootfs
 * (root-path.h), so no path is ever resolved twice. Needs Linux >= 5.12 when the pod has
 * volumes.
 */

#include "cc/error.h"
#include "cc/warnings.h"
#include "volume-plan.h"
#include "volume-root.h"

/*
 * unshare(CLONE_NEWNS) and make every mount a slave: nothing made afterwards propagates back
 * to the host, and it all disappears with the last process of the namespace (the supervisor
 * and the VMM), kill -9 included.
 */
int mount_ns_private(void);

/*
 * Create the directories an app rootfs needs (proc sys dev tmp run) under the app rootfs
 * rootfs_fd.
 */
int app_rootfs_prepare(int rootfs_fd);

/*
 * Apply plan under the pod dir pod_fd, which must have been opened in the current mount
 * namespace (after mount_ns_private()): a target reached from an fd of another namespace
 * cannot be mounted on (-EINVAL). Warnings (hidden contents, replaced files) go to warn.
 * The root of every host volume mounted is added to roots (volume-root.h), even on failure;
 * the caller frees it with volume_roots_done().
 */
int volume_plan_apply(const struct volume_plan *plan, int pod_fd, struct volume_roots *roots,
		      struct cc_warnings *warn, struct cc_error *reterr_error);
