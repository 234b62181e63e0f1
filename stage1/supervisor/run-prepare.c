/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "pod-paths.h"
#include "run-prepare.h"
#include "stage1/podlayer.h"
#include "volume-mount.h"

static int apps_prepare(int pod_fd, const struct pod_manifest *pod, struct cc_error *err)
{
	for (size_t i = 0; i < pod->n_apps; i++) {
		_cleanup_close_ int fd = -1;
		char rel[PATH_MAX];
		int r;

		(void) snprintf(rel, sizeof(rel), POD_APP_ROOTFS_FMT, pod->apps[i].name);
		fd = openat(pod_fd, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return cc_error_set(err, errno, "app %s: rootfs %s: %m", pod->apps[i].name,
					    rel);
		r = app_rootfs_prepare(fd);
		if (r < 0)
			return cc_error_set(err, r, "app %s: cannot prepare its rootfs: %m",
					    pod->apps[i].name);
	}
	return 0;
}

/* Open rel beneath the pod dir, never through a symlink. */
static int pod_open(int pod_fd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t) (flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, pod_fd, rel, &how, sizeof(how));

	return fd < 0 ? -errno : (int) fd;
}

/* rel (a directory) 0700; -ENOENT if it is not there. */
static int dir_private(int pod_fd, const char *rel)
{
	_cleanup_close_ int fd = pod_open(pod_fd, rel, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return fd;
	return RET_NERRNO(fchmod(fd, 0700));
}

/* An rkt tree store ID from file rel ("deps-sha512-<hex>"): -ENOENT without overlay. */
static int tree_id_read(int pod_fd, const char *rel, char id[static 256])
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len;
	int r;

	fd = pod_open(pod_fd, rel, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADMSG;
	r = read_full_fd(fd, 255, &buf, &len);
	if (r < 0)
		return r;
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len == 0 || len > 255)
		return -EBADMSG;
	for (size_t i = 0; i < len; i++)
		if (!((buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= '0' && buf[i] <= '9') ||
		      buf[i] == '-'))
			return -EBADMSG;
	memcpy(id, buf, len);
	id[len] = '\0';
	return 0;
}

/*
 * The apps' rootfs keep the guest's setuid programs (docs/9p.md, "Host volumes"): only root may
 * reach them on the host. rkt makes the pod dir 0750 in its group "rkt" (its members read pod
 * state without root), so these become 0700, each the parent of what the guest writes and in
 * no share itself (the guest cannot change it back):
 *   - stage1/rootfs/opt, above the cc-stage2 export;
 *   - in overlay mode, overlay/<app treeStoreID>/upper, which holds upper/<app>: every file
 *     the guest writes in the app's rootfs lands there. The stage1's own upper stays (rkt
 *     status reads upper/rkt/status there; cc-rkt is under the host-volume policy).
 */
static int stage2_private(int pod_fd, const struct pod_manifest *pod, struct cc_error *err)
{
	char s1_id[256] = "", id[256], rel[PATH_MAX];
	int r;

	r = dir_private(pod_fd, POD_STAGE1_ROOTFS "/opt");
	if (r < 0)
		return cc_error_set(err, r, "%s/opt: %m", POD_STAGE1_ROOTFS);
	r = tree_id_read(pod_fd, "stage1TreeStoreID", s1_id);
	if (r < 0 && r != -ENOENT)
		return cc_error_set(err, r, "stage1TreeStoreID: %m");
	for (size_t i = 0; i < pod->n_apps; i++) {
		(void) snprintf(rel, sizeof(rel), POD_APPSINFO_DIR "/%s/treeStoreID",
				pod->apps[i].name);
		r = tree_id_read(pod_fd, rel, id);
		if (r == -ENOENT)
			continue; /* no overlay: the rootfs is under stage1/rootfs/opt */
		if (r < 0)
			return cc_error_set(err, r, "%s: %m", rel);
		if (strcmp(id, s1_id) == 0)
			return cc_error_set(err, -EBADMSG, "%s: the stage1's tree", rel);
		(void) snprintf(rel, sizeof(rel), "overlay/%s/upper", id);
		r = dir_private(pod_fd, rel);
		if (r < 0 && r != -ENOENT)
			return cc_error_set(err, r, "%s: %m", rel);
	}
	return 0;
}

static int layer_write(const struct run_prepare_params *p, struct cc_warnings *warn,
		       struct cc_error *err)
{
	_cleanup_close_ int layer_fd = -1, s1_fd = -1, etc_fd = -1;

	if (mkdirat(p->pod_fd, POD_LAYER_DIR, 0755) < 0 && errno != EEXIST)
		return cc_error_set(err, errno, "%s: %m", POD_LAYER_DIR);
	layer_fd =
		openat(p->pod_fd, POD_LAYER_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (layer_fd < 0)
		return cc_error_set(err, errno, "%s: %m", POD_LAYER_DIR);
	s1_fd = openat(p->pod_fd, POD_STAGE1_ROOTFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s1_fd < 0)
		return cc_error_set(err, errno, "%s: %m", POD_STAGE1_ROOTFS);
	etc_fd = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (etc_fd < 0)
		return cc_error_set(err, errno, "/etc: %m");

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

	return podlayer_write(layer_fd, &pp, warn, err);
}

int run_prepare(const struct run_prepare_params *p, struct cc_warnings *warn,
		struct cc_error *reterr_error)
{
	int r;

	assert_return(p && p->info && p->flags && p->plan && p->roots, -EINVAL);
	/* guest/ holds the guest's /rkt (cc-rkt; rkt's status/ stays where rkt reads it, which
	 * the guest never sees) and its journal: root's alone (0700) and in no share itself, as
	 * the pod dir is traversable by rkt's group (docs/threat-model.md). */
	for (size_t i = 0; i < 3; i++) {
		const char *d =
			(const char *[]){POD_GUEST_DIR, POD_GUEST_RKT_DIR, POD_GUEST_STATUS_DIR}[i];

		if (mkdirat(p->pod_fd, d, 0700) < 0 && errno != EEXIST)
			return cc_error_set(reterr_error, errno, "%s: %m", d);
	}
	if (fchmodat(p->pod_fd, POD_GUEST_DIR, 0700, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno != EOPNOTSUPP)
		return cc_error_set(reterr_error, errno, "%s: %m", POD_GUEST_DIR);
	if (unlinkat(p->pod_fd, POD_EXIT_PATH, 0) < 0 && errno != ENOENT)
		return cc_error_set(reterr_error, errno, "%s: %m", POD_EXIT_PATH);
	if (mkdirat(p->pod_fd, POD_CC_DIR, 0700) < 0 && errno != EEXIST)
		return cc_error_set(reterr_error, errno, "%s: %m", POD_CC_DIR);
	r = apps_prepare(p->pod_fd, p->info->pod, reterr_error);
	if (r < 0)
		return r;
	r = stage2_private(p->pod_fd, p->info->pod, reterr_error);
	if (r < 0)
		return r;
	r = volume_plan_apply(p->plan, p->pod_fd, p->roots, warn, reterr_error);
	if (r < 0)
		return r;
	return layer_write(p, warn, reterr_error);
}
