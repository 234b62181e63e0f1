/* SPDX-License-Identifier: Apache-2.0 */
/* One message each way on the worker's SOCK_SEQPACKET socket (9p-wire.h). */
#include <errno.h>
#include <sys/socket.h>

#include "9p/9p-wire.h"

int p9_wire_send(int sock, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = send(sock, buf, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t) n == len ? 0 : -EPIPE;
}

ssize_t p9_wire_recv(int sock, void *buf, size_t len)
{
	ssize_t n;

	do
		n = recv(sock, buf, len, 0);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}
