/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-stage1-gc: the stage1 `gc` entrypoint (/cc/gc in the stage1 ACI), run by `rkt gc` in the
 * pod dir of an exited pod: `gc [--debug] [--local-config DIR] UUID`. It kills a leftover
 * cc-vmm of this pod (pid file + exe name + cwd check), tears its networks down (CNI DEL,
 * port rules, the netns: ccnet_pod_teardown()), then removes every host resource recorded
 * in cc/resources (the netns again if the teardown failed: rkt deletes the pod dir after
 * its one gc call, so there is no retry). Idempotent: removing what is already gone succeeds, so a
 * second run exits 0 too. Mounts need nothing: they lived in run's private mount namespace. See
 * docs/stage1.md, "gc".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/log.h"
#include "pod-resources.h"
#include "run-bound.h"
#include "run-net.h"
#include "stage1/flags.h"
#include "vmm-reap.h"

#define GC_VMM_KILL_TIMEOUT_MS 5000

/* Print "gc: <what>: <strerror(err)>" and return code. */
static int fail(int code, const char *what, int err)
{
	errno = err < 0 ? -err : err;
	fprintf(stderr, "gc: %s: %m\n", what);
	return code;
}

static int remove_resources(int pod_fd)
{
	_cleanup_free_ struct pod_resource *res = NULL;
	unsigned line = 0;
	size_t n = 0;
	int ret = 0, r;

	r = pod_resources_load(pod_fd, &res, &n, &line);
	if (r == -EBADMSG) {
		fprintf(stderr, "gc: %s: line %u: malformed record\n", POD_RESOURCES_PATH, line);
		return 1;
	}
	if (r < 0)
		return fail(1, POD_RESOURCES_PATH, r);
	log_debug("%zu resource(s) recorded", n);
	for (size_t i = 0; i < n; i++) {
		const char *kind = pod_resource_kind_to_string(res[i].kind);

		r = pod_resource_remove(&res[i]);
		if (r < 0) {
			errno = -r;
			fprintf(stderr, "gc: cannot remove %s %s: %m\n", kind, res[i].name);
			ret = 1;
			continue;
		}
		log_debug("removed %s %s (or it was gone)", kind, res[i].name);
	}
	return ret;
}

int main(int argc, char *argv[])
{
	_cleanup_close_ int pod_fd = -1;
	struct cc_error err = {};
	struct gc_flags flags;
	pid_t pid = 0;
	int r, ret;

	log_set_prefix("gc");
	if (gc_flags_parse(argc, argv, &flags, &err) < 0) {
		fprintf(stderr, "gc: %s\n", cc_error_message(&err));
		return 2;
	}
	if (flags.debug)
		log_set_max_level(LOG_DEBUG);
	pod_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pod_fd < 0)
		return fail(1, "cannot open the pod dir", errno);

	r = vmm_reap_leftover(pod_fd, GC_VMM_KILL_TIMEOUT_MS, &pid);
	if (r < 0)
		return fail(1, "cannot kill the pod's leftover cc-vmm", r);
	if (r > 0)
		log_debug("killed the leftover cc-vmm %d", (int) pid);

	/* The VMM's cgroup: whatever else is left in it is killed before the networks go. */
	run_bound_gc(pod_fd);
	/* After the VMM: a tap is busy while the VMM holds it. */
	r = run_net_teardown_pod(pod_fd, flags.uuid, flags.local_config, &err);
	if (r < 0)
		fprintf(stderr, "gc: %s\n", cc_error_message(&err));
	ret = remove_resources(pod_fd);
	if (r < 0)
		ret = 1;
	if (ret == 0)
		log_debug("pod %s: nothing left outside the pod dir", flags.uuid);
	return ret;
}
