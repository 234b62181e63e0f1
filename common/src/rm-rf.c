/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/rm-rf.h"

#define RM_RF_DEPTH_MAX 256

static int rm_children(int fd, dev_t dev, unsigned depth);

static int rm_entry(int dir_fd, const char *name, dev_t dev, unsigned depth)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		_cleanup_close_ int fd = -1;
		int r;

		if (st.st_dev != dev)
			return -EBUSY;
		if (depth >= RM_RF_DEPTH_MAX)
			return -ELOOP;
		fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		r = rm_children(fd, dev, depth + 1);
		if (r < 0)
			return r;
		return unlinkat(dir_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -errno : 0;
	}
	return unlinkat(dir_fd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
}

static int rm_children(int fd, dev_t dev, unsigned depth)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int dfd, r = 0;

	dfd = dup(fd);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		(void) close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		int q;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		q = rm_entry(fd, de->d_name, dev, depth);
		if (q < 0 && r == 0)
			r = q;
	}
	return r;
}

int rm_rf_at(int dir_fd, const char *name)
{
	struct stat st;

	if (fstat(dir_fd, &st) < 0)
		return -errno;
	return rm_entry(dir_fd, name, st.st_dev, 0);
}

int rm_rf(const char *path)
{
	_cleanup_free_ char *copy = strdup(path ? path : "");
	_cleanup_close_ int parent_fd = -1;
	char *slash, *name;
	size_t len;

	if (!copy)
		return -ENOMEM;
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	if (len == 0 || strcmp(copy, "/") == 0)
		return -EINVAL;
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		name = slash + 1;
		parent_fd = open(slash == copy ? "/" : copy, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		name = copy;
		parent_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (parent_fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	return rm_rf_at(parent_fd, name);
}
