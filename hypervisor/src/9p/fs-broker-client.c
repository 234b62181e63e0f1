/* SPDX-License-Identifier: Apache-2.0 */
/* The worker's side of fs-broker.h: one request, one reply, descriptors both ways. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "9p/fs-broker.h"

int fsb_call(int sock, const struct fsb_req *q, const int *fds, unsigned n_fds, const char *name,
	     const char *name2, const void *value, int *ret_fds, unsigned *ret_n_fds, void *data,
	     size_t data_cap)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * FSB_FDS_MAX)];
	} ctl;
	struct fsb_req h = *q;
	struct fsb_resp a;
	struct iovec iov[4];
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 4};
	size_t l1 = name ? strlen(name) : 0, l2 = name2 ? strlen(name2) : 0;
	ssize_t n;
	int r = 0;

	*ret_n_fds = 0;
	if (n_fds > FSB_FDS_MAX || l1 > FSB_NAME_MAX || l2 > FSB_NAME2_MAX ||
	    q->value_len > FSB_VALUE_MAX)
		return -ENAMETOOLONG;
	h.name_len = (uint32_t) l1;
	h.name2_len = (uint32_t) l2;
	iov[0] = (struct iovec){&h, sizeof(h)};
	iov[1] = (struct iovec){(void *) name, l1};
	iov[2] = (struct iovec){(void *) name2, l2};
	iov[3] = (struct iovec){(void *) value, value ? q->value_len : 0};
	if (!value)
		h.value_len = 0;
	memset(&ctl, 0, sizeof(ctl));
	if (n_fds) {
		mh.msg_control = ctl.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		ctl.h.cmsg_level = SOL_SOCKET;
		ctl.h.cmsg_type = SCM_RIGHTS;
		ctl.h.cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(&ctl.h), fds, sizeof(int) * n_fds);
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ECONNRESET ? -EPIPE : -errno;

	iov[0] = (struct iovec){&a, sizeof(a)};
	iov[1] = (struct iovec){data, data ? data_cap : 0};
	mh = (struct msghdr){.msg_iov = iov,
			     .msg_iovlen = 2,
			     .msg_control = ctl.b,
			     .msg_controllen = sizeof(ctl.b)};
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ECONNRESET ? -EPIPE : -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*ret_n_fds < FSB_FDS_MAX)
				ret_fds[(*ret_n_fds)++] = fd;
			else
				(void) close(fd);
		}
	}
	if (n == 0)
		r = -EPIPE;
	else if ((size_t) n < sizeof(a) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
		 (size_t) n != sizeof(a) + a.data_len || a.n_fds != *ret_n_fds)
		r = -EIO;
	if (r < 0) {
		for (unsigned i = 0; i < *ret_n_fds; i++)
			(void) close(ret_fds[i]);
		*ret_n_fds = 0;
		return r;
	}
	return a.result;
}
