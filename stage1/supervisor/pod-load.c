/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "pod-load.h"
#include "pod-paths.h"

void pod_info_done(struct pod_info *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->pod && p->images && i < p->pod->n_apps; i++)
		image_manifest_free(p->images[i]);
	free(p->images);
	pod_manifest_free(p->pod);
	*p = (struct pod_info){};
}

/* /proc/self/fd/<fd>/<rel>: the manifest library loads by path. */
static void fd_path(char *buf, size_t len, int fd, const char *rel)
{
	(void) snprintf(buf, len, "/proc/self/fd/%d/%s", fd, rel);
}

static int app_load(int pod_fd, const struct pod_app *pa, struct image_manifest **ret,
		    struct cc_error *err)
{
	char rel[PATH_MAX], path[PATH_MAX + 32];
	struct stat st;
	int r;

	(void) snprintf(rel, sizeof(rel), POD_APP_MANIFEST_FMT, pa->name);
	fd_path(path, sizeof(path), pod_fd, rel);
	r = image_manifest_load(path, ret, err);
	if (r < 0)
		return cc_error_wrap(err, r, "%s", rel);
	if (!pod_app_effective_app(pa, *ret))
		return cc_error_set(err, EINVAL, "app %s: neither the pod nor its image has an app",
				    pa->name);
	(void) snprintf(rel, sizeof(rel), POD_APP_ROOTFS_FMT, pa->name);
	if (fstatat(pod_fd, rel, &st, 0) < 0)
		return cc_error_set(err, errno, "app %s: rootfs %s: %m", pa->name, rel);
	if (!S_ISDIR(st.st_mode))
		return cc_error_set(err, ENOTDIR, "app %s: rootfs %s: %m", pa->name, rel);
	return 0;
}

int pod_info_load(int pod_fd, struct pod_info *ret, struct cc_error *reterr_error)
{
	_cleanup_(pod_info_done) struct pod_info info = {};
	char path[64];
	int r;

	assert_return(ret, -EINVAL);
	fd_path(path, sizeof(path), pod_fd, POD_MANIFEST_PATH);
	r = pod_manifest_load(path, &info.pod, reterr_error);
	if (r < 0)
		return cc_error_wrap(reterr_error, r, "pod manifest");
	if (info.pod->n_apps == 0)
		return cc_error_set(reterr_error, EINVAL, "pod manifest: the pod has no apps");
	info.images = calloc(info.pod->n_apps, sizeof(*info.images));
	if (!info.images)
		return cc_error_set(reterr_error, ENOMEM, "out of memory");
	for (size_t i = 0; i < info.pod->n_apps; i++) {
		r = app_load(pod_fd, &info.pod->apps[i], &info.images[i], reterr_error);
		if (r < 0)
			return r;
	}
	*ret = info;
	info = (struct pod_info){};
	return 0;
}
