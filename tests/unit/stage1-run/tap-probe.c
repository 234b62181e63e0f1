/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tap-probe FD MAC IP GATEWAY: for the fake VMM of test-run-fake-vmm. Plays the guest on the
 * inherited tap fd FD (IFF_VNET_HDR: a 10-byte virtio-net header before each frame): sends an
 * ARP request for GATEWAY from MAC/IP and waits (3 s) for the gateway's ARP reply, which can
 * only come through the whole path (tap -> mirred -> veth -> host -> veth -> mirred -> tap).
 * Exit 0 on the reply, 1 with a message otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define VNET_HDR_LEN 10
#define ARP_LEN	     42

static int mac_parse(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char end;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &end) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t) v[i];
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* An ARP request (who has gw? tell ip/mac), broadcast, after a zeroed virtio-net header. */
static void arp_request(uint8_t *b, const uint8_t mac[6], const uint8_t ip[4], const uint8_t gw[4])
{
	uint8_t *f = b + VNET_HDR_LEN;

	memset(b, 0, VNET_HDR_LEN + ARP_LEN);
	memset(f, 0xff, 6);
	memcpy(f + 6, mac, 6);
	f[12] = 0x08, f[13] = 0x06;		       /* ARP */
	f[15] = 1, f[16] = 0x08, f[18] = 6, f[19] = 4; /* Ethernet, IPv4 */
	f[21] = 1;				       /* request */
	memcpy(f + 22, mac, 6);
	memcpy(f + 28, ip, 4);
	memcpy(f + 38, gw, 4);
}

static bool is_reply(const uint8_t *f, size_t len, const uint8_t mac[6], const uint8_t ip[4],
		     const uint8_t gw[4])
{
	return len >= ARP_LEN && f[12] == 0x08 && f[13] == 0x06 && f[21] == 2 &&
	       memcmp(f + 28, gw, 4) == 0 && memcmp(f + 32, mac, 6) == 0 &&
	       memcmp(f + 38, ip, 4) == 0;
}

int main(int argc, char *argv[])
{
	uint8_t mac[6], ip[4], gw[4], req[VNET_HDR_LEN + ARP_LEN];
	long long deadline;
	char *end;
	long fd;

	if (argc != 5)
		return fprintf(stderr, "usage: tap-probe FD MAC IP GATEWAY\n"), 2;
	fd = strtol(argv[1], &end, 10);
	if (*end || fd < 0 || fd > 65535 || mac_parse(argv[2], mac) < 0 ||
	    inet_pton(AF_INET, argv[3], ip) != 1 || inet_pton(AF_INET, argv[4], gw) != 1)
		return fprintf(stderr, "tap-probe: bad arguments\n"), 2;
	arp_request(req, mac, ip, gw);
	if (write((int) fd, req, sizeof(req)) != (ssize_t) sizeof(req))
		return fprintf(stderr, "tap-probe: write to fd %ld: %m\n", fd), 1;
	deadline = now_ms() + 3000;
	for (;;) {
		struct pollfd p = {.fd = (int) fd, .events = POLLIN};
		long long left = deadline - now_ms();
		uint8_t buf[2048];
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int) left) <= 0)
			return fprintf(stderr, "tap-probe: no ARP reply from %s\n", argv[4]), 1;
		n = read((int) fd, buf, sizeof(buf));
		if (n < 0)
			return fprintf(stderr, "tap-probe: read: %m\n"), 1;
		if (n > VNET_HDR_LEN &&
		    is_reply(buf + VNET_HDR_LEN, (size_t) n - VNET_HDR_LEN, mac, ip, gw))
			return 0;
	}
}
