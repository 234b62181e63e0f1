/* SPDX-License-Identifier: Apache-2.0 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "guest-sim.h"

struct guest_sim {
	int pod_tap, gtap, stop_pipe[2], ns_fd;
	pthread_t thread;
	char name[32];
};

void sim_ip(const char *fmt, ...)
{
	char args[512], cmd[600];
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	(void) snprintf(cmd, sizeof(cmd), "ip %s", args);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

static void *pump(void *arg)
{
	struct guest_sim *g = arg;
	char buf[70000];

	for (;;) {
		struct pollfd p[3] = {{.fd = g->pod_tap, .events = POLLIN},
				      {.fd = g->gtap, .events = POLLIN},
				      {.fd = g->stop_pipe[0], .events = POLLIN}};

		if (poll(p, 3, -1) < 0)
			continue;
		if (p[2].revents)
			return NULL;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!(p[i].revents & POLLIN))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n > 0)
				(void) !write(i == 0 ? g->gtap : g->pod_tap, buf, (size_t) n);
		}
	}
}

static int in_netns(int ns_fd, int *saved)
{
	*saved = -1;
	if (ns_fd < 0)
		return 0;
	*saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(*saved, 0);
	return setns(ns_fd, CLONE_NEWNET);
}

static void back(int saved)
{
	if (saved >= 0) {
		ck_assert_int_eq(setns(saved, CLONE_NEWNET), 0);
		close(saved);
	}
}

int guest_sim_start(const struct ccnet_nic *nic, const char *name, struct guest_sim **ret)
{
	const struct cni_ip *ip4 = cni_result_first_ip(&nic->result, AF_INET), *ip6;
	struct guest_sim *g = calloc(1, sizeof(*g));
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR};
	char path[64], addr[INET_ADDRSTRLEN], addr6[INET6_ADDRSTRLEN];
	const uint8_t *m = nic->mac;
	int saved;

	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(ip4);
	(void) snprintf(g->name, sizeof(g->name), "%s", name);
	sim_ip("netns add %s", name);
	(void) snprintf(path, sizeof(path), "/run/netns/%s", name);
	g->ns_fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(g->ns_fd, 0);
	ck_assert_int_eq(in_netns(g->ns_fd, &saved), 0);
	g->gtap = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(g->gtap, 0);
	strcpy(ifr.ifr_name, "gtap");
	ck_assert_int_eq(ioctl(g->gtap, TUNSETIFF, &ifr), 0);
	back(saved);
	(void) inet_ntop(AF_INET, ip4->addr, addr, sizeof(addr));
	sim_ip("-n %s link set lo up", name);
	sim_ip("-n %s link set gtap address %02x:%02x:%02x:%02x:%02x:%02x up", name, m[0], m[1],
	       m[2], m[3], m[4], m[5]);
	sim_ip("-n %s addr add %s/%u dev gtap", name, addr, ip4->prefixlen);
	ip6 = cni_result_first_ip(&nic->result, AF_INET6);
	if (ip6) {
		(void) inet_ntop(AF_INET6, ip6->addr, addr6, sizeof(addr6));
		sim_ip("-n %s addr add %s/%u dev gtap nodad", name, addr6, ip6->prefixlen);
	}
	/* The routes of the result, as the guest's networkd unit has them (guest-config.c). */
	for (size_t i = 0; i < nic->result.n_routes; i++) {
		const struct cni_route *rt = &nic->result.routes[i];
		const struct cni_ip *ip = rt->family == AF_INET ? ip4 : ip6;
		char dst[INET6_ADDRSTRLEN], via[INET6_ADDRSTRLEN];

		if (!ip)
			continue;
		(void) inet_ntop(rt->family, rt->dst, dst, sizeof(dst));
		(void) inet_ntop(rt->family, rt->has_gw ? rt->gw : ip->gateway, via, sizeof(via));
		sim_ip("-n %s route add %s/%u via %s dev gtap onlink", name, dst, rt->dst_len, via);
	}
	g->pod_tap = nic->tap_fd;
	ck_assert_int_eq(pipe2(g->stop_pipe, O_CLOEXEC), 0);
	ck_assert_int_eq(pthread_create(&g->thread, NULL, pump, g), 0);
	*ret = g;
	return 0;
}

