/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stage1/atomic-write.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"

#define TMP_ATTEMPTS 16

static int name_ok(const char *name)
{
	if (!name || !*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0 || strlen(name) > 200)
		return -EINVAL;
	return 0;
}

int layer_mkdir_p(int dir_fd, const char *relpath, mode_t mode, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	int cur = dir_fd;

	assert_return(relpath && relpath[0] != '/' && ret_fd, -EINVAL);
	for (const char *p = relpath; *p;) {
		const char *end = strchrnul(p, '/');
		char comp[256];
		size_t n = (size_t) (end - p);
		int nfd;

		if (n == 0 || n >= sizeof(comp))
			return -EINVAL;
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (name_ok(comp) < 0)
			return -EINVAL;
		if (mkdirat(cur, comp, mode) < 0 && errno != EEXIST)
			return -errno;
		nfd = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0)
			return errno == ELOOP ? -ENOTDIR : -errno;
		safe_close(fd);
		fd = cur = nfd;
		p = *end ? end + 1 : end;
	}
	if (fd < 0) {
		fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static unsigned tmp_counter;

static void tmp_name(char *buf, size_t size, const char *name)
{
	(void) snprintf(buf, size, ".#%s.%d.%u", name, (int) getpid(), tmp_counter++);
}

int layer_write_file(int dir_fd, const char *name, const char *content, mode_t mode)
{
	char tmp[256];
	_cleanup_close_ int fd = -1;
	int r;

	assert_return(content, -EINVAL);
	if (name_ok(name) < 0)
		return -EINVAL;
	for (int i = 0; i < TMP_ATTEMPTS && fd < 0; i++) {
		tmp_name(tmp, sizeof(tmp), name);
		fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	r = loop_write(fd, content, strlen(content));
	if (r >= 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r >= 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
		r = -errno;
	if (r < 0)
		(void) unlinkat(dir_fd, tmp, 0);
	return r;
}

int layer_symlink(int dir_fd, const char *name, const char *target)
{
	char tmp[256];
	int r = -EEXIST;

	assert_return(target && *target, -EINVAL);
	if (name_ok(name) < 0)
		return -EINVAL;
	for (int i = 0; i < TMP_ATTEMPTS && r == -EEXIST; i++) {
		tmp_name(tmp, sizeof(tmp), name);
		r = symlinkat(target, dir_fd, tmp) < 0 ? -errno : 0;
	}
	if (r < 0)
		return r;
	if (renameat(dir_fd, tmp, dir_fd, name) < 0) {
		r = -errno;
		(void) unlinkat(dir_fd, tmp, 0);
	}
	return r;
}
