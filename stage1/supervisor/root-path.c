/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "root-path.h"

int root_path_open(int root_fd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t) (flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	return fd < 0 ? -errno : (int) fd;
}

static int dir_is_empty(int fd_path)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int fd;

	fd = openat(fd_path, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		(void) close(fd);
		return -errno;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			return 0;
	return 1;
}

/* Create the missing component name in parent_fd as a directory or an empty file. */
static int component_create(int parent_fd, const char *name, bool dir)
{
	if (dir)
		return mkdirat(parent_fd, name, 0755) < 0 && errno != EEXIST ? -errno : 0;

	int fd =
		openat(parent_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	(void) close(fd);
	return 0;
}

/* The last component is not what we want: check it and maybe replace it. */
static int last_fixup(int parent_fd, const char *name, int *fd, enum root_path_type type,
		      int *flags)
{
	struct stat st, lst;
	int r;

	if (fstat(*fd, &st) < 0)
		return -errno;
	if (type == ROOT_PATH_FILE)
		return S_ISDIR(st.st_mode) ? -EISDIR : 0;
	if (S_ISDIR(st.st_mode)) {
		r = dir_is_empty(*fd);
		if (r < 0)
			return r;
		if (r == 0)
			*flags |= ROOT_PATH_NOT_EMPTY;
		return 0;
	}
	if (fstatat(parent_fd, name, &lst, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISLNK(lst.st_mode))
		return -ENOTDIR;
	if (unlinkat(parent_fd, name, 0) < 0 || mkdirat(parent_fd, name, 0755) < 0)
		return -errno;
	*fd = safe_close(*fd);
	*fd = openat(parent_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*flags |= ROOT_PATH_REPLACED_FILE;
	return 0;
}

int root_path_open_create(int root_fd, const char *path, enum root_path_type type, int *ret_fd,
			  int *ret_flags)
{
	_cleanup_free_ char *prefix = NULL;
	_cleanup_close_ int cur = -1;
	const char *p = path;
	size_t plen = 0;
	int flags = 0, r;

	assert_return(path && path[0] == '/' && ret_fd, -EINVAL);
	prefix = malloc(strlen(path) + 2);
	if (!prefix)
		return -ENOMEM;
	strcpy(prefix, "/");
	plen = 1;
	cur = root_path_open(root_fd, "/", O_PATH | O_DIRECTORY);
	if (cur < 0)
		return cur;

	while (*p) {
		_cleanup_close_ int next = -1;
		char name[NAME_MAX + 1];
		size_t n;
		bool last;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		last = p[strspn(p, "/")] == '\0';

		if (plen > 1)
			prefix[plen++] = '/';
		memcpy(prefix + plen, name, n + 1);
		plen += n;

		next = root_path_open(root_fd, prefix, O_PATH);
		if (next == -ENOENT) {
			struct stat st;

			/* Exists but does not resolve: a dangling symlink we will not follow. */
			if (fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				return -ENOLINK;
			r = component_create(cur, name, !last || type == ROOT_PATH_DIR);
			if (r < 0)
				return r;
			if (last)
				flags |= ROOT_PATH_CREATED;
			next = root_path_open(root_fd, prefix, O_PATH);
		}
		if (next < 0)
			return next;
		if (last) {
			r = last_fixup(cur, name, &next, type, &flags);
			if (r < 0)
				return r;
		} else {
			struct stat st;

			if (fstat(next, &st) < 0)
				return -errno;
			if (!S_ISDIR(st.st_mode))
				return -ENOTDIR;
		}
		safe_close(cur);
		cur = TAKE_FD(next);
	}
	if (plen == 1) {
		/* The path is the root itself. */
		if (type == ROOT_PATH_FILE)
			return -EISDIR;
		r = dir_is_empty(cur);
		if (r < 0)
			return r;
		if (r == 0)
			flags |= ROOT_PATH_NOT_EMPTY;
	}
	*ret_fd = TAKE_FD(cur);
	if (ret_flags)
		*ret_flags = flags;
	return 0;
}
