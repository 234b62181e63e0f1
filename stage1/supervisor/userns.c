/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "userns.h"

static int userns_write_map(pid_t pid, const char *file, const char *map)
{
	_cleanup_close_ int fd = -1;
	char path[64];
	size_t len = strlen(map);

	(void) snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* The kernel takes a map in one write only. */
	if (write(fd, map, len) != (ssize_t) len)
		return -errno;
	return 0;
}

int userns_open(const char *uid_map, const char *gid_map)
{
	int ready[2], go[2], r = 0, status;
	char path[64], c = 0;
	pid_t pid;
	int fd = -1;

	if (pipe2(ready, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(go, O_CLOEXEC) < 0) {
		r = -errno;
		(void) close(ready[0]);
		(void) close(ready[1]);
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto out;
	}
	if (pid == 0) {
		/* The child: unshare, say so, and wait for the parent (or its death). */
		(void) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		(void) close(ready[0]);
		(void) close(go[1]);
		c = unshare(CLONE_NEWUSER) < 0 ? 1 : 0;
		if (write(ready[1], &c, 1) != 1 || c)
			_exit(1);
		_exit(read(go[0], &c, 1) < 0 ? 1 : 0);
	}
	(void) close(ready[1]);
	ready[1] = -1;
	(void) close(go[0]);
	go[0] = -1;
	if (read(ready[0], &c, 1) != 1 || c) {
		r = -EPERM;
		goto reap;
	}
	r = userns_write_map(pid, "uid_map", uid_map);
	if (r >= 0)
		r = userns_write_map(pid, "gid_map", gid_map);
	if (r >= 0) {
		(void) snprintf(path, sizeof(path), "/proc/%d/ns/user", (int) pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			r = -errno;
	}
reap:
	(void) close(go[1]);
	go[1] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
out:
	for (int i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			(void) close(ready[i]);
		if (go[i] >= 0)
			(void) close(go[i]);
	}
	if (r < 0) {
		safe_close(fd);
		return r;
	}
	return fd;
}
