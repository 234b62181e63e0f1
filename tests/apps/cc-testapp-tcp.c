/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TCP steps of cc-testapp, for the networking e2e tests:
 *
 *   serve=PORT[:N]     listen on 0.0.0.0:PORT, print "serving PORT", then answer N connections
 *                      (default 1), each with one line "cc-test[<app>] hello from PORT", and
 *                      print "served <peer address>" for each (so a test sees whether the
 *                      client address was kept or masqueraded)
 *   connect=IP:PORT    connect (10 s timeout), print "connect IP:PORT read <first line>", or
 *                      "connect IP:PORT errno=<name>"
 */
#include <arpa/inet.h>
#include <errno.h>
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

void testapp_step_serve(const char *arg)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	char *end;
	long n = 1;
	int port = port_parse(arg, &end), fd, one = 1;

	if (port > 0 && *end == ':')
		n = strtol(end + 1, &end, 10);
	if (port < 0 || *end || n < 1) {
		testapp_say("serve %s: expected PORT[:N]", arg);
		return;
	}
	a.sin_port = htons((uint16_t) port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *) &a, sizeof(a)) < 0 || listen(fd, 8) < 0) {
		testapp_say("serve %d errno=%s", port, testapp_errno_name(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	testapp_say("serving %d", port);
	for (long i = 0; i < n;) {
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		char ip[INET_ADDRSTRLEN] = "?";
		int c = accept4(fd, (struct sockaddr *) &peer, &len, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			testapp_say("serve %d accept errno=%s", port, testapp_errno_name(errno));
			break;
		}
		inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof(ip));
		dprintf(c, "cc-test[%s] hello from %d\n", testapp_name, port);
		close(c);
		testapp_say("served %s", ip);
		i++;
	}
	close(fd);
}

void testapp_step_connect(const char *arg)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	struct timeval tv = {.tv_sec = 10};
	char host[64], line[256], *colon, *end;
	ssize_t got = 0, k;
	int port, fd;

	colon = strrchr(arg, ':');
	if (!colon || (size_t) (colon - arg) >= sizeof(host)) {
		testapp_say("connect %s: expected IP:PORT", arg);
		return;
	}
	memcpy(host, arg, (size_t) (colon - arg));
	host[colon - arg] = '\0';
	port = port_parse(colon + 1, &end);
	if (port < 0 || *end || inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		testapp_say("connect %s: expected IP:PORT", arg);
		return;
	}
	a.sin_port = htons((uint16_t) port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0) {
		testapp_say("connect %s errno=%s", arg, testapp_errno_name(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((size_t) got < sizeof(line) - 1 &&
	       (k = read(fd, line + got, sizeof(line) - 1 - (size_t) got)) > 0)
		got += k;
	close(fd);
	line[got] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	testapp_say("connect %s read %s", arg, line);
}
