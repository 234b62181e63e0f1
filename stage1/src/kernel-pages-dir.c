/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "kernel-pages-dir.h"

static int mkdir_one(const char *path, mode_t mode)
{
	return mkdir(path, mode) < 0 && errno != EEXIST ? -errno : 0;
}

int kernel_pages_dir_prepare(const char *path, struct run_error *reterr)
{
	_cleanup_free_ char *p = NULL;
	struct stat st;
	int r;

	if (!path || path[0] != '/')
		return run_error_set(reterr, -EINVAL, "kernel pages directory: not absolute");
	p = strdup(path);
	if (!p)
		return run_error_set(reterr, -ENOMEM, "out of memory");
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		r = mkdir_one(p, 0755);
		*s = '/';
		if (r < 0)
			return run_error_set(reterr, r, "cannot make %s: %m", path);
	}
	r = mkdir_one(path, 0700);
	if (r < 0)
		return run_error_set(reterr, r, "cannot make %s: %m", path);
	if (lstat(path, &st) < 0)
		return run_error_set(reterr, -errno, "cannot look at %s: %m", path);
	if (!S_ISDIR(st.st_mode))
		return run_error_set(reterr, -ENOTDIR, "%s is not a directory", path);
	if (st.st_uid != geteuid() || (st.st_mode & 0077))
		return run_error_set(reterr, -EPERM,
				     "%s is not a directory of this user's that only it can enter",
				     path);
	return 0;
}
