/* SPDX-License-Identifier: Apache-2.0 */
/* File-system helpers: directories, files, overlay mounts and their removal. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "stage0.h"

int mkdir_p(const char *path, mode_t mode)
{
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int write_file(const char *path, const char *s, mode_t mode)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode) < 0)
		return -errno;
	return loop_write(fd, s, strlen(s));
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char) (((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 3;
		} else
			*d++ = *s;
	}
	*d = '\0';
}

/* Unmount every mount at or below path, deepest first, until none is left. */
int umount_under(const char *path)
{
	size_t l = strlen(path);

	for (int round = 0; round < 64; round++) {
		_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
		_cleanup_free_ char *line = NULL, *deepest = NULL;
		size_t cap = 0;

		if (!f)
			return -errno;
		while (getline(&line, &cap, f) > 0) {
			char mp[4096];

			if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
				continue;
			unescape(mp);
			if (strncmp(mp, path, l) != 0 || (mp[l] != '\0' && mp[l] != '/'))
				continue;
			if (!deepest || strlen(mp) > strlen(deepest)) {
				free(deepest);
				deepest = strdup(mp);
				if (!deepest)
					return -ENOMEM;
			}
		}
		if (!deepest)
			return 0;
		if (umount2(deepest, MNT_DETACH) < 0)
			return -errno;
	}
	return -EBUSY;
}

int mount_overlay(const char *target, const char *lower, const char *upper, const char *work)
{
	_cleanup_free_ char *opts = NULL;

	/* The option string cannot quote: refuse paths that would change its meaning. */
	if (strpbrk(lower, ",:") || strpbrk(upper, ",:") || strpbrk(work, ",:"))
		return -EINVAL;
	if (asprintf(&opts, "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work) < 0)
		return -ENOMEM;
	if (mount("overlay", target, "overlay", 0, opts) < 0)
		return -errno;
	return 0;
}

int copy_tree(const char *from, const char *to)
{
	_cleanup_free_ char *src = NULL;
	int r;

	if (asprintf(&src, "%s/.", from) < 0)
		return -ENOMEM;
	r = spawn_wait((const char *const[]){"cp", "-a", "--", src, to, NULL}, NULL, -1);
	if (r < 0)
		return r;
	return r == 0 ? 0 : -EIO;
}
