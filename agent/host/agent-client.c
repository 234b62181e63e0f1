/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent-client.h"
#include "agent-io.h"
#include "cc/cleanup.h"

#define HANDSHAKE_MAX 32

static long long client_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read the "OK <n>\n" line one byte at a time: what follows belongs to the agent. */
static int client_handshake(int fd, unsigned port, int timeout_ms)
{
	long long deadline = client_now_ms() + timeout_ms;
	char line[HANDSHAKE_MAX + 1];
	size_t n = 0;
	int r;

	snprintf(line, sizeof(line), "CONNECT %u\n", port);
	r = agent_send_raw(fd, line, strlen(line));
	if (r < 0)
		return r;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long long left = deadline - client_now_ms();
		ssize_t k;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int) left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		k = read(fd, line + n, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ECONNREFUSED; /* the VMM closes us when the guest refuses */
		if (line[n] == '\n')
			break;
		if (++n == HANDSHAKE_MAX)
			return -EBADMSG;
	}
	line[n] = '\0';
	if (strncmp(line, "OK ", 3) != 0 || line[3] < '0' || line[3] > '9' ||
	    strspn(line + 3, "0123456789") != n - 3)
		return -EBADMSG;
	return 0;
}

/*
 * The socket at path, as an O_PATH fd: its last component resolved beneath its directory (the
 * pod's cc/), where the jailed VMM can write (cc/vm): a link it plants there must not send
 * the host's root to a host socket. A relative link that stays beneath (cc/vsock -> vm/vsock)
 * is followed; an absolute one, a ".." out of the directory or a /proc magic link is -EXDEV
 * or -ELOOP, and anything but a socket -ENOTSOCK.
 */
static int client_socket_open(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int dir_fd = -EBADF, fd = -EBADF;
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	struct stat st;
	long r;

	if (slash && (size_t) (slash - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	if (slash) {
		memcpy(dir, path, (size_t) (slash - path));
		dir[slash - path] = '\0';
	}
	dir_fd = open(!slash ? "." : slash == path ? "/" : dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;
	do
		r = syscall(SYS_openat2, dir_fd, name, &how, sizeof(how));
	while (r < 0 && errno == EAGAIN);
	if (r < 0)
		return -errno;
	fd = (int) r;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	return TAKE_FD(fd);
}

int agent_client_connect(const char *vsock_path, unsigned port, int timeout_ms, int *ret_fd,
			 char **ret_msg)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int fd = -EBADF, path_fd = -EBADF;
	int r;

	*ret_msg = NULL;
	if (!vsock_path || !*vsock_path) {
		agent_msg(ret_msg, "no vsock socket path");
		return -EINVAL;
	}
	path_fd = client_socket_open(vsock_path);
	if (path_fd < 0) {
		agent_msg(ret_msg, "cannot reach the pod's VM through %s: %s", vsock_path,
			  strerror(-path_fd));
		return path_fd;
	}
	/* Connect to exactly the inode resolved above. */
	(void) snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", path_fd);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
		r = -errno;
		agent_msg(ret_msg, "cannot reach the pod's VM through %s: %s", vsock_path,
			  strerror(-r));
		return r;
	}
	r = client_handshake(fd, port, timeout_ms);
	if (r < 0) {
		agent_msg(ret_msg, "the pod's agent is not reachable (vsock port %u): %s", port,
			  r == -ECONNREFUSED ? "the guest refused the connection"
			  : r == -EBADMSG    ? "bad handshake reply"
					     : strerror(-r));
		return r;
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int agent_client_stop(int fd, int timeout_ms, char **ret_msg)
{
	struct agent_reader rd;
	struct agent_frame f;
	uint8_t v[4];
	int r, code;

	*ret_msg = NULL;
	agent_u32_encode(v, AGENT_VERSION);
	r = agent_send(fd, AGENT_STOP, v, sizeof(v));
	if (r < 0) {
		agent_msg(ret_msg, "cannot send the stop request: %s", strerror(-r));
		return r;
	}
	r = agent_reader_init(&rd);
	if (r < 0)
		return r;
	r = agent_reader_wait(&rd, fd, timeout_ms, &f);
	if (r >= 0 && f.type == AGENT_ERROR) {
		char *m = NULL;

		r = agent_error_decode(&f, &code, &m);
		if (r >= 0) {
			*ret_msg = m;
			r = -EIO;
		}
	} else if (r >= 0 && f.type != AGENT_ACCEPTED) {
		r = -EBADMSG;
	}
	agent_reader_done(&rd);
	if (r < 0 && !*ret_msg)
		agent_msg(ret_msg, "no answer from the pod's agent: %s",
			  r == -EBADMSG ? "malformed reply" : strerror(-r));
	return r < 0 ? r : 0;
}
