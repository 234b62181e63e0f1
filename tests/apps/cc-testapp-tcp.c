/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TCP steps of cc-testapp, for the networking e2e tests:
 *
 *   serve=PORT[:N]     listen on [::]:PORT (both IPv4 and IPv6; 0.0.0.0:PORT where the
 *                      kernel has no IPv6), print "serving PORT", then answer N connections
 *                      (default 1), each with one line "cc-test[<app>] hello from PORT", and
 *                      print "served <peer address>" for each (so a test sees whether the
 *                      client address was kept or masqueraded)
 *   connect=IP:PORT    connect (10 s timeout), print "connect IP:PORT read <first line>", or
 *                      "connect IP:PORT errno=<name>"; an IPv6 IP is written [IP]
 *   mds=PATH           GET $AC_METADATA_URL PATH (HTTP/1.0), print "mds PATH <status> <first
 *                      body line>", or "mds PATH errno=<name>"
 *   mds-serve=PORT:TOKEN:N
 *                      a stand-in for rkt's metadata service, for the tests: listen on
 *                      PORT as serve does and answer N requests; "GET /TOKEN/acMetadata/v1/REST"
 *                      gets 200 with the body "REST", any other path 401; print
 *                      "mds-served <peer> <path>" for each
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "cc-testapp.h"

static int port_parse(const char *s, char **end)
{
	long v;

	errno = 0;
	v = strtol(s, end, 10);
	if (errno || *end == s || v < 1 || v > 65535)
		return -1;
	return (int) v;
}

int testapp_tcp_listen(int port)
{
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t) port)};
	struct sockaddr_in a4 = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t) port),
				 .sin_addr.s_addr = htonl(INADDR_ANY)};
	int fd, one = 1, zero = 0, e;
	bool v6 = true;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 && errno == EAFNOSUPPORT) {
		v6 = false;
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0) ||
	    (v6 ? bind(fd, (struct sockaddr *) &a6, sizeof(a6))
		: bind(fd, (struct sockaddr *) &a4, sizeof(a4))) < 0 ||
	    listen(fd, 8) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* A peer address as text; IPv4 peers of a dual-stack socket (::ffff:a.b.c.d) as a.b.c.d. */
static void peer_ntop(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *) ss;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *) ss;

	if (ss->ss_family == AF_INET)
		(void) inet_ntop(AF_INET, &a4->sin_addr, buf, (socklen_t) size);
	else if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
		(void) inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], buf, (socklen_t) size);
	else
		(void) inet_ntop(AF_INET6, &a6->sin6_addr, buf, (socklen_t) size);
}

void testapp_step_serve(const char *arg)
{
	char *end;
	long n = 1;
	int port = port_parse(arg, &end), fd;

	if (port > 0 && *end == ':')
		n = strtol(end + 1, &end, 10);
	if (port < 0 || *end || n < 1) {
		testapp_say("serve %s: expected PORT[:N]", arg);
		return;
	}
	fd = testapp_tcp_listen(port);
	if (fd < 0) {
		testapp_say("serve %d errno=%s", port, testapp_errno_name(-fd));
		return;
	}
	testapp_say("serving %d", port);
	for (long i = 0; i < n;) {
		struct sockaddr_storage peer = {};
		socklen_t len = sizeof(peer);
		char ip[INET6_ADDRSTRLEN] = "?";
		int c = accept4(fd, (struct sockaddr *) &peer, &len, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			testapp_say("serve %d accept errno=%s", port, testapp_errno_name(errno));
			break;
		}
		peer_ntop(&peer, ip, sizeof(ip));
		dprintf(c, "cc-test[%s] hello from %d\n", testapp_name, port);
		close(c);
		testapp_say("served %s", ip);
		i++;
	}
	close(fd);
}

int testapp_tcp_connect(const char *ip, int port)
{
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t) port)};
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
	struct timeval tv = {.tv_sec = 10};
	bool v6 = strchr(ip, ':') != NULL;
	int fd, e;

	if (v6 ? inet_pton(AF_INET6, ip, &a6.sin6_addr) != 1
	       : inet_pton(AF_INET, ip, &a4.sin_addr) != 1)
		return -EINVAL;
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    (v6 ? connect(fd, (struct sockaddr *) &a6, sizeof(a6))
		: connect(fd, (struct sockaddr *) &a4, sizeof(a4))) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Read until EOF or the buffer is full; NUL-terminated. */
