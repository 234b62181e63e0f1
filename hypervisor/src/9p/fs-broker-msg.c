/* SPDX-License-Identifier: Apache-2.0 */
/* One SOCK_SEQPACKET message with descriptors, each way (fs-broker.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "9p/fs-broker.h"

int fsb_send(int sock, const struct iovec *iov, size_t n_iov, const int *fds, unsigned n_fds)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * FSB_FDS_MAX)];
	} ctl;
	struct msghdr mh = {.msg_iov = (struct iovec *) iov, .msg_iovlen = n_iov};
	ssize_t n;

	if (n_fds > FSB_FDS_MAX)
		return -EINVAL;
	if (n_fds) {
		memset(&ctl, 0, sizeof(ctl));
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
	return n < 0 ? -errno : 0;
}

ssize_t fsb_recv_fds(int sock, const struct iovec *iov, size_t n_iov, int *fds, unsigned *n_fds,
		     bool *truncated)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * FSB_FDS_MAX)];
	} ctl;
	struct msghdr mh = {.msg_iov = (struct iovec *) iov,
			    .msg_iovlen = n_iov,
			    .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b)};
	ssize_t n;

	*n_fds = 0;
	*truncated = false;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*n_fds < FSB_FDS_MAX) {
				fds[(*n_fds)++] = fd;
			} else {
				(void) close(fd);
				*truncated = true;
			}
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		*truncated = true;
	return n;
}
