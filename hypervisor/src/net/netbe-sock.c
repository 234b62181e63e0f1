/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/macro.h"
#include "net/netbe-sock.h"

struct netbe_sock {
	struct net_backend be; /* first: the ops get &be */
	int fd;
	unsigned enabled;
};

static struct netbe_sock *to_sock(struct net_backend *be)
{
	return (struct netbe_sock *) be;
}

static int netbe_sock_tx(struct net_backend *be, const struct iovec *iov, unsigned n)
{
	struct msghdr msg = {.msg_iov = (struct iovec *) iov, .msg_iovlen = n};
	ssize_t k;

	do
		k = sendmsg(to_sock(be)->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return 0;
}

static ssize_t netbe_sock_rx(struct net_backend *be, const struct iovec *iov, unsigned n)
{
	struct msghdr msg = {.msg_iov = (struct iovec *) iov, .msg_iovlen = n};
	ssize_t k;

	/* MSG_TRUNC: return the real length of a message that did not fit. */
	do
		k = recvmsg(to_sock(be)->fd, &msg, MSG_DONTWAIT | MSG_TRUNC);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (k == 0)
		return -EPIPE; /* peer closed: nothing more will come */
	return k;
}

static int netbe_sock_fd(struct net_backend *be)
{
	return to_sock(be)->fd;
}

static int netbe_sock_set_offloads(struct net_backend *be, unsigned offloads)
{
	if (offloads & ~be->offloads)
		return -EOPNOTSUPP;
	to_sock(be)->enabled = offloads;
	return 0;
}

static void netbe_sock_close(struct net_backend *be)
{
	struct netbe_sock *s = to_sock(be);

	safe_close(s->fd);
	free(s);
}

static const struct net_backend_ops netbe_sock_ops = {
	.tx = netbe_sock_tx,
	.rx = netbe_sock_rx,
	.fd = netbe_sock_fd,
	.set_offloads = netbe_sock_set_offloads,
	.close = netbe_sock_close,
};

int netbe_sock_new(int fd, unsigned offloads, struct net_backend **ret)
{
	_cleanup_close_ int owned = fd;
	struct netbe_sock *s;
	int flags;

	assert_return(fd >= 0 && ret, -EINVAL);
	flags = fcntl(owned, F_GETFL);
	if (flags < 0 || fcntl(owned, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->be = (struct net_backend){.ops = &netbe_sock_ops, .offloads = offloads};
	s->fd = TAKE_FD(owned);
	*ret = &s->be;
	return 0;
}

unsigned netbe_sock_enabled_offloads(struct net_backend *be)
{
	return to_sock(be)->enabled;
}
