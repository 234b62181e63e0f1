/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "pod-paths.h"
#include "root-path.h"
#include "volume-mount.h"

int mount_ns_private(void)
{
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	return RET_NERRNO(mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL));
}

int app_rootfs_prepare(int rootfs_fd)
{
	static const char *const dirs[] = {"/proc", "/sys", "/dev", "/tmp", "/run"};

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		_cleanup_close_ int fd = -1;
		int r = root_path_open_create(rootfs_fd, dirs[i], ROOT_PATH_DIR, &fd, NULL);

		if (r < 0)
			return r;
	}
	return 0;
}

static int empty_volume_create(int volumes_fd, const struct volume_empty *v)
{
	_cleanup_close_ int fd = -1;

	if (mkdirat(volumes_fd, v->name, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(volumes_fd, v->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchown(fd, v->uid, v->gid) < 0)
		return -errno;
	/* fchmod after fchown: chown clears setuid/setgid bits. */
	return RET_NERRNO(fchmod(fd, v->mode & 07777));
}

static int source_open(const struct volume_mount *m, int volumes_fd, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (m->empty)
		fd = openat(volumes_fd, m->volume, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	else
		fd = open(m->source, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* The source changed type since planning. */
	if (S_ISDIR(st.st_mode) == m->single_file)
		return -ESTALE;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static int bind_attach(int source_fd, int target_fd, bool recursive, bool read_only)
{
	_cleanup_close_ int tree = -1;
	unsigned rec = recursive ? AT_RECURSIVE : 0;

	tree = open_tree(source_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | rec);
	if (tree < 0)
		return -errno;
	if (read_only) {
		struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};

		if (mount_setattr(tree, "", AT_EMPTY_PATH | rec, &attr, sizeof(attr)) < 0)
			return -errno;
	}
	return RET_NERRNO(move_mount(tree, "", target_fd, "",
				     MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH));
}

void volume_roots_done(struct volume_roots *r)
{
	if (!r)
		return;
	free(r->v);
	*r = (struct volume_roots){};
}

/* Remember the host source source_fd as a volume root (once per inode). */
static int volume_roots_add(struct volume_roots *roots, int source_fd)
{
	struct volume_root *v;
	struct stat st;

	if (fstat(source_fd, &st) < 0)
		return -errno;
	for (size_t i = 0; i < roots->n; i++)
		if (roots->v[i].dev == st.st_dev && roots->v[i].ino == st.st_ino)
			return 0;
	v = reallocarray(roots->v, roots->n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	roots->v = v;
	v[roots->n++] = (struct volume_root){st.st_dev, st.st_ino, st.st_uid, st.st_gid};
	return 0;
}

static int mount_one(const struct volume_mount *m, int pod_fd, int volumes_fd,
		     struct volume_roots *roots, struct cc_warnings *warn, struct cc_error *err)
{
	_cleanup_close_ int rootfs_fd = -1, source_fd = -1, target_fd = -1;
	char rootfs[PATH_MAX];
	int flags = 0, r;

	(void) snprintf(rootfs, sizeof(rootfs), POD_APP_ROOTFS_FMT, m->app);
	rootfs_fd = openat(pod_fd, rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfs_fd < 0)
		return cc_error_set(err, errno, "app %s: %s: %m", m->app, rootfs);
	r = source_open(m, volumes_fd, &source_fd);
	if (r < 0)
		return cc_error_set(err, r, "volume %s: source %s: %m", m->volume,
				    m->empty ? m->volume : m->source);
	r = root_path_open_create(rootfs_fd, m->target,
				  m->single_file ? ROOT_PATH_FILE : ROOT_PATH_DIR, &target_fd,
				  &flags);
	if (r == -ENOSYS)
		return cc_error_set(err, r, "volumes need Linux >= 5.12 (openat2, open_tree)");
	if (r < 0)
		return cc_error_set(err, r, "app %s: mount target %s of volume %s: %m", m->app,
				    m->target, m->volume);
	if (flags & ROOT_PATH_REPLACED_FILE)
		(void) cc_warnings_add(
			warn, "app %s: %s was a file, replaced by a directory for volume %s",
			m->app, m->target, m->volume);
	if (flags & ROOT_PATH_NOT_EMPTY)
		(void) cc_warnings_add(warn, "app %s: volume %s hides the contents of %s", m->app,
				       m->volume, m->target);
	/*
	 * Before it is reachable: a host volume's root, for the 9p server's host-volume policy.
	 * Empty volumes (cc/volumes, 0700, root's) keep passthrough like the app rootfs.
	 */
	if (!m->empty) {
		r = volume_roots_add(roots, source_fd);
		if (r < 0)
			return cc_error_set(err, r, "volume %s: source %s: %m", m->volume,
					    m->source);
	}
	r = bind_attach(source_fd, target_fd, m->recursive, m->read_only);
	if (r == -ENOSYS)
		return cc_error_set(err, r, "volumes need Linux >= 5.12 (openat2, open_tree)");
	if (r < 0)
		return cc_error_set(err, r, "app %s: cannot mount volume %s on %s: %m", m->app,
				    m->volume, m->target);
	return 0;
}

int volume_plan_apply(const struct volume_plan *plan, int pod_fd, struct volume_roots *roots,
		      struct cc_warnings *warn, struct cc_error *reterr_error)
{
	_cleanup_close_ int volumes_fd = -1;
	int r;

	assert_return(plan && roots, -EINVAL);
	if (plan->n_mounts == 0)
		return 0;
	if (plan->n_empties > 0) {
		if (mkdirat(pod_fd, VOLUMES_DIR, 0700) < 0 && errno != EEXIST)
			return cc_error_set(reterr_error, errno, "%s: %m", VOLUMES_DIR);
		volumes_fd =
			openat(pod_fd, VOLUMES_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (volumes_fd < 0)
			return cc_error_set(reterr_error, errno, "%s: %m", VOLUMES_DIR);
	}
	for (size_t i = 0; i < plan->n_empties; i++) {
		r = empty_volume_create(volumes_fd, &plan->empties[i]);
		if (r < 0)
			return cc_error_set(reterr_error, r, "volume %s: cannot create %s/%s: %m",
					    plan->empties[i].name, VOLUMES_DIR,
					    plan->empties[i].name);
	}
	for (size_t i = 0; i < plan->n_mounts; i++) {
		r = mount_one(&plan->mounts[i], pod_fd, volumes_fd, roots, warn, reterr_error);
		if (r < 0)
			return r;
	}
	return 0;
}