void guest_sim_stop(struct guest_sim *g)
{
	if (!g)
		return;
	(void) !write(g->stop_pipe[1], "x", 1);
	(void) pthread_join(g->thread, NULL);
	close(g->stop_pipe[0]);
	close(g->stop_pipe[1]);
	close(g->gtap);
	close(g->ns_fd);
	sim_ip("netns del %s", g->name);
	free(g);
}

int guest_sim_netns_fd(const struct guest_sim *g)
{
	return g->ns_fd;
}

int sim_listen(int ns_fd, uint16_t port)
{
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	int saved, fd, one = 1, zero = 0;

	ck_assert_int_eq(in_netns(ns_fd, &saved), 0);
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	back(saved);
	ck_assert_int_ge(fd, 0);
	(void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Both families: IPv4 peers arrive as ::ffff:a.b.c.d (serve_one prints them plain). */
	ck_assert_int_eq(setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)), 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	return fd;
}

struct client_arg {
	int ns_fd;
	const char *ip, *msg;
	uint16_t port;
	int result;
	volatile int done;
};

static void *client(void *p)
{
	struct client_arg *a = p;
	struct sockaddr_storage ss = {};
	struct sockaddr_in *sa4 = (struct sockaddr_in *) &ss;
	struct sockaddr_in6 *sa6 = (struct sockaddr_in6 *) &ss;
	int family = strchr(a->ip, ':') ? AF_INET6 : AF_INET;
	struct timeval tv = {.tv_sec = 5};
	char buf[128] = "";
	int saved, fd;
	ssize_t n;

	a->result = -1;
	if (in_netns(a->ns_fd, &saved) < 0) {
		a->done = 1;
		return NULL;
	}
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	back(saved);
	ss.ss_family = (sa_family_t) family;
	if (family == AF_INET6)
		sa6->sin6_port = htons(a->port);
	else
		sa4->sin_port = htons(a->port);
	if (fd < 0 || inet_pton(family, a->ip,
				family == AF_INET6 ? (void *) &sa6->sin6_addr
						   : (void *) &sa4->sin_addr) != 1) {
		a->done = 1;
		return NULL;
	}
	(void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void) setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *) &ss,
		    family == AF_INET6 ? sizeof(*sa6) : sizeof(*sa4)) == 0 &&
	    write(fd, a->msg, strlen(a->msg)) == (ssize_t) strlen(a->msg)) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n > 0 && (size_t) n == strlen(a->msg) && memcmp(buf, a->msg, (size_t) n) == 0)
			a->result = 0;
	}
	close(fd);
	a->done = 1;
	return NULL;
}

/* Serve one connection; give up after 5 s, or once *client_done says no connection comes. */
static int serve_one(int lfd, char *ret_peer, size_t size, volatile int *client_done)
{
	struct sockaddr_in6 peer;
	socklen_t pl = sizeof(peer);
	char buf[128];
	ssize_t n;
	int c, i;

	for (i = 0; i < 50; i++) {
		struct pollfd p = {.fd = lfd, .events = POLLIN};

		if (poll(&p, 1, 100) == 1)
			break;
		if (client_done && *client_done)
			return -ECONNREFUSED;
	}
	if (i == 50)
		return -ETIMEDOUT;
	c = accept4(lfd, (struct sockaddr *) &peer, &pl, SOCK_CLOEXEC);
	if (c < 0)
		return -errno;
	if (IN6_IS_ADDR_V4MAPPED(&peer.sin6_addr))
		(void) inet_ntop(AF_INET, &peer.sin6_addr.s6_addr[12], ret_peer, (socklen_t) size);
	else
		(void) inet_ntop(AF_INET6, &peer.sin6_addr, ret_peer, (socklen_t) size);
	n = read(c, buf, sizeof(buf));
	if (n > 0)
		(void) !write(c, buf, (size_t) n);
	close(c);
	return n > 0 ? 0 : -EIO;
}

int sim_echo_serve_one(int lfd, char *ret_peer, size_t size)
{
	return serve_one(lfd, ret_peer, size, NULL);
}

int sim_echo(int client_ns, const char *ip, uint16_t port, int lfd, char *ret_peer, size_t size)
{
	struct client_arg a = {.ns_fd = client_ns, .ip = ip, .port = port, .msg = "cc-net-hello"};
	pthread_t t;
	int r;

	ck_assert_int_eq(pthread_create(&t, NULL, client, &a), 0);
	r = serve_one(lfd, ret_peer, size, &a.done);
	(void) pthread_join(t, NULL);
	return r < 0 ? r : a.result;
}
