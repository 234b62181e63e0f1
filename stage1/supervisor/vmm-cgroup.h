/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The VMM's own cgroup v2 (docs/stage1.md, "The VMM's bound"): <root>/<parent>/<pod uuid>,
 * a leaf that holds the VMM process only. The parent (default "clear-containers", at the top
 * of the hierarchy, as the Firecracker jailer's "firecracker") holds no process, so the
 * memory and pids controllers can be enabled for its children ("no internal processes").
 *
 * Every function takes the cgroup2 root as a directory fd, so tests pass a directory that
 * imitates one. Paths under it are relative, '/'-separated names of [A-Za-z0-9._-] (no "."
 * or ".." component), opened without following symlinks.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cc/error.h"
#include "vmm-bound.h"

#define VMM_CGROUP_PARENT_DEFAULT "clear-containers"
#define VMM_CGROUP_ROOT_DEFAULT	  "/sys/fs/cgroup"
/* The cgroup2 mount of a systemd "hybrid" host (cgroup v1 controllers beside it). */
#define VMM_CGROUP_ROOT_HYBRID	   "/sys/fs/cgroup/unified"
#define VMM_CGROUP_PATH_MAX	   64u
#define VMM_CGROUP_KILL_TIMEOUT_MS 5000u

struct vmm_cgroup {
	int dir_fd; /* the pod's cgroup directory, -1 when none */
	char path[VMM_CGROUP_PATH_MAX + 1];
	bool memory; /* memory.max (and memory.oom.group) set */
	bool swap;   /* memory.swap.max set to 0 */
	bool pids;   /* pids.max set */
};

#define VMM_CGROUP_NULL      \
	{                    \
		.dir_fd = -1 \
	}

/* Whether path is a valid relative cgroup path (see above), at most VMM_CGROUP_PATH_MAX long. */
bool vmm_cgroup_path_valid(const char *path);

/*
 * Open the cgroup2 hierarchy: $CC_STAGE1_CGROUP_ROOT when set (tests; any directory), else
 * /sys/fs/cgroup or /sys/fs/cgroup/unified, the first that is a cgroup2 mount. Returns the fd
 * (O_PATH directory) and, in *ret_path if non-NULL, which one; -ENOMEDIUM when there is none.
 */
int vmm_cgroup_root_open(const char **ret_path);

/*
 * Make <root_fd>/path for the VMM, its parents too, enabling the memory and pids controllers
 * from the root down wherever the kernel offers them, and write the bound: memory.max,
 * memory.swap.max 0 and memory.oom.group 1 when the memory controller is there, pids.max
 * when pids is. An existing directory is reused if it holds no process (-EBUSY otherwise).
 * A controller the hierarchy does not offer leaves its flag in *ret false (not an error:
 * the caller decides). On error, a directory this call made is removed again.
 */
int vmm_cgroup_create(int root_fd, const char *path, const struct vmm_bound *b,
		      struct vmm_cgroup *ret, struct cc_error *reterr_error);

/* Move pid into the cgroup (cgroup.procs). */
int vmm_cgroup_attach(const struct vmm_cgroup *cg, pid_t pid);

/*
 * How many processes of the cgroup dir_fd the OOM killer killed (memory.events "oom_kill").
 * -ENOENT without the memory controller.
 */
int vmm_cgroup_oom_kills(int dir_fd, uint64_t *ret);

/*
 * The cgroup v2 of pid ("0::<path>" in /proc/<pid>/cgroup), opened beneath root_fd without
 * following symlinks; its path (from the root, truncated to fit) in name.
 */
int vmm_cgroup_of_pid(int root_fd, pid_t pid, char *name, size_t n);

/*
 * Remove <root_fd>/path: kill every process left in it (cgroup.kill, or SIGKILL to each of
 * cgroup.procs on kernels without it), wait up to timeout_ms until it is empty, rmdir.
 * A cgroup already gone counts as removed (0). -EINVAL for an invalid path, -ETIMEDOUT when
 * processes stay.
 */
int vmm_cgroup_remove(int root_fd, const char *path, unsigned timeout_ms);

void vmm_cgroup_done(struct vmm_cgroup *cg);
