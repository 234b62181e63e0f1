/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "pod-paths.h"
#include "run-prepare.h"
#include "stage1/podlayer.h"
#include "volume-mount.h"

static int apps_prepare(int pod_fd, const struct pod_manifest *pod, struct run_error *err)
{
	for (size_t i = 0; i < pod->n_apps; i++) {
		_cleanup_close_ int fd = -1;
		char rel[PATH_MAX];
		int r;

		(void) snprintf(rel, sizeof(rel), POD_APP_ROOTFS_FMT, pod->apps[i].name);
		fd = openat(pod_fd, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return run_error_set(err, errno, "app %s: rootfs %s: %m", pod->apps[i].name,
					     rel);
		r = app_rootfs_prepare(fd);
		if (r < 0)
			return run_error_set(err, r, "app %s: cannot prepare its rootfs: %m",
					     pod->apps[i].name);
	}
	return 0;
}

static int layer_write(const struct run_prepare_params *p, run_warn_fn warn, void *userdata,
		       struct run_error *err)
{
	_cleanup_close_ int layer_fd = -1, s1_fd = -1, etc_fd = -1;
	struct stage1_warnings w = {};
	struct stage1_error serr = {};
	int r;

	if (mkdirat(p->pod_fd, POD_LAYER_DIR, 0755) < 0 && errno != EEXIST)
		return run_error_set(err, errno, "%s: %m", POD_LAYER_DIR);
	layer_fd =
		openat(p->pod_fd, POD_LAYER_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (layer_fd < 0)
		return run_error_set(err, errno, "%s: %m", POD_LAYER_DIR);
	s1_fd = openat(p->pod_fd, POD_STAGE1_ROOTFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s1_fd < 0)
		return run_error_set(err, errno, "%s: %m", POD_STAGE1_ROOTFS);
	etc_fd = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (etc_fd < 0)
		return run_error_set(err, errno, "/etc: %m");

	struct podlayer_params pp = {
		.pod = p->info->pod,
		.images = (const struct image_manifest *const *) p->info->images,
		.flags = p->flags,
		.stage1_rootfs_fd = s1_fd,
		.host_etc_fd = etc_fd,
		.metadata_host = p->metadata_host,
		.net_files = p->net_files,
		.n_net_files = p->n_net_files,
		.net_resolv_conf = p->net_resolv_conf,
	};

	r = podlayer_write(layer_fd, &pp, &w, &serr);
	for (size_t i = 0; i < stage1_warnings_count(&w); i++)
		run_warn(warn, userdata, "%s", stage1_warnings_line(&w, i));
	stage1_warnings_done(&w);
	if (r < 0)
		return run_error_set(err, r, "%s", serr.msg);
	return 0;
}

int run_prepare(const struct run_prepare_params *p, run_warn_fn warn, void *userdata,
		struct run_error *reterr_error)
{
	int r;

	assert_return(p && p->info && p->flags && p->plan, -EINVAL);
	/* The guest's /rkt (cc-rkt), beside rkt's status/, which the guest never sees. */
	for (size_t i = 0; i < 2; i++) {
		const char *d = i == 0 ? POD_GUEST_RKT_DIR : POD_GUEST_STATUS_DIR;

		if (mkdirat(p->pod_fd, d, 0755) < 0 && errno != EEXIST)
			return run_error_set(reterr_error, errno, "%s: %m", d);
	}
	if (unlinkat(p->pod_fd, POD_EXIT_PATH, 0) < 0 && errno != ENOENT)
		return run_error_set(reterr_error, errno, "%s: %m", POD_EXIT_PATH);
	if (mkdirat(p->pod_fd, POD_CC_DIR, 0700) < 0 && errno != EEXIST)
		return run_error_set(reterr_error, errno, "%s: %m", POD_CC_DIR);
	r = apps_prepare(p->pod_fd, p->info->pod, reterr_error);
	if (r < 0)
		return r;
	r = volume_plan_apply(p->plan, p->pod_fd, warn, userdata, reterr_error);
	if (r < 0)
		return r;
	return layer_write(p, warn, userdata, reterr_error);
}