static size_t read_all(int fd, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t k;

	while (got < size - 1 && (k = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t) k;
	buf[got] = '\0';
	return got;
}

/* The port is after the last colon. */
int testapp_hostport_parse(const char *s, size_t len, char ip[static 64], int *port)
{
	const char *colon = memrchr(s, ':', len), *start = s, *stop = colon;
	char digits[8], *end;

	if (colon && colon - s >= 2 && s[0] == '[' && colon[-1] == ']') {
		start++;
		stop--;
	}
	if (!colon || (size_t) (stop - start) >= 64 ||
	    (size_t) (s + len - colon - 1) >= sizeof(digits))
		return -1;
	memcpy(ip, start, (size_t) (stop - start));
	ip[stop - start] = '\0';
	memcpy(digits, colon + 1, (size_t) (s + len - colon - 1));
	digits[s + len - colon - 1] = '\0';
	*port = port_parse(digits, &end);
	return *port < 0 || *end ? -1 : 0;
}

void testapp_step_connect(const char *arg)
{
	char ip[64], line[256];
	int port, fd;

	if (testapp_hostport_parse(arg, strlen(arg), ip, &port) < 0) {
		testapp_say("connect %s: expected IP:PORT", arg);
		return;
	}
	fd = testapp_tcp_connect(ip, port);
	if (fd < 0) {
		testapp_say("connect %s errno=%s", arg, testapp_errno_name(-fd));
		return;
	}
	read_all(fd, line, sizeof(line));
	close(fd);
	line[strcspn(line, "\r\n")] = '\0';
	testapp_say("connect %s read %s", arg, line);
}

void testapp_step_mds(const char *path)
{
	const char *url = getenv("AC_METADATA_URL"), *hp, *slash;
	char ip[64], resp[4096], *body;
	int port, fd, status = 0;

	if (!url || strncmp(url, "http://", 7) != 0) {
		testapp_say("mds %s: AC_METADATA_URL is %s", path, url ? url : "not set");
		return;
	}
	hp = url + 7;
	slash = strchr(hp, '/');
	if (!slash || testapp_hostport_parse(hp, (size_t) (slash - hp), ip, &port) < 0) {
		testapp_say("mds %s: cannot parse AC_METADATA_URL %s", path, url);
		return;
	}
	fd = testapp_tcp_connect(ip, port);
	if (fd < 0) {
		testapp_say("mds %s errno=%s", path, testapp_errno_name(-fd));
		return;
	}
	dprintf(fd, "GET %s%s HTTP/1.0\r\nHost: %s\r\n\r\n", slash, path, ip);
	read_all(fd, resp, sizeof(resp));
	close(fd);
	(void) sscanf(resp, "HTTP/%*s %d", &status);
	body = strstr(resp, "\r\n\r\n");
	body = body ? body + 4 : resp + strlen(resp);
	body[strcspn(body, "\r\n")] = '\0';
	testapp_say("mds %s %d %s", path, status, body);
}

void testapp_step_mds_serve(const char *arg)
{
	char token[128], prefix[160], *end;
	const char *colon;
	int port = port_parse(arg, &end), fd;
	long n;

	colon = port > 0 && *end == ':' ? strrchr(end + 1, ':') : NULL;
	if (!colon || (size_t) (colon - end - 1) >= sizeof(token) || colon == end + 1) {
		testapp_say("mds-serve %s: expected PORT:TOKEN:N", arg);
		return;
	}
	memcpy(token, end + 1, (size_t) (colon - end - 1));
	token[colon - end - 1] = '\0';
	n = strtol(colon + 1, &end, 10);
	if (*end || n < 1) {
		testapp_say("mds-serve %s: expected PORT:TOKEN:N", arg);
		return;
	}
	snprintf(prefix, sizeof(prefix), "/%s/acMetadata/v1/", token);
	fd = testapp_tcp_listen(port);
	if (fd < 0) {
		testapp_say("mds-serve %d errno=%s", port, testapp_errno_name(-fd));
		return;
	}
	testapp_say("mds-serving %d", port);
	for (long i = 0; i < n;) {
		struct sockaddr_storage peer = {};
		socklen_t len = sizeof(peer);
		char ip[INET6_ADDRSTRLEN] = "?", req[2048], path[1024] = "";
		struct timeval tv = {.tv_sec = 10};
		int c = accept4(fd, (struct sockaddr *) &peer, &len, SOCK_CLOEXEC);
		size_t got = 0;
		ssize_t k;

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			testapp_say("mds-serve %d accept errno=%s", port,
				    testapp_errno_name(errno));
			break;
		}
		(void) setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		while (got < sizeof(req) - 1 &&
		       (k = read(c, req + got, sizeof(req) - 1 - got)) > 0) {
			got += (size_t) k;
			req[got] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		req[got] = '\0';
		(void) sscanf(req, "GET %1023s", path);
		if (strncmp(path, prefix, strlen(prefix)) == 0)
			dprintf(c, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n%s\n",
				path + strlen(prefix));
		else
			dprintf(c, "HTTP/1.0 401 Unauthorized\r\n\r\n");
		close(c);
		peer_ntop(&peer, ip, sizeof(ip));
		testapp_say("mds-served %s %s", ip, path);
		i++;
	}
	close(fd);
}
