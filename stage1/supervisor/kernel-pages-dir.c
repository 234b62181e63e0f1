/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "kernel-pages-dir.h"
#include "stage1/atomic-write.h"

int kernel_pages_dir_prepare(const char *path, struct cc_error *reterr)
{
	_cleanup_close_ int root_fd = -1, parent_fd = -1, fd = -1;
	_cleanup_free_ char *parent = NULL;
	const char *base;
	struct stat st;
	int r;

	if (!path || path[0] != '/')
		return cc_error_set(reterr, -EINVAL, "kernel pages directory: not absolute");
	base = strrchr(path, '/') + 1;
	parent = strndup(path + 1, (size_t) (base - path - 1));
	if (!parent)
		return cc_error_set(reterr, -ENOMEM, "out of memory");
	if (parent[0])
		parent[strlen(parent) - 1] = '\0'; /* its trailing '/' */
	root_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return cc_error_set(reterr, -errno, "cannot open /: %m");
	/* The parents 0755, never through a symlink; the directory itself 0700. */
	r = layer_mkdir_p(root_fd, parent, 0755, &parent_fd);
	if (r >= 0 && mkdirat(parent_fd, base, 0700) < 0 && errno != EEXIST)
		r = -errno;
	if (r < 0)
		return cc_error_set(reterr, r, "cannot make %s: %m", path);
	fd = openat(parent_fd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cc_error_set(reterr, errno == ELOOP ? -ENOTDIR : -errno,
				    "%s is not a directory: %m", path);
	if (fstat(fd, &st) < 0)
		return cc_error_set(reterr, -errno, "cannot look at %s: %m", path);
	if (st.st_uid != geteuid() || (st.st_mode & 0077))
		return cc_error_set(reterr, -EPERM,
				    "%s is not a directory of this user's that only it can enter",
				    path);
	return 0;
}
