/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cc/macro.h"
#include "nl.h"

void nl_msg_init(struct nl_msg *m, uint16_t type, uint16_t flags, const void *fam, size_t len)
{
	memset(m, 0, sizeof(*m));
	m->hdr.nlmsg_type = type;
	m->hdr.nlmsg_flags = (uint16_t) (flags | NLM_F_REQUEST | NLM_F_ACK);
	memcpy(m->buf + NLMSG_HDRLEN, fam, len);
	m->hdr.nlmsg_len = NLMSG_ALIGN(NLMSG_LENGTH(len));
}

void nl_put(struct nl_msg *m, uint16_t type, const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(m->hdr.nlmsg_len);
	struct rtattr a;

	if (off + RTA_SPACE(len) > sizeof(m->buf) || RTA_LENGTH(len) > UINT16_MAX) {
		m->overflow = 1;
		return;
	}
	a.rta_type = type;
	a.rta_len = (unsigned short) RTA_LENGTH(len);
	memcpy(m->buf + off, &a, sizeof(a));
	if (len)
		memcpy(m->buf + off + RTA_LENGTH(0), data, len);
	m->hdr.nlmsg_len = (uint32_t) (off + RTA_SPACE(len));
}

void nl_put_str(struct nl_msg *m, uint16_t type, const char *s)
{
	nl_put(m, type, s, strlen(s) + 1);
}

void nl_put_u32(struct nl_msg *m, uint16_t type, uint32_t v)
{
	nl_put(m, type, &v, sizeof(v));
}

size_t nl_nest_begin(struct nl_msg *m, uint16_t type)
{
	size_t off = NLMSG_ALIGN(m->hdr.nlmsg_len);

	nl_put(m, (uint16_t) (type | NLA_F_NESTED), NULL, 0);
	return off;
}

void nl_nest_end(struct nl_msg *m, size_t off)
{
	unsigned short l = (unsigned short) (m->hdr.nlmsg_len - off);

	if (m->overflow)
		return;
	memcpy(m->buf + off + offsetof(struct rtattr, rta_len), &l, sizeof(l));
}

int nl_open(int *ret_fd)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int nl_request(int fd, struct nl_msg *m)
{
	static uint32_t seq;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	union {
		struct nlmsghdr hdr;
		char buf[8192];
	} rb;

	if (m->overflow)
		return -E2BIG;
	m->hdr.nlmsg_seq = ++seq;
	memcpy(m->buf, &m->hdr, sizeof(m->hdr));
	if (sendto(fd, m->buf, m->hdr.nlmsg_len, 0, (struct sockaddr *) &sa, sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, rb.buf, sizeof(rb.buf), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (size_t off = 0; off + NLMSG_HDRLEN <= (size_t) n;) {
			const struct nlmsghdr *h = (const void *) (rb.buf + off);
			const struct nlmsgerr *e;

			if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > (size_t) n - off)
				return -EBADMSG;
			off += NLMSG_ALIGN(h->nlmsg_len);
			if (h->nlmsg_seq != m->hdr.nlmsg_seq || h->nlmsg_type != NLMSG_ERROR)
				continue;
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				return -EBADMSG;
			e = NLMSG_DATA(h);
			return e->error;
		}
	}
}
