/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bulk transfer steps of cc-testapp, for the network throughput benchmark
 * (tests/bench/net-throughput):
 *
 *   recv=PORT          listen (as serve does), accept one connection, read it to its end,
 *                      close, print "recv PORT bytes=B ms=T mbit_s=R" (the time from the
 *                      accept to the end of the data)
 *   send=IP:PORT:MB    connect, write MB MiB, shut the write side, read to the end (the
 *                      receiver closes once it has everything), print
 *                      "send IP:PORT bytes=B ms=T mbit_s=R" (from the connect to that end)
 *
 * A failed step prints "recv PORT errno=<name>" or "send ... errno=<name>".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cc-testapp.h"

#define CHUNK  (64u * 1024u)
#define MB_MAX 65536L

static uint64_t now_us(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static void say_rate(const char *what, uint64_t bytes, uint64_t us)
{
	testapp_say("%s bytes=%llu ms=%llu mbit_s=%.1f", what, (unsigned long long) bytes,
		    (unsigned long long) (us / 1000u),
		    us ? (double) bytes * 8.0 / (double) us : 0.0);
}

void testapp_step_recv(const char *arg)
{
	static char buf[CHUNK];
	uint64_t bytes = 0, start;
	char *end;
	long port = strtol(arg, &end, 10);
	int fd, c;
	ssize_t n;

	if (*arg == '\0' || *end || port < 1 || port > 65535) {
		testapp_say("recv %s: expected PORT", arg);
		return;
	}
	fd = testapp_tcp_listen((int) port);
	if (fd < 0) {
		testapp_say("recv %ld errno=%s", port, testapp_errno_name(-fd));
		return;
	}
	testapp_say("recv %ld listening", port);
	do
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	while (c < 0 && (errno == EINTR || errno == ECONNABORTED));
	close(fd);
	if (c < 0) {
		testapp_say("recv %ld accept errno=%s", port, testapp_errno_name(errno));
		return;
	}
	start = now_us();
	while ((n = read(c, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			bytes += (uint64_t) n;
	if (n < 0) {
		testapp_say("recv %ld read errno=%s after %llu bytes", port,
			    testapp_errno_name(errno), (unsigned long long) bytes);
		close(c);
		return;
	}
	close(c);
	{
		char what[32];

		(void) snprintf(what, sizeof(what), "recv %ld", port);
		say_rate(what, bytes, now_us() - start);
	}
}

/* Write len bytes of buf; -errno on failure. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t) n;
	}
	return 0;
}

void testapp_step_send(const char *arg)
{
	static char buf[CHUNK];
	const char *colon = strrchr(arg, ':');
	char ip[64], what[128], *end;
	uint64_t start, total;
	long mb;
	int port, fd, r = 0;

	mb = colon ? strtol(colon + 1, &end, 10) : 0;
	if (!colon || colon[1] == '\0' || *end || mb < 1 || mb > MB_MAX ||
	    testapp_hostport_parse(arg, (size_t) (colon - arg), ip, &port) < 0) {
		testapp_say("send %s: expected IP:PORT:MB", arg);
		return;
	}
	(void) snprintf(what, sizeof(what), "send %.*s", (int) (colon - arg), arg);
	memset(buf, 0xa5, sizeof(buf));
	start = now_us();
	fd = testapp_tcp_connect(ip, port);
	if (fd < 0) {
		testapp_say("%s errno=%s", what, testapp_errno_name(-fd));
		return;
	}
	total = (uint64_t) mb * 1024u * 1024u;
	for (uint64_t done = 0; done < total && r == 0; done += CHUNK)
		r = write_all(fd, buf, CHUNK);
	if (r == 0 && shutdown(fd, SHUT_WR) < 0)
		r = -errno;
	/* The receiver closes once it has read everything: that is the end. */
	while (r == 0) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n == 0)
			break;
		if (n < 0 && errno != EINTR)
			r = -errno;
	}
	close(fd);
	if (r < 0) {
		testapp_say("%s errno=%s", what, testapp_errno_name(-r));
		return;
	}
	say_rate(what, total, now_us() - start);
}
