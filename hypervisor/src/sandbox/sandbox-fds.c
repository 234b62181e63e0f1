/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "sandbox/sandbox-fds.h"

static int sandbox_fd_parse(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT32_MAX)
		return -1;
	return (int) v;
}

int sandbox_fds_close_inherited(int keep_fd)
{
	_cleanup_closedir_ DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	/* Closing entries already read does not disturb the listing (procfs walks by number). */
	while ((de = readdir(d))) {
		int fd = sandbox_fd_parse(de->d_name);
		int flags;

		if (fd <= STDERR_FILENO || fd == keep_fd || fd == dirfd(d))
			continue;
		flags = fcntl(fd, F_GETFD);
		if (flags < 0 || (flags & FD_CLOEXEC))
			continue;
		(void) close(fd);
		n++;
	}
	return n;
}
