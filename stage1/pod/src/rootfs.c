/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "stage1/rootfs.h"
#include "util.h"

int rootfs_open(int rootfs_fd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t) (flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	assert_return(rootfs_fd >= 0 && path, -EINVAL);
	assert_return(!(flags & O_CREAT), -EINVAL);
	if (*path == '\0')
		return -ENOENT;
	fd = syscall(SYS_openat2, rootfs_fd, path, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	return (int) fd;
}

int rootfs_stat(int rootfs_fd, const char *path, struct stat *ret)
{
	_cleanup_close_ int fd = -1;

	fd = rootfs_open(rootfs_fd, path, O_PATH);
	if (fd < 0)
		return fd;
	if (fstat(fd, ret) < 0)
		return -errno;
	return 0;
}

int rootfs_read_file(int rootfs_fd, const char *path, size_t max_size, char **ret_buf,
		     size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	/* Look before opening for reading: a FIFO would block, a device node could react. */
	r = rootfs_stat(rootfs_fd, path, &st);
	if (r < 0)
		return r;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EBADF;
	if ((uint64_t) st.st_size > max_size)
		return -EFBIG;
	fd = rootfs_open(rootfs_fd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADF;
	return read_full_fd(fd, max_size, ret_buf, ret_len);
}

bool unit_path_is_valid(const char *p)
{
	size_t n, comp = 0;

	if (!p || p[0] != '/')
		return false;
	n = strlen(p);
	if (n >= 4096)
		return false;
	if (n > 1 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\\'))
		return false;
	for (size_t i = 0; i <= n; i++) {
		unsigned char c = (unsigned char) p[i];

		if (c == '/' || c == '\0') {
			size_t start = i - comp;

			if ((comp == 1 && p[start] == '.') ||
			    (comp == 2 && p[start] == '.' && p[start + 1] == '.'))
				return false;
			comp = 0;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			return false;
		if (++comp > 255)
			return false;
	}
	return true;
}

int rootfs_find_executable(int rootfs_fd, const char *argv0, char **ret)
{
	const char *dirs = STAGE1_ACE_PATH;
	char *copy;

	assert_return(argv0 && ret, -EINVAL);
	if (argv0[0] == '/') {
		copy = strdup(argv0);
		if (!copy)
			return -ENOMEM;
		*ret = copy;
		return 0;
	}
	if (argv0[0] == '\0' || strchr(argv0, '/') || streq(argv0, ".") || streq(argv0, "..") ||
	    strlen(argv0) > 255)
		return -EINVAL;

	for (const char *d = dirs; *d;) {
		const char *end = strchrnul(d, ':');
		_cleanup_free_ char *path = NULL;
		struct stat st;
		int r;

		if (asprintf(&path, "%.*s/%s", (int) (end - d), d, argv0) < 0)
			return -ENOMEM;
		r = rootfs_stat(rootfs_fd, path, &st);
		if (r == -ENOSYS || r == -ENOMEM)
			return r;
		if (r >= 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
			*ret = TAKE_PTR(path);
			return 0;
		}
		d = *end ? end + 1 : end;
	}
	return -ENOENT;
}
