/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent-client.h"
#include "agent-io.h"
#include "cc/beneath.h"
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
 * The VMM's socket as an O_PATH fd, checked to be a socket reached through no link: a relative
 * path resolves beneath the cwd (the pod dir) through none at all, an absolute one from its
 * parent directory (the caller's). So a link or a FIFO planted at cc/vsock (by a compromised
 * VMM, which makes the socket) cannot point stop or enter at another host socket.
 */
static int vsock_socket_open(const char *path)
{
	_cleanup_free_ char *parent = NULL;
	_cleanup_close_ int dir_fd = -EBADF;
	const char *slash = strrchr(path, '/');

	if (path[0] != '/')
		return beneath_open(AT_FDCWD, path, O_PATH, S_IFSOCK);
	parent = strndup(path, slash == path ? 1 : (size_t) (slash - path));
	if (!parent)
		return -ENOMEM;
	dir_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;
	return beneath_open(dir_fd, slash + 1, O_PATH, S_IFSOCK);
}

int agent_client_connect(const char *vsock_path, unsigned port, int timeout_ms, int *ret_fd,
			 char **ret_msg)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int fd = -EBADF, sock_fd = -EBADF;
	int r;

	*ret_msg = NULL;
	if (!vsock_path || strlen(vsock_path) >= sizeof(sa.sun_path)) {
		agent_msg(ret_msg, "%s: path too long for a unix socket", vsock_path ?: "");
		return -ENAMETOOLONG;
	}
	sock_fd = vsock_socket_open(vsock_path);
	if (sock_fd < 0) {
		agent_msg(ret_msg, "cannot reach the pod's VM through %s: %s", vsock_path,
			  strerror(-sock_fd));
		return sock_fd;
	}
	/* That very socket, through its fd; by its path again only where there is no /proc. */
	(void) snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", sock_fd);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = RET_NERRNO(connect(fd, (struct sockaddr *) &sa, sizeof(sa)));
	if (r == -ENOENT && access("/proc/self/fd", F_OK) < 0) {
		strcpy(sa.sun_path, vsock_path);
		r = RET_NERRNO(connect(fd, (struct sockaddr *) &sa, sizeof(sa)));
	}
	if (r < 0) {
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
