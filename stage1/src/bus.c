/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "cc/cleanup.h"
#include "cc/time-util.h"
#include "cc/fileio.h"

/* Read exactly n bytes before the deadline. */
static int read_exact(int fd, void *buf, size_t n, int64_t deadline)
{
	uint8_t *p = buf;

	while (n > 0) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - now_monotonic_ms();
		ssize_t k;

		if (left <= 0)
			return -ETIMEDOUT;
		k = poll(&pfd, 1, (int) left);
		if (k < 0 && errno != EINTR)
			return -errno;
		if (k <= 0)
			continue;
		k = read(fd, p, n);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ECONNRESET;
		p += k, n -= (size_t) k;
	}
	return 0;
}

/* The path of a "unix:path=P[,key=value...]" address, in a buffer of sun_path's size. */
static int address_path(const char *address, char *ret, size_t size)
{
	const char *p, *end;

	if (strncmp(address, "unix:", 5) != 0)
		return -EAFNOSUPPORT;
	for (p = address + 5; *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, ",;");
		if (strncmp(p, "path=", 5) == 0) {
			size_t n = (size_t) (end - p - 5);

			if (n == 0 || n >= size)
				return -EAFNOSUPPORT;
			memcpy(ret, p + 5, n);
			ret[n] = '\0';
			return 0;
		}
		if (*end == ';')
			break;
	}
	return -EAFNOSUPPORT;
}

/* SASL EXTERNAL with our uid; the server's line must start with "OK ". */
static int bus_auth(int fd, int64_t deadline)
{
	char uid[16], line[128], hex[2 * sizeof(uid) + 1] = "";
	size_t n = 0;
	int r;

	(void) snprintf(uid, sizeof(uid), "%u", (unsigned) geteuid());
	for (size_t i = 0; uid[i]; i++)
		(void) snprintf(hex + 2 * i, 3, "%02x", (unsigned char) uid[i]);
	(void) snprintf(line, sizeof(line), "AUTH EXTERNAL %s\r\n", hex);
	r = loop_write(fd, "", 1);
	if (r >= 0)
		r = loop_write(fd, line, strlen(line));
	if (r < 0)
		return r;
	while (n < sizeof(line) - 1) {
		r = read_exact(fd, line + n, 1, deadline);
		if (r < 0)
			return r;
		if (line[n++] == '\n')
			break;
	}
	line[n] = '\0';
	if (strncmp(line, "OK ", 3) != 0)
		return -EPROTO;
	return loop_write(fd, "BEGIN\r\n", 7);
}

static int bus_read_msg(struct bus *b, int64_t deadline, struct bus_reply *ret)
{
	uint8_t head[16];
	int64_t size;
	int r;

	r = read_exact(b->fd, head, sizeof(head), deadline);
	if (r < 0)
		return r;
	size = bus_msg_size(head, sizeof(head));
	if (size < 0)
		return -EPROTO;
	free(b->rbuf);
	b->rbuf = malloc((size_t) size);
	if (!b->rbuf)
		return -ENOMEM;
	memcpy(b->rbuf, head, sizeof(head));
	r = read_exact(b->fd, b->rbuf + sizeof(head), (size_t) size - sizeof(head), deadline);
	if (r < 0)
		return r;
	return bus_msg_parse(b->rbuf, (size_t) size, ret) < 0 ? -EPROTO : 0;
}

int bus_call(struct bus *b, struct bus_msg *m, struct bus_reply *ret)
{
	int64_t deadline = now_monotonic_ms() + BUS_TIMEOUT_MS;
	uint32_t serial = ++b->serial;
	int r;

	if (b->fd < 0)
		return -EINVAL;
	bus_msg_set_serial(m, serial);
	r = bus_msg_finish(m);
	if (r < 0)
		return r;
	r = loop_write(b->fd, m->buf, m->len);
	if (r < 0)
		return r;
	/* Skip signals (NameAcquired after Hello) and anything that is not our reply. */
	for (;;) {
		r = bus_read_msg(b, deadline, ret);
		if (r < 0)
			return r;
		if ((ret->type == BUS_MSG_METHOD_RETURN || ret->type == BUS_MSG_ERROR) &&
		    ret->reply_serial == serial)
			return 0;
	}
}

int bus_open(struct bus *b, const char *address)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_(bus_msg_done) struct bus_msg m = {};
	struct timeval tv = {.tv_sec = BUS_TIMEOUT_MS / 1000};
	struct bus_reply reply;
	int r;

	*b = (struct bus){.fd = -1};
	if (!address) {
		address = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");
		if (!address || !*address)
			address = BUS_SYSTEM_DEFAULT_ADDRESS;
	}
	r = address_path(address, sa.sun_path, sizeof(sa.sun_path));
	if (r < 0)
		return r;
	b->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (b->fd < 0)
		return -errno;
	/* Writes block; a stuck bus must not hang the pod's supervisor for long. */
	(void) setsockopt(b->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(b->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
		r = -errno;
		bus_close(b);
		return r;
	}
	r = bus_auth(b->fd, now_monotonic_ms() + BUS_TIMEOUT_MS);
	if (r >= 0) {
		bus_msg_method_call(&m, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				    "org.freedesktop.DBus", "Hello", NULL);
		r = bus_call(b, &m, &reply);
	}
	if (r >= 0 && reply.type != BUS_MSG_METHOD_RETURN)
		r = -EPROTO;
	if (r < 0)
		bus_close(b);
	return r;
}

void bus_close(struct bus *b)
{
	b->fd = safe_close(b->fd);
	free(b->rbuf);
	b->rbuf = NULL;
}
