/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "vsock/handshake.h"

int vsock_hs_parse(const char *line, size_t len, uint32_t *ret_port)
{
	static const char prefix[] = "CONNECT ";
	uint64_t port = 0;
	size_t i = sizeof(prefix) - 1;

	if (len < i + 2 || memcmp(line, prefix, i) != 0 || line[len - 1] != '\n')
		return -EINVAL;
	for (; i < len - 1; i++) {
		if (line[i] < '0' || line[i] > '9')
			return -EINVAL;
		port = port * 10 + (uint64_t) (line[i] - '0');
		if (port > UINT32_MAX)
			return -ERANGE;
	}
	*ret_port = (uint32_t) port;
	return 0;
}

int vsock_hs_read(struct vsock_hs *hs, uint32_t *ret_port)
{
	char buf[VSOCK_HS_LINE_MAX];
	size_t room = sizeof(hs->line) - hs->len, take;
	const char *nl;
	ssize_t k;
	int r;

	if (hs->fd < 0 || room == 0)
		return -EBADF;
	/* Peek first, then consume exactly up to the newline. */
	k = recv(hs->fd, buf, room, MSG_PEEK | MSG_DONTWAIT);
	if (k < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (k == 0)
		return -ECONNRESET;
	nl = memchr(buf, '\n', (size_t) k);
	take = nl ? (size_t) (nl - buf) + 1 : (size_t) k;
	k = recv(hs->fd, hs->line + hs->len, take, MSG_DONTWAIT);
	if (k != (ssize_t) take)
		return k < 0 ? -errno : -EIO;
	hs->len += (uint8_t) take;
	if (!nl)
		return hs->len < sizeof(hs->line) ? 0 : -E2BIG;
	r = vsock_hs_parse(hs->line, hs->len, ret_port);
	return r < 0 ? r : 1;
}
