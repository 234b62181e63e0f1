/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"

int read_full_fd(int fd, size_t max_size, char **ret_buf, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			size_t ncap = cap ? cap * 2 : 16384;
			char *nbuf;

			if (ncap > max_size + 1)
				ncap = max_size + 1;
			if (ncap <= len)
				return -EFBIG;
			nbuf = realloc(buf, ncap + 1);
			if (!nbuf)
				return -ENOMEM;
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t) n;
		if (len > max_size)
			return -EFBIG;
	}

	if (!buf) {
		buf = malloc(1);
		if (!buf)
			return -ENOMEM;
	}
	buf[len] = '\0';
	*ret_buf = TAKE_PTR(buf);
	if (ret_len)
		*ret_len = len;
	return 0;
}

int read_full_file(const char *path, size_t max_size, char **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISREG(st.st_mode) && (uint64_t) st.st_size > max_size)
		return -EFBIG;
	return read_full_fd(fd, max_size, ret_buf, ret_len);
}

int loop_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

ssize_t loop_read(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, p + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t) n;
	}
	return (ssize_t) done;
}

int pread_exact(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, p + done, len - done, off + (off_t) done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENODATA;
		done += (size_t) n;
	}
	return 0;
}

int write_string_file(const char *path, const char *s)
{
	_cleanup_close_ int fd = -1;

	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	return loop_write(fd, s, strlen(s));
}

int write_string_file_atomic(const char *path, const char *s, mode_t mode)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	if (asprintf(&tmp, "%s.tmpXXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = loop_write(fd, s, strlen(s));
	if (r >= 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r >= 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		(void) unlink(tmp);
	return r;
}

int open_on_read_only_mount(const char *path, int flags)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
	_cleanup_free_ char *dir_copy = strdup(path), *base_copy = strdup(path);
	_cleanup_close_ int tree = -1;
	int fd;

	if (!dir_copy || !base_copy)
		return -ENOMEM;
	if ((flags & O_ACCMODE) == O_WRONLY || (flags & (O_CREAT | O_TRUNC)))
		return -EINVAL;
	/* Recursive: a mount on top of the file (a bind over /dev/kvm) is what path names. */
	tree = open_tree(AT_FDCWD, dirname(dir_copy),
			 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (tree < 0)
		return -errno;
	if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
		return -errno;
	fd = openat(tree, basename(base_copy), flags | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
