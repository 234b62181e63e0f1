/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "sandbox/sandbox-escape.h"

#define ESCAPE_UPS 32

static char escape_how[160];

/* Whether openat(dir_fd, name) opens something; closes it at once. */
static bool escape_opens(int dir_fd, const char *name)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	(void) close(fd);
	return true;
}

static int escape_found(const char *path, const char *how, int fd, const char **ret_how)
{
	if (fd >= 0)
		(void) snprintf(escape_how, sizeof(escape_how), "opened %s %s %d", path, how, fd);
	else
		(void) snprintf(escape_how, sizeof(escape_how), "opened %s %s", path, how);
	*ret_how = escape_how;
	return -EPERM;
}

/*
 * Call fn for every fd this process holds (the listing's own aside) with its fstat; stop at
 * the first nonzero return, which is returned; -errno when /proc/self/fd cannot be listed.
 */
static int escape_fds_each(int (*fn)(int fd, const struct stat *st, void *userdata), void *userdata)
{
	_cleanup_closedir_ DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;
		char *end;
		long fd;
		int r;

		errno = 0;
		fd = strtol(de->d_name, &end, 10);
		if (de->d_name[0] == '.' || *end || errno || fd < 0 || fd == dirfd(d))
			continue;
		if (fstat((int) fd, &st) < 0)
			continue;
		r = fn((int) fd, &st, userdata);
		if (r)
			return r;
	}
	return 0;
}

struct escape_up {
	const char *path, *up, **ret_how;
	int n;
};

/* "..", 32 times, then the path, from every directory fd. */
static int escape_up_try(int fd, const struct stat *st, void *userdata)
{
	struct escape_up *e = userdata;

	if (!S_ISDIR(st->st_mode))
		return 0;
	e->n++;
	if (escape_opens(fd, e->up))
		return escape_found(e->path, "through '..' from directory fd", fd, e->ret_how);
	return 0;
}

int sandbox_escape_try(const char *path, const char **ret_how)
{
	char up[ESCAPE_UPS * 3 + 4096];
	struct escape_up e = {.path = path, .up = up, .ret_how = ret_how};
	size_t len;
	int r;

	if (!path || path[0] != '/' || strlen(path) >= 4096 - 16)
		return -EINVAL;
	e.n++;
	if (escape_opens(AT_FDCWD, path))
		return escape_found(path, "by its name", -1, ret_how);
	e.n++;
	(void) snprintf(up, sizeof(up), "/proc/1/root%s", path);
	if (escape_opens(AT_FDCWD, up))
		return escape_found(path, "through /proc/1/root", -1, ret_how);
	len = 0;
	for (unsigned i = 0; i < ESCAPE_UPS; i++, len += 3)
		memcpy(up + len, "../", 3);
	(void) snprintf(up + len, sizeof(up) - len, "%s", path + 1);
	r = escape_fds_each(escape_up_try, &e);
	return r < 0 ? r : e.n;
}

struct escape_reach {
	uid_t uid;
	const char **ret_how;
	int n;
};

/* fchmod of an fd on an inode of another owner: a file, device or named FIFO. */
static int escape_reach_fd(int fd, const struct stat *st, void *userdata)
{
	struct escape_reach *e = userdata;
	char link[128] = "", path[64];

	if (st->st_uid == e->uid || !(S_ISREG(st->st_mode) || S_ISCHR(st->st_mode) ||
				      S_ISBLK(st->st_mode) || S_ISFIFO(st->st_mode)))
		return 0;
	(void) snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (readlink(path, link, sizeof(link) - 1) < 0)
		(void) snprintf(link, sizeof(link), "?");
	/* An anonymous pipe's inode is its own: no host file behind it. */
	if (strncmp(link, "pipe:", 5) == 0)
		return 0;
	e->n++;
	/* Its own mode again: nothing changes where it works. */
	if (fchmod(fd, st->st_mode & 07777) < 0)
		return 0;
	(void) snprintf(escape_how, sizeof(escape_how), "chmod of fd %d (%s, uid %u) allowed", fd,
			link, (unsigned) st->st_uid);
	*e->ret_how = escape_how;
	return -EPERM;
}

int sandbox_reach_try(const char **ret_how)
{
	struct escape_reach e = {.uid = geteuid(), .ret_how = ret_how};
	int r = escape_fds_each(escape_reach_fd, &e);

	return r < 0 ? r : e.n;
}
