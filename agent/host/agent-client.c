/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
 * The VMM's socket as an O_PATH fd, checked to be a socket, through beneath_open(): a relative
 * path beneath the cwd (the pod dir), an absolute one beneath its parent directory (the
 * caller's). No link is followed but one: at the last component, to a relative target, which
 * is then resolved beneath the link's directory through no link at all (stage1's cc/vsock ->
 * vm/vsock of a jailed VMM, vmm-jail.h). So a link or a FIFO a compromised VMM plants where it
 * makes its socket (cc/vsock, or cc/vm/vsock in its jail) cannot point stop or enter at
 * another host socket: -ELOOP, -EXDEV or -EBADFD. *ret_path: the path of the socket that was
 * opened (the link resolved), to connect to where there is no /proc.
 */
static int vsock_socket_open(const char *path, char **ret_path)
{
	_cleanup_free_ char *parent = NULL, *dir = NULL;
	_cleanup_close_ int root_fd = -EBADF, dir_fd = -EBADF;
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path, *rel = path;
	char target[PATH_MAX];
	ssize_t n;
	int fd;

	if (path[0] == '/') {
		parent = strndup(path, slash == path ? 1 : (size_t) (slash - path));
		if (!parent)
			return -ENOMEM;
		root_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root_fd < 0)
			return -errno;
		rel = name;
	}
	fd = beneath_open(root_fd >= 0 ? root_fd : AT_FDCWD, rel, O_PATH, S_IFSOCK);
	if (fd != -ELOOP) {
		if (fd >= 0 && !(*ret_path = strdup(path))) {
			close(fd);
			return -ENOMEM;
		}
		return fd;
	}
	/* The link's directory, itself reached through no link. */
	if (root_fd >= 0)
		dir_fd = TAKE_FD(root_fd);
	else {
		dir = slash ? strndup(path, (size_t) (slash - path)) : strdup(".");
		if (!dir)
			return -ENOMEM;
		dir_fd = beneath_open(AT_FDCWD, dir, O_PATH | O_DIRECTORY, S_IFDIR);
		if (dir_fd < 0)
			return dir_fd;
	}
	n = readlinkat(dir_fd, name, target, sizeof(target));
	if (n < 0)
		return errno == EINVAL ? -ELOOP : -errno; /* the link was in the directory's path */
	if ((size_t) n >= sizeof(target) || n == 0 || memchr(target, '\0', (size_t) n))
		return -ELOOP;
	target[n] = '\0';
	if (target[0] == '/')
		return -ELOOP;
	fd = beneath_open(dir_fd, target, O_PATH, S_IFSOCK);
	if (fd < 0)
		return fd;
	if (asprintf(ret_path, "%.*s%s", slash ? (int) (slash - path + 1) : 0, path, target) < 0) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

int agent_client_connect(const char *vsock_path, unsigned port, int timeout_ms, int *ret_fd,
			 struct cc_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int fd = -EBADF, sock_fd = -EBADF;
	_cleanup_free_ char *sock_path = NULL;
	int r;

	if (!vsock_path || !*vsock_path)
		return cc_error_set(err, -EINVAL, "no vsock socket path");
	sock_fd = vsock_socket_open(vsock_path, &sock_path);
	if (sock_fd < 0)
		return cc_error_set(err, sock_fd, "cannot reach the pod's VM through %s: %m",
				    vsock_path);
	/* That very socket, through its fd; by its path again only where there is no /proc. */
	(void) snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", sock_fd);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cc_error_set(err, -errno, "cannot make a socket: %m");
	r = RET_NERRNO(connect(fd, (struct sockaddr *) &sa, sizeof(sa)));
	if (r == -ENOENT && access("/proc/self/fd", F_OK) < 0) {
		if (strlen(sock_path) >= sizeof(sa.sun_path))
			r = -ENAMETOOLONG;
		else {
			strcpy(sa.sun_path, sock_path);
			r = RET_NERRNO(connect(fd, (struct sockaddr *) &sa, sizeof(sa)));
		}
	}
	if (r < 0)
		return cc_error_set(err, r, "cannot reach the pod's VM through %s: %m", vsock_path);
	r = client_handshake(fd, port, timeout_ms);
	if (r < 0)
		return cc_error_set(err, r, "the pod's agent is not reachable (vsock port %u): %s",
				    port,
				    r == -ECONNREFUSED ? "the guest refused the connection"
				    : r == -EBADMSG    ? "bad handshake reply"
						       : strerror(-r));
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int agent_client_stop(int fd, int timeout_ms, struct cc_error *err)
{
	_cleanup_free_ char *m = NULL;
	struct agent_reader rd;
	struct agent_frame f;
	uint8_t v[4];
	int r, code;

	agent_u32_encode(v, AGENT_VERSION);
	r = agent_send(fd, AGENT_STOP, v, sizeof(v));
	if (r < 0)
		return cc_error_set(err, r, "cannot send the stop request: %m");
	r = agent_reader_init(&rd);
	if (r < 0)
		return cc_error_set(err, r, "%m");
	r = agent_reader_wait(&rd, fd, timeout_ms, &f);
	if (r >= 0 && f.type == AGENT_ERROR)
		r = agent_error_decode(&f, &code, &m);
	else if (r >= 0 && f.type != AGENT_ACCEPTED)
		r = -EBADMSG;
	agent_reader_done(&rd);
	if (r >= 0 && m)
		return cc_error_set(err, -EIO, "%s", m);
	if (r < 0)
		return cc_error_set(err, r, "no answer from the pod's agent: %s",
				    r == -EBADMSG ? "malformed reply" : strerror(-r));
	return 0;
}
