/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cc/cleanup.h"
#include "pod-resources.h"
#include "run-bound.h"

#define MIB (UINT64_C(1) << 20)

static void fallback(struct run_bound *rb, struct cc_warnings *warn, const char *why)
{
	rb->rlimit = true;
	(void) cc_warnings_add(warn,
			       "%s: the VMM's memory is bounded by RLIMIT_DATA (%" PRIu64
			       " MiB of private mappings) only",
			       why, rb->b.data_max / MIB);
}

int run_bound_setup(struct run_bound *rb, int pod_fd, const char *uuid, const struct vm_size *size,
		    const char *image, struct cc_warnings *warn, struct cc_error *reterr_error)
{
	const char *parent = secure_getenv("CC_STAGE1_CGROUP_PARENT"), *root = NULL;
	char path[VMM_CGROUP_PATH_MAX + 2], why[CC_ERROR_MSG_MAX + 64];
	struct cc_error err = {};
	struct stat st;
	int r;

	assert_return(rb && uuid && size && image, -EINVAL);
	r = vmm_bound_compute(size, stat(image, &st) == 0 ? (uint64_t) st.st_size : 0, &rb->b);
	if (r < 0)
		return cc_error_set(reterr_error, r, "cannot size the VMM's bound: %m");
	if (!parent)
		parent = VMM_CGROUP_PARENT_DEFAULT;
	if (!*parent) {
		fallback(rb, warn, "CC_STAGE1_CGROUP_PARENT is empty: no cgroup");
		return 0;
	}
	r = snprintf(path, sizeof(path), "%s/%s", parent, uuid);
	if (r < 0 || !vmm_cgroup_path_valid(path))
		return cc_error_set(reterr_error, -EINVAL,
				    "CC_STAGE1_CGROUP_PARENT=\"%s\": not a relative cgroup path of "
				    "[A-Za-z0-9._-] names, at most %u bytes with the pod's UUID",
				    parent, VMM_CGROUP_PATH_MAX - 37);
	rb->root_fd = vmm_cgroup_root_open(&root);
	if (rb->root_fd < 0) {
		(void) snprintf(why, sizeof(why), "no cgroup v2 hierarchy (%s: %s)",
				VMM_CGROUP_ROOT_DEFAULT, strerror(-rb->root_fd));
		fallback(rb, warn, why);
		return 0;
	}
	r = pod_resources_append(pod_fd, POD_RESOURCE_CGROUP, path);
	if (r < 0)
		return cc_error_set(reterr_error, r, "cannot record the VMM's cgroup: %m");
	r = vmm_cgroup_create(rb->root_fd, path, &rb->b, &rb->cg, &err);
	if (r < 0) {
		fallback(rb, warn, err.msg);
		return 0;
	}
	if (!rb->cg.memory) {
		(void) snprintf(why, sizeof(why), "cgroup %s/%s: no memory controller", root, path);
		fallback(rb, warn, why);
	}
	return 0;
}

int run_bound_prestart(struct run_bound *rb, pid_t pid, bool in_scope,
		       struct cc_error *reterr_error)
{
	int r;

	if (rb->cg.dir_fd >= 0 && in_scope) {
		/* systemd's scope holds the VMM, bounded by its unit's MemoryMax and TasksMax. */
		rb->watch_fd =
			vmm_cgroup_of_pid(rb->root_fd, pid, rb->watch_name, sizeof(rb->watch_name));
		if (rb->watch_fd < 0)
			return cc_error_set(reterr_error, rb->watch_fd,
					    "cannot find the VMM's cgroup in its scope: %m");
		r = run_bound_remove(rb);
		if (r < 0)
			return cc_error_set(reterr_error, r, "cannot remove cgroup %s: %m",
					    rb->cg.path);
	} else if (rb->cg.dir_fd >= 0) {
		r = vmm_cgroup_attach(&rb->cg, pid);
		if (r < 0)
			return cc_error_set(reterr_error, r,
					    "cannot move the VMM into cgroup %s: %m", rb->cg.path);
		rb->watch_fd = fcntl(rb->cg.dir_fd, F_DUPFD_CLOEXEC, 3);
		if (rb->watch_fd < 0)
			return cc_error_set(reterr_error, errno, "cannot keep cgroup %s open: %m",
					    rb->cg.path);
		(void) snprintf(rb->watch_name, sizeof(rb->watch_name), "%s", rb->cg.path);
	}
	if (rb->rlimit) {
		r = vmm_bound_rlimit_apply(pid, &rb->b);
		if (r < 0)
			return cc_error_set(reterr_error, r,
					    "cannot set the VMM's RLIMIT_DATA: %m");
	}
	return 0;
}

int run_bound_remove(struct run_bound *rb)
{
	if (rb->cg.dir_fd < 0)
		return 0;
	vmm_cgroup_done(&rb->cg);
	return vmm_cgroup_remove(rb->root_fd, rb->cg.path, VMM_CGROUP_KILL_TIMEOUT_MS);
}

void run_bound_finish(struct run_bound *rb, struct pod_exit *pe, struct cc_warnings *warn)
{
	uint64_t kills = 0;
	int r;

	if (rb->watch_fd >= 0 && vmm_cgroup_oom_kills(rb->watch_fd, &kills) == 0 && kills > 0) {
		/* An error unless the pod's own status was recorded first (pod_exit_decide()). */
		pe->report = true;
		(void) snprintf(pe->msg, sizeof(pe->msg),
				"cc-vmm was OOM-killed at its memory bound (memory.max %" PRIu64
				" MiB, cgroup %.64s)",
				rb->b.memory_max / MIB, rb->watch_name);
	}
	r = run_bound_remove(rb);
	if (r < 0) {
		errno = -r;
		(void) cc_warnings_add(warn, "cannot remove cgroup %s (gc will): %m", rb->cg.path);
	}
}

void run_bound_gc(int pod_fd)
{
	_cleanup_free_ struct pod_resource *res = NULL;
	size_t n = 0;

	if (pod_resources_load(pod_fd, &res, &n, NULL) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (res[i].kind == POD_RESOURCE_CGROUP)
			(void) pod_resource_remove(&res[i]);
}

void run_bound_done(struct run_bound *rb)
{
	vmm_cgroup_done(&rb->cg);
	rb->watch_fd = safe_close(rb->watch_fd);
	rb->root_fd = safe_close(rb->root_fd);
}
