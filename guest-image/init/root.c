/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The mount work of the init stage. Part of the cc-init program, not a library: each
 * function logs the step that failed (the console is all a failing boot leaves behind)
 * and returns the error; main() only exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/log.h"
#include "cc/macro.h"
#include "cmdline.h"
#include "overlay.h"
#include "root.h"
#include "users.h"

/* True when something is mounted on path (its device differs from its parent's). */
static int root_is_mountpoint(const char *path)
{
	_cleanup_free_ char *parent = NULL;
	struct stat st, pst;

	if (asprintf(&parent, "%s/..", path) < 0)
		return -ENOMEM;
	if (stat(path, &st) < 0 || stat(parent, &pst) < 0)
		return -errno;
	return st.st_dev != pst.st_dev || st.st_ino == pst.st_ino;
}

static int root_mount_one(const char *source, const char *target, const char *type,
			  unsigned long flags, const char *data)
{
	if (mount(source, target, type, flags, data) < 0)
		return log_error_errno(errno, "Failed to mount %s (%s) on %s: %m", source, type,
				       target);
	return 0;
}

int root_mount_api(void)
{
	static const struct {
		const char *type, *target;
		unsigned long flags;
	} api[] = {
		{"proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC},
		{"sysfs", "/sys", MS_NOSUID | MS_NODEV | MS_NOEXEC},
		{"devtmpfs", "/dev", MS_NOSUID},
	};
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(api); i++) {
		r = root_is_mountpoint(api[i].target);
		if (r < 0)
			return log_error_errno(r, "Failed to check %s: %m", api[i].target);
		/* With CONFIG_DEVTMPFS_MOUNT the kernel mounted /dev already. */
		if (r > 0)
			continue;
		r = root_mount_one(api[i].type, api[i].target, api[i].type, api[i].flags, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

static int root_mkdir(const char *dir, const char *name, char **ret_path)
{
	_cleanup_free_ char *path = NULL;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return log_oom();
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return log_error_errno(errno, "Failed to create %s: %m", path);
	*ret_path = TAKE_PTR(path);
	return 0;
}

/* Bind l->base read-only at <scratch>/base. */
static int root_bind_base(const struct root_layout *l, char **ret_path)
{
	_cleanup_free_ char *path = NULL;
	int r;

	r = root_mkdir(l->scratch, "base", &path);
	if (r < 0)
		return r;
	r = root_mount_one(l->base, path, "bind", MS_BIND, NULL);
	if (r < 0)
		return r;
	r = root_mount_one(NULL, path, "remount", MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	if (r < 0)
		return r;
	*ret_path = TAKE_PTR(path);
	return 0;
}

static int root_mount_pod(const struct root_layout *l, char **ret_path)
{
	_cleanup_free_ char *path = NULL;
	int r;

	r = root_mkdir(l->scratch, "pod", &path);
	if (r < 0)
		return r;
	r = root_mount_one(l->pod_tag, path, "9p", MS_RDONLY | MS_NODEV, ROOT_POD_9P_OPTIONS);
	if (r < 0)
		return r;
	*ret_path = TAKE_PTR(path);
	return 0;
}

/* Create root/path (path absolute and normalized) one component at a time, never following
 * a symlink, as the user-visible layers (the pod layer) come from the host. */
static int root_mkdir_p(const char *root, const char *path)
{
	_cleanup_free_ char *copy = strdup(path);
	_cleanup_close_ int fd = -EBADF;
	char *save = NULL;

	if (!copy)
		return log_oom();
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return log_error_errno(errno, "Failed to open %s: %m", root);
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		int next;

		if (mkdirat(fd, c, 0755) < 0 && errno != EEXIST)
			return log_error_errno(errno, "Failed to create %s in %s%s: %m", c, root,
					       path);
		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return log_error_errno(errno, "Failed to open %s in %s%s: %m", c, root,
					       path);
		safe_close(fd);
		fd = next;
	}
	return 0;
}

static int root_mount_shares(const struct root_layout *l, const char *root)
{
	int r;

	for (size_t i = 0; i < l->n_mounts; i++) {
		_cleanup_free_ char *target = NULL;

		r = root_mkdir_p(root, l->mounts[i].path);
		if (r < 0)
			return r;
		if (asprintf(&target, "%s%s", root, l->mounts[i].path) < 0)
			return log_oom();
		r = root_mount_one(l->mounts[i].tag, target, "9p", MS_NODEV, ROOT_MOUNT_9P_OPTIONS);
		if (r < 0)
			return r;
	}
	return 0;
}

int root_assemble(const struct root_layout *l, char **ret_root)
{
	_cleanup_free_ char *base = NULL, *pod = NULL, *upper = NULL, *work = NULL;
	_cleanup_free_ char *root = NULL, *opts = NULL;
	const char *lowers[2];
	size_t n = 0;
	int r;

	if (!l || !l->scratch || !l->base || !ret_root)
		return log_error_errno(SYNTHETIC_ERRNO(EINVAL), "Invalid root layout.");

	/* One tmpfs holds the upper layer, overlayfs' work directory and the mount points. */
	r = root_mount_one("tmpfs", l->scratch, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
	if (r < 0)
		return r;
	r = root_bind_base(l, &base);
	if (r < 0)
		return r;
	if (l->pod_tag) {
		r = root_mount_pod(l, &pod);
		if (r < 0)
			return r;
		lowers[n++] = pod;
	}
	lowers[n++] = base;

	r = root_mkdir(l->scratch, "upper", &upper);
	if (r >= 0)
		r = root_mkdir(l->scratch, "work", &work);
	if (r >= 0)
		r = root_mkdir(l->scratch, "root", &root);
	if (r < 0)
		return r;

	r = overlay_options_build(lowers, n, upper, work, &opts);
	if (r < 0)
		return log_error_errno(r, "Failed to build the overlay options: %m");
	r = root_mount_one("overlay", root, "overlay", 0, opts);
	if (r < 0)
		return r;
	r = root_mount_shares(l, root);
	if (r < 0)
		return r;
	r = users_append(root);
	if (r < 0)
		return r;

	*ret_root = TAKE_PTR(root);
	return 0;
}

int root_switch(const char *new_root)
{
	static const char *const api[] = {"/proc", "/sys", "/dev"};
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(api); i++) {
		_cleanup_free_ char *target = NULL;

		if (asprintf(&target, "%s%s", new_root, api[i]) < 0)
			return log_oom();
		r = root_mount_one(api[i], target, "move", MS_MOVE, NULL);
		if (r < 0)
			return r;
	}

	if (chdir(new_root) < 0)
		return log_error_errno(errno, "Failed to enter %s: %m", new_root);
	/* pivot_root(".", ".") stacks the old root on the new one; detaching "." drops it. */
	if (syscall(SYS_pivot_root, ".", ".") == 0) {
		if (umount2(".", MNT_DETACH) < 0)
			return log_error_errno(errno, "Failed to detach the old root: %m");
	} else {
		/* The old root cannot be pivoted (e.g. it is the initial rootfs): move instead. */
		log_debug_errno(errno, "pivot_root failed, moving the new root instead: %m");
		r = root_mount_one(".", "/", "move", MS_MOVE, NULL);
		if (r < 0)
			return r;
		if (chroot(".") < 0)
			return log_error_errno(errno, "Failed to change root: %m");
	}
	if (chdir("/") < 0)
		return log_error_errno(errno, "Failed to enter the new root: %m");
	return 0;
}
