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

int sandbox_escape_try(const char *path, const char **ret_how)
{
	_cleanup_closedir_ DIR *d = NULL;
	char up[ESCAPE_UPS * 3 + 4096];
	struct dirent *de;
	size_t len;
	int n = 0;

	if (!path || path[0] != '/' || strlen(path) >= 4096 - 16)
		return -EINVAL;
	n++;
	if (escape_opens(AT_FDCWD, path))
		return escape_found(path, "by its name", -1, ret_how);
	n++;
	(void) snprintf(up, sizeof(up), "/proc/1/root%s", path);
	if (escape_opens(AT_FDCWD, up))
		return escape_found(path, "through /proc/1/root", -1, ret_how);
	len = 0;
	for (unsigned i = 0; i < ESCAPE_UPS; i++, len += 3)
		memcpy(up + len, "../", 3);
	(void) snprintf(up + len, sizeof(up) - len, "%s", path + 1);
	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;
		char *end;
		long fd;

		errno = 0;
		fd = strtol(de->d_name, &end, 10);
		if (de->d_name[0] == '.' || *end || errno || fd < 0 || fd == dirfd(d))
			continue;
		if (fstat((int) fd, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		n++;
		if (escape_opens((int) fd, up))
			return escape_found(path, "through '..' from directory fd", (int) fd,
					    ret_how);
	}
	return n;
}

int sandbox_reach_try(const char **ret_how)
{
	_cleanup_closedir_ DIR *d = NULL;
	uid_t uid = geteuid();
	struct dirent *de;
	int n = 0;

	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char link[128] = "", path[64];
		struct stat st;
		char *end;
		long fd;

		errno = 0;
		fd = strtol(de->d_name, &end, 10);
		if (de->d_name[0] == '.' || *end || errno || fd < 0 || fd == dirfd(d))
			continue;
		if (fstat((int) fd, &st) < 0 || st.st_uid == uid ||
		    !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
		      S_ISFIFO(st.st_mode)))
			continue;
		(void) snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
		if (readlink(path, link, sizeof(link) - 1) < 0)
			(void) snprintf(link, sizeof(link), "?");
		/* An anonymous pipe's inode is its own: no host file behind it. */
		if (strncmp(link, "pipe:", 5) == 0)
			continue;
		n++;
		/* Its own mode again: nothing changes where it works. */
		if (fchmod((int) fd, st.st_mode & 07777) < 0)
			continue;
		(void) snprintf(escape_how, sizeof(escape_how),
				"chmod of fd %ld (%s, uid %u) allowed", fd, link,
				(unsigned) st.st_uid);
		*ret_how = escape_how;
		return -EPERM;
	}
	return n;
}
