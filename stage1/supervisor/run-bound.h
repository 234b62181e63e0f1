/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * run's side of the VMM's bound (docs/stage1.md, "The VMM's bound"): the pod's cgroup
 * <cgroup2 root>/$CC_STAGE1_CGROUP_PARENT/<uuid> (parent "clear-containers" by default),
 * recorded in cc/resources before it is made, the VMM moved into it before it may exec; where
 * there is no cgroup v2 memory controller, RLIMIT_DATA on the VMM instead, with a warning.
 */

#include <stdbool.h>
#include <sys/types.h>

#include "pod-exit.h"
#include "cc/error.h"
#include "cc/warnings.h"
#include "stage1/vmsize.h"
#include "vmm-bound.h"
#include "vmm-cgroup.h"

struct run_bound {
	struct vmm_bound b;
	struct vmm_cgroup cg; /* ours, removed when the pod ends */
	int root_fd;
	/* Where the VMM runs under memory.max: ours, or the scope systemd moved it into. */
	int watch_fd;
	char watch_name[256];
	bool rlimit; /* RLIMIT_DATA is the VMM's memory bound */
};

#define RUN_BOUND_NULL                                               \
	{                                                            \
		.cg = VMM_CGROUP_NULL, .root_fd = -1, .watch_fd = -1 \
	}

/*
 * Size the bound, then record and make the cgroup. A host without a usable cgroup v2 memory
 * controller is a warning (the RLIMIT_DATA fallback); a bad $CC_STAGE1_CGROUP_PARENT or a
 * failure to record is an error.
 */
int run_bound_setup(struct run_bound *rb, int pod_fd, const char *uuid, const struct vm_size *size,
		    const char *image, struct cc_warnings *warn, struct cc_error *reterr_error);

/*
 * supervise_config.prestart: put the VMM child pid under the bound: into our cgroup, unless
 * in_scope (systemd-machined had systemd move it into a scope of its own, whose properties
 * carry the same bound: then ours, unused, is removed), and RLIMIT_DATA for the fallback.
 */
int run_bound_prestart(struct run_bound *rb, pid_t pid, bool in_scope,
		       struct cc_error *reterr_error);

/*
 * After the VMM exited: when the OOM killer killed it (its cgroup's memory.events), say so in
 * pe (an error, or a warning when the pod's own status was recorded), then remove the cgroup
 * (a failure is a warning: gc removes it).
 */
void run_bound_finish(struct run_bound *rb, struct pod_exit *pe, struct cc_warnings *warn);

/* Remove the cgroup (the VMM never ran, or gc's pass). 0, or -errno: cc/resources must stay. */
int run_bound_remove(struct run_bound *rb);

/*
 * gc: kill and remove every cgroup recorded in cc/resources under pod_fd, before anything
 * else is torn down; failures are left for the record's removal pass, which reports them.
 */
void run_bound_gc(int pod_fd);

void run_bound_done(struct run_bound *rb);
