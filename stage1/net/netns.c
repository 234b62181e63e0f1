/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "ccnet.h"
#include "netns.h"

static int netns_path(const char *name, char *buf, size_t size)
{
	int n;

	if (!name || !*name || strchr(name, '/') || name[0] == '.')
		return -EINVAL;
	n = snprintf(buf, size, CCNET_NETNS_DIR "/%s", name);
	return n < 0 || (size_t) n >= size ? -EINVAL : 0;
}

int netns_enter(int ns_fd, int *ret_saved)
{
	_cleanup_close_ int saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	if (saved < 0)
		return -errno;
	if (setns(ns_fd, CLONE_NEWNET) < 0)
		return -errno;
	*ret_saved = TAKE_FD(saved);
	return 0;
}

int netns_leave(int saved)
{
	int r = RET_NERRNO(setns(saved, CLONE_NEWNET));

	safe_close(saved);
	return r;
}

int netns_create(const char *name, int *ret_fd)
{
	_cleanup_close_ int saved = -1, fd = -1;
	char path[128];
	int r;

	r = netns_path(name, path, sizeof(path));
	if (r < 0)
		return r;
	if (mkdir(CCNET_NETNS_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0)
		return -errno;
	fd = safe_close(fd);
	saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (saved < 0) {
		r = -errno;
		(void) unlink(path);
		return r;
	}
	if (unshare(CLONE_NEWNET) < 0) {
		r = -errno;
		(void) unlink(path);
		return r;
	}
	r = RET_NERRNO(mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL));
	if (r >= 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			r = -errno;
	}
	if (setns(saved, CLONE_NEWNET) < 0 && r >= 0)
		r = -errno;
	if (r < 0) {
		(void) netns_remove(name);
		return r;
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int netns_remove(const char *name)
{
	char path[128];
	int r;

	r = netns_path(name, path, sizeof(path));
	if (r < 0)
		return r;
	if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL && errno != ENOENT)
		return -errno;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
