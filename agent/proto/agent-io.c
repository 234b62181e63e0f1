/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agent-io.h"
#include "cc/macro.h"

#define AGENT_BUF_SIZE (AGENT_HEADER_SIZE + AGENT_PAYLOAD_MAX)

int agent_send_raw(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pfd = {.fd = fd, .events = POLLOUT};

				if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
					return -errno;
				continue;
			}
			return -errno;
		}
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

int agent_send(int fd, uint32_t type, const void *payload, size_t len)
{
	uint8_t hdr[AGENT_HEADER_SIZE];
	int r;

	assert_return(payload || len == 0, -EINVAL);
	r = agent_frame_header(hdr, type, len);
	if (r < 0)
		return r;
	r = agent_send_raw(fd, hdr, sizeof(hdr));
	if (r >= 0 && len > 0)
		r = agent_send_raw(fd, payload, len);
	return r;
}

int agent_reader_init(struct agent_reader *r)
{
	assert_return(r, -EINVAL);
	*r = (struct agent_reader){.buf = malloc(AGENT_BUF_SIZE)};
	return r->buf ? 0 : -ENOMEM;
}

void agent_reader_done(struct agent_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	*r = (struct agent_reader){};
}

/* Drop the frame returned last (its payload pointer becomes invalid). */
static void agent_reader_compact(struct agent_reader *r)
{
	if (r->consumed == 0)
		return;
	memmove(r->buf, r->buf + r->consumed, r->len - r->consumed);
	r->len -= r->consumed;
	r->consumed = 0;
}

int agent_reader_next(struct agent_reader *r, struct agent_frame *ret)
{
	size_t consumed;
	int k;

	assert_return(r && r->buf && ret, -EINVAL);
	agent_reader_compact(r);
	k = agent_frame_parse(r->buf, r->len, ret, &consumed);
	if (k > 0)
		r->consumed = consumed;
	return k;
}

int agent_reader_fill(struct agent_reader *r, int fd)
{
	ssize_t n;

	assert_return(r && r->buf, -EINVAL);
	if (r->eof)
		return 0;
	agent_reader_compact(r);
	/* A whole frame fits in the buffer: it is full only when the caller did not take the
	 * frame it holds. Never overflow; report it. */
	if (r->len >= AGENT_BUF_SIZE)
		return -ENOBUFS;
	do
		n = read(fd, r->buf + r->len, AGENT_BUF_SIZE - r->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		r->eof = true;
	r->len += (size_t) n;
	return (int) n;
}

int agent_reader_wait(struct agent_reader *r, int fd, int timeout_ms, struct agent_frame *ret)
{
	int k;

	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};

		k = agent_reader_next(r, ret);
		if (k != 0)
			return k;
		if (r->eof)
			return -ECONNRESET;
		k = poll(&pfd, 1, timeout_ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ETIMEDOUT;
		k = agent_reader_fill(r, fd);
		if (k < 0 && k != -EAGAIN)
			return k;
	}
}
