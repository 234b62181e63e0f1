/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"

#define BENEATH_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
/* openat2 says EAGAIN when a rename raced the lookup; a guest renaming in a loop must not keep
 * the host here forever. */
#define BENEATH_RETRIES 16
/* What beneath_open() takes from its caller; the rest it sets itself. */
#define BENEATH_FLAGS  (O_ACCMODE | O_PATH | O_DIRECTORY | O_APPEND | O_TRUNC)
#define BENEATH_ALWAYS (O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* The component at *p (up to the next '/'), with *p moved past it; NULL at the end. */
static const char *next_component(const char **p, size_t *ret_len)
{
	const char *s = *p, *e;

	while (*s == '/')
		s++;
	if (*s == '\0')
		return NULL;
	e = strchrnul(s, '/');
	*ret_len = (size_t) (e - s);
	*p = e;
	return s;
}

/* -ELOOP when name in dir_fd is a symlink (what an O_NOFOLLOW open refused with ENOTDIR). */
static int link_or(int dir_fd, const char *name, int err)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		return -ELOOP;
	return err;
}

int beneath_resolve_walk(int root_fd, const char *path, int flags)
{
	_cleanup_close_ int cur = -1;
	char name[NAME_MAX + 1];
	const char *p = path, *c;
	size_t len;
	int fd;

	if (!path || *path == '\0')
		return -ENOENT;
	if (*path == '/')
		return -EXDEV;
	for (c = next_component(&p, &len); c; c = next_component(&p, &len)) {
		const char *rest = p;
		size_t rest_len;
		int dir = cur >= 0 ? cur : root_fd;

		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, c, len);
		name[len] = '\0';
		if (strcmp(name, "..") == 0)
			return -EXDEV;
		if (strcmp(name, ".") == 0 && next_component(&rest, &rest_len))
			continue;
		if (!next_component(&rest, &rest_len)) {
			fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC, 0);
			if (fd < 0)
				return errno == ENOTDIR ? link_or(dir, name, -ENOTDIR) : -errno;
			return fd;
		}
		fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOTDIR ? link_or(dir, name, -ENOTDIR) : -errno;
		(void) safe_close(cur);
		cur = fd;
	}
	/* Only "." components: the root itself. */
	fd = openat(cur >= 0 ? cur : root_fd, ".", flags | O_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

static int beneath_resolve(int root_fd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t) (flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = BENEATH_RESOLVE,
	};
	long r = -1;

	for (int i = 0; i < BENEATH_RETRIES; i++) {
		r = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
		if (r >= 0 || errno != EAGAIN)
			break;
	}
	if (r < 0 && errno == ENOSYS)
		return beneath_resolve_walk(root_fd, path, flags);
	return r < 0 ? -errno : (int) r;
}

static int type_check(const struct stat *st, mode_t type)
{
	if ((st->st_mode & S_IFMT) == type)
		return 0;
	if (S_ISLNK(st->st_mode))
		return -ELOOP;
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (type == S_IFDIR)
		return -ENOTDIR;
	return -EBADFD;
}

/*
 * The file of path_fd (O_PATH, type checked) opened as flags: through /proc/self/fd, which
 * reaches that very inode whatever the guest renamed since. Without /proc, the path is
 * resolved again and must still be the same file.
 */
static int reopen(int root_fd, const char *path, int path_fd, const struct stat *st, int flags)
{
	_cleanup_close_ int fd = -1;
	char p[64];
	struct stat st2;

	(void) snprintf(p, sizeof(p), "/proc/self/fd/%d", path_fd);
	fd = open(p, flags);
	if (fd >= 0)
		return TAKE_FD(fd);
	if (errno != ENOENT)
		return -errno;
	fd = beneath_resolve(root_fd, path, flags);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st2) < 0)
		return -errno;
	if (st2.st_dev != st->st_dev || st2.st_ino != st->st_ino)
		return -ESTALE;
	return TAKE_FD(fd);
}

int beneath_open(int root_fd, const char *path, int flags, mode_t type)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	assert_return(root_fd >= 0 || root_fd == AT_FDCWD, -EBADF);
	assert_return(path, -EINVAL);
	assert_return((flags & ~BENEATH_FLAGS) == 0, -EINVAL);
	assert_return(type == S_IFREG || type == S_IFDIR || (flags & O_PATH), -EINVAL);
	assert_return(type != S_IFDIR || (flags & O_ACCMODE) == O_RDONLY, -EINVAL);
	/* O_PATH alone: the type check below says what a link or a non-directory is. */
	fd = beneath_resolve(root_fd, path, O_PATH);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	r = type_check(&st, type);
	if (r < 0)
		return r;
	if (flags & O_PATH)
		return TAKE_FD(fd);
	return reopen(root_fd, path, fd, &st, flags | BENEATH_ALWAYS);
}

int beneath_read(int root_fd, const char *path, size_t max_size, char **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	assert_return(ret_buf, -EINVAL);
	fd = beneath_open(root_fd, path, O_RDONLY, S_IFREG);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t) st.st_size > max_size)
		return -EFBIG;
	/* The size may grow meanwhile: read_full_fd stops at max_size + 1 bytes. */
	return read_full_fd(fd, max_size, ret_buf, ret_len);
}

int beneath_create(int dir_fd, const char *name, int flags, mode_t mode)
{
	int fd;

	assert_return(name && *name && !strchr(name, '/'), -EINVAL);
	assert_return(strcmp(name, ".") != 0 && strcmp(name, "..") != 0, -EINVAL);
	assert_return((flags & O_ACCMODE) == O_WRONLY || (flags & O_ACCMODE) == O_RDWR, -EINVAL);
	assert_return((flags & ~(O_ACCMODE | O_APPEND)) == 0, -EINVAL);
	fd = openat(dir_fd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | BENEATH_ALWAYS,
		    mode & 07777);
	return fd < 0 ? -errno : fd;
}
